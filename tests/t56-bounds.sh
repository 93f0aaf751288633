#!/bin/sh
# t56-bounds.sh - a state and answers that stay bounded: the caps on the
# state (maxObjects, maxStateBytes, maxValueBytes) refuse the event that
# would pass one, naming it, and the game goes on (a state over a cap can
# still shrink); a trivial move stays fast on the server with megabytes of
# values in the state; slow readers of /api/objects and /api/outbox, each
# begun at another event, do not grow the server's memory past a bound; the
# outbox is read a page at a time; `nomic deliver --mbox` leaves the lock
# to another writer within seconds however slow its mails are; and
# `nomic replay` agrees with every game.  Uses $NOMIC.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRCDIR/tests/serve.sh"

alive() { kill -0 "$SERVER" 2>/dev/null; }

# The game of these tests: a note move is kept as a note object (its text a
# value of the state), a drop move deletes one note, a tick changes nothing
# but itself, a tighten move lowers maxStateBytes to 100, and a shout move
# sends its text back to its sender N times (the outbox).
notes_game() { # DB [SETTINGS-LINES]
    {
        printf 'type: engineSettings\n%s\n\n' "${2:-runType: rule}"
        cat <<'EOF'
type: rule
ruleOrder: 10
if: exists(type=="move" & subtype=="note" & text==%t & objectId==%m)
then: create(type=="note" & text==%t) & delete(%m)

type: rule
ruleOrder: 20
if: exists(type=="move" & subtype=="drop" & objectId==%m) & exists(type=="note" & objectId==%n)
then: delete(%n) & delete(%m)

type: rule
ruleOrder: 30
if: exists(type=="move" & subtype=="tick" & objectId==%m)
then: delete(%m)

type: rule
ruleOrder: 40
if: exists(type=="move" & subtype=="tighten" & objectId==%m) & exists(type=="engineSettings" & objectId==%s)
then: set(%s)(maxStateBytes==100) & delete(%m)

type: rule
ruleOrder: 50
if: exists(type=="move" & subtype=="shout" & text==%t & moveSender==%f & objectId==%m)
then: send(%f, %t) & send(%f, %t) & send(%f, %t) & send(%f, %t) & delete(%m)
EOF
    } >notes.nomic
    rm -f "$1" "$1-wal" "$1-shm"
    "$NOMIC" init "$1" --ruleset notes.nomic --time 2026-01-01Z >/dev/null
}
note() { # DB BYTES TIME: a note of BYTES bytes, the answer in out, exit status in status
    python3 -c "import sys; sys.stdout.write('subtype: note\ntext: ' + 'n' * $2 + '\n')" >m
    "$NOMIC" move "$1" --from alice@x.org --time "$3" --file m >out 2>&1
    echo $? >status
}
count() { "$NOMIC" show "$1" --type "$2" | grep -c "^objectId:"; }

# ---- the caps trip, naming the limit; the game goes on ----------------------
notes_game caps.db "maxObjects: 11
maxStateBytes: 20000
maxValueBytes: 5000"
note caps.db 6000 2026-01-01T00:01:00Z
expect_eq "$(cat status)" 1 "value: a note over maxValueBytes is refused"
expect_in out "a value of 6000 bytes in attribute text of object" "value: the refusal says the value's size and where"
expect_in out "above maxValueBytes (5000 bytes of one value, engineSettings); the whole event was undone" "value: the refusal names the cap"
expect_eq "$(count caps.db note)" 0 "value: nothing of the event stays"
"$NOMIC" log caps.db --event 1 --json >log.json
expect_in log.json '"status":"refused"' "value: journaled as refused"
for k in 1 2 3 4; do note caps.db 4000 2026-01-01T00:02:0${k}Z; done
expect_eq "$(count caps.db note)" 4 "bytes: four notes of 4000 bytes fit in 20000"
note caps.db 4000 2026-01-01T00:03:00Z
expect_eq "$(cat status)" 1 "bytes: a fifth passes maxStateBytes and is refused"
expect_in out "bytes of text in the state (it began with" "bytes: the refusal says what the state would hold"
expect_in out "above maxStateBytes (20000, engineSettings); the whole event was undone" "bytes: the refusal names the cap"
printf 'subtype: tick\n' >m
expect_status 0 "the game goes on: a move that adds nothing is applied" "$NOMIC" move caps.db --from bob@y.org --time 2026-01-01T00:04:00Z --file m
note caps.db 10 2026-01-01T00:04:30Z
expect_eq "$(cat status)" 0 "objects: a small note fits"
note caps.db 10 2026-01-01T00:05:00Z
expect_eq "$(cat status)" 1 "objects: the 12th object passes maxObjects and is refused"
expect_in out "the event would leave 12 objects in the state (it began with 11), above maxObjects (11, engineSettings)" "objects: the refusal names the cap"
expect_eq "$(count caps.db note)" 5 "objects: the refused note is not kept"
# a state over a cap (the rules lowered it) still takes what does not grow it
printf 'subtype: tighten\n' >m
expect_status 0 "the rules may lower a cap below the state" "$NOMIC" move caps.db --from bob@y.org --time 2026-01-01T00:06:00Z --file m
printf 'subtype: tick\n' >m
expect_status 0 "over a cap, a move that does not grow the state is applied" "$NOMIC" move caps.db --from bob@y.org --time 2026-01-01T00:07:00Z --file m
printf 'subtype: drop\n' >m
expect_status 0 "over a cap, a move that shrinks the state is applied" "$NOMIC" move caps.db --from bob@y.org --time 2026-01-01T00:08:00Z --file m
expect_eq "$(count caps.db note)" 4 "the drop deleted a note"
note caps.db 10 2026-01-01T00:09:00Z
expect_eq "$(cat status)" 1 "over a cap, a move that grows the state is refused"
expect_in out "above maxStateBytes (100, engineSettings)" "the lowered cap is the one named"
expect_status 0 "caps: replay agrees with every verdict and hash" "$NOMIC" replay caps.db
# the ceilings hold: a cap set above its ceiling is held to it
notes_game ceil.db "maxObjects: 99999999999
maxStateBytes: 99999999999999
maxValueBytes: 99999999999"
note ceil.db 10 2026-01-01T00:01:00Z
"$NOMIC" log ceil.db --event 1 >log.txt
expect_in log.txt "engineSettings: maxObjects 99999999999 is above the Mechanics' ceiling; 40000000 applies" "maxObjects: held to its ceiling"
expect_in log.txt "engineSettings: maxStateBytes 99999999999999 is above the Mechanics' ceiling; 4294967296 applies" "maxStateBytes: held to its ceiling"
expect_in log.txt "engineSettings: maxValueBytes 99999999999 is above the Mechanics' ceiling; 16777216 applies" "maxValueBytes: held to its ceiling"

# ---- the views kept per object are the views rendered afresh ---------------
notes_game views.db "maxValueBytes: 5000"
start_server views.db || exit 1
post() { curl -s -o /dev/null -X POST "$URL/api/move?from=alice@x.org" --data-binary "$1"; }
post 'subtype: note
text: one'
post 'subtype: note
text: two'
post "subtype: note
text: $(python3 -c 'print("x" * 6000)')" # refused: undone
post 'subtype: drop'
post 'subtype: tighten'
post 'subtype: tick'
curl -s "$URL/api/objects" >objects.kept
curl -s "$URL/api/rules" >rules.kept
stop_server
start_server views.db || exit 1
curl -s "$URL/api/objects" >objects.fresh
curl -s "$URL/api/rules" >rules.fresh
stop_server
expect_eq "$(json objects.fresh 'len(j)')" 7 "the fresh views hold the objects (settings, 5 rules, a note)"
expect_cmp objects.fresh objects.kept "the objects' views after six events are those rendered afresh"
expect_cmp rules.fresh rules.kept "the rules' views after six events are those rendered afresh"

# ---- a trivial move stays fast with big values in the state ----------------
# median seconds of 7 trivial moves over HTTP
tick_time() {
    for k in 1 2 3 4 5 6 7; do
        curl -s -o /dev/null -w '%{time_total}\n' -X POST "$URL/api/move?from=t@x.org" --data-binary 'subtype: tick'
    done | sort -n | sed -n 4p
}
notes_game small.db
start_server small.db || exit 1
small=$(tick_time)
stop_server
notes_game big.db
python3 -c "import sys; sys.stdout.write('subtype: note\ntext: ' + 'n' * 1000000 + '\n')" >bignote
i=0
while [ $i -lt 40 ]; do "$NOMIC" move big.db --from alice@x.org --time "2026-01-01T01:00:$((10 + i))Z" --file bignote >/dev/null; i=$((i + 1)); done
expect_eq "$(count big.db note)" 40 "40 notes of 1 MB are kept (40 MB of state)"
start_server big.db || exit 1
big=$(tick_time)
echo "  (a trivial move over HTTP: ${small} s with a small state, ${big} s with 40 MB of values)"
awk -v s="$small" -v b="$big" 'BEGIN { exit !(b < 10 * s + 0.02) }' && ok || fail "a trivial move took $big s with 40 MB of values, $small s with a small state"

# ---- slow readers of /api/objects, each begun at another event --------------
before=$(rss)
python3 - "$PORT" >slow.out <<'EOF' &
import http.client, socket, sys, time
# fifteen readers ask for every object and read a byte now and then; a
# new event comes between any two, so each holds another snapshot (the
# moves come from another address: one address may hold 16 connections)
port = int(sys.argv[1])
conns = []
for i in range(15):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"GET /api/objects HTTP/1.1\r\nHost: x\r\n\r\n")
    s.recv(100)
    conns.append(s)
    mover = http.client.HTTPConnection("127.0.0.1", port, source_address=("127.0.0.2", 0))
    mover.request("POST", "/api/move?from=t@x.org", body=b"subtype: tick")
    mover.getresponse().read()
    mover.close()
for t in range(6):
    for s in conns:
        s.recv(1)
    time.sleep(1)
print("read")
EOF
READERS=$!
sleep 3
peak=0
for k in 1 2 3 4; do
    r=$(rss)
    [ "$r" -gt "$peak" ] && peak=$r
    sleep 1
done
wait $READERS
expect_in slow.out read "the slow readers of /api/objects were served"
alive && ok || fail "the server died under slow readers of /api/objects"
grow=$(( (peak - before) / 1024 ))
echo "  (server RSS ${before} KiB before, ${peak} KiB at most under fifteen slow readers of /api/objects)"
[ "$grow" -lt 40 ] && ok || fail "the server grew by $grow MiB under fifteen slow readers of /api/objects (one copy of the views is 40 MB)"
stop_server
expect_status 0 "big: replay agrees" "$NOMIC" replay big.db

# ---- the outbox: pages, and slow readers ------------------------------------
notes_game out.db
TOKEN=$("$NOMIC" token out.db alice@x.org)
python3 -c "import sys; sys.stdout.write('subtype: shout\ntext: ' + 's' * 200000 + '\n')" >shout
i=0
while [ $i -lt 25 ]; do "$NOMIC" move out.db --from alice@x.org --time "2026-01-01T02:00:$((10 + i))Z" --file shout >/dev/null; i=$((i + 1)); done
start_server out.db || exit 1
A="Authorization: Bearer $TOKEN"
expect_http() { # WANT DESCRIPTION PATH [curl args]: not serve.sh's: a GET, a failure shows the body cut
    want=$1 what=$2 path=$3
    shift 3
    got=$(curl -s -o body -w '%{http_code}' "$@" "$URL$path")
    if [ "$got" = "$want" ]; then ok; else fail "$what: HTTP $got, expected $want"; head -c 300 body; echo; fi
}
expect_http 401 "the outbox needs a token" /api/outbox
expect_http 200 "a page of the outbox" /api/outbox -H "$A"
expect_eq "$(json body 'len(j)')" 8 "a page ends after the message that passes 512 KiB"
expect_eq "$(json body "all(len(m['text']) == 65536 and m['cut']['text'] == 200000 for m in j)")" True "a page cuts each text to 64 KiB and says how long it was"
size=$(wc -c <body)
[ "$size" -lt 1100000 ] && ok || fail "a page of the outbox is $size bytes"
last=$(json body 'j[-1]["id"]')
expect_http 200 "the next page" "/api/outbox?since=$last&limit=3" -H "$A"
expect_eq "$(json body '[m["id"] for m in j]')" "[$((last + 1)), $((last + 2)), $((last + 3))]" "since and limit give the next messages"
expect_http 200 "one message whole" "/api/outbox/$last" -H "$A"
expect_eq "$(json body "len(j['text']), 'cut' in j")" "200000 False" "one message has its text whole"
expect_http 404 "another's message or none" /api/outbox/999999 -H "$A"
expect_http 400 "a limit over the maximum" '/api/outbox?limit=501' -H "$A"
python3 - "$URL" "$TOKEN" >pages.out <<'EOF'
import json, sys, urllib.request
# every message, a page at a time
since, ids = 0, []
for k in range(50):  # a page that does not move on ends the walk
    req = urllib.request.Request(sys.argv[1] + "/api/outbox?since=%d" % since, headers={"Authorization": "Bearer " + sys.argv[2]})
    page = json.load(urllib.request.urlopen(req))
    if not page:
        break
    ids += [m["id"] for m in page]
    since = page[-1]["id"]
print(len(ids), len(set(ids)), ids[-3:])
EOF
expect_eq "$(head -c 8 pages.out)" "100 100 " "the pages hold every message once"
expect_http 200 "the newest messages" '/api/outbox?last=3' -H "$A"
expect_eq "$(json body '[m["id"] for m in j]')" "$(sed 's/^[0-9]* [0-9]* //' pages.out)" "last=3: the three newest, oldest first"
before=$(rss)
python3 - "$PORT" "$TOKEN" >slow.out <<'EOF' &
import socket, sys, time
conns = []
for i in range(15):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"GET /api/outbox?limit=500 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + sys.argv[2].encode() + b"\r\n\r\n")
    conns.append(s)
for t in range(6):
    for s in conns:
        s.recv(1)
    time.sleep(1)
print("read")
EOF
READERS=$!
sleep 3
peak=0
for k in 1 2 3; do
    r=$(rss)
    [ "$r" -gt "$peak" ] && peak=$r
    sleep 1
done
wait $READERS
expect_in slow.out read "the slow readers of /api/outbox were served"
alive && ok || fail "the server died under slow readers of /api/outbox"
grow=$(( (peak - before) / 1024 ))
echo "  (server RSS ${before} KiB before, ${peak} KiB at most under fifteen slow readers of /api/outbox)"
[ "$grow" -lt 64 ] && ok || fail "the server grew by $grow MiB under fifteen slow readers of /api/outbox (the outbox holds 20 MB, fifteen copies 300 MB)"
stop_server

# ---- nomic deliver --mbox leaves the lock to another writer -----------------
# each mail's event spins until maxWork stops it (a fraction of a second),
# so a mailbox of them holds the game for seconds
notes_game mbox.db "maxWork: 1500000"
printf '\ntype: rule\nruleOrder: 5\nif: exists(type=="move" & subtype=="spin") & exists(type=="c" & n==%%n & objectId==%%o)\nthen: set(%%o)(n==%%n+1)\n\ntype: c\nn: 0\n' >>notes.nomic
rm -f mbox.db mbox.db-*
"$NOMIC" init mbox.db --ruleset notes.nomic --time 2026-01-01Z >/dev/null
python3 - box <<'EOF'
import mailbox, sys
box = mailbox.mbox(sys.argv[1])
for i in range(60):
    box.add(mailbox.mboxMessage(("From: spinner@x.org\nTo: game@x.org\nSubject: spin\nMessage-ID: <spin%d@x.org>\n\nsubtype: spin\n" % i).encode()))
box.flush()
EOF
start=$(date +%s.%N)
"$NOMIC" deliver mbox.db --mbox box >deliver.out 2>&1 &
DELIVER=$!
sleep 1
t0=$(date +%s.%N)
printf 'subtype: tick\n' | "$NOMIC" move mbox.db --from bob@y.org >move.out 2>&1
mstatus=$?
t1=$(date +%s.%N)
wait $DELIVER
dstatus=$?
t2=$(date +%s.%N)
expect_eq "$mstatus $dstatus" "0 0" "a move beside a slow mailbox is taken, and the mailbox too"
waited=$(echo "$t1 - $t0" | bc) total=$(echo "$t2 - $start" | bc)
echo "  (a move waited ${waited} s beside a mailbox that took ${total} s)"
awk -v w="$waited" -v d="$total" 'BEGIN { exit !(d > 2 && w < d / 2) }' && ok ||
    fail "a move waited $waited s for a mailbox of $total s (expected under half, the mailbox over 2 s)"
expect_eq "$(grep -c '^mail ' deliver.out)" 60 "every mail of the mailbox was taken"
expect_status 0 "mbox: replay agrees" "$NOMIC" replay mbox.db

report bounds
