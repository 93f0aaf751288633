#!/bin/sh
# serve.sh - nomic serve as a player and a game-keeper meet it: the JSON
# API of docs/api.md, tokens and privacy, the clock firing a deadline by
# itself, other programs writing the game while it is served, bad and slow
# requests.  Run from the project root: sh tests/serve.sh
. "$(dirname "$0")/lib.sh"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# json FILE EXPR: evaluates a Python expression on the parsed JSON `j`
json() { python3 -c "import json,sys; j=json.load(open('$1')); print($2)"; }

SERVER=""
stop_server() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null; SERVER=""; }
trap 'stop_server; rm -rf "$T"' EXIT

start_server() { # GAME
    PORT=$(free_port)
    "$NOMIC" serve "$1" --listen 127.0.0.1:"$PORT" >serve.out 2>serve.err &
    SERVER=$!
    i=0
    until grep -q "http://127.0.0.1:$PORT/" serve.out 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then fail "serve did not print its address"; cat serve.out serve.err; return 1; fi
        sleep 0.05
    done
    URL=http://127.0.0.1:$PORT
}

# http METHOD PATH [curl args...]: the body into body, the status into status
http() {
    m=$1 p=$2
    shift 2
    curl -s -o body -w '%{http_code}' -X "$m" "$@" "$URL$p" >status
}
expect_http() { # WANT DESCRIPTION METHOD PATH [curl args]
    want=$1 what=$2
    shift 2
    http "$@"
    if [ "$(cat status)" = "$want" ]; then ok; else fail "$what: HTTP $(cat status), expected $want"; cat body; echo; fi
}
expect_json() { # EXPR WANT DESCRIPTION (on body)
    got=$(json body "$1" 2>&1)
    if [ "$got" = "$2" ]; then ok; else fail "$3: $1 = $got, expected $2"; fi
}

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

report serve
