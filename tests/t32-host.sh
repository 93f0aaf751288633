#!/bin/sh
# t32-host.sh - a keeper's host of many games: `nomic deliver DIR` takes a
# mail into the game whose `address` is its recipient (--to, the MTA's
# envelope recipient, else the headers it wrote) and never into the wrong
# one; `nomic serve DIR` serves every game of DIR in one process (the list
# at / and /api/games, each game at /NAME/), takes in a game made while it
# runs, and runs each game's timers although another game is held up.
. "$(dirname "$0")/lib.sh"
. "$SRCDIR/tests/serve.sh"

mkdir games
for g in alpha beta; do
    "$NOMIC" init games/$g.db --ruleset favor >/dev/null || fail "init $g"
    "$NOMIC" config games/$g.db address $g@nomic.test || fail "the address of $g"
done
expect_status 2 "an address setting that is not an address" "$NOMIC" config games/alpha.db address "not an address"
expect_in err "a bare mail address" "the refusal says what an address is"

mail() { # FROM MESSAGE-ID [HEADER]: a mail registering FROM's nickname
    [ -n "${3:-}" ] && printf '%s\n' "$3"
    printf 'From: %s@example.org\nTo: someone@nomic.test\nSubject: joining\nMessage-ID: <%s@example.org>\n\n' "$1" "$2"
    printf 'subtype: register\nnickname: %s\n' "$1"
}
players() { "$NOMIC" show games/$1.db --type player | grep -c '^nickname:'; }
events() { "$NOMIC" log games/$1.db | grep -c '^event '; }

# ---- mail routed by address ----
mail alice 1 | "$NOMIC" deliver games --to alpha@nomic.test >out 2>err
expect_eq "$?" 0 "a mail --to alpha's address is taken"
expect_eq "$(players alpha)/$(players beta)" "1/0" "into alpha alone"
mail bob 2 | "$NOMIC" deliver games --to BETA@Nomic.Test >out 2>err
expect_eq "$(players alpha)/$(players beta)" "1/1" "an address in another case is the same game's"
mail carol 3 | "$NOMIC" deliver games --to beta+join@nomic.test >out 2>err
expect_eq "$(players beta)" 2 "an address with a +detail is its game's"
before="$(events alpha)/$(events beta)"
mail dave 4 | "$NOMIC" deliver games --to gamma@nomic.test >out 2>err
expect_eq "$?" 67 "a mail for no game exits 67 (EX_NOUSER): the MTA bounces it"
expect_in err "no game here has the address gamma@nomic.test" "and says why"
expect_not_in err "alpha" "without naming the host's other games to the sender"
expect_eq "$(events alpha)/$(events beta)" "$before" "no game journaled it"

mail erin 5 | ORIGINAL_RECIPIENT=alpha@nomic.test "$NOMIC" deliver games >out 2>err
expect_eq "$(players alpha)" 2 "without --to, the envelope recipient the MTA gives (ORIGINAL_RECIPIENT)"
mail frank 6 "Delivered-To: alpha@nomic.test" | RECIPIENT=nobody@nomic.test "$NOMIC" deliver games >out 2>err
expect_eq "$?/$(players alpha)" "67/2" "a header is not read when the MTA gave the recipient (a sender may forge it)"
mail grace 7 "Delivered-To: beta@nomic.test" | env -u ORIGINAL_RECIPIENT -u RECIPIENT "$NOMIC" deliver games >out 2>err
expect_eq "$?/$(players beta)" "0/3" "else the Delivered-To the MTA wrote"
mail heidi 8 "X-Original-To: beta@nomic.test" | env -u ORIGINAL_RECIPIENT -u RECIPIENT "$NOMIC" deliver games >out 2>err
expect_eq "$?/$(players beta)" "0/4" "or its X-Original-To"
mail ivan 9 | env -u ORIGINAL_RECIPIENT -u RECIPIENT "$NOMIC" deliver games >out 2>err
expect_eq "$?" 75 "nothing says which game: exit 75, the MTA keeps the mail"
expect_in err "give --to" "and the keeper is told how to say it"

cp games/beta.db games/twin.db
mail judy 10 | "$NOMIC" deliver games --to beta@nomic.test >out 2>err
expect_eq "$?/$(players beta)/$(players twin)" "0/5/4" \
    "two games of one address, one of them named as its local part: that one takes the mail, found first"
cp games/beta.db games/twin2.db
"$NOMIC" config games/twin.db address league@nomic.test
"$NOMIC" config games/twin2.db address league@nomic.test
mail kim 12 | "$NOMIC" deliver games --to league@nomic.test >out 2>err
expect_eq "$?" 75 "two games of one address, neither named so: the mail waits (75) rather than go to either"
expect_in err "two games" "and says so"
rm games/twin2.db
mail kim 12 | "$NOMIC" deliver games --to league@nomic.test >out 2>err
expect_eq "$?/$(players twin)" "0/5" "taken once the keeper set them apart"
rm games/twin.db
expect_status 64 "--mbox takes a game, not a directory" "$NOMIC" deliver games --mbox /dev/null
expect_status 64 "--to is for a directory" "$NOMIC" deliver games/alpha.db --to alpha@nomic.test </dev/null

# ---- nomic serve DIR ----
printf 'nonsense\n' >games/junk.db
touch -d '1 minute ago' games/junk.db
"$NOMIC" init "games/my game.db" --ruleset favor >/dev/null
start_server games || exit 1
wait_until 5 grep -q "junk is not served" serve.err && ok || fail "a file of the directory that is no game is said"
expect_in serve.err "my game.db is not served: a game's name" "and a game whose name cannot be its path, with the rule"
expect_in serve.out "alpha on $URL/alpha/" "the banner names each game's address"
expect_http 200 "the games as JSON" GET /api/games
expect_json "[g['name'] for g in j['games']]" "['alpha', 'beta']" "every game of the directory"
expect_json "[(g['path'], g['sets'], g['players'], g['openProposals']) for g in j['games']]" \
    "[('/alpha/', ['favor'], 2, 0), ('/beta/', ['favor'], 5, 0)]" "with its path, sets, players and open proposals"
expect_json "all(g['event'] > 0 and g['lastEventAt'] > 0 for g in j['games'])" "True" "and its last event"
expect_http 200 "the list page" GET /
expect_in body "games.js" "is the games' page"
expect_http 301 "a game's name without its slash" GET /alpha -D headers
expect_in headers "Location: alpha/" "goes to its page, relative (it holds under a proxy's prefix)"
expect_http 200 "a game's page" GET /alpha/
expect_in body "app.js" "is the game's page"
expect_http 200 "its API" GET /alpha/api/game
expect_json "(j['name'], j['site'])" "('alpha', True)" "answers for that game, one of a site's (the page links to the list)"
printf 'subtype: register\nnickname: ken\n' >move
expect_http 200 "a move on beta's API" POST '/beta/api/move?from=ken@example.org' --data-binary @move
expect_json "j['status']" "applied" "is applied"
expect_eq "$(players alpha)/$(players beta)" "2/6" "to beta alone"
expect_http 404 "a game that is not there" GET /nope/api/game
expect_in body "no game nope here" "says so"
expect_http 404 "no API of a game at the top" GET /api/game
mail leo 11 | "$NOMIC" deliver games --to alpha@nomic.test >/dev/null 2>&1
alpha_players() { http GET /api/games && [ "$(json body "j['games'][0]['players']")" = 3 ]; }
wait_until 5 alpha_players && ok || fail "a mail delivered beside the server shows in its list"

# games run at once, each with its own interned texts: eight clients
# registering players in alpha and beta together (python's threads, so
# that the moves do overlap), every move answered applied, each in its
# own game, and the server alive
before_a=$(players alpha) before_b=$(players beta)
python3 - "$URL" >burst.out <<'PY'
import sys, threading, urllib.request
url, counts, lock = sys.argv[1], {}, threading.Lock()
def client(game, tag):
    for i in range(100):
        req = urllib.request.Request(f"{url}/{game}/api/move?from={tag}{i}@example.org",
                                     data=f"REGISTER {tag}{i}\n".encode(), method="POST")
        try:
            body = urllib.request.urlopen(req, timeout=30).read().decode()
        except Exception as e:
            body = str(e)
        with lock:
            counts[game] = counts.get(game, 0) + ('"status":"applied"' in body)
ts = [threading.Thread(target=client, args=(g, f"{g[0]}{k}x")) for g in ("alpha", "beta") for k in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print(counts.get("alpha", 0), counts.get("beta", 0))
PY
expect_eq "$(cat burst.out)" "400 400" "moves into two games at once: every one applied"
expect_eq "$(players alpha)/$(players beta)" "$((before_a + 400))/$((before_b + 400))" "and each in its own game"
kill -0 "$SERVER" && ok || fail "the server survived games running at once"

# a game made while it runs, whose timer falls due in a few seconds,
# while another program holds alpha for longer than the clock would wait
# for it (LOCK_WAIT_MS, 10 s): one clock for all would run gamma's timer
# only after that
flock -o games/alpha.db sleep 15 &
HOLDER=$!
due=$(($(date +%s) + 3))
cat >timer.nomic <<EOF
type: engineSettings
runType: rule

type: rule
ruleOrder: 10
if: timeGE($due) & !exists(type=="deadline")
then: create(type=="deadline" & at==timeNow())
EOF
"$NOMIC" init games/gamma.db --ruleset timer.nomic >/dev/null
has_gamma() { http GET /api/games && [ "$(json body "[g['name'] for g in j['games']]")" = "['alpha', 'beta', 'gamma']" ]; }
wait_until 5 has_gamma && ok || fail "a game made in the directory is served within seconds"
expect_in serve.out "gamma on $URL/gamma/ (new)" "and the server says so"
deadline() { http GET '/gamma/api/objects?type=deadline' && [ "$(json body 'len(j)')" = 1 ]; }
wait_until 6 deadline && ok || fail "gamma's timer ran while alpha was held up"
expect_json "0 <= int(j[0]['at']) - $due <= 3" "True" "at its time, not once alpha's wait for its lock was over"
kill $HOLDER 2>/dev/null
wait $HOLDER 2>/dev/null
# a game that does not open (here a format this build does not know) is
# said once, not opened again at every scan, and served once it is mended
cp games/alpha.db games/later.db
"$NOMIC" config games/later.db address later@nomic.test
sqlite3 games/later.db "UPDATE meta SET value='99' WHERE key='format'"
wait_until 5 grep -q "later is not served" serve.err && ok || fail "a game that does not open is said"
sleep 2.5 # a scan or two more
expect_eq "$(grep -c 'later is not served' serve.err)" 1 "once"
sqlite3 games/later.db "UPDATE meta SET value='4' WHERE key='format'"
later_served() { http GET /api/games && [ "$(json body "'later' in [g['name'] for g in j['games']]")" = True ]; }
wait_until 5 later_served && ok || fail "the mended game is served at the next scan"
stop_server
expect_in serve.out "stopped" "the server stops on SIGTERM"
# ---- behind the keeper's proxy ----
# Strangers are billed by their address too (quotaEvents a sender or a
# client may run in an hour, here 1): behind a proxy every request comes
# from loopback, and --proxy reads the client the proxy names, the last of
# X-Forwarded-For (what comes before it is the client's to write).
"$NOMIC" init p.db --ruleset favor >/dev/null
"$NOMIC" config p.db quotaEvents 1
register() { # NICK FORWARDED-FOR...: a stranger's move, as a proxy passes it
    nick=$1
    shift
    printf 'subtype: register\nnickname: %s\n' "$nick" >move
    http POST "/api/move?from=$nick@example.org" --data-binary @move "$@"
    json body "j['status']"
}
start_server p.db --proxy || exit 1
expect_eq "$(register ann -H 'X-Forwarded-For: 198.51.100.1')" applied "a stranger behind the proxy"
expect_eq "$(register bea -H 'X-Forwarded-For: 198.51.100.2')" applied \
    "another stranger behind the same proxy has a tally of her own"
expect_eq "$(register cid -H 'X-Forwarded-For: 198.51.100.1, 198.51.100.3')" applied \
    "the proxy's address is the last: one written before it by the client is not taken"
expect_eq "$(register dan -H 'X-Forwarded-For: 198.51.100.1')" refused "the first client's second move is over its quota"
stop_server
start_server p.db || exit 1
expect_eq "$(register eve -H 'X-Forwarded-For: 198.51.100.8')" applied "without --proxy, a first stranger"
expect_eq "$(register fay -H 'X-Forwarded-For: 198.51.100.9')" refused \
    "and a second is loopback's too: the header is not read, the quota is over"
stop_server
report host
