#!/bin/sh
# t46-strike.sh - `nomic replay GAME --strike N [--into NEW] [--json]`: a
# ruling that event N never happened, settled by the journal.  In a favor
# game a proposal passes 2-1; striking one FOR vote makes it fail 1-1: the
# timer event that closed it is listed as changed, the vote after the
# struck one is not (its objects only got other ids), and the corrected
# game (--into) replays and agrees.  The original game is only read: its
# file's sha256 and its `nomic log` are the same after.  In a game whose
# rule draws random(), the struck event's draws are skipped, not handed to
# the next event.  Bad event numbers exit 2.  Uses $NOMIC and python3.
set -u
. "$(dirname "$0")/lib.sh"

# -- a favor game: proposal 44 passes 2-1 --
"$NOMIC" init G --ruleset favor --time 2026-01-01Z >/dev/null
for p in alice:10:00 bob:10:01 carol:10:02; do
    who=${p%%:*}
    move_at "$who@x" "2026-01-01T${p#*:}:00Z" "subtype: register" "nickname: $who"
done
move_at alice@x 2026-01-02T09:00:00Z "subtype: ruleChange" "ruleChangeType: create" "newif: F" "newthen: halt()" \
    "neworder: 50000"
expect_in out "proposal 44" "the proposal is 44"
move_at alice@x 2026-01-03T09:00:00Z "subtype: vote" "propId: 44" "vote: FOR"     # event 5
move_at bob@x 2026-01-03T09:01:00Z "subtype: vote" "propId: 44" "vote: FOR"       # event 6, struck below
move_at carol@x 2026-01-03T09:02:00Z "subtype: vote" "propId: 44" "vote: AGAINST" # event 7
"$NOMIC" tick G --time 2026-01-12T09:00:00Z >out 2>&1                               # event 8 closes the vote
expect_eq "$(val proposalPassed propId 44 votersFor)" "alice bob" "the proposal passes 2-1"

sha() { sha256sum G | cut -d' ' -f1; }
SHA=$(sha)
"$NOMIC" log G >log.before 2>&1
"$NOMIC" log G --json >logjson.before 2>&1

expect_status 0 "strike the FOR vote" "$NOMIC" replay G --strike 6
cp out strike.out
expect_in strike.out "struck event 6 (move at 2026-01-03T09:01:00Z from bob@x)" "the struck event is named"
expect_in strike.out "event 8 (tick at 2026-01-12T09:00:00Z): applied before, applied after" "the timer that closed the vote is listed"
expect_not_in strike.out "event 7 (" "the vote after the struck one is not listed for its renumbered ids"
expect_in strike.out "1 of the 2 after it differs" "one later event differs"
expect_in strike.out "type: proposalFailed" "after: the proposal fails"
expect_in strike.out "final state: 1 object only before, 0 only after, 3 differ" "the final states' differences"
expect_eq "$(sha)" "$SHA" "the game's file is byte-identical after a strike"
[ ! -e G-wal ] && [ ! -e G-shm ] && ok || fail "a strike of a closed game leaves no -wal or -shm beside it"

# --json: the same, for programs
expect_status 0 "strike --json" "$NOMIC" replay G --strike 6 --json
python3 - out <<'EOF' >py.out 2>&1 || { fail "the JSON of a strike"; cat py.out; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and d["struck"] == 6 and d["kind"] == "move" and d["sender"] == "bob@x", d
assert [c["event"] for c in d["changed"]] == [8], d["changed"]
c = d["changed"][0]
types = lambda side: sorted(x.get("type", "deleted") for x in c[side]["changes"])
assert "proposalPassed" in types("before") and "rule" in types("before"), types("before")
assert "proposalFailed" in types("after") and "rule" not in types("after"), types("after")
f = d["final"]
assert [o["type"] for o in f["only_before"]] == ["rule"], f
assert f["only_after"] == [], f
assert sorted(x["after"]["objectId"] for x in f["differ"]) == ["36", "39", "45"], f
assert d["into"] is None
EOF
ok

# --into: the corrected game, a real game file that replays
expect_status 0 "strike --into" "$NOMIC" replay G --strike 6 --into NEW
expect_in out "wrote the corrected game to NEW" "--into says where"
expect_status 0 "the corrected game replays" "$NOMIC" replay NEW
expect_in out "every state hash matches" "nomic replay NEW agrees"
"$NOMIC" show NEW --type proposalFailed >out 2>&1
expect_in out "votersFor: alice" "in the corrected game the proposal fails 1-1"
expect_in out "votersAgainst: carol" "carol's AGAINST stands"
"$NOMIC" log NEW --event 6 >out 2>&1
expect_in out "event 6  strike" "event 6 of the corrected game records the strike"
"$NOMIC" show NEW --type rule --json >out 2>&1
expect_not_in out '"ruleOrder":"50000"' "the proposed rule is not in the corrected game"
# a corrected game goes on as a game
move_at dave@x 2026-01-13T09:00:00Z "subtype: register" "nickname: dave"
expect_in out "Welcome" "the original game goes on"
printf 'subtype: register\nnickname: erin\n' | "$NOMIC" move NEW --from erin@x --time 2026-01-13T09:00:00Z >out 2>&1
expect_in out "event 9 (move" "the corrected game takes moves"
expect_status 0 "the corrected game still replays" "$NOMIC" replay NEW
# ... which a strike of the corrected game honours (its strike record is no event to strike)
expect_status 2 "a strike record is not struck" "$NOMIC" replay NEW --strike 6
expect_in err "is itself the record of a strike" "says why"
expect_status 0 "a corrected game struck again" "$NOMIC" replay NEW --strike 5
expect_in out "0 only after" "striking alice's vote too"

# the original is untouched, the log byte-identical (it took dave's move since: compare events 1-8)
"$NOMIC" log G >log.after 2>&1
head -n "$(wc -l <log.before)" log.after >log.after8
expect_cmp log.before log.after8 "nomic log of the game is the same after the strikes"
# and again, with no move in between
SHA=$(sha)
"$NOMIC" log G >log.before 2>&1
"$NOMIC" replay G --strike 8 --into NEW2 >strike8.out 2>&1
"$NOMIC" log G >log.after 2>&1
expect_cmp log.before log.after "nomic log is byte-identical after a strike of the timer"
expect_eq "$(sha)" "$SHA" "the file is byte-identical after a strike of the timer"
expect_status 0 "the timer struck: the corrected game replays" "$NOMIC" replay NEW2
# without the timer, dave's move after the deadline closes the vote (rules read timeGE)
expect_in strike8.out "event 9 (move at 2026-01-13T09:00:00Z from dave@x): applied before, applied after" \
    "the timer struck: the next move, which closes the vote, is listed"
"$NOMIC" show NEW2 --type proposalPassed >out 2>&1
expect_in out "votersFor: alice bob" "the timer struck: the vote passes at dave's move"

# -- bad usages --
expect_status 2 "strike 0" "$NOMIC" replay G --strike 0
expect_status 2 "strike past the journal" "$NOMIC" replay G --strike 99
expect_in err "there is no event 99 (the journal holds events 1 to 9)" "says which events there are"
expect_status 2 "strike -3" "$NOMIC" replay G --strike -3
expect_status 2 "strike x" "$NOMIC" replay G --strike x
expect_status 2 "--into an existing game" "$NOMIC" replay G --strike 6 --into NEW
expect_in err "exists already" "says so"
expect_status 0 "--into an existing game with --force" "$NOMIC" replay G --strike 6 --into NEW --force
expect_status 2 "--into the game itself" "$NOMIC" replay G --strike 6 --into G --force
expect_status 2 "--into without --strike" "$NOMIC" replay G --into X
expect_status 2 "--strike of no game" "$NOMIC" replay nosuch --strike 1
expect_eq "$(sha)" "$SHA" "the game is untouched by the refused strikes"

# -- randomness: the struck event's draws are skipped --
cat >dice.nomic <<'EOF'
type: engineSettings
runType: rule

type: rule
ruleOrder: 100
if: exists(type=="move" & subtype=="roll" & moveSender==%s & objectId==%m)
then: create(type=="roll" & who==%s & a==random(1, 1000000000) & b==random(1, 1000000000)) & delete(objectId==%m)
EOF
"$NOMIC" init D --ruleset ./dice.nomic --seed 7 --time 2026-01-01Z >/dev/null
for who in ann ben cat; do
    printf 'subtype: roll\n' | "$NOMIC" move D --from $who@x --time 2026-01-02Z >/dev/null
done
roll() { # GAME WHO: the roll's a and b
    "$NOMIC" show "$1" --type roll | awk -v w="$2@x" 'BEGIN { RS = "" } $0 ~ "who: " w { for (i = 1; i <= NF; i++) if ($i == "a:" || $i == "b:") s = s " " $(i + 1); print s }'
}
BEN=$(roll D ben)
CAT=$(roll D cat)
expect_status 0 "strike ben's roll" "$NOMIC" replay D --strike 2 --into D2
expect_in out "its 2 draws of the generator skipped" "the strike counts ben's two draws"
expect_in out "0 of the 1 after it differ" "cat's roll is the same without ben's"
expect_in out "final state: 1 object only before, 0 only after, 0 differ" "only ben's roll is gone"
expect_eq "$(roll D2 cat)" "$CAT" "cat draws what she drew, not what ben drew"
[ "$CAT" != "$BEN" ] && ok || fail "the rolls differ (the check above means something)"
expect_status 0 "the corrected game of dice replays" "$NOMIC" replay D2
expect_in out "every state hash matches" "replay honours the skipped draws"
# and the corrected game draws on as the original would have
printf 'subtype: roll\n' | "$NOMIC" move D --from dan@x --time 2026-01-03Z >/dev/null
printf 'subtype: roll\n' | "$NOMIC" move D2 --from dan@x --time 2026-01-03Z >/dev/null
expect_eq "$(roll D2 dan)" "$(roll D dan)" "a later roll in the corrected game is the original's"

report strike
