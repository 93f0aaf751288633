#!/bin/sh
# t53-strangers.sh - what a public game meets from strangers and heavy
# players, as the Mechanics must bill it.  Here: budgets that replay.  An
# event's verdict at a budget on its edge is a function of the game's state
# and the event alone: the same moves played each by a fresh process (the
# command line), in one warm process (nomic replay), and on the server with
# reports and dry runs between them reach the same verdicts, in immediate
# and in shadow evaluation.  Run from the project root.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$SRCDIR/tests/serve.sh"

# favor with its budget and evaluation set: favor_set MAXWORK EVALUATION
favor_set() {
    awk -v w="$1" -v ev="$2" '{ print } /^type: engineSettings$/ && !done { print "maxWork: " w; if (ev != "") print "evaluation: " ev; done = 1 }' \
        "$ROOT/rulesets/favor.nomic" > set.nomic
}

# The moves: registrations, a proposal of two changes, votes, junk.
i=0
for m in "ann@x|subtype: register
nickname: ann" \
    "bob@x|subtype: register
nickname: bob" \
    "cy@x|subtype: register
nickname: cy" \
    "dee@x|subtype: register
nickname: dee" \
    "ann@x|subtype: register
nickname: ann" \
    "bob@x|subtype: ruleChange
ruleChangeType: create
newif: exists(type==\"player\" & score>5)
newthen: noop()
neworder: 20001

subtype: ruleChange
ruleChangeType: repeal
target: 30" \
    "ann@x|subtype: vote
propId: 1
vote: FOR" \
    "cy@x|subtype: vote
propId: 1
vote: AGAINST" \
    "dee@x|subtype: vote
propId: 1
vote: FOR" \
    "bob@x|subtype: vote
propId: 7
vote: FOR" \
    "ed@x|subtype: fly"; do
    i=$((i + 1))
    printf '%s\n' "${m%%|*}" > from.$i
    printf '%s\n' "${m#*|}" > move.$i
done
NMOVES=$i

play_cold() { # GAME: each move by a fresh process; the statuses into GAME.st
    : > "$1.st"
    k=0
    while [ $k -lt $NMOVES ]; do
        k=$((k + 1))
        "$NOMIC" move "$1" --from "$(cat from.$k)" --file move.$k >/dev/null 2>&1
        echo $? >> "$1.st"
    done
}
statuses() { "$NOMIC" log "$1" --json | python3 -c "import json,sys; print(' '.join(e['status'] for e in json.load(sys.stdin)['events'] if e['kind']=='move'))"; }
costs() { # GAME: what each move costs a fresh process, in order
    k=0
    while [ $k -lt $NMOVES ]; do
        k=$((k + 1))
        "$NOMIC" try "$1" --from "$(cat from.$k)" --file move.$k | sed -n 's/^cost: \([0-9]*\) of maxWork.*/\1/p'
        "$NOMIC" move "$1" --from "$(cat from.$k)" --file move.$k >/dev/null 2>&1
    done
}

for ev in "" shadow; do
    mode=${ev:-immediate}
    favor_set 50000000 "$ev"
    "$NOMIC" init probe.db --ruleset set.nomic --force >/dev/null
    costs probe.db > costs
    [ "$(wc -l < costs)" -eq $NMOVES ] && ok || fail "$mode: the costs of the moves were not all read"
    # every move's cost is an edge: at it the move is applied, one below
    # refused; a warm process must agree with the fresh ones on both sides
    for c in $(sort -nu costs); do
        for budget in "$c" $((c - 1)); do
            favor_set "$budget" "$ev"
            "$NOMIC" init cold.db --ruleset set.nomic --force >/dev/null
            play_cold cold.db
            expect_status 0 "$mode at maxWork $budget: replay in one process agrees with a process a move" \
                "$NOMIC" replay cold.db
        done
    done
    edge=$(sort -n costs | tail -1)
    for budget in "$edge" $((edge - 1)); do
        favor_set "$budget" "$ev"
        "$NOMIC" init cold.db --ruleset set.nomic --force >/dev/null
        play_cold cold.db
        cold=$(statuses cold.db)
        echo "$cold" > "verdicts.$mode.$budget"
        # the server, a report, a read of the log and a scam search (a dry
        # run) before every move
        "$NOMIC" init served.db --ruleset set.nomic --force >/dev/null
        start_server served.db || break
        k=0
        while [ $k -lt $NMOVES ]; do
            k=$((k + 1))
            curl -s -o /dev/null "$URL/api/report/standings"
            curl -s -o /dev/null "$URL/api/log"
            curl -s -o /dev/null -X POST "$URL/api/scams" --data-urlencode "as=$(cat from.$k)" \
                --data-urlencode 'goal=exists(type=="player" & score>0)' --data-urlencode budget=20
            curl -s -o /dev/null -X POST "$URL/api/move?from=$(cat from.$k)" --data-binary @move.$k
        done
        stop_server
        expect_eq "$(statuses served.db)" "$cold" "$mode at maxWork $budget: the server's verdicts are the fresh processes'"
        expect_status 0 "$mode at maxWork $budget: the served game replays" "$NOMIC" replay served.db
    done
    if cmp -s "verdicts.$mode.$edge" "verdicts.$mode.$((edge - 1))"; then
        fail "$mode: maxWork $edge and $((edge - 1)) give the same verdicts: not the edge"
    else ok; fi
done

# ---- an event undone by its budget keeps a short trace ----------------------
# 999 registrations a move, each run to maxWork: the journal keeps the move
# and its last firings, not megabytes of trace.
cat > spin.nomic <<'SET'
type: rule
ruleOrder: 1
if: exists(type=="move" & subtype=="spin") & exists(type=="c" & n==%n & objectId==%o)
then: set(%o)(n==%n+1)

type: c
n: 0
SET
favor_set 300000 ""
"$NOMIC" init spin.db --ruleset set.nomic --ruleset spin.nomic --force >/dev/null
before=$(stat -c %s spin.db)
k=0
while [ $k -lt 5 ]; do
    k=$((k + 1))
    printf 'subtype: spin\n' | "$NOMIC" move spin.db --from mallory@x >/dev/null 2>&1
done
"$NOMIC" log spin.db --event 5 > spin.log
expect_in spin.log "took the event past maxWork (300000 units of work" "an undone event says which limit"
expect_in spin.log "firings before the last 16 not kept: the event was undone" "its trace says what was not kept"
tail -1 spin.log > spin.last
expect_in spin.last "did not fire: " "its trace ends with the rule the trip stopped"
expect_in spin.last "the event exceeded maxWork" "its trace ends with the trip"
traced=$(sqlite3 spin.db "select max(length(trace) + length(trace_json)) from events")
[ "$traced" -lt 16384 ] && ok || fail "an undone event's traces take $traced bytes, expected under 16 KiB"
sqlite3 spin.db "pragma wal_checkpoint(truncate)" >/dev/null
grown=$(( $(stat -c %s spin.db) - before ))
[ "$grown" -lt 262144 ] && ok || fail "five undone events grew the journal by $grown bytes, expected under 256 KiB"
expect_status 0 "the undone events replay" "$NOMIC" replay spin.db

# ---- every sender is billed ----------------------------------------------------
# quotas per sender and hour: past quotaEvents a move is answered 429 and
# not run; a stranger's requests refused unread are counted, not journaled
# a row each.
"$NOMIC" init bill.db --ruleset favor --force >/dev/null
"$NOMIC" config bill.db quotaEvents 3
expect_status 2 "a quota takes a whole number within its ceiling" "$NOMIC" config bill.db quotaEvents 100001
expect_in err "quotaEvents 100001: expected a whole number from 1 to 100000" "the ceiling is named"
alice=$("$NOMIC" token bill.db alice@x)
start_server bill.db
codes=""
for n in 1 2 3 4 5; do
    codes="$codes $(curl -s -o quota.$n -w '%{http_code}' -X POST "$URL/api/move" -H "Authorization: Bearer $alice" \
        --data-binary "REGISTER alice$n")"
done
expect_eq "$codes" " 200 200 200 429 429" "past quotaEvents a move is answered 429"
expect_in quota.4 "over quota: the sender alice@x had 3 events run this hour (quotaEvents 3, nomic config); the message was not run" \
    "the 429 says which quota and why"
# another sender is not held back by alice's quota
expect_eq "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/api/move" -H "Authorization: Bearer $("$NOMIC" token bill.db bob@x)" \
    --data-binary 'REGISTER bob')" 200 "another sender's move runs"
stop_server
expect_eq "$(sqlite3 bill.db "select count(*) from events where sender='alice@x'")" 4 \
    "alice's three events and her first refusal are journaled, the second is counted"
expect_eq "$(sqlite3 bill.db "select events || ' ' || refused from tallies where who='alice@x'")" "3 2" \
    "alice's tally: three events run, two refused"
# 400 token-less moves under mailPolicy tokens, each a new address
"$NOMIC" config bill.db mailPolicy tokens
start_server bill.db
before=$(sqlite3 bill.db "select count(*) from events")
n=0
while [ $n -lt 400 ]; do
    n=$((n + 1))
    curl -s -o /dev/null -w '%{http_code}\n' -X POST "$URL/api/move?from=s$n@x" --data-binary "REGISTER s$n"
done | sort | uniq -c > strangers.codes
stop_server
expect_in strangers.codes "400 403" "token-less moves are refused"
expect_eq "$(($(sqlite3 bill.db "select count(*) from events") - before))" 1 \
    "400 refusals from one client: the first is journaled, the others counted"
expect_eq "$(sqlite3 bill.db "select refused from tallies where who='ip 127.0.0.1'")" 400 "the client's tally counts them all"
[ "$(sqlite3 bill.db "select count(*) from tallies")" -le 4 ] && ok || fail "a tally row per sprayed address"
expect_status 0 "the billed game replays" "$NOMIC" replay bill.db

# ---- the lock is fair --------------------------------------------------------
# A token holder's stream of moves, each run to maxWork, through four
# connections; meanwhile another player moves nine times from the command
# line, each waiting for the lock at most 10 s: every one gets its turn,
# within the time of about one of the stream's events.  (At the default
# maxWork one such event takes 3 s here and 10 s under AddressSanitizer, as
# long as the deadline itself: the stream's events are made a tenth of
# that, and one is timed first.)
favor_set 5000000 ""
"$NOMIC" init fair.db --ruleset set.nomic --ruleset spin.nomic --force >/dev/null
"$NOMIC" config fair.db quotaWork 250000000000
"$NOMIC" config fair.db quotaEvents 100000
ms() { date +%s%3N; }
t0=$(ms)
printf 'subtype: spin\n' | "$NOMIC" move fair.db --from mallory@x >/dev/null 2>&1
one=$(($(ms) - t0))
start_server fair.db
for c in 1 2 3 4; do
    (end=$(($(date +%s) + 12)); while [ "$(date +%s)" -lt $end ]; do
        curl -s -o /dev/null -X POST "$URL/api/move?from=mallory@x" --data-binary 'subtype: spin'
    done) &
done
sleep 1
k=0 gave_up=0 longest=0
while [ $k -lt 9 ]; do
    k=$((k + 1))
    t0=$(ms)
    printf 'subtype: register\nnickname: p%s\n' $k | "$NOMIC" move fair.db --from "p$k@x" >/dev/null 2>fair.err
    rc=$?
    took=$(($(ms) - t0))
    [ $took -gt $longest ] && longest=$took
    [ $rc -le 1 ] || { gave_up=$((gave_up + 1)); cat fair.err; }
done
for j in $(jobs -p); do [ "$j" = "$SERVER" ] || wait "$j"; done
stop_server
echo "  (one heavy event $one ms; a player's longest wait beside the stream $longest ms)"
expect_eq "$gave_up" 0 "a player's nine moves beside a stream of heavy moves: none gave up waiting for the lock"
[ $longest -le $((2 * one + 1000)) ] && ok ||
    fail "a player's move waited $longest ms beside the stream, more than two of its events ($one ms each) and a second"
spins=$(sqlite3 fair.db "select count(*) from events where sender='mallory@x'")
[ "$spins" -ge 4 ] && ok || fail "the heavy stream ran only $spins events: it was not a stream"

report strangers
