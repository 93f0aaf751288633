#!/bin/sh
# t41-slr.sh - nomic slr parse and emit: the flattened seed (002) read into its
# 141 rules with their IDs, revisions, powers, titles and sections (the two
# Rule 2557s kept, with a warning on stderr while stdout stays JSON); a
# multi-line SLR with sections, notes, Power=3.14 and titles on either
# line; emit then parse giving back the rules, on the agora set and after
# its ruleTexts change in play; malformed input refused with the line and
# column.  Uses $NOMIC (default build/nomic) and python3 to read JSON.
set -u
SEED=${SEED:-$(cd "$(dirname "$0")" && pwd)/data/agora-slr-seed.txt}
. "$(dirname "$0")/lib.sh"
# rule FILE.json INDEX: "id/revision/power/title/section" of the INDEXth rule (from 0)
rule() {
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[int(sys.argv[2])]
print("/".join([r["id"], r["revision"], r["power"], r["title"], r["section"]]))' "$1" "$2"
}
# byid FILE.json ID [NTH]: the same for the NTHth rule with that ID (from 1)
byid() {
    python3 -c 'import json,sys; r=[x for x in json.load(open(sys.argv[1])) if x["id"]==sys.argv[2]]
n=int(sys.argv[3]) if len(sys.argv)>3 else 1
print("/".join([r[n-1]["id"], r[n-1]["revision"], r[n-1]["power"], r[n-1]["title"], r[n-1]["section"]]) if len(r)>=n else "(none)")' "$@"
}
field() { # FILE.json ID FIELD
    python3 -c 'import json,sys; print([x for x in json.load(open(sys.argv[1])) if x["id"]==sys.argv[2]][0][sys.argv[3]])' "$@"
}
count() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$1"; }

# --- the flattened seed -----------------------------------------------------
# copied under a fixed name, so that the messages name no path of the machine
cp "$SEED" agora-slr-seed.txt
expect_status 0 "the seed parses" "$NOMIC" slr parse agora-slr-seed.txt --json
mv out seed.json
mv err seed.err
expect_eq "$(count seed.json)" 141 "the seed's rules"
# one warning, naming line and column, for the two 2557s
expect_golden seed.warnings seed.err "the seed's warnings, whole"
expect_eq "$(rule seed.json 0)" "101/17/4.0/The Game of Agora/The Game of Agora" "the first rule"
expect_eq "$(rule seed.json 140)" "2029/0/4.0/Town Fountain/Agoran Culture" "the last rule"
expect_eq "$(field seed.json 104 text)" "The Speaker for the first game shall be Michael Norrish." "104's text"
expect_eq "$(field seed.json 2240 text)" "In a conflict between clauses of the same Rule, if exactly one claims precedence over the other, then it takes precedence; otherwise, the later clause takes precedence." "2240's text"
expect_eq "$(field seed.json 2029 text | cut -c1-24)" '/\ /\ / \ / \ T his Powe' "2029's text starts with its fountain"
# every rule has a title, and none ran into its text
expect_eq "$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1])) if not r["title"] or len(r["title"].split()) > 7))' seed.json)" 0 "titles"

# every rule in order, by section: ID, revision, power (2486's 3.14, the
# decided title of 2168, both 2557s), title; the count
expect_status 0 "the seed as a summary" "$NOMIC" slr parse agora-slr-seed.txt
expect_golden seed.summary out "the seed's summary: every rule's ID, revision, power, title and section"

# --- a multi-line SLR --------------------------------------------------------
cat > multi.txt <<'EOF'
THE SHORT LOGICAL RULESET

Date of this report: 2024-05-01

======================================================================
Foundations
   The rules about rules.
----------------------------------------------------------------------

Rule 101/3 (Power=3.14)
The First Rule

      All players must obey the rules.

      A second paragraph,
      on two lines.

----------------------------------------------------------------------

Rule 2000/0 (Power=1.7) Title on the Header Line

      Text of 2000:
        1. an indented item;
        2. another.

----------------------------------------------------------------------

======================================================================
Players
----------------------------------------------------------------------

Rule 869/43 (Power=3)
How to Join

      Anyone may join.

----------------------------------------------------------------------

Rule 9/1 (Power=0.5)
"Quoted" \ Title

	Tabbed "text" \ with a backslash.

----------------------------------------------------------------------
======================================================================
END OF THE SHORT LOGICAL RULESET
EOF
expect_status 0 "a multi-line SLR parses" "$NOMIC" slr parse multi.txt --json
mv out multi.json
expect_eq "$(cat err)" "" "no warnings"
python3 - multi.json <<'EOF' > multi.check
import json, sys
got = json.load(open(sys.argv[1]))
want = [
 {"id": "101", "revision": "3", "power": "3.14", "title": "The First Rule",
  "text": "All players must obey the rules.\n\nA second paragraph,\non two lines.", "section": "Foundations"},
 {"id": "2000", "revision": "0", "power": "1.7", "title": "Title on the Header Line",
  "text": "Text of 2000:\n  1. an indented item;\n  2. another.", "section": "Foundations"},
 {"id": "869", "revision": "43", "power": "3", "title": "How to Join", "text": "Anyone may join.", "section": "Players"},
 {"id": "9", "revision": "1", "power": "0.5", "title": "\"Quoted\" \\ Title",
  "text": "Tabbed \"text\" \\ with a backslash.", "section": "Players"},
]
print("same" if got == want else "differ: %r" % got)
EOF
expect_eq "$(cat multi.check)" "same" "the multi-line SLR's rules"

# its objects make a game whose SLR reads back the same
"$NOMIC" slr parse multi.txt --objects > multi.nomic
expect_status 0 "a game from the multi-line SLR" "$NOMIC" init M --ruleset ./multi.nomic --time 2026-01-01Z
"$NOMIC" show M --type slrSection > sections.txt
expect_in sections.txt "note: The rules about rules." "a section's note is kept"
expect_status 0 "emit" "$NOMIC" slr emit M
mv out multi.emitted
# the power as written, the section's note, the footer
expect_golden multi.slr multi.emitted "the SLR emitted, whole"
expect_status 0 "the emitted SLR parses" "$NOMIC" slr parse multi.emitted --json
if cmp -s out multi.json; then ok; else fail "emit then parse differs from the multi-line SLR"; diff out multi.json | head; fi

# headings framed by two lines of = read the same
cat > framed.txt <<'EOF'
THE SHORT LOGICAL RULESET
======================================================================
Players
======================================================================

Rule 869/43 (Power=3)
How to Join

      Anyone may join.

----------------------------------------------------------------------
======================================================================
END OF THE SHORT LOGICAL RULESET
======================================================================
EOF
expect_status 0 "framed headings" "$NOMIC" slr parse framed.txt --json
expect_eq "$(rule out 0)" "869/43/3/How to Join/Players" "a rule under a framed heading"
expect_status 0 "framed headings as objects" "$NOMIC" slr parse framed.txt --objects
expect_in out "footer: END OF THE SHORT LOGICAL RULESET" "a framed footer"
expect_eq "$(grep -c '^type: slrSection' out)" 1 "one section"

# --- the agora set: emit then parse gives the seed's rules -------------------
expect_status 0 "init agora" "$NOMIC" init G --ruleset agora --time 2026-01-01Z
expect_status 0 "emit agora" "$NOMIC" slr emit G
mv out agora.slr
expect_in agora.slr "Rule 2486/0 (Power=3.14)" "the parade in the emitted SLR"
expect_status 0 "the emitted SLR parses" "$NOMIC" slr parse agora.slr --json
expect_in err "warning: rule 2557 appears twice" "the emitted SLR keeps both 2557s"
if cmp -s out seed.json; then ok; else fail "emit then parse differs from the seed"; diff out seed.json | head -5; fi

# --- after the rules change in play -------------------------------------------
# A set of two test rules that change ruleTexts as a proposal would: one
# amends (text, title, revision + 1), one enacts a rule into a section.
cat > change.nomic <<'EOF'
type: rule
ruleOrder: 1
if: exists(type=="move" & subtype=="slrAmend" & number==%n & title==%t & text==%x & objectId==%m)
then: set(type=="ruleText" & number==%n)(text==%x & title==%t & revision==revision+1) & delete(%m)

type: rule
ruleOrder: 2
if: exists(type=="move" & subtype=="slrEnact" & number==%n & title==%t & text==%x & section==%s & objectId==%m)
then: create(type=="ruleText" & number==%n & revision==0 & power==1 & title==%t & text==%x & section==%s) & delete(%m)
EOF
expect_status 0 "init agora with the test rules" "$NOMIC" init C --ruleset agora --ruleset ./change.nomic --time 2026-01-01Z
printf 'subtype: slrAmend\nnumber: 104\ntitle: The First Speaker\ntext: "The Speaker for the first game was Michael Norrish.\\n\\nThis rule is history."\n' |
    "$NOMIC" move C --from k@x --time 2026-01-02Z > /dev/null
printf 'subtype: slrEnact\nnumber: 2567\ntitle: A New Rule\ntext: Something new.\nsection: Players\n' |
    "$NOMIC" move C --from k@x --time 2026-01-03Z > /dev/null
expect_status 0 "emit after the changes" "$NOMIC" slr emit C
mv out changed.slr
expect_status 0 "the changed SLR parses" "$NOMIC" slr parse changed.slr --json
mv out changed.json
expect_eq "$(count changed.json)" 142 "the enacted rule is in the SLR"
expect_eq "$(byid changed.json 104)" "104/1/3.0/The First Speaker/Figureheads" "the amended rule"
expect_eq "$(field changed.json 104 text)" "The Speaker for the first game was Michael Norrish.

This rule is history." "the amended text, with its paragraphs"
expect_eq "$(byid changed.json 2567)" "2567/0/1/A New Rule/Players" "the enacted rule"
expect_eq "$(rule changed.json 9)" "2567/0/1/A New Rule/Players" "an enacted rule comes last in its section"
python3 - seed.json changed.json <<'EOF' > same.check
import json, sys
a = [r for r in json.load(open(sys.argv[1])) if r["id"] != "104"]
b = [r for r in json.load(open(sys.argv[2])) if r["id"] not in ("104", "2567")]
print("same" if a == b else "differ")
EOF
expect_eq "$(cat same.check)" "same" "the other rules are unchanged"

# --- malformed input -----------------------------------------------------------
# refused FILE CONTENT MESSAGE WHAT: an SLR of CONTENT (printf escapes) is
# refused with exit 1, MESSAGE (the whole of stderr) and nothing on stdout
refused() {
    printf "$2" > "$1"
    expect_status 1 "$4" "$NOMIC" slr parse "$1" --json
    printf '%s\n' "$3" >want
    expect_cmp want err "$4: the message"
    expect_eq "$(cat out)" "" "$4: nothing on stdout"
}
refused bad1.txt 'Header\n\nRule 12/x (Power=3)\nA Title\n' \
    "bad1.txt:3:9: error: rule 12: expected a revision number after '/', found \"x (Power=3)\"" "a bad revision"
refused bad2.txt 'Rule 1/0 (Power=1)\nT\n\n      text\n\n------------------------------\nthis is not a rule\n' \
    "bad2.txt:7:1: error: expected a rule ('Rule ID/REV (Power=P)') or a separator, found \"this is not a rule\"" "stray text between rules"
refused bad3.txt 'Rule 5/2 (Power=high)\n' \
    "bad3.txt:1:17: error: rule 5: expected a power (3, 3.0, 1.7) after 'Power=', found \"high)\"" "a bad power"
refused bad4.txt 'Rule 5/2 (Power=1\n' "bad4.txt:1:18: error: rule 5: expected ')' after the power, found the end of the line" "an unclosed header"
refused bad5.txt 'Rule 5 (Power=1)\n' "bad5.txt:1:8: error: rule 5: expected '/' and the revision after the rule's ID, found \"(Power=1)\"" "no revision"
refused bad6.txt 'just some text\n' "bad6.txt:1:1: error: no rule found (a rule begins 'Rule ID/REV (Power=P)')" "no rules"
refused bad7.txt 'Rule 1/0 (Power=1) Caf\351\n' "bad7.txt:1:23: error: not UTF-8 text (byte 0xe9)" "not UTF-8"
refused bad8.txt 'x ---------------------------------------- Rule 1/0 (Power=1) Foo Bar --------------------------------------- junk here ----------------------------------------\n' \
    "bad8.txt:1:111: error: expected a rule ('Rule ID/REV (Power=P)') or a separator, found \"junk here\"" "stray text in a flattened SLR, by column"
refused bad9.txt 'Rule 1/0 (Power=1)------------------------\n' \
    "bad9.txt:1:19: error: rule 1: expected a blank or the end of the line after ')', found \"--------------------\"" "a header glued to a separator"
expect_status 2 "a file that does not exist" "$NOMIC" slr parse nosuch.txt
expect_status 2 "slr without a subcommand" "$NOMIC" slr
expect_status 2 "slr parse without a file" "$NOMIC" slr parse
expect_status 2 "slr parse with an unknown option" "$NOMIC" slr parse multi.txt --yaml
expect_status 2 "slr emit on no game" "$NOMIC" slr emit nosuch.db

report slr
