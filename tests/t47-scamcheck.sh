#!/bin/sh
# tests/t47-scamcheck.sh - every proposal checked, without asking
# (docs/scams.md, "The check of every proposal"): on favor, a proposal that
# lets a player win in one message is flagged in its event's scamCheck, a
# harmless one gets found:false for every scam goal and its lock-out goal
# found, one that stops every proposal from passing has its lock-out
# flagged; the check changes nothing of the game (the same game without
# the check has the same states and hashes, replay agrees); a set that asks
# for it (scamCheckEvent) gets each answer as an event of kind check whose
# scamCheck objects its rules mail, and replay agrees; a store of an
# earlier build gains the column; and the server journals the check in the
# background, shown by /api/log.  Run from the project root:
# NOMIC=build/nomic sh tests/t47-scamcheck.sh
. "$(dirname "$0")/lib.sh"
. "$SRCDIR/tests/serve.sh"

# favor, three players, then the proposals: harmless (F), a win in one
# message (a rule, ordered before the check of `from`, that gives 101
# points for a `bonus` move), a repeal of rule 21 (ruleOrder 30430: "the
# proposal passes"), after which no proposal can pass.
WINIF='exists(type=="move" & subtype=="bonus" & from==%f & objectId==%m) & exists(type=="player" & nickname==%f & objectId==%o)'
play() { # DB
    "$NOMIC" init "$1" --ruleset favor --seed 7 --time 2026-01-01Z --force >/dev/null || fail "init"
    for p in alice bob carol; do
        printf 'REGISTER %s\n' $p | "$NOMIC" move "$1" --from $p@x --time 2026-01-01T01:00:00Z >/dev/null
    done
    printf 'subtype: ruleChange\nruleChangeType: create\nnewif: F\nnewthen: halt()\nneworder: 50000\n' |
        "$NOMIC" move "$1" --from bob@x --time 2026-01-01T02:00:00Z >/dev/null
    printf 'subtype: ruleChange\nruleChangeType: create\nneworder: 20000\nnewif: %s\nnewthen: set(%%o)(score==101) & delete(objectId==%%m)\n' "$WINIF" |
        "$NOMIC" move "$1" --from carol@x --time 2026-01-01T03:00:00Z >/dev/null
    printf 'REPEAL 21\n' | "$NOMIC" move "$1" --from alice@x --time 2026-01-01T04:00:00Z >/dev/null
    printf 'VOTE 44 FOR\n' | "$NOMIC" move "$1" --from alice@x --time 2026-01-01T05:00:00Z >/dev/null
}
play g.db
"$NOMIC" log g.db --json >log.json

# what each event's check says, event by event
python3 - <<'EOF' >checks.txt || fail "the log's scamCheck"
import json
for e in json.load(open("log.json"))["events"]:
    c = e.get("scamCheck")
    if c is None:
        print(e["event"], "none")
        continue
    for x in c:
        print(e["event"], x["proposal"], x["goal"], x["kind"], "found" if x.get("found") else "none",
              "FLAGGED" if x["flagged"] else "-", x.get("as"),
              " | ".join(json.dumps(m) for s in x.get("steps", []) for m in s.get("moves", [s])))
EOF
cat >want.txt <<'EOF'
1 none
2 none
3 none
4 44 win scam none - None 
4 44 twoBallots scam none - None 
4 44 adoptable lockout found - alice@x {"subtype": "vote", "propId": "44", "vote": "FOR"} | {"wait": 1768096800}
5 46 win scam found FLAGGED alice@x {"subtype": "bonus", "from": "carol"}
5 46 twoBallots scam none - None 
5 46 adoptable lockout found - alice@x {"subtype": "vote", "propId": "44", "vote": "FOR"} | {"wait": 1768096800}
6 48 win scam none - None 
6 48 twoBallots scam none - None 
6 48 adoptable lockout none FLAGGED alice@x 
7 none
EOF
expect_cmp want.txt checks.txt "each proposal's check: the win flagged, the harmless none, the lock-out flagged after the repeal"
# the lock-out after the repeal was searched to its depth; with a budget
# too small to do so, it is not flagged, and the entry says why
python3 -c '
import json
x = [c for c in json.load(open("log.json"))["events"][5]["scamCheck"] if c["kind"] == "lockout"][0]
assert "budgetSpent" not in x and x["flagged"] is True, x
' && ok || fail "a lock-out searched to its depth is flagged"
sed 's/^scamBudget: .*/scamBudget: 500/' "$SRCDIR/rulesets/favor.nomic" >small.nomic
cp "$SRCDIR/rulesets/favor.sugar" small.sugar
"$NOMIC" init small.db --ruleset "$PWD/small.nomic" --time 2026-01-01Z >/dev/null
for p in alice bob carol; do printf 'REGISTER %s\n' $p | "$NOMIC" move small.db --from $p@x --time 2026-01-01T01:00:00Z >/dev/null; done
printf 'REPEAL 21\n' | "$NOMIC" move small.db --from alice@x --time 2026-01-01T04:00:00Z >/dev/null
"$NOMIC" log small.db --event 4 --json >small.json
python3 -c '
import json
x = [c for c in json.load(open("small.json"))["events"][0]["scamCheck"] if c["kind"] == "lockout"][0]
assert x["found"] is False and x["budgetSpent"] is True and x["flagged"] is False, x
' && ok || fail "a lock-out whose budget ran out is not flagged, and says so"

# nothing of the game moved: the same moves without the check give the
# same objects and the same hashes (the generator, the ids and the queue
# are the same too), and replay agrees
NOMIC_TEST_NO_SCAM_CHECK=1 play bare.db
"$NOMIC" log bare.db --json >bare.json
# (the hash's key is each game's own: the states are compared whole, and
# replay recomputes every hash the journal recorded before its check)
python3 -c '
import json, sqlite3
a = json.load(open("log.json"))["events"]; b = json.load(open("bare.json"))["events"]
assert [e["status"] for e in a] == [e["status"] for e in b], "outcomes differ"
assert all("scamCheck" not in e for e in b), "a check without the check"
row = lambda f: sqlite3.connect(f).execute("SELECT value FROM meta WHERE key=\"state\"").fetchone()[0]
assert row("g.db") == row("bare.db"), (row("g.db"), row("bare.db"))
' && ok || fail "the check changes nothing of the game (generator, next id, timer)"
"$NOMIC" export g.db | sed 1d >a.txt
"$NOMIC" export bare.db | sed 1d >b.txt
expect_cmp b.txt a.txt "the check changes no object"
expect_status 0 "replay after the checks" "$NOMIC" replay g.db
# and in words, in the log
"$NOMIC" log g.db --event 5 >e5.txt
expect_in e5.txt "proposal 46, win (scam): FLAGGED, reachable by alice@x" "nomic log: the flagged goal, in words"
expect_in e5.txt "proposal 46, adoptable (lockout): still reachable by the players together" "nomic log: a lock-out not reached"
"$NOMIC" log g.db --event 6 >e6.txt
expect_in e6.txt "proposal 48, adoptable (lockout): FLAGGED, not reachable by the players together" "nomic log: the lock-out flagged"


# a mailbox taken whole (deliver --mbox): each mail's proposal is checked,
# its answer written with the mail's group
"$NOMIC" init mb.db --ruleset favor --seed 7 --time 2026-01-01Z --force >/dev/null || fail "init mb"
for p in alice bob; do printf 'REGISTER %s\n' $p | "$NOMIC" move mb.db --from $p@x --time 2026-01-01T01:00:00Z >/dev/null; done
{
    printf 'From alice@x Thu Jan  1 04:00:00 2026\nFrom: alice@x\nTo: game@x\nSubject: repeal\n'
    printf 'Date: Thu, 01 Jan 2026 04:00:00 +0000\nMessage-ID: <mb1@x>\n\nREPEAL 21\n\n'
    printf 'From bob@x Thu Jan  1 05:00:00 2026\nFrom: bob@x\nTo: game@x\nSubject: harmless\n'
    printf 'Date: Thu, 01 Jan 2026 05:00:00 +0000\nMessage-ID: <mb2@x>\n\nREPEAL 31\n'
} >box.mbox
expect_status 0 "deliver --mbox" "$NOMIC" deliver mb.db --mbox box.mbox
"$NOMIC" log mb.db --json >mb.json
python3 -c '
import json
ev = json.load(open("mb.json"))["events"]
c = {e["event"]: e.get("scamCheck") for e in ev}
assert c[3] and c[4], c
lock = [x for x in c[3] if x["kind"] == "lockout"][0]
assert lock["flagged"] is True and lock["proposal"] == "41", lock
assert all(x["goal"] and "found" in x for x in c[4]), c[4]
' && ok || fail "deliver --mbox: each mail's proposal checked, the repeal of 21 flagged"

# a set without scamGoals: no check, no scamCheck
"$NOMIC" init t.db --ruleset tiny --time 2026-01-01Z --force >/dev/null
"$NOMIC" log t.db --json >tiny.json
expect_not_in tiny.json scamCheck "a set without goals is not checked"

# a bad goal line is said in the entry, the others run
cat >bad.nomic <<'EOF'
type: engineSettings
scamGoals: scam nocolon exists(type=="win")
  oops x: T
  scam fine: exists(type=="win")
EOF
"$NOMIC" init b.db --ruleset favor --ruleset "$PWD/bad.nomic" --time 2026-01-01Z --force >/dev/null
printf 'REGISTER alice\n' | "$NOMIC" move b.db --from alice@x --time 2026-01-01T01:00:00Z >/dev/null
printf 'REPEAL 21\n' | "$NOMIC" move b.db --from alice@x --time 2026-01-01T02:00:00Z >/dev/null
"$NOMIC" log b.db --event 2 --json >bad.json
python3 -c '
import json
c = json.load(open("bad.json"))["events"][0]["scamCheck"]
goals = [(x["goal"], "error" in x) for x in c]
assert ("fine", False) in goals and ("x", True) in goals and sum(1 for g in goals if g[1]) == 2, goals
' && ok || fail "bad goal lines: an error entry each, the good ones run"

# a game of an earlier build: its journal lacks scam_check, added when opened
"$NOMIC" init old.db --ruleset favor --time 2026-01-01Z --force >/dev/null
python3 - <<'EOF' || fail "could not make an old journal"
import sqlite3
db = sqlite3.connect("old.db")
db.execute("ALTER TABLE events DROP COLUMN scam_check")
db.commit()
EOF
printf 'REGISTER alice\n' | "$NOMIC" move old.db --from alice@x --time 2026-01-01T01:00:00Z >/dev/null
printf 'REPEAL 21\n' | "$NOMIC" move old.db --from alice@x --time 2026-01-01T02:00:00Z >/dev/null
"$NOMIC" log old.db --json >old.json
expect_in old.json '"scamCheck":[' "an old journal gains the column and the check"

# ---- offered to the rules: scamCheckEvent ----
# A set that asks for it gets each answer as an event of its own (kind
# check) making a scamCheck object per entry; here two rules mail the
# flagged ones to the players and drop the others.
cat >offer.nomic <<'EOF'
type: engineSettings
scamCheckEvent: T

type: rule
ruleOrder: 99950
if: exists(type=="scamCheck" & flagged==T & proposal==%p & goal==%gl & steps==%st & objectId==%o) &
    exists(type=="playerList" & listContent==%pl)
then: send(%pl, glue("The scam check of proposal ", %p, " flagged ", %gl, ": ", %st)) & delete(objectId==%o)

type: rule
ruleOrder: 99951
if: exists(type=="scamCheck" & flagged==F & objectId==%o)
then: delete(objectId==%o)
EOF
"$NOMIC" init o.db --ruleset favor --ruleset "$PWD/offer.nomic" --seed 7 --time 2026-01-01Z --force >/dev/null
for p in alice bob carol; do printf 'REGISTER %s\n' $p | "$NOMIC" move o.db --from $p@x --time 2026-01-01T01:00:00Z >/dev/null; done
printf 'subtype: ruleChange\nruleChangeType: create\nneworder: 20000\nnewif: %s\nnewthen: set(%%o)(score==101) & delete(objectId==%%m)\n' "$WINIF" |
    "$NOMIC" move o.db --from carol@x --time 2026-01-01T03:00:00Z >/dev/null
printf 'subtype: ruleChange\nruleChangeType: create\nnewif: F\nnewthen: halt()\nneworder: 50000\n' |
    "$NOMIC" move o.db --from bob@x --time 2026-01-01T04:00:00Z >/dev/null
"$NOMIC" log o.db --json >offer.json
python3 -c '
import json
ev = [(e["event"], e["kind"], e["status"]) for e in json.load(open("offer.json"))["events"]]
assert ev == [(1, "move", "applied"), (2, "move", "applied"), (3, "move", "applied"), (4, "move", "applied"),
              (5, "check", "applied"), (6, "move", "applied"), (7, "check", "applied")], ev
' && ok || fail "each check offered as an event of kind check, after the event it checked"
"$NOMIC" outbox o.db >offer.out
expect_in offer.out "The scam check of proposal 47 flagged win: alice@x sends subtype=bonus from=carol" "the rules mail the flagged goal, in words"
[ "$(grep -c 'The scam check of proposal' offer.out)" = 1 ] && ok || fail "a harmless proposal's check mails nothing"
"$NOMIC" export o.db >offer.txt
expect_not_in offer.txt "type: scamCheck" "the rules dropped the objects they read"
expect_status 0 "replay of the checks offered" "$NOMIC" replay o.db
# the same game without scamCheckEvent journals no check event
"$NOMIC" log g.db --json >g.json
expect_not_in g.json '"kind":"check"' "without scamCheckEvent, no event of kind check"

# ---- two proposals opened by one event: each is checked ----
# agora's Promotor distributes every pending proposal at once, on the
# Monday after: the distribution's event checks both
"$NOMIC" init a.db --ruleset agora --time 2026-01-01Z --force >/dev/null || fail "init agora"
for p in alice:a bob:b carol:c; do
    printf 'REGISTER %s\n' "${p%:*}" | "$NOMIC" move a.db --from "${p#*:}@x" --time 2026-01-01T01:00:00Z >/dev/null
done
printf 'PROPOSE AI 1 Hats\nENACT TITLE Hats TEXT Every player wears a hat.\n' |
    "$NOMIC" move a.db --from a@x --time 2026-01-01T02:00:00Z >/dev/null
printf 'PROPOSE AI 1 Shoes\nENACT TITLE Shoes TEXT Every player wears shoes.\n' |
    "$NOMIC" move a.db --from b@x --time 2026-01-01T02:10:00Z >/dev/null
ids=$("$NOMIC" show a.db --type proposal | awk '$1 == "objectId:" { print $2 }')
for id in $ids; do
    printf 'PEND %s\n' "$id" | "$NOMIC" move a.db --from b@x --time 2026-01-02T00:00:00Z >/dev/null
done
"$NOMIC" tick a.db --time 2026-01-05T00:00:00Z >/dev/null || fail "agora: the distribution"
"$NOMIC" log a.db --json >a.json
got=$(python3 -c '
import json, sys
for e in json.load(open(sys.argv[1]))["events"]:
    for c in e.get("scamCheck") or []:
        print(e["kind"], c["proposal"], c["goal"], c["flagged"], "error" in c)' a.json)
want=$(for id in $ids; do echo "tick $id twoBallots False False"; done)
expect_eq "$got" "$want" "agora: both proposals the distribution opened are checked, in one event"

# ---- the server: the check in the background, in /api/log ----
"$NOMIC" init s.db --ruleset favor --ruleset "$PWD/offer.nomic" --time 2026-01-01Z --force >/dev/null
for p in alice bob carol; do printf 'REGISTER %s\n' $p | "$NOMIC" move s.db --from $p@x >/dev/null; done
start_server s.db || exit 1
printf 'subtype: ruleChange\nruleChangeType: create\nneworder: 20000\nnewif: %s\nnewthen: set(%%o)(score==101) & delete(objectId==%%m)\n' "$WINIF" >win.txt
expect_http 200 "a proposal by HTTP" POST '/api/move?from=carol@x' --data-binary @win.txt
ev=$(json body "j['event']")
wait_until 20 sh -c "curl -s '$URL/api/log/$ev' | grep -q '\"flagged\":true'"
expect_http 200 "the event" GET "/api/log/$ev"
expect_json "[(c['goal'], c['flagged']) for c in j['scamCheck']]" "[('win', True), ('twoBallots', False), ('adoptable', False)]" "/api/log/N: the check, once done"
expect_http 200 "the log" GET "/api/log?since=$((ev - 1))"
expect_json "j[0]['scamCheck'][0]['steps'][0]['moves'][0]['subtype']" "bonus" "/api/log: the flagged goal's steps"
# the set asks for the answer as an event: the server adds it after the check
wait_until 20 sh -c "curl -s '$URL/api/log?since=$ev' | grep -q '\"kind\":\"check\"'"
expect_http 200 "the log after" GET "/api/log?since=$ev"
expect_json "[e['kind'] for e in j]" "['check']" "the server offers the answer to the rules as an event of kind check"
stop_server
expect_status 0 "replay after the server's check" "$NOMIC" replay s.db

report scamcheck
