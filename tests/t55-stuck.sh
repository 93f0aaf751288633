#!/bin/sh
# t55-stuck.sh - a game stuck by a rule whose timer event always runs past
# the budget, and its way out: an idle `nomic serve` backs the timer off
# (journal growth and CPU bounded, the back-off kept across a restart and
# shown in `nomic log`), `nomic tick` honours it; the game-keeper's
# `nomic suspend` sets the rule aside, journaled, shown by `nomic log`,
# `nomic show` and the page's /api/game; the game moves again, the players
# repeal the rule by play, `nomic resume` of the repealed rule says so, and
# `nomic replay` agrees at each step.  Bad usages exit 2 or 1.  Uses $NOMIC,
# sqlite3, curl and python3.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRCDIR/tests/serve.sh"

events() { sqlite3 G "SELECT count(*) FROM events"; }
# the bytes the journal holds: every text of every event
journal_bytes() {
    sqlite3 G "SELECT coalesce(sum(length(coalesce(input,'')) + length(coalesce(raw,'')) + length(coalesce(message,''))
               + length(coalesce(trace,'')) + length(coalesce(trace_json,''))), 0) FROM events"
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # user + system, in clock ticks
HZ=$(getconf CLK_TCK)
replays() { # DESCRIPTION
    "$NOMIC" replay G >replay.out 2>&1
    expect_in replay.out "every state hash matches" "$1: replay matches"
}

# A game of favor with one more rule (35): once its time has come, each
# event doubles a text until it runs past maxMemory (in a few hundredths
# of a second: replay runs it again at each check).
NOW=$(date +%s)
cat >stuck.nomic <<EOF
type: rule
ruleOrder: 1
if: timeGE($((NOW - 3600))) & exists(type=="t" & v==%v & objectId==%o)
then: set(%o)(v==glue(%v,%v))
comment: a timer that always runs away

type: t
v: abcdefgh
EOF
"$NOMIC" init G --ruleset favor --ruleset stuck.nomic --time $((NOW - 7200)) >/dev/null
for p in alice bob carol; do move_at $p@x $((NOW - 7000)) "REGISTER $p"; done
expect_eq "$(val rule comment "a timer that always runs away" objectId)" "35" "the runaway rule is rule 35"

# --- an idle server: the timer runs away once, then waits -----------------
start_server G
settled() { [ "$(sqlite3 G "SELECT status FROM events WHERE n=4")" = refused ]; }
wait_until 20 settled # the timer's event
expect_eq "$(events)" "4" "the server ran the due timer"
"$NOMIC" log G --event 4 >log.out
expect_in log.out "tick" "event 4 is the timer"
expect_in log.out "took the event past maxMemory" "it ran past the budget"
expect_in log.out "the timer is tried again at" "the log says when the timer is tried again"
expect_in log.out "in 1 minute (its event ran past the budget 1 time in a row" "the first wait is a minute"
e1=$(events) b1=$(journal_bytes) c1=$(cpu_ticks "$SERVER")
sleep 4
e2=$(events) b2=$(journal_bytes) c2=$(cpu_ticks "$SERVER")
# before the back-off: 6 events, 14 MB of journal and 3.3 s of CPU in 5 s
expect_eq "$((e2 - e1))" "0" "the idle server journals no more timer events in 4 s"
[ $((b2 - b1)) -lt 65536 ] && ok || fail "the journal grew by $((b2 - b1)) bytes in 4 s, expected under 64 KiB"
[ $((c2 - c1)) -lt $((HZ * 4 / 10)) ] && ok ||
    fail "the idle server used $((c2 - c1)) ticks of CPU in 4 s, expected under 10% of a core ($((HZ * 4 / 10)))"
# the back-off is kept: a restarted server waits too
stop_server
start_server G
sleep 2
expect_eq "$(events)" "$e2" "a restarted server keeps the back-off"
stop_server
expect_eq "$(sqlite3 G "SELECT value FROM meta WHERE key='timer_backoff'" | cut -d' ' -f1)" "1" \
    "the back-off is in the store's meta"
expect_status 0 "nomic tick during the back-off" "$NOMIC" tick G
expect_in out "tried again at" "nomic tick says the timer waits"
expect_eq "$(events)" "$e2" "nomic tick honours the back-off"
replays "after the runaway timer"

# the next try, when the wait is over, waits twice as long
retry=$(sqlite3 G "SELECT value FROM meta WHERE key='timer_backoff'" | cut -d' ' -f2)
expect_status 0 "a tick when the wait is over" "$NOMIC" tick G --time $((retry + 1))
expect_in out "ran past the budget 2 times in a row" "the second try is counted"
expect_in out "in 2 minutes" "the second wait is two minutes"
expect_status 0 "a tick a minute later" "$NOMIC" tick G --time $((retry + 61))
expect_in out "no timer due" "the second wait is honoured"
# every later event meets the rule first: a move is undone too
move_at dave@x $((retry + 62)) "REGISTER dave"
expect_in out "took the event past maxMemory" "a move is undone by the same rule"
replays "the stuck game"

# --- bad usages ----------------------------------------------------------
expect_status 2 "suspend without a rule" "$NOMIC" suspend G
expect_status 2 "suspend of a word" "$NOMIC" suspend G rule35
expect_in err "expected a rule's objectId" "the word is named"
expect_status 2 "suspend of no game" "$NOMIC" suspend nosuchgame.db 35
expect_status 1 "suspend of no object" "$NOMIC" suspend G 9999
expect_in out "there is no object 9999" "no object 9999"
expect_status 1 "suspend of an object that is not a rule" "$NOMIC" suspend G 1
expect_in out "object 1 is not a rule" "object 1 is the engineSettings"
expect_status 1 "resume of a rule not suspended" "$NOMIC" resume G 35
expect_in out "rule 35 is not suspended" "rule 35 is not suspended"
n=$(events)
expect_eq "$n" "$(events)" "refused usages journal nothing"

# --- the way out ---------------------------------------------------------
expect_status 0 "suspend rule 35" "$NOMIC" suspend G 35
expect_in out "rule 35 (ruleOrder 1) is suspended by the game-keeper" "suspend says what it did"
expect_eq "$(events)" "$((n + 1))" "suspend is one event"
"$NOMIC" log G --event $((n + 1)) >log.out
expect_in log.out "suspend" "the log shows the suspension"
expect_in log.out "rule: 35" "and its rule"
expect_status 1 "suspend twice" "$NOMIC" suspend G 35
expect_in out "rule 35 is suspended already" "suspended already"
expect_status 0 "show the rule" "$NOMIC" show G --id 35
expect_in out "# suspended by the game-keeper" "nomic show marks it suspended"
"$NOMIC" show G --type rule --json >show.json
expect_in show.json '"suspended":[35]' "nomic show --json lists it"
expect_eq "$(sqlite3 G "SELECT value FROM meta WHERE key='suspended'")" "35" "the list is in the store's meta"
expect_eq "$(sqlite3 G "SELECT count(*) FROM meta WHERE key='timer_backoff'")" "0" "the back-off starts again"
start_server G
curl -s "$URL/api/game" >game.json
expect_in game.json '"suspended":[35]' "the page's /api/game lists it"
curl -s "$URL/api/rules" >rules.json
expect_in rules.json '"objectId":"35"' "the page still lists the rule"
curl -s "$URL/api/log?since=$n" >logpage.json
expect_in logpage.json '"kind":"suspend"' "the page's history shows the suspension"
stop_server
replays "after suspend"

# the game moves again
"$NOMIC" tick G >out 2>&1
expect_in out "tick" "the timer runs"
expect_not_in out "refused" "and is no longer undone"
move_at dave@x "$(($(sqlite3 G "SELECT max(time) FROM events") + 1))" "REGISTER dave"
expect_in out "applied" "a later move is applied"
expect_eq "$(val player nickname dave nickname)" "dave" "dave is a player"
replays "the game moves again"

# the players repeal rule 35 by play
t=$(($(sqlite3 G "SELECT max(time) FROM events") + 1))
move_at alice@x $t "REPEAL 35"
expect_in out "applied" "alice proposes to repeal rule 35"
prop=$(val voteInProgress type voteInProgress propId)
for p in alice bob carol dave; do move_at $p@x $((t + 60)) "VOTE $prop FOR"; done
"$NOMIC" tick G --time $((t + 11 * 24 * 3600)) >out 2>&1
expect_status 1 "rule 35 is repealed" "$NOMIC" show G --id 35
expect_eq "$(val proposalPassed propId "$prop" type)" "proposalPassed" "the repeal passed"
replays "after the repeal"

# resume is no longer needed: resuming the repealed rule says so
expect_status 0 "resume of the repealed rule" "$NOMIC" resume G 35
expect_in out "rule 35 is no longer in the game" "resume says the rule is gone"
expect_eq "$(sqlite3 G "SELECT count(*) FROM meta WHERE key='suspended'")" "0" "the list is empty"
expect_status 1 "resume again" "$NOMIC" resume G 35
expect_in out "there is no object 35" "nothing left to resume"
"$NOMIC" log G --json >log.json
expect_eq "$(python3 -c 'import json; print(" ".join(e["kind"] for e in json.load(open("log.json"))["events"] if e["kind"] in ("suspend", "resume")))')" \
    "suspend resume" "the journal holds the suspension and the resumption"
replays "at the end"

# a resumed rule runs again: suspend and resume a rule of favor
expect_status 0 "suspend rule 33" "$NOMIC" suspend G 33
expect_status 0 "resume rule 33" "$NOMIC" resume G 33
expect_in out "rule 33 (ruleOrder" "resume names the rule"
expect_in out "the engine runs it again" "resume says the engine runs it"
replays "after resume"

report stuck
