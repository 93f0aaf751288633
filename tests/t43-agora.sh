#!/bin/sh
# t43-agora.sh - the formal rules of agora played through the command line:
# registration and the 30-day bar (869); proposals made, pended, distributed
# at the start of the Agoran week, voted on and resolved (2350, 2445, 1607,
# 683, 208); adoption applying the changes in order, an enactment taking the
# next unused number at revision 0, an amendment raising the revision, a
# change to a rule of higher power than the proposal failing (105, 106,
# 2140); quorum from the last decision and FAILED QUORUM (879, 955); and a
# batch of decisions given directly as players, decisions and ballots, with
# outcomes worked out by hand from rules 955, 2422 and 879.  Every mail of
# each game is compared whole with its golden in tests/golden/t43-agora/.
# Run from the project root.
. "$(dirname "$0")/lib.sh"

decision() { # NUMBER: status/outcome/for/against/ballots of decision NUMBER
    val decision number "$1" status/outcome/for/against/ballots
}

# ------------------------------------------------ registration (869)
"$NOMIC" init G --ruleset agora --time 2026-01-01Z >out
move_at a@x 2026-01-01T01:00:00Z "REGISTER alice"
expect_eq "$(val player nickname alice email)" "a@x" "a player's email is the sender"
move_at a@x 2026-01-01T01:01:00Z "REGISTER alicia"
move_at b@x 2026-01-01T01:02:00Z "REGISTER alice"
# "I register." with no nickname: the part of the address before the @
printf 'subtype: register\n' | "$NOMIC" move G --from b@x --time 2026-01-01T01:03:00Z >out 2>&1
expect_eq "$(val player email b@x nickname)" "b" "registered under the address's part before the @"
move_at b@x 2026-01-01T01:04:00Z "DEREGISTER"
move_at a@x 2026-01-02T00:00:00Z "DEREGISTER"
expect_eq "$(val player nickname alice email)" "(none)" "alice is no longer a player"
expect_eq "$(val formerPlayer nickname alice deregisteredAt)" "1767312000" "the deregistration is kept, with its time"
move_at a@x 2026-01-31T23:59:59Z "REGISTER alice"
expect_eq "$(val player nickname alice email)" "(none)" "alice is still not a player"
move_at a@x 2026-02-01T00:00:00Z "REGISTER alice"
# every mail: registering, the refusals (twice, a taken nickname, no
# nickname, not a player, within 30 days and until when), deregistering
expect_mails registration.mails "registration: every mail"
expect_status 0 "registration replays" "$NOMIC" replay G

# ------------------------------------------------ a proposal's life
# Two rules of the test's own, numbered after every rule of the SLR: 9001
# of power 3, 9002 of power 1.
cat > rules.nomic <<'EOF'
type: ruleText
number: 9001
revision: 4
power: 3
title: Heavy
text: A rule of power 3.

type: ruleText
number: 9002
revision: 0
power: 1
title: Light
text: A rule of power 1.
EOF
"$NOMIC" init G --ruleset agora --ruleset rules.nomic --time 2026-01-01Z --force >out
for p in alice:a bob:b carol:c dave:d; do
    move_at "${p#*:}@x" 2026-01-01T01:00:00Z "REGISTER ${p%:*}"
done
move_at a@x 2026-01-01T02:00:00Z "PROPOSE AI 2 Hats" "ENACT TITLE Hats TEXT Every player wears a hat." \
    "AMEND 9002 A rule of power 1, amended." "AMEND 9001 An attempt on a rule of power 3." \
    "RETITLE 9002 Lighter" "POWER 9002 2"
P1=$(val proposal title Hats objectId)
expect_status 0 "the Promotor's report" "$NOMIC" report G promotor --time 2026-01-01T02:00:01Z
expect_golden promotor.report out "the Promotor's report: the Pool, a proposal's ID, author, AI, title"
expect_eq "$(val proposal title Hats status)/$(val proposal title Hats author)/$(val proposal title Hats ai)" "pool/alice/2" \
    "status pool, author alice, AI 2"
expect_eq "$("$NOMIC" show G --type change | grep -c '^change:')" "5" "five changes, one per line"
move_at a@x 2026-01-01T03:00:00Z "PROPOSE AI 10 Too much"
move_at a@x 2026-01-01T03:00:00Z "PROPOSE AI 1.25 Too fine"
move_at a@x 2026-01-01T03:00:00Z "PROPOSE Lazy" "POWER 9002 5"
move_at a@x 2026-01-01T03:00:00Z "AMEND 9002 Orphan"
move_at z@x 2026-01-01T03:00:00Z "PROPOSE Mine"
expect_eq "$("$NOMIC" show G --type proposal | grep -c '^status:')" "1" "none of those made a proposal"

move_at b@x 2026-01-02T00:00:00Z "PEND $P1"
expect_eq "$(val proposal title Hats status)" "pending" "the proposal is pending"
move_at b@x 2026-01-02T00:01:00Z "PEND $P1"
move_at e@x 2026-01-03T00:00:00Z "REGISTER erin"
"$NOMIC" tick G --time 2026-01-04T23:59:59Z >out
expect_eq "$(val proposal title Hats status)" "pending" "not distributed before the Agoran week begins"
"$NOMIC" tick G --time 2026-01-05T00:00:00Z >out
expect_eq "$(val proposal title Hats status)/$(val proposal title Hats number)" "distributed/1" \
    "distributed on Monday, ID number 1"
expect_eq "$(decision 1)" "open////" "decision 1 is open"
expect_eq "$(val decision number 1 quorum)/$(val decision number 1 votingEnds)" "2/1768176000" \
    "quorum 2 (no decision before), voting ends 7 days later (2026-01-12)"
"$NOMIC" outbox G > box
# the distribution, laid out as Agora's Promotor lays it out: the index, the
# Pool, then each proposal whole
python3 -c '
import sys
text = open(sys.argv[1]).read()
start = text.index("ID: 1\n")
body = text[start:text.index("Vote: VOTE", start)]
print("\n".join(l[4:] if l.startswith("  | ") else l.lstrip(" |") for l in body.split("\n")), end="")' box >dist
cat >want <<'EOF'
ID: 1
Title: Hats
Adoption index: 2.0
Author: alice
Co-authors: 

Enact a new rule, titled "Hats", reading as follows:

{
Every player wears a hat.
}

Amend rule 9002 (Light) to read as follows:

{
A rule of power 1, amended.
}

Amend rule 9001 (Heavy) to read as follows:

{
An attempt on a rule of power 3.
}

Retitle rule 9002 (Light) to "Lighter".

Set the power of rule 9002 (Light) to 2.

//////////////////////////////////////////////////////////////////////

EOF
expect_cmp want dist "the proposal is distributed whole: every change, each text between braces"

move_at f@x 2026-01-06T00:00:00Z "REGISTER frank"
move_at a@x 2026-01-06T01:00:00Z "VOTE 1 FOR"
move_at b@x 2026-01-06T01:00:00Z "VOTE 1 FOR"
move_at c@x 2026-01-06T01:00:00Z "VOTE 1 AGAINST"
move_at c@x 2026-01-06T02:00:00Z "VOTE 1 FOR"
move_at d@x 2026-01-06T02:00:00Z "VOTE 1 PRESENT"
move_at e@x 2026-01-06T02:00:00Z "VOTE 1 AGAINST"
move_at f@x 2026-01-06T02:00:00Z "VOTE 1 FOR"
move_at z@x 2026-01-06T02:00:00Z "VOTE 1 FOR"
move_at a@x 2026-01-06T02:00:00Z "VOTE 7 FOR"
printf 'subtype: ballot\ndecision: 1\nvote: MAYBE\n' | "$NOMIC" move G --from a@x --time 2026-01-06T03:00:00Z >out 2>&1
expect_eq "$(val ballot voter alice vote)" "FOR" "and alice's ballot stands"
move_at e@x 2026-01-07T01:00:00Z "WITHDRAW 1"
move_at e@x 2026-01-07T01:00:00Z "WITHDRAW 1"
move_at e@x 2026-01-08T01:00:00Z "VOTE 1 PRESENT"
"$NOMIC" tick G --time 2026-01-11T23:59:59Z >out
expect_eq "$(decision 1)" "open////" "still open before the end of the voting period"
"$NOMIC" tick G --time 2026-01-12T00:00:00Z >out
expect_eq "$(decision 1)" "resolved/ADOPTED/3/0/5" "ADOPTED, 3 FOR, 0 AGAINST, 5 ballots (PRESENT counts)"
# the officers' reports, from the state (nomic report runs the set's report rules dry)
expect_status 0 "the Assessor's report" "$NOMIC" report G assessor --time 2026-01-12T00:00:01Z
# the report is what the officer posts, laid out as Agora's Assessor lays it
# out (docs/agora.md, "Reports"): compared whole
expect_golden assessor.report out "the Assessor's report: the summary table, the voters by option (their count) with the strength, BALLOTS, AI (F/A), OUTCOME, nothing open, the text of the adopted proposal"
expect_status 0 "the Registrar's report" "$NOMIC" report G registrar --time 2026-01-12T00:00:01Z
expect_golden registrar.report out "the Registrar lists every player with address and registration, the fora, what happened since the last report"
expect_status 0 "a report is kept nowhere" "$NOMIC" show G --type reportDraft
expect_eq "$(cat out)" "" "no draft is left in the state"
expect_status 0 "an unknown report is the rules' to answer" "$NOMIC" report G herald --time 2026-01-12T00:00:01Z
expect_golden unknown.report out "an unknown report: the rules say which there are"
expect_eq "$(val proposal title Hats power)" "2" "the proposal's power is min(4, AI) = 2"
expect_eq "$(val ruleText number 9003 revision)/$(val ruleText number 9003 power)/$(val ruleText number 9003 title)" \
    "0/1/Hats" "the enactment is rule 9003, the next unused number, revision 0, power 1"
expect_eq "$(val ruleText number 9003 text)" "Every player wears a hat." "with its text"
expect_eq "$(val ruleText number 9002 revision)/$(val ruleText number 9002 text)" "1/A rule of power 1, amended." \
    "the amendment raises the revision of 9002"
expect_eq "$(val ruleText number 9002 title)/$(val ruleText number 9002 power)" "Lighter/2" \
    "the later changes still apply after a failed one: retitled, power 2"
expect_eq "$(val ruleText number 9001 revision)/$(val ruleText number 9001 text)" "4/A rule of power 3." \
    "9001, of power 3, is untouched by a proposal of power 2"
expect_eq "$(val change rule 9001 result)" "failed" "that change failed"
move_at a@x 2026-01-12T00:00:01Z "VOTE 1 AGAINST"
expect_eq "$(decision 1)" "resolved/ADOPTED/3/0/5" "and changes nothing"

# quorum from the last decision: 5 voted, so 3; two ballots FAIL QUORUM
move_at a@x 2026-01-12T01:00:00Z "PROPOSE AI 3.0 Heavier" "AMEND 9001 A rule of power 3, amended by power 3."
P2=$(val proposal title Heavier objectId)
move_at a@x 2026-01-12T01:00:00Z "PEND $P2"
"$NOMIC" tick G --time 2026-01-19T00:00:00Z >out
expect_eq "$(val decision number 2 quorum)/$(val decision number 2 ai)" "3/3.0" "quorum 5 - 2 = 3, AI 3.0"
move_at a@x 2026-01-19T01:00:00Z "VOTE 2 FOR"
move_at b@x 2026-01-19T01:00:00Z "VOTE 2 FOR"
"$NOMIC" tick G --time 2026-01-26T00:00:00Z >out
expect_eq "$(decision 2)" "resolved/FAILED QUORUM/2/0/2" "FAILED QUORUM, with its counts"
expect_eq "$(val ruleText number 9001 revision)" "4" "nothing of a failed proposal applies"
expect_eq "$(val proposal title Heavier outcome)" "FAILED QUORUM" "the proposal records its outcome"

# the same change again, with a repeal, an enactment above the proposal's
# power and a reenactment; 2 voted last, so the quorum is 2
move_at a@x 2026-01-26T01:00:00Z "PROPOSE AI 3.0 Heavier again" "AMEND 9001 A rule of power 3, amended by power 3." \
    "REPEAL 9003" "ENACT POWER 3.5 A rule that wanted power 3.5." "REENACT 9003" "POWER 9002 3.1"
P3=$(val proposal title "Heavier again" objectId)
move_at c@x 2026-01-26T01:00:00Z "PEND $P3"
"$NOMIC" tick G --time 2026-02-02T00:00:00Z >out
expect_eq "$(val decision number 3 quorum)" "2" "quorum 2 - 2 is raised to 2"
move_at a@x 2026-02-02T01:00:00Z "VOTE 3 FOR"
move_at b@x 2026-02-02T01:00:00Z "VOTE 3 FOR"
move_at c@x 2026-02-02T01:00:00Z "VOTE 3 AGAINST"
move_at d@x 2026-02-02T01:00:00Z "VOTE 3 FOR"
"$NOMIC" tick G --time 2026-02-09T00:00:00Z >out
expect_eq "$(decision 3)" "resolved/ADOPTED/3/1/4" "F/A = 3/1, exactly the AI 3.0: ADOPTED"
expect_eq "$(val proposal title "Heavier again" power)" "3.0" "power min(4, 3.0)"
expect_eq "$(val ruleText number 9001 revision)/$(val ruleText number 9001 text)" \
    "5/A rule of power 3, amended by power 3." "a proposal of power 3 amends a rule of power 3: revision 5"
expect_eq "$(val ruleText number 9004 power)/$(val ruleText number 9004 revision)" "3.0/0" \
    "the enactment after a repeal takes 9004 (9003 was used) and power min(3.5, 3.0)"
expect_eq "$(val ruleText number 9003 revision)/$(val ruleText number 9003 power)/$(val ruleText number 9003 text)" \
    "1/1/Every player wears a hat." "9003, repealed then reenacted: same text and power, revision 1"
expect_eq "$(val ruleText number 9002 power)" "2" "power 3.1 is beyond a proposal of power 3.0: 9002 stays at 2"
# every mail of a proposal's life: the pool, the refusals (an AI out of
# range or too fine, a power above 4, a change without its proposal, a
# non-player's proposal, pending twice), the distribution as the Promotor
# lays it out, to each of the five players, the ballots and their refusals
# (not a player at the initiation, no such decision, an unknown vote, nothing
# to withdraw, after the end), the Assessor's tallies with the changes
# applied and those failed, and why
expect_mails proposal.mails "a proposal's life: every mail"
expect_status 0 "the proposal game replays" "$NOMIC" replay G

# ------------------------------------------------ a batch of decisions
# Players and open decisions given directly, after agora, then ballots as
# moves and the ends of the voting periods.  Strengths: ann none (1), ben 2,
# cat 0, dan 5, eve 1, fay 3, gus 7 (held to 5), hal 1.5 (rounded up to 2),
# ivy -1 (held to 0).  Decisions 101-115 end at 2026-03-02 (1772409600),
# 116 and 117 a day later.  Each expected outcome is worked out in its
# comment: F and A the strength totals, B the ballots.
{
    for p in ann:a: ben:b:2 cat:c:0 dan:d:5 eve:e:1 fay:f:3 gus:g:7 hal:h:1.5 ivy:i:-1; do
        n=${p%%:*} r=${p#*:} e=${r%%:*} s=${r#*:}
        printf 'type: player\nnickname: %s\nemail: %s@agora\n' "$n" "$e"
        [ -n "$s" ] && printf 'votingStrength: %s\n' "$s"
        echo
    done
    while read -r n ai q end; do
        printf 'type: decision\nnumber: %s\nai: %s\nquorum: %s\nvotingEnds: %s\nstatus: open\n\n' "$n" "$ai" "$q" "$end"
    done <<'END'
101 1.0 2 1772409600
102 1.0 2 1772409600
103 1.5 2 1772409600
104 2.5 2 1772409600
105 3.0 3 1772409600
106 1.7 2 1772409600
107 1.7 2 1772409600
108 9.9 2 1772409600
109 1.0 2 1772409600
110 1.0 3 1772409600
111 1.0 2 1772409600
112 1.0 2 1772409600
113 1.0 3 1772409600
114 1.0 2 1772409600
115 2.0 4 1772409600
116 1.0 5 1772496000
117 2.0 2 1772496000
END
} > batch.nomic
"$NOMIC" init G --ruleset agora --ruleset batch.nomic --time 2026-02-20Z --force >out
vote() { # VOTER DECISION VOTE
    move_at "$1@agora" 2026-02-25T12:00:00Z "VOTE $2 $3"
}
vote a 101 FOR; vote b 101 AGAINST           # F 1, A 2: F/A < 1
vote a 102 FOR; vote e 102 AGAINST           # F 1 = A 1: F/A = 1 is not > 1
vote f 103 FOR; vote b 103 AGAINST           # 3/2 = AI 1.5 exactly
vote d 104 FOR; vote b 104 AGAINST           # 5/2 = AI 2.5 exactly
vote f 105 FOR; vote a 105 AGAINST; vote c 105 PRESENT  # 3/1 = AI 3.0; B 3 = quorum
vote d 106 FOR; vote f 106 AGAINST           # 5/3 < AI 1.7
vote h 107 FOR; vote a 107 AGAINST           # 2/1 >= 1.7 (hal's 1.5 rounded up; 1.5/1 would fail)
vote a 108 FOR; vote c 108 PRESENT           # F 1, A 0: adopted whatever the AI (9.9)
                                             # 109: no ballot, quorum 2
vote a 110 PRESENT; vote b 110 PRESENT; vote e 110 PRESENT  # PRESENT only: F 0, A 0
vote c 111 FOR; vote i 111 FOR               # strengths 0 and -1 (held to 0): F 0
vote b 112 FOR; vote a 112 FOR; vote b 112 AGAINST  # ben changes: F 1, A 2
vote b 113 AGAINST; vote a 113 FOR; vote e 113 FOR  # ben withdraws below: B 2 < 3
move_at b@agora 2026-02-25T12:00:00Z "WITHDRAW 113"
vote g 114 FOR; vote d 114 AGAINST           # gus's 7 held to 5: 5 = 5
vote a 115 FOR; vote b 115 FOR; vote f 115 FOR; vote c 115 AGAINST  # F 6, A 0 (cat's 0), B 4 = quorum
vote a 116 FOR; vote b 116 FOR; vote d 116 FOR; vote e 116 AGAINST  # B 4 < quorum 5
vote a 117 FOR; vote b 117 FOR; vote d 117 FOR; vote e 117 FOR; vote f 117 AGAINST; vote h 117 PRESENT  # 9/3 >= 2
move_at z@agora 2026-02-25T12:00:00Z "VOTE 117 FOR"
move_at a@agora 2026-02-28T12:00:00Z "VOTE 199 FOR"
"$NOMIC" tick G --time 2026-03-02T00:00:00Z >out
while read -r n want; do
    expect_eq "$(decision "$n")" "$want" "decision $n"
done <<'END'
101 resolved/REJECTED/1/2/2
102 resolved/REJECTED/1/1/2
103 resolved/ADOPTED/3/2/2
104 resolved/ADOPTED/5/2/2
105 resolved/ADOPTED/3/1/3
106 resolved/REJECTED/5/3/2
107 resolved/ADOPTED/2/1/2
108 resolved/ADOPTED/1/0/2
109 resolved/FAILED QUORUM/0/0/0
110 resolved/REJECTED/0/0/3
111 resolved/REJECTED/0/0/2
112 resolved/REJECTED/1/2/2
113 resolved/FAILED QUORUM/2/0/2
114 resolved/REJECTED/5/5/2
115 resolved/ADOPTED/6/0/4
116 open////
117 open////
END
move_at a@agora 2026-03-02T00:00:01Z "VOTE 101 AGAINST"
# no tick: the late ballot's own event first resolves 116 and 117, then refuses it
move_at e@agora 2026-03-03T01:00:00Z "VOTE 117 AGAINST"
expect_eq "$(decision 116)" "resolved/FAILED QUORUM/8/1/4" "decision 116"
expect_eq "$(decision 117)" "resolved/ADOPTED/9/3/6" "decision 117"
# 117 was the last decision resolved and 6 players voted on it: quorum 4
move_at a@agora 2026-03-03T02:00:00Z "PROPOSE Next" "ENACT A new rule."
move_at a@agora 2026-03-03T02:00:00Z "PEND $(val proposal title Next objectId)"
"$NOMIC" tick G --time 2026-03-09T00:00:00Z >out
expect_eq "$(val decision number 118 quorum)/$(val decision number 118 ai)" "4/1.0" \
    "the next proposal is 118, quorum 6 - 2 from decision 117, AI 1.0 by default"
# every ballot's answer, the refusals (a non-player, no decision 199, after
# the end), the tallies with AI, quorum and the strengths not 1
expect_mails batch.mails "a batch of decisions: every mail"
expect_status 0 "the batch replays" "$NOMIC" replay G

# a decision whose end is written as a date
cat >dated.nomic <<'END'
type: player
nickname: ann
email: ann@agora

type: player
nickname: bea
email: bea@agora

type: decision
number: 7
ai: 2
quorum: 2
votingEnds: 2026-01-08T00:00:00Z
status: open
END
"$NOMIC" init G --ruleset agora --ruleset dated.nomic --time 2026-01-01 --force >/dev/null
move_at ann@agora 2026-01-02T00:00:00Z "VOTE 7 FOR"
move_at bea@agora 2026-01-07T23:59:59Z "VOTE 7 PRESENT"
"$NOMIC" tick G --time 2026-01-07T23:59:59Z >out
expect_eq "$(decision 7)" "open////" "not resolved before the date"
"$NOMIC" tick G --time 2026-01-08T00:00:00Z >out
expect_eq "$(decision 7)" "resolved/ADOPTED/1/0/2" "votingEnds written as a date: resolved at that date"

# one distribution for every proposal distributed at once, the rest of the Pool listed
"$NOMIC" init G --ruleset agora --time 2026-01-01Z --force >/dev/null
move_at a@x 2026-01-01T01:00:00Z "REGISTER alice"
move_at b@x 2026-01-01T01:00:00Z "REGISTER bob"
move_at a@x 2026-01-01T02:00:00Z "PROPOSE Tidy" "REPEAL 2472"
tidy=$(val proposal title Tidy objectId)
move_at b@x 2026-01-01T02:00:00Z "PROPOSE AI 1.5 Back" "REENACT 1"
back=$(val proposal title Back objectId)
move_at b@x 2026-01-01T02:00:00Z "PROPOSE Later" "ENACT Not yet."
move_at a@x 2026-01-02T00:00:00Z "PEND $tidy"
move_at a@x 2026-01-02T00:00:00Z "PEND $back"
"$NOMIC" tick G --time 2026-01-05T00:00:00Z >out
# one distribution to each player, both proposals in it (the index, a
# repeal naming the rule, a reenactment), the proposal not pended listed
expect_mails distribution.mails "two proposals distributed at once: every mail"

# ------------------------------------------------ moves as Agorans write them
# A message's moves in its order (rule 478); create and pend in one message;
# substitutions, deletions and appendings; decision: all; "I register." with
# a taken local part; a proposal of prose alone; a move the set does not know.
cat > rules.nomic <<'EOF'
type: ruleText
number: 9002
revision: 0
power: 1
title: Light
text: A rule of power 1. Players wear hats.
EOF
"$NOMIC" init G --ruleset agora --ruleset rules.nomic --time 2026-01-01Z --force >/dev/null
obj() { printf '%s\n' "$@" | "$NOMIC" move G --from "$from" --time "$time" >out 2>&1; }
from=alice@x time=2026-01-01T01:00:00Z obj 'subtype: register'
from=bob@x time=2026-01-01T01:00:00Z obj 'subtype: register' '' 'subtype: foo'
from=alice@y time=2026-01-01T01:00:00Z obj 'subtype: register'
expect_eq "$(val player email alice@y nickname)" "(none)" "alice@y's local part is taken: not registered"
from=alice@x time=2026-01-01T02:00:00Z obj 'subtype: propose' 'title: Hats off' 'ai: 1' 'text: Hats come off.' '' \
    'subtype: change' 'change: replace' 'rule: 9002' 'old: wear hats' 'text: wear caps' '' \
    'subtype: change' 'change: delete' 'rule: 9002' 'old: " of power 1"' '' \
    'subtype: change' 'change: append' 'rule: 9002' 'text: Caps are red.' '' \
    'subtype: change' 'change: replace' 'rule: 9002' 'old: bowler' 'text: fez' '' \
    'subtype: pend' 'proposal: this'
expect_eq "$(val proposal title "Hats off" status)" "pending" "created and pended in one message"
from=bob@x time=2026-01-01T02:00:00Z obj 'subtype: pend' 'proposal: this'
expect_in out 'This message created no proposal' "pend this without a proposal in the message is answered"
from=bob@x time=2026-01-01T02:00:00Z obj 'subtype: propose' 'title: Prose' 'text: Agora is great.'
expect_eq "$(val proposal title Prose status)" "pool" "a proposal of prose alone is taken"
expect_status 0 "the Promotor's report lists each proposal's text" "$NOMIC" report G promotor --time 2026-01-01T03:00:00Z
expect_golden moves-promotor.report out "the Pool: the index, the legend, each proposal whole, substitutions as such"
"$NOMIC" tick G --time 2026-01-05T00:00:00Z >out
from=alice@x time=2026-01-06T01:00:00Z obj 'subtype: ballot' 'decision: 1' 'vote: AGAINST' '' \
    'subtype: withdraw' 'decision: 1'
expect_eq "$(val ballot voter alice vote)" "(none)" "ballot then withdraw in one message: no ballot"
from=alice@x time=2026-01-06T01:00:00Z obj 'subtype: withdraw' 'decision: 1' '' \
    'subtype: ballot' 'decision: 1' 'vote: AGAINST'
expect_eq "$(val ballot voter alice vote)" "AGAINST" "withdraw then ballot in one message: the ballot stands"
from=alice@x time=2026-01-06T01:00:00Z obj 'subtype: withdraw' 'decision: all' '' \
    'subtype: ballot' 'decision: all' 'vote: FOR'
expect_eq "$(val ballot voter alice vote)" "FOR" "withdraw all, then FOR on all: FOR"
from=bob@x time=2026-01-06T01:00:00Z obj 'subtype: withdraw' 'decision: all'
expect_in out 'nothing to withdraw' "withdraw all without a ballot is answered"
from=bob@x time=2026-01-06T01:00:00Z obj 'subtype: ballot' 'decision: all' 'vote: FOR'
"$NOMIC" tick G --time 2026-01-12T00:00:00Z >out
expect_eq "$(decision 1)" "resolved/ADOPTED/2/0/2" "the proposal is adopted"
expect_eq "$(val ruleText number 9002 text)" '"A rule. Players wear caps.\n\nCaps are red."' \
    "replaced, deleted, appended, in order"
expect_eq "$(val ruleText number 9002 revision)" "3" "each applied change is an amendment"
expect_eq "$(val change old bowler result)" "failed" "a text the rule does not hold: the change fails"
expect_status 0 "the Assessor's report" "$NOMIC" report G assessor --time 2026-01-12T00:00:01Z
expect_golden moves-assessor.report out "the Assessor's report after a substitution"
expect_status 0 "the Registrar's report" "$NOMIC" report G registrar --time 2026-01-12T00:00:01Z
expect_golden moves-registrar.report out "the Registrar's report: players, fora, events since the start"
expect_mails moves.mails "moves as Agorans write them: every mail"
expect_status 0 "the game of Agoran moves replays" "$NOMIC" replay G

report agora
