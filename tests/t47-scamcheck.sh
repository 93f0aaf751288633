#!/bin/sh
# tests/t47-scamcheck.sh - every proposal checked, without asking
# (docs/scams.md, "The check of every proposal"): on favor, a proposal that
# lets a player win in one message is flagged in its event's scamCheck, a
# harmless one gets found:false for every scam goal and its lock-out goal
# found, one that stops every proposal from passing has its lock-out
# flagged; the check changes nothing of the game (the same game without
# the check has the same states and hashes, replay agrees); a store of an
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

# ---- the server: the check in the background, in /api/log ----
"$NOMIC" init s.db --ruleset favor --time 2026-01-01Z --force >/dev/null
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
stop_server
expect_status 0 "replay after the server's check" "$NOMIC" replay s.db

report scamcheck
