#!/bin/sh
# t30-serve.sh - nomic serve as a player and a game-keeper meet it: the JSON
# API of docs/api.md, tokens and privacy, the clock firing a deadline by
# itself, other programs writing the game while it is served, bad and slow
# requests.  Run from the project root: sh tests/t30-serve.sh
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$SRCDIR/tests/serve.sh"

# ---- a favor game over HTTP ----
"$NOMIC" init g.db --ruleset favor >init.out
start_server g.db || exit 1

expect_http 200 "the page" GET /
expect_in body "<html" "the page is HTML"
expect_http 200 "the game" GET /api/game
expect_json "j['name'], j['event'], j['halted']" "g 0 False" "a new game"
expect_json "'REGISTER <nickname>' in j['sugar']" "True" "the sugar forms are listed"
expect_in init.out "sha256 $(json body "j['seedCommitment']")" "the seed's commitment is the one init printed"
expect_json "'seed' in j" "False" "the seed itself is not shown before reveal"
"$NOMIC" config g.db name "Engine City" >/dev/null
expect_http 200 "the game with a display name" GET /api/game
expect_json "j['name']" "Engine City" "the page shows the game's display name, not its file's"
"$NOMIC" config g.db name --unset >/dev/null

expect_http 200 "register by HTTP" POST '/api/move?from=alice@example.org' --data-binary 'REGISTER alice'
expect_json "j['event'], j['status']" "1 applied" "the move is event 1, applied"
expect_json "[r['text'] for r in j['replies']]" "['Welcome to Engine City, alice !']" "the reply to the sender"
expect_http 405 "POST the page" POST / -d x=1
expect_http 200 "register with a form" POST /api/move --data-urlencode 'body=REGISTER bob' --data-urlencode 'from=bob@example.org'
expect_json "j['status']" "applied" "the form's move is applied"

expect_http 200 "players" GET '/api/objects?type=player'
expect_json "sorted(o['nickname'] for o in j)" "['alice', 'bob']" "both players"
expect_json "all('objectId' in o and isinstance(o['score'], str) for o in j)" "True" "objects carry objectId, values are text"
id=$(json body "j[0]['objectId']")
expect_http 200 "one object" GET "/api/objects/$id"
expect_json "j['objectId'], j['type']" "$id player" "the object by id"
expect_http 404 "no such object" GET /api/objects/99999
expect_http 404 "not an id" GET /api/objects/abc

expect_http 200 "the rules" GET /api/rules
expect_json "len(j) > 20 and all(r['type'] == 'rule' for r in j)" "True" "favor's rules"
expect_json "[int(r['ruleOrder']) for r in j] == sorted(int(r['ruleOrder']) for r in j)" "True" "in run order"
expect_json "all(r['error'] is None for r in j)" "True" "every rule can fire"

expect_http 200 "the log" GET '/api/log?since=1'
expect_json "[e['event'] for e in j]" "[2]" "events after 1"
expect_json "j[0]['sender'], j[0]['status'], len(j[0]['trace']) > 0" "bob@example.org applied True" "with sender, outcome, trace"
expect_http 400 "a bad since" GET '/api/log?since=x'
expect_json "'since' in j['error']" "True" "the error names the parameter"

expect_http 200 "a refused move" POST '/api/move?from=alice@example.org' --data-binary 'FLY away'
expect_json "j['status']" "refused" "refused, and journaled"
expect_json "j['message'].startswith('move:1:')" "True" "it says where it could not read the move"
expect_json "j['codeCheck']" "[]" "a move without rule code has nothing checked"
expect_http 200 "a rule-change with a slip" POST '/api/move?from=alice@example.org' \
    --data-binary 'CREATE 10020 IF exists(type="player" & score>10) THEN halt()'
# code that does not parse: favor's rule 11 refuses the proposal (the rules
# decide); the Mechanics' check tells the proposer, and the API, where
expect_json "j['status']" "no effect" "favor refuses a proposal whose code does not parse"
expect_json "any('was not taken' in r['text'] and 'newif, line 1, column 12' in r['text'] for r in j['replies'])" "True" \
    "the rules' refusal names the part and where"
expect_json "[(c['move'], c['attribute'], c['line'], c['column'], c['severity']) for c in j['codeCheck']]" \
    "[(1, 'newif', 1, 12, 'error')]" "the API names the move, the attribute and where"
expect_json "'use ==' in j['codeCheck'][0]['message']" "True" "with nomic check's message"
expect_json "any('codeAttributes' in r['text'] and \"use ==\" in r['text'] for r in j['replies'])" "True" \
    "and the proposer is told in a reply"
SLIP=$(json body "j['event']")
SLIPBATCH=$(json body "j['codeCheck'][0]['moveBatch']")
expect_http 200 "the log of the rule-change, for the public" GET "/api/log?since=$((SLIP - 1))&limit=1"
expect_json "[(c['moveBatch'], c['attribute'], c['severity']) for c in j[0]['codeCheck']]" \
    "[($SLIPBATCH, 'newif', 'error')]" "the code check is journaled with the event, for every reader"
# code that parses, with an error of nomic check's (a variable nothing
# binds): the Mechanics' check refuses nothing, the proposal goes to the vote
expect_http 200 "a rule-change that parses, with a checker's error" POST '/api/move?from=alice@example.org' \
    --data-binary 'CREATE 10020 IF exists(type=="player" & score>%x) THEN halt()'
expect_json "j['status']" "applied" "the Mechanics' check refuses nothing"
expect_json "[(c['move'], c['attribute'], c['line'], c['column'], c['severity']) for c in j['codeCheck']]" \
    "[(1, 'newif', 1, 31, 'error')]" "its note names the move, the attribute and where"
SLIPBATCH=$(json body "j['codeCheck'][0]['moveBatch']")
expect_http 200 "the proposal" GET /api/objects?type=voteInProgress
expect_json "[o['propId'] for o in j]" "['$SLIPBATCH']" "the notes' moveBatch is the proposal's id (favor's propId)"
expect_http 400 "no sender" POST /api/move --data-binary 'REGISTER carol'
expect_http 400 "no body" POST '/api/move?from=c@example.org'
expect_http 405 "GET a move" GET /api/move
expect_http 405 "POST the rules" POST /api/rules -d x
expect_http 404 "no such API" GET /api/nothing
expect_http 404 "no such page" GET /nothing
head -c 300000 /dev/zero | tr '\0' 'a' >big
expect_http 413 "a body too big" POST '/api/move?from=alice@example.org' --data-binary @big

# ---- tokens ----
TA=$("$NOMIC" token g.db alice@example.org)
TB=$("$NOMIC" token g.db bob@example.org)
expect_http 401 "outbox without a token" GET /api/outbox
expect_http 401 "a bad token" GET /api/outbox -H "Authorization: Bearer 0123"
expect_http 200 "alice's outbox" GET /api/outbox -H "Authorization: Bearer $TA"
expect_json "all('alice@example.org' in m['to'].split() for m in j) and len(j) > 0" "True" "only alice's messages"
expect_json "any('Welcome' in m['text'] for m in j)" "True" "her welcome is there"
expect_http 200 "the game knows the caller" GET /api/game -H "Authorization: Bearer $TB"
expect_json "j['you']" "bob@example.org" "you"

"$NOMIC" config g.db mailPolicy tokens
before=$("$NOMIC" show g.db | md5sum)
expect_http 403 "a move without a token, under tokens" POST '/api/move?from=alice@example.org' --data-binary 'REGISTER mallory'
expect_json "j['status']" "refused" "journaled as refused"
expect_http 403 "bob's token for alice" POST '/api/move?from=alice@example.org' -H "Authorization: Bearer $TB" --data-binary 'REGISTER mallory'
after=$("$NOMIC" show g.db | md5sum)
[ "$before" = "$after" ] && ok || fail "a refused move changed the state"
expect_http 200 "a move with the token" POST /api/move -H "Authorization: Bearer $TA" --data-binary 'REGISTER alice2'
expect_json "j['status']" "applied" "applied under the token's address"

# ---- another program writes the game while it is served ----
echo 'REGISTER carol' | "$NOMIC" move g.db --from carol@example.org >/dev/null
last=$("$NOMIC" log g.db --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][-1]["event"])')
expect_http 200 "the server sees carol" GET '/api/objects?type=player'
expect_json "'carol' in [o['nickname'] for o in j]" "True" "the game was reloaded"
expect_http 200 "a move after it" POST /api/move -H "Authorization: Bearer $TB" --data-binary 'REGISTER bob2'
expect_json "j['event']" "$((last + 1))" "numbered after the other program's event"
expect_status 0 "the journal replays" "$NOMIC" replay g.db

# ---- a slow client holds up no one ----
python3 - "$PORT" <<'EOF' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"POST /api/move HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nREG")
time.sleep(4)
EOF
SLOW=$!
sleep 0.3
start=$(date +%s%N)
expect_http 200 "a request beside a slow client" GET /api/game
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -lt 1000 ] && ok || fail "a request waited ${ms} ms behind a slow client"
kill $SLOW 2>/dev/null
wait $SLOW 2>/dev/null
stop_server

# ---- private attributes and the clock ----
due=$(( $(date +%s) + 3 ))
cat >secret.nomic <<EOF
type: engineSettings
runType: rule
privateAttributes: secret

type: rule
ruleOrder: 10
if: exists(type=="move" & subtype=="hide" & moveSender==%s & secret==%x & objectId==%m)
then: create(type=="vault" & defaultEmail==%s & secret==%x & label=="mine") & delete(objectId==%m)

type: rule
ruleOrder: 20
if: timeGE($due) & !exists(type=="deadline")
then: create(type=="deadline" & at==timeNow())
EOF
"$NOMIC" init s.db --ruleset secret.nomic >/dev/null
TS=$("$NOMIC" token s.db sue@example.org)
start_server s.db || exit 1
printf 'subtype: hide\nsecret: swordfish\n' >move
expect_http 200 "a private move" POST /api/move -H "Authorization: Bearer $TS" --data-binary @move
expect_http 200 "the vault in public" GET '/api/objects?type=vault'
expect_json "j[0]['label'], 'secret' in j[0]" "mine False" "the secret is not shown to the public"
expect_http 200 "the vault to its owner" GET '/api/objects?type=vault' -H "Authorization: Bearer $TS"
expect_json "j[0]['secret']" "swordfish" "the owner sees it"
TO=$("$NOMIC" token s.db other@example.org)
expect_http 200 "the vault to another player" GET '/api/objects?type=vault' -H "Authorization: Bearer $TO"
expect_json "'secret' in j[0]" "False" "another player does not"
expect_http 200 "the public log" GET /api/log
expect_not_in body swordfish "the public log does not show the secret"
expect_http 200 "the owner's log" GET /api/log -H "Authorization: Bearer $TS"
expect_in body swordfish "the owner's log shows her own move"
expect_http 200 "the page" GET /
expect_not_in body swordfish "the page does not hold it"

i=0
while [ $i -lt 80 ]; do
    http GET '/api/objects?type=deadline'
    [ "$(json body 'len(j)')" = 1 ] && break
    i=$((i + 1))
    sleep 0.1
done
expect_json "int(j[0]['at']) >= $due" "True" "the deadline fired by itself, at its time"
expect_in serve.err "timer at" "the server says it ran a timer"
stop_server
expect_in serve.out "stopped" "the server stops on SIGTERM"

# strict FILE: parses FILE as JSON from bytes that must be UTF-8
strict() { python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))' "$1" 2>/dev/null; }
expect_strict() { # FILE DESCRIPTION
    if strict "$1"; then ok; else fail "$2: not JSON in strict UTF-8"; head -c 300 "$1"; echo; fi
}
# ujson EXPR WANT DESCRIPTION: like expect_json, the body decoded as UTF-8
ujson() {
    got=$(python3 -c "import json; j=json.loads(open('body','rb').read().decode('utf-8','replace')); print($1)" 2>&1)
    if [ "$got" = "$2" ]; then ok; else fail "$3: $1 = $got, expected $2"; fi
}

# ---- a long event holds up no reader ----
# Three million firings last several seconds on any machine seen (1.7 to
# 3 s per million); each GET below checks that the move was still running
# when it was answered, which is the test's premise, not its duration.
cat >heavy.nomic <<'EOF'
type: engineSettings
runType: rule
maxSteps: 3000000
maxWork: 500000000
maxMemory: 536870912

type: rule
ruleOrder: 1
if: exists(type=="move" & subtype=="spin" & objectId==%m) & exists(type=="counter" & n==%n & objectId==%c)
then: set(objectId==%c)(n==1+%n)

type: counter
n: 0
EOF
"$NOMIC" init h.db --ruleset heavy.nomic >/dev/null
start_server h.db || exit 1
curl -s -o heavy.out -w '%{time_total}' -X POST "$URL/api/move?from=spinner@example.org" --data-binary 'subtype: spin' >heavy.time &
HEAVY=$!
sleep 0.7
for p in /api/game /api/objects /api/rules /api/log; do
    t=$(curl -s -o body -w '%{http_code} %{time_total}' "$URL$p")
    running=no
    kill -0 $HEAVY 2>/dev/null && running=yes
    expect_eq "$running ${t%% *}" "yes 200" "GET $p answered while the long move still ran"
    awk -v t="${t#* }" 'BEGIN { exit !(t < 1.0) }' && ok || fail "GET $p took ${t#* } s beside a running event"
done
wait $HEAVY
cp heavy.out body
expect_json "j['status']" "refused" "the long move ran to maxSteps and was refused"
http GET /api/game
expect_json "j['event']" "1" "after it, the readers see its event"
stop_server

# ---- bytes that are not UTF-8 come out as U+FFFD in every JSON answer ----
printf 'type: rule\nruleOrder: 10\ncomment: caf\351 \377\nif: exists(type=="move" & subtype=="shout" & moveSender==%%s & text==%%t & objectId==%%m)\nthen: create(type=="shout" & by==%%s & text==%%t) & delete(%%m) & send(%%s, %%t)\n' >u8.nomic
"$NOMIC" init u.db --ruleset favor --ruleset u8.nomic >/dev/null
TU=$("$NOMIC" token u.db ursula@example.org)
start_server u.db || exit 1
printf 'REGISTER ur\377s\355\240\200la\n' >move
expect_http 200 "a nickname with bytes not UTF-8" POST /api/move -H "Authorization: Bearer $TU" --data-binary @move
expect_strict body "the move's answer"
printf 'subtype: shout\ntext: h\300\257i \360\237\230\200 \364\220\200\200!\n' >move
expect_http 200 "a move attribute with bytes not UTF-8" POST /api/move -H "Authorization: Bearer $TU" --data-binary @move
expect_strict body "the move's answer"
for p in /api/game '/api/objects' '/api/objects?type=player' /api/rules /api/log /api/log/1 /api/log/2 /api/outbox; do
    http GET "$p" -H "Authorization: Bearer $TU"
    expect_strict body "GET $p"
done
http GET '/api/objects?type=player'
ujson "j[0]['nickname']" "ur�s���la" "the nickname, its stray bytes as U+FFFD"
http GET '/api/objects?type=shout'
ujson "j[0]['text']" "h��i 😀 ����!" "the move's text: overlong and out-of-range forms replaced, a real emoji kept"
http GET /api/rules
ujson "[r['comment'] for r in j if r.get('comment','').startswith('caf')]" "['caf� �']" "the rule's text"
"$NOMIC" show u.db --json >show.json
expect_strict show.json "nomic show --json"
"$NOMIC" log u.db --json >log.json
expect_strict log.json "nomic log --json"
"$NOMIC" outbox u.db --json >outbox.json
expect_strict outbox.json "nomic outbox --json"
stop_server

# ---- private attributes: hidden from the first request on ----
# mathflag's Secret Expressions, set two days and more ago, and the next
# timer still ahead: the server starts with no event to run.
DAY=86400
T0=$(( $(date +%s) - 2 * DAY - 600 ))
S=$((T0 + 2 * DAY))
"$NOMIC" init m.db --ruleset favor --ruleset mathflag --time $T0 >/dev/null
for p in alice bob carol; do printf 'REGISTER %s\n' $p | "$NOMIC" move m.db --from $p@x --time $((T0 + 3600)) >/dev/null; done
for p in alice bob carol; do echo MFJOIN | "$NOMIC" move m.db --from $p@x --time $((T0 + 7200)) >/dev/null; done
"$NOMIC" tick m.db --time $S >/dev/null
echo 'MFSECRET i*i/4' | "$NOMIC" move m.db --from alice@x --time $((S + 100)) >/dev/null
echo 'MFSECRET v*10+i' | "$NOMIC" move m.db --from bob@x --time $((S + 100)) >/dev/null
echo 'MFSECRET 6/(i-3)' | "$NOMIC" move m.db --from carol@x --time $((S + 100)) >/dev/null
[ "$("$NOMIC" show m.db --type mathNaut --as alice@x | grep -c 'mfExpression: i\*i/4')" = 1 ] && ok || fail "alice's secret is set"
TM=$("$NOMIC" token m.db alice@x)
no_secret() { # DESCRIPTION FILES...: no Secret Expression in any
    what=$1
    shift
    for f in "$@"; do
        for secret in 'i*i/4' 'v*10+i' '6/(i-3)'; do
            if grep -qF "$secret" "$f"; then fail "$what: $f shows the secret $secret"; else ok; fi
        done
    done
}
public_views() { # WHEN: every public view of m.db, none with a secret
    "$NOMIC" show m.db >pv.show; "$NOMIC" show m.db --json >pv.showjson; "$NOMIC" export m.db >pv.export
    "$NOMIC" log m.db >pv.log; "$NOMIC" log m.db --json >pv.logjson
    n=0
    for p in / /app.js /api/game /api/objects '/api/objects?type=mathNaut' /api/rules /api/log /api/log/8 /api/log/9; do
        n=$((n + 1))
        http GET "$p"
        cp body pv.api$n
    done
    no_secret "$1" pv.show pv.showjson pv.export pv.log pv.logjson pv.api*
}
start_server m.db || exit 1
http GET /api/game
expect_json "j['nextTimer'] is not None and j['nextTimer'] > j['time']" "True" "the next timer is still ahead: no event at start"
public_views "a freshly started server"
http GET '/api/objects?type=mathNaut' -H "Authorization: Bearer $TM"
expect_in body 'i*i/4' "alice reads her own Secret Expression"
expect_not_in body 'v*10+i' "alice does not read bob's"
echo 'MFSECRET 2*i/7' | "$NOMIC" move m.db --from alice@x >/dev/null
public_views "after another program's event (the server reloads)"
http GET '/api/objects?type=mathNaut' -H "Authorization: Bearer $TM"
expect_in body '2*i/7' "the reload shows alice her new expression"
expect_http 200 "a move over HTTP" POST /api/move -H "Authorization: Bearer $TM" --data-binary 'MFSECRET i*i/4'
public_views "after an event of the server's own"
stop_server

# ---- a big journal under slow readers: pages, cut fields, bounded memory ----
cat >copy.nomic <<'EOF'
type: rule
ruleOrder: 10
if: exists(type=="move" & subtype=="note" & text==%t & objectId==%m)
then: create(type=="note" & text==%t) & delete(%m)
EOF
"$NOMIC" init b.db --ruleset copy.nomic >/dev/null
python3 -c 'import sys; sys.stdout.write("subtype: note\ntext: " + "n" * 250000 + "\n")' >bigmove
i=0
while [ $i -lt 20 ]; do "$NOMIC" move b.db --from big@example.org <bigmove >/dev/null; i=$((i + 1)); done
# under AddressSanitizer freed memory waits in a quarantine (256 MiB by
# default) before reuse: keep it small, so that RSS says what the server holds
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8" start_server b.db || exit 1
http GET /api/log
expect_strict body "the log's page"
expect_json "len(j), max(len(e['input']) for e in j), min(e['cut']['input'] for e in j) > 250000" "20 4096 True" "a page cuts each event's moves to 4 KiB and says how big they were"
expect_json "all(e['trace'] is None and e['cut']['trace'] > 65536 for e in j)" "True" "a trace over 64 KiB is left out of a page, its size given"
size=$(wc -c <body)
[ "$size" -lt 200000 ] && ok || fail "a page of 20 big events is $size bytes"
expect_http 200 "one event whole" GET /api/log/3
expect_json "len(j['input']) > 250000 and len(j['trace']) > 0 and 'cut' not in j" "True" "the one event has its moves and trace whole"
expect_http 404 "an event past the journal" GET /api/log/99
expect_http 200 "a page of two" GET '/api/log?since=5&limit=2'
expect_json "[e['event'] for e in j]" "[6, 7]" "since and limit"
expect_http 400 "a limit over the maximum" GET '/api/log?limit=501'
before=$(rss)
python3 - "$PORT" >slow.out <<'EOF' &
import socket, sys, time
# ten readers ask for the whole log and then read one byte a second
conns = []
for i in range(10):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"GET /api/log?limit=500 HTTP/1.1\r\nHost: x\r\n\r\n")
    conns.append(s)
for t in range(8):
    for s in conns:
        s.recv(1)
    time.sleep(1)
print("read")
EOF
READERS=$!
sleep 2
peak=0
for k in 1 2 3 4; do
    r=$(rss)
    [ "$r" -gt "$peak" ] && peak=$r
    t=$(curl -s -o body -w '%{http_code} %{time_total}' "$URL/api/game")
    expect_eq "${t%% *}" "200" "another client is answered beside ten slow readers"
    awk -v t="${t#* }" 'BEGIN { exit !(t < 1.0) }' && ok || fail "it took ${t#* } s"
    sleep 1
done
wait $READERS
expect_in slow.out read "the slow readers were served"
grow=$(( (peak - before) / 1024 ))
echo "  (server RSS ${before} KiB before, ${peak} KiB at most under ten slow readers of /api/log)"
[ "$grow" -lt 64 ] && ok || fail "the server grew by $grow MiB under ten slow readers of the log"
stop_server

# ---- slow connections cannot hold every slot ----
"$NOMIC" init c.db --ruleset favor >/dev/null
start_server c.db || exit 1
python3 - "$PORT" >flood.out <<'EOF' &
import socket, sys, time, select
port = int(sys.argv[1])
# 256 connections from 16 addresses (16 each, the per-address limit), each
# trickling a header line every 5 s (under the idle timeout), and one more
# from an address already at its limit
conns, t0 = {}, time.time()
def opened(ip):
    s = socket.socket()
    s.bind((ip, 0))
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /api/game HTTP/1.1\r\nHost: x\r\n")
    return s
for a in range(16):
    for k in range(16):
        s = opened("127.0.0.%d" % (a + 2))
        conns[s] = None
extra = opened("127.0.0.2")
time.sleep(1.5)
def gone(s):
    r, _, _ = select.select([s], [], [], 0)
    try:
        return bool(r) and s.recv(100) == b""
    except OSError:
        return True
print("extra closed" if gone(extra) else "extra open")
last_trickle = time.time()
while time.time() - t0 < 45 and any(v is None for v in conns.values()):
    live = [s for s, v in conns.items() if v is None]
    r, _, _ = select.select(live, [], [], 0.5)
    for s in r:
        try:
            data = s.recv(100)
        except OSError:
            data = b""
        if not data:
            conns[s] = time.time() - t0
    if time.time() - last_trickle > 5:
        for s in live:
            try:
                s.sendall(b"X-Slow: yes\r\n")
            except OSError:
                conns[s] = time.time() - t0
        last_trickle = time.time()
closed = [v for v in conns.values() if v is not None]
print("connections %d closed %d first %.0f last %.0f" % (len(conns), len(closed), min(closed or [0]), max(closed or [0])))
EOF
FLOOD=$!
sleep 3
for k in 1 2 3; do
    t=$(curl -s -o body -w '%{http_code} %{time_total}' "$URL/api/game")
    expect_eq "${t%% *}" "200" "a client is answered beside 256 slow connections"
    awk -v t="${t#* }" 'BEGIN { exit !(t < 1.0) }' && ok || fail "it took ${t#* } s"
    sleep 2
done
wait $FLOOD
cat flood.out | sed 's/^/  (/; s/$/)/'
expect_in flood.out "extra closed" "a 17th connection from one address is closed at once"
read -r _ n _ closed _ first _ last <<EOF
$(grep connections flood.out)
EOF
expect_eq "$n $closed" "256 256" "every slow connection was cut"
[ "$first" -ge 28 ] && [ "$last" -le 40 ] && ok || fail "slow connections cut between ${first} and ${last} s, expected at the 30 s deadline"
expect_http 200 "the server still answers after the flood" GET /api/game
stop_server

# ---- POST /api/scams: what an open proposal opens up ----
"$NOMIC" init scams.db --ruleset favor > /dev/null
for p in alice bob carol; do printf 'REGISTER %s\n' $p | "$NOMIC" move scams.db --from $p@x > /dev/null; done
printf '%s\n' 'subtype: ruleChange' 'ruleChangeType: create' 'neworder: 20000' \
    'newif: exists(type=="move" & subtype=="bonus" & moveSender==%s & objectId==%m) & exists(type=="player" & defaultEmail==%s & score==%x & objectId==%p)' \
    'newthen: set(objectId==%p)(score==%x+10) & delete(objectId==%m)' | "$NOMIC" move scams.db --from bob@x > /dev/null
PID=$("$NOMIC" show scams.db --type voteInProgress | awk '$1 == "propId:" { print $2 }')
start_server scams.db || exit 1
G_BONUS='exists(type=="player" & nickname=="alice" & score>=10)'
expect_http 200 "scams: the game as it stands" POST /api/scams --data-urlencode as=alice@x --data-urlencode "goal=$G_BONUS" --data depth=1
expect_json "j['found'], j['explored'] > 0" "False True" "scams: no bonus before the proposal is adopted"
expect_http 200 "scams: as if the proposal were adopted" POST /api/scams --data-urlencode as=alice@x --data-urlencode "goal=$G_BONUS" \
    --data depth=1 --data proposal="$PID"
expect_json "j['found'], j['steps'][0]['moves'][0]['subtype']" "True bonus" "scams: the proposal's new move is found"
cp body api-scams.json
"$NOMIC" scams scams.db --proposal "$PID" --as alice@x --goal "$G_BONUS" --depth 1 --budget 200000 --json > cli-scams.json
cmp -s api-scams.json cli-scams.json && ok || fail "scams: the API answers as nomic scams --json does (same budget)"
expect_http 400 "scams: no goal" POST /api/scams --data-urlencode as=alice@x
expect_http 400 "scams: a goal that does not parse" POST /api/scams --data-urlencode as=alice@x --data-urlencode 'goal=exists(('
expect_in body "the goal 1:" "scams: the error says where"
expect_http 400 "scams: a depth past the bound" POST /api/scams --data-urlencode as=alice@x --data-urlencode goal=T --data depth=9
expect_http 400 "scams: a budget past the bound" POST /api/scams --data-urlencode as=alice@x --data-urlencode goal=T --data budget=5000000
expect_http 404 "scams: no such proposal" POST /api/scams --data-urlencode as=alice@x --data-urlencode goal=T --data proposal=999
expect_http 405 "scams: GET" GET /api/scams
# a coalition (with=): each vote scores its voter a point (favor's rule
# 17), so both scoring takes alice's vote and bob's; alone alice cannot
G_PAIR='exists(type=="player" & nickname=="alice" & score>0) & exists(type=="player" & nickname=="bob" & score>0)'
expect_http 200 "scams: alone" POST /api/scams --data-urlencode as=alice@x --data-urlencode "goal=$G_PAIR" --data depth=2
expect_json "j['found'], 'budgetSpent' in j" "False False" "scams: alone, alice cannot make both score (every sequence tried)"
expect_http 200 "scams: with bob" POST /api/scams --data-urlencode as=alice@x --data-urlencode with=bob@x \
    --data-urlencode "goal=$G_PAIR" --data depth=2
expect_json "j['found'], sorted(st['from'] for st in j['steps']), [st['moves'][0]['subtype'] for st in j['steps']]" \
    "True ['alice@x', 'bob@x'] ['vote', 'vote']" "scams: with bob, a vote from each"
cp body api-pair.json
"$NOMIC" scams scams.db --as alice@x --with bob@x --goal "$G_PAIR" --depth 2 --budget 200000 --json > cli-pair.json
expect_cmp cli-pair.json api-pair.json "scams: with= answers as nomic scams --with does"
expect_http 200 "scams: with two addresses in one field" POST /api/scams --data-urlencode as=alice@x \
    --data-urlencode 'with=carol@x, bob@x' --data-urlencode "goal=$G_PAIR" --data depth=2
expect_json "j['found'], sorted(st['from'] for st in j['steps'])" "True ['alice@x', 'bob@x']" \
    "scams: a field of two addresses names both accomplices"
expect_http 400 "scams: a with address that is not bare" POST /api/scams --data-urlencode as=alice@x \
    --data-urlencode 'with=bob@x <carol@x>' --data-urlencode goal=T
expect_json "j['error']" "with=<carol@x>: not a bare address" "scams: the refusal names the bad address"
expect_http 400 "scams: five accomplices" POST /api/scams --data-urlencode as=alice@x \
    --data-urlencode 'with=b1@x b2@x b3@x' --data-urlencode 'with=b4@x,b5@x' --data-urlencode goal=T
expect_json "j['error']" "with= names more than 4 addresses besides as=: a search's coalition is at most 5 senders" \
    "scams: the refusal says the bound"
expect_http 200 "scams: four accomplices, some named twice" POST /api/scams --data-urlencode as=alice@x \
    --data-urlencode 'with=b1@x b2@x alice@x b1@x' --data-urlencode 'with=b3@x b4@x b2@x' --data-urlencode goal=T
expect_json "j['found'], j['steps']" "True []" "scams: an address named twice (or as= again) is one sender"
# a long search runs beside the game: reads and moves do not wait for it
G_NEVER='exists(type=="player" & nickname=="alice" & score>=50)'
curl -s -o long.json -X POST "$URL/api/scams" --data-urlencode as=alice@x --data-urlencode "goal=$G_NEVER" \
    --data depth=4 --data budget=400000 &
LONG=$!
sleep 0.5
start=$(date +%s%N)
expect_http 200 "a read while a search runs" GET /api/game
expect_http 200 "a move while a search runs" POST /api/move?from=carol@x --data-binary "VOTE $PID FOR"
expect_json "j['status']" "applied" "the move is applied while the search runs"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 2000 ] && ok || fail "a read and a move took $ms ms beside a search"
kill -0 $LONG 2>/dev/null && ok || fail "the search was still running meanwhile (it ended too soon to tell)"
wait $LONG
# none (about 4 s here); under the sanitizers' tenfold slowness the 60 s
# guard may stop it first, which must then say so
json long.json "'ran out of time' in j['error'] if 'error' in j else (j['found'] is False and j['explored'] > 0 and 'none')" > long.txt
case $(cat long.txt) in
none) ok ;;
True) echo "  (the long search met the 60 s guard: a slow build)"; ok ;;
*) fail "the long search answers none or that it ran out of time: got $(cat long.txt)" ;;
esac
stop_server
# mathflag keeps mfExpression private: a goal naming it is answered on
# the public view, where no value of it is seen (t53-private.sh probes
# harder)
"$NOMIC" init mf.db --ruleset mathflag > /dev/null
start_server mf.db || exit 1
expect_http 200 "scams: a goal on a private attribute" POST /api/scams --data-urlencode as=alice@x \
    --data-urlencode 'goal=exists(mfExpression=="i")' --data budget=1
expect_json "j['found']" "False" "scams: a goal on a private attribute sees the public view"
expect_http 200 "scams: a goal on public attributes of the same game" POST /api/scams --data-urlencode as=alice@x \
    --data-urlencode 'goal=exists(type=="player")' --data depth=1
stop_server

# ---- the main job's game takes moves only with a token ----
PORT=$(free_port)
NOMIC=$NOMIC sh "$ROOT/tools/serve.sh" main.db 127.0.0.1:$PORT >serve.out 2>serve.err &
SERVER=$!
wait_until 5 grep -qs "http://127.0.0.1:$PORT/" serve.out
URL=http://127.0.0.1:$PORT
expect_in serve.out "token main.db ADDRESS" "tools/serve.sh says how the game-keeper gives a player a token"
expect_http 200 "the main job's game" GET /api/game
expect_json "j['mailPolicy'], j['sendsMail']" "tokens False" "a new game of the main job is mailPolicy tokens, and sends no mail"
expect_http 403 "a move under an address not proven" POST '/api/move?from=alice@example.org' --data-binary 'REGISTER alice'
TK=$("$NOMIC" token main.db alice@example.org)
expect_http 200 "a move with the token the game-keeper gave" POST /api/move -H "Authorization: Bearer $TK" --data-binary 'REGISTER alice'
expect_json "j['status']" "applied" "applied under alice's address"
# a player proves an address without the game-keeper: "mail me my token"
expect_http 400 "mail me my token, without an address" POST /api/token
expect_http 409 "mail me my token, where the transport is the outbox" POST '/api/token?from=alice@example.org'
expect_json "j['error'].startswith('this game sends no mail yet: ask the keeper for your token (nomic token GAME ADDRESS)')" "True" \
    "the answer says first, as the page does, that the game sends no mail and who to ask"
expect_json "'its transport is the outbox, so nothing leaves the host' in j['error']" "True" "then why"
"$NOMIC" config main.db transport sendmail:/bin/true >/dev/null # mail leaves the host (to nowhere)
expect_http 200 "the game, once it has a transport" GET /api/game
expect_json "j['sendsMail']" "True" "it says it sends mail"
expect_http 403 "mail me my token, for an address the game does not know" POST '/api/token?from=nia@example.org'
expect_json "'nia@example.org is not an address this game knows' in j['error']" "True" "a stranger's address is mailed nothing"
expect_http 200 "mail me my token" POST '/api/token?from=Alice@Example.ORG'
expect_json "j['status'], 'a new token is mailed to alice@example.org' in j['message']" "refused True" "the event mails the token (and moves nothing), to the address in its one form"
"$NOMIC" outbox main.db --json > outbox.json
TN=$(json outbox.json "[m['text'] for m in j['messages'] if m['to'] == 'alice@example.org' and '    token: ' in m['text']][0].split('\n    token: ')[1].split()[0]")
expect_eq "${#TN}" 32 "the token in the mail to that address"
expect_http 200 "the token before still counts" POST /api/move -H "Authorization: Bearer $TK" --data-binary 'REGISTER alice'
expect_http 200 "a move with the token mailed" POST /api/move -H "Authorization: Bearer $TN" --data-binary 'REGISTER alice'
expect_json "j['status']" "no effect" "taken under alice's address"
expect_http 401 "once the new token is used, the one before is void" POST /api/move -H "Authorization: Bearer $TK" --data-binary 'REGISTER alice'
expect_http 429 "mail me my token again at once" POST '/api/token?from=alice@example.org'
expect_json "'not again yet' in j['error']" "True" "at most once an hour per address"
stop_server

# ---- reports: GET /api/report/KIND prints what nomic report prints ----
"$NOMIC" init r.db --ruleset favor >/dev/null
printf 'REGISTER alice\n' | "$NOMIC" move r.db --from a@x >/dev/null
printf 'REGISTER bob\n' | "$NOMIC" move r.db --from b@x >/dev/null
start_server r.db || exit 1
expect_http 200 "the standings report" GET /api/report/standings
expect_json "j['kind'], j['event']" "standings 2" "the report names its kind and the event it is of"
python3 -c "import json,sys; sys.stdout.write(json.load(open('body'))['text'])" | sed 's/ at [0-9T:-]*Z / at TIME /' >got
"$NOMIC" report r.db standings | sed 's/ at [0-9T:-]*Z / at TIME /' >want
expect_cmp want got "the report's text is what nomic report prints (but the time it is made)"
expect_http 200 "the same report again" GET /api/report/standings
python3 -c "import json,sys; sys.stdout.write(json.load(open('body'))['text'])" | sed 's/ at [0-9T:-]*Z / at TIME /' >again
expect_cmp want again "asked again before any event: the same"
printf 'REGISTER carol\n' | "$NOMIC" move r.db --from c@x >/dev/null
expect_http 200 "the report after another program's move" GET /api/report/standings
expect_json "j['event'], 'carol' in j['text']" "3 True" "a new event: the report is asked again"
expect_http 400 "a report kind that is not a word" GET '/api/report/a%20b'
expect_json "j['error']" 'a report kind is one word of letters, digits, - and _ (not "a b")' "the error says why"
expect_http 405 "a report is read, not posted" POST /api/report/standings
printf 'type: engineSettings\nrunType: rule\n' >quiet.nomic
"$NOMIC" init t.db --ruleset quiet.nomic >/dev/null
stop_server
start_server t.db || exit 1
expect_http 404 "a set without report rules" GET /api/report/standings
expect_json "j['error']" "the rules answered no report standings (a set's report rules answer the move subtype: report, kind: KIND; docs/cli.md lists the shipped sets' kinds)" "says the rules answered none"
stop_server

# ---- reveal: the seed and the state hash's key and version on the page ----
start_server r.db || exit 1
expect_http 200 "the game before reveal" GET /api/game
expect_json "'hashKey' in j, 'hashVersion' in j" "False False" "the hash's key is not shown before reveal"
"$NOMIC" reveal r.db >reveal.out 2>/dev/null
expect_http 200 "the game after reveal" GET /api/game
expect_json "j['hashKey'], j['hashVersion']" "$(sqlite3 r.db "SELECT value FROM meta WHERE key='hash_key'") 2" \
    "after reveal the page shows the key and the version of the state hash"
expect_in reveal.out "hash version: 2 " "as reveal printed them"
stop_server

report serve
