#!/bin/sh
# t40-suber.sh - Suber's Nomic played through the command line, as players
# would, to a win: suber (the revised set, its computer-game variant) and
# suber1982 (the die), and an amendment of 208 that carries the change of
# the formal rule implementing it.  Every mail of each game is compared
# whole with its golden in tests/golden/t40-suber/ (tests/README.md).  Run
# from the project root.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/lib.sh"

TIME=1767225600 # 2026-01-01
mv() { # FROM LINES...: one message of moves
    from=$1
    shift
    TIME=$((TIME + 60))
    move_at "$from" "$TIME" "$@"
}
score() { val player nickname "$1" score; }
turn() { val turn type turn player; }
scores() { # the scores of alice, bob and carol, in one look
    "$NOMIC" show G --type player | awk '
        /^nickname: / { n = $2 } /^score: / { s[n] = $2 }
        END { print s["alice"], s["bob"], s["carol"] }'
}
expect_scores() { # alice bob carol WHAT
    expect_eq "$(scores)" "$1 $2 $3" "scores (alice bob carol) $4"
}
all_vote() { # PROPOSAL VOTE-alice VOTE-bob VOTE-carol
    mv a@x "VOTE $1 $2"
    mv b@x "VOTE $1 $3"
    mv c@x "VOTE $1 $4"
}
# the revised scoring: round((N - 291) x FOR / votes), half away from zero
points() { python3 -c "import math; n,f,v=$1,$2,$3; x=(n-291)*f/v; print(int(math.floor(x+0.5)))"; }

# ------------------------------------------------------- the texts of the seeds
# the committed texts are what the generator reads from the seeds ...
mkdir texts
(cd "$ROOT" && python3 tools/suber-texts.py "$OLDPWD/texts")
for f in texts.nomic texts-1982.nomic; do
    if cmp -s "texts/$f" "$ROOT/rulesets/suber/$f"; then ok; else fail "rulesets/suber/$f is not what tools/suber-texts.py writes"; fi
done
# ... and every paragraph of every rule stands in its seed, word for word
for set in suber:suber-revised-seed suber1982:suber-1982-seed; do
    "$NOMIC" init T --ruleset "${set%%:*}" --force >/dev/null
    "$NOMIC" show T --type ruleText --json | python3 -c "
import json, re, sys
seed = ' '.join(open('$ROOT/tests/data/${set#*:}.txt', encoding='utf-8').read().split())
rules = json.load(sys.stdin)['objects']
assert len(rules) == 29, len(rules)
bad = [r['number'] for r in rules for p in r['text'].split('\n\n') if ' '.join(p.split()) not in seed]
print(' '.join(bad))" >missing 2>&1
    expect_eq "$(cat missing)" "" "${set%%:*}: every rule's text is in the seed"
done

# ---------------------------------------------------------------- suber
"$NOMIC" init G --ruleset suber --time "$TIME" >out
expect_eq "$(val ruleText number 203 mutable)" "T" "rule 203 is mutable"
expect_eq "$("$NOMIC" show G --type ruleText | grep -c '^number:')" "29" "the 29 rules"
mv c@x "JOIN carol Zed"
mv a@x "JOIN alice Young"
mv b@x "JOIN bob adams"
expect_eq "$(turn)" "bob" "the first turn is the first surname's (adams: the order ignores case)"
mv d@x "JOIN bob Other"

mv a@x "PROPOSE ENACT Out of turn."
mv b@x "PROPOSE AMEND 101 All players may cheat."
mv b@x "PROPOSE REPEAL 999"
expect_eq "$(val nomicState type nomicState nextProposal)" "301" "a refused proposal takes no number"
mv b@x "PROPOSE ENACT Every player wears a hat."
mv b@x "PROPOSE ENACT A second one."
all_vote 301 FOR FOR FOR
expect_scores 0 10 0 "after 301: bob gains (301-291) x 3/3"
expect_eq "$(val ruleText number 301 mutable)" "T" "an adopted enactment is rule 301, mutable"
expect_eq "$(turn)" "alice" "then Young"

mv a@x "PROPOSE AMEND 201 Players shall alternate in reverse alphabetical order."
all_vote 302 FOR FOR AGAINST
expect_scores $(( $(points 302 2 3) - 10 )) 10 0 "after 302, defeated under unanimity: 7 - 10"
expect_eq "$(val proposal number 302 status)" "defeated" "302 is defeated: unanimity in the first circuit"
mv a@x "VOTE 302 FOR"

mv c@x "PROPOSE TRANSMUTE 116"
all_vote 303 FOR FOR FOR
expect_eq "$(val ruleText number 303 mutable)" "T" "116, transmuted, is rule 303 and mutable"
expect_eq "$(val ruleText number 116 mutable)" "(none)" "rule 116 is no more under that number"
expect_scores -3 10 12 "after 303"
expect_eq "$(val turn type turn circuit)" "2" "the second circuit begins"

mv b@x "PROPOSE REPEAL 301"
all_vote 304 FOR FOR FOR
expect_eq "$(val ruleText number 301 text)" "(none)" "301 is repealed"
mv a@x "PROPOSE AMEND 202 One turn consists of proposing one rule-change and having it voted on, then scoring."
all_vote 305 FOR FOR FOR
expect_eq "$(val ruleText number 305 text)" "One turn consists of proposing one rule-change and having it voted on, then scoring." "202, amended, is rule 305"
"$NOMIC" show G --type rule > rules
expect_in rules "implements: 305" "the formal rule implementing 202 now implements 305"
expect_not_in rules "implements: 202" "no formal rule names 202 any more"
mv c@x "PROPOSE ENACT Hats are blue."
all_vote 306 FOR FOR AGAINST
expect_eq "$(val proposal number 306 status)" "defeated" "the last proposal of the second circuit still needs unanimity"
expect_scores 11 23 $((12 + $(points 306 2 3) - 10)) "after 306"
expect_eq "$(val turn type turn circuit)" "3" "the third circuit"

mv b@x "PROPOSE ENACT Hats are red."
all_vote 307 FOR FOR AGAINST
expect_eq "$(val proposal number 307 status)" "adopted" "after two circuits a simple majority adopts (203)"
expect_scores 11 $((23 + $(points 307 2 3))) $((12 + 10)) "after 307: carol, against, gains 10 (204)"
mv a@x "PROPOSE ENACT Hats are green."
all_vote 308 FOR AGAINST AGAINST
expect_eq "$(val proposal number 308 status)" "defeated" "a minority does not adopt"

# play on, everyone for, each score checked after each vote, to the win at 200
a=$(score alice) b=$(score bob) c=$(score carol)
expect_scores $((11 + $(points 308 1 3) - 10)) 34 22 "after 308"
n=309
last=307 # a mutable rule, amended turn after turn (enacting would pass 25 mutable rules: 209)
while [ $n -lt 400 ] && ! "$NOMIC" show G --type win | grep -q player; do
    who=$(turn)
    case $who in alice) f=a@x ;; bob) f=b@x ;; carol) f=c@x ;; esac
    mv $f "PROPOSE AMEND $last Rule of turn $n."
    all_vote $n FOR FOR FOR
    last=$n
    p=$((n - 291))
    case $who in alice) a=$((a + p)) ;; bob) b=$((b + p)) ;; carol) c=$((c + p)) ;; esac
    expect_scores $a $b $c "after $n"
    n=$((n + 1))
done
winner=$(val win type win player)
expect_eq "$winner" "$who" "the proposer who reached 200 wins"
[ "$(score "$winner")" -ge 200 ] && ok || fail "the winner has 200 points"
for x in $a $b $c; do [ "$x" -lt 200 ] || [ "$x" = "$(score "$winner")" ] || fail "only one player reached 200"; done
mv a@x "VOTE $n FOR"
# every mail of the game, to the win: the announcements, the refusals
# (a taken nickname, out of turn, an immutable rule, no rule 999, a second
# proposal in a turn, a vote on a closed proposal) and the end (208)
expect_mails suber-to-200.mails "suber to 200: every mail"
expect_status 0 "suber replays" "$NOMIC" replay G

# ---------------------------------------------- amending 208, with its formal rule
"$NOMIC" init G --ruleset suber --time "$TIME" --force >out
mv a@x "JOIN alice Young"
mv b@x "JOIN bob Adams"
mv c@x "JOIN carol Zed"
win=$("$NOMIC" show G --type rule --json | python3 -c "import json,sys
print([o['objectId'] for o in json.load(sys.stdin)['objects'] if o.get('implements')=='208'][0])")
mv b@x "PROPOSE AMEND 208 The winner is the first player to achieve 30 (positive) points." \
    "FORMAL AMEND $win IF exists(type==\"player\" & score>=30 & nickname==%n) & !exists(type==\"win\") THEN create(type==\"win\" & player==%n) & halt()"
# the announcement carries the formal change as written, and the rule it changes as it stands
all_vote 301 FOR FOR FOR
expect_eq "$(val ruleText number 301 text)" "The winner is the first player to achieve 30 (positive) points." "208 amended to 30 is rule 301"
expect_eq "$(val rule objectId "$win" implements)" "301" "its formal rule implements 301"
mv a@x "PROPOSE ENACT Alice's rule."
all_vote 302 FOR FOR FOR
mv c@x "PROPOSE ENACT Carol's rule."
all_vote 303 FOR FOR FOR
mv b@x "PROPOSE ENACT Bob's rule."
all_vote 304 FOR FOR FOR
expect_scores 11 23 12 "after 304"
"$NOMIC" report G standings --time "$TIME" >out
expect_golden suber-208.standings out "the standings rank the players by score"
expect_eq "$(val win type win player)" "(none)" "23 is not 30"
mv a@x "PROPOSE ENACT Alice again."
all_vote 305 FOR FOR FOR
mv c@x "PROPOSE ENACT Carol again."
all_vote 306 FOR FOR FOR
expect_scores 25 23 27 "after 306"
expect_eq "$(val win type win player)" "(none)" "nobody has 30 yet"
mv b@x "PROPOSE ENACT Bob again."
all_vote 307 FOR FOR FOR
expect_eq "$(val win type win player)" "bob" "bob wins with 39: at 30, as amended 208 says"
mv a@x "PROPOSE ENACT Too late."
# the formal change announced as written, beside the rule as it stands; the end
expect_mails suber-208.mails "amending 208: every mail"

# ------------------------------------------------- Judgment (212), paradox (213)
"$NOMIC" init G --ruleset suber --time "$TIME" --force >out
mv a@x "JOIN alice Young"
mv b@x "JOIN bob Adams"
mv c@x "JOIN carol Zed"
mv a@x "INVOKE May a rule be about hats?"
mv a@x "JUDGE Yes."
mv c@x "JUDGE No."
expect_eq "$(val judgment number 1 status)" "decided" "the Judgment is decided"
mv c@x "OVERRULE 1 FOR"
mv a@x "OVERRULE 1 FOR"
expect_eq "$(val judgment number 1 status)" "decided" "one vote of two does not overrule"
mv b@x "OVERRULE 1 FOR"
expect_eq "$(val judgment number 1 judge)" "alice" "overruled unanimously: the player before the Judge judges, not bob whose turn it is"
expect_eq "$(val judgment number 1 status)" "open" "the Judgment is open again"
mv a@x "PARADOX The question is equally answered yes and no."
mv b@x "OVERRULE 1 AGAINST"
expect_eq "$(val judgment number 1 status)" "upheld" "a vote against upholds the Judgment"
expect_eq "$(val win type win player)" "bob" "a move equally legal and illegal: bob, unable to complete his turn, wins (213)"
mv b@x "PROPOSE ENACT After the end."
# the Judge named, a move by another than the Judge, the Judge's own vote refused
expect_mails suber-judgment.mails "Judgment and paradox: every mail"

# ------------------------------------------------------------- forfeit (113)
"$NOMIC" init G --ruleset suber --time "$TIME" --force >out
mv a@x "JOIN alice Young"
mv b@x "JOIN bob Adams"
mv c@x "JOIN carol Zed"
mv d@x "FORFEIT"
mv b@x "FORFEIT"
expect_eq "$(val formerPlayer nickname bob nickname)" "bob" "bob is a former player"
expect_eq "$(val player nickname bob nickname)" "(none)" "and no longer a player"
expect_eq "$(turn)" "alice" "his turn passes to the next by surname"
mv a@x "PROPOSE ENACT Two are enough."
mv a@x "VOTE 301 FOR"
mv b@x "VOTE 301 FOR"
mv c@x "VOTE 301 FOR"
expect_eq "$(val proposal number 301 status)" "adopted" "the vote ends when the remaining players have voted"
expect_eq "$(turn)" "carol" "and the turn goes on among them"
# a stranger's forfeit and a former player's vote refused
expect_mails suber-forfeit.mails "forfeit: every mail"

# ------------------------------------------------------------ suber1982
"$NOMIC" init G --ruleset suber1982 --time "$TIME" --seed 7 --force >out
expect_eq "$("$NOMIC" show G --type ruleText | grep -c '^number:')" "29" "the 29 rules of 1982"
mv c@x "JOIN carol Zed"
mv a@x "JOIN alice Young"
mv b@x "JOIN bob Adams"
expect_eq "$(turn)" "carol" "clockwise is the order of joining: carol first"
mv a@x "PROPOSE ENACT Out of turn."
a=0 b=0 c=0 n=301 last=""
play1982() { # PROPOSER-ADDRESS VOTE-alice VOTE-bob VOTE-carol LINES...: one turn; checks the die
    who=$(turn) from=$1 va=$2 vb=$3 vc=$4
    shift 4
    mv "$from" "$@"
    all_vote $n $va $vb $vc
    roll=$(val proposal number $n roll)
    case $roll in [1-6]) ok ;; *) fail "proposal $n: a die roll of 1 to 6, got '$roll'" ;; esac
    case $who in alice) a=$((a + roll)) ;; bob) b=$((b + roll)) ;; carol) c=$((c + roll)) ;; esac
    last=$n n=$((n + 1))
}
play1982 c@x FOR FOR AGAINST "PROPOSE ENACT Hats are worn."
expect_eq "$(val proposal number 301 status)" "defeated" "1982: unanimity is needed"
c=$((c - 10))
expect_scores $a $b $c "after 301: the die, and 10 off for the defeat"
play1982 a@x FOR FOR FOR "PROPOSE ENACT Hats are red."
expect_eq "$(val ruleText number 302 text)" "Hats are red." "adopted: rule 302"
expect_scores $a $b $c "after 302"
rules4000=$("$NOMIC" show G --type rule --json | python3 -c "import json,sys
print([o['objectId'] for o in json.load(sys.stdin)['objects'] if o.get('ruleOrder')=='4000'][0])")
play1982 b@x FOR FOR FOR "PROPOSE AMEND 203 Rule-changes are adopted by a simple majority of the votes cast." \
    "FORMAL AMEND $rules4000 IF exists(type==\"proposal\" & status==\"open\" & number==%N & objectId==%o) & count(type==\"ballot\" & proposal==%N) >= count(type==\"player\") & %F==count(type==\"ballot\" & proposal==%N & vote==\"FOR\") & %A==count(type==\"ballot\" & proposal==%N & vote==\"AGAINST\") THEN set(%o)(status==if(%F>%A, \"adopted\", \"defeated\") & forVotes==%F & againstVotes==%A & unanimous==if(%A==0, T, F))"
expect_eq "$(val ruleText number 303 text)" "Rule-changes are adopted by a simple majority of the votes cast." "203 amended is rule 303"
expect_scores $a $b $c "after 303"
play1982 c@x FOR AGAINST FOR "PROPOSE ENACT Hats are blue."
expect_eq "$(val proposal number 304 status)" "adopted" "a majority adopts, as 203 amended says"
b=$((b + 10))
expect_scores $a $b $c "after 304: bob, against, gains 10 now that 203 is amended (204)"
while [ $n -lt 500 ] && ! "$NOMIC" show G --type win | grep -q player; do
    case $(turn) in alice) f=a@x ;; bob) f=b@x ;; carol) f=c@x ;; esac
    play1982 $f FOR FOR FOR "PROPOSE AMEND $last Rule of turn $n."
    expect_scores $a $b $c "after $last"
done
winner=$(val win type win player)
expect_eq "$winner" "$who" "the proposer who reached 100 wins"
[ "$(score "$winner")" -ge 100 ] && [ "$(score "$winner")" -lt 106 ] && ok || fail "the winner has 100 to 105 points"
mv a@x "VOTE $n FOR"
expect_mails suber1982.mails "suber1982 to 100 (the die's seed 7): every mail"
expect_status 0 "suber1982 replays" "$NOMIC" replay G

# ------------------------------------- a formal change cannot hide from the voters
"$NOMIC" init G --ruleset suber --time "$TIME" --force >out
mv a@x "JOIN alice Young"
mv b@x "JOIN bob Adams"
mv b@x "PROPOSE ENACT Players may wear hats." "FORMAL CREATE 10020 IF exists(type==\"player\" & score>10) THEN halt()"
"$NOMIC" show G --type proposal --json | python3 -c "import json,sys
print(json.load(sys.stdin)['objects'][0].get('formalText',''))" >kept
expect_in kept "then: halt()" "the proposal keeps the formal changes announced (formalText)"
# the standings, as a game-keeper posts them, from the state
expect_status 0 "the standings" "$NOMIC" report G standings --time "$TIME"
cat >want <<'EOF'
Standings at 2026-01-01T08:51:00Z: turn 1 (circuit 1), bob to play.

  1. bob Adams: 0
  1. alice Young: 0

Open proposals:
  301 by bob: enact; 0 of 2 players have voted, 1 formal change(s)
EOF
expect_cmp want out "the standings, compared whole: the turn, the players by score (tied players share a rank), the open proposals with the votes cast and the formal changes"
mv z@x "REPORT standings"
# the Mechanics check the formal change's code (codeAttributes) and tell the proposer
mv a@x "PROPOSE ENACT Rich players stop the game." "FORMAL CREATE 10020 IF exists(type=\"player\" & score=10) THEN halt()"
# the whole proposal to every player, the standings asked by mail, the
# rules' own answer to the proposal with the faulty formal change, and what
# nomic check finds in it (move 2, newif, line 1, column 12)
expect_mails suber-formal.mails "a formal change announced: every mail"

report suber
