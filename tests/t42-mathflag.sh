#!/bin/sh
# t42-mathflag.sh - MathFlag (seed 003) played on top of favor through the
# command line, the engine as Gamemaster: the stages at 2 days, probes
# announced, a Variable tracking another player's score, an undefined
# result eliminating its owner, a challenge won with three exact answers
# (one a decimal equal to a fraction), a challenge lost making a Prisoner
# for two Computations, the last MathNaut winning the trophy, everyone
# losing when the last fall together; no secret shown to anyone but its
# owner; the seed's commitment checked by reveal; `nomic report G
# mathflag` compared whole at each stage, and every mail of each game with
# its golden in tests/golden/t42-mathflag/.  Run from the project root.
. "$(dirname "$0")/lib.sh"

DAY=86400
T0=1767225600 # 2026-01-01
tick() { "$NOMIC" tick G --time "$1" >tick.out 2>&1; }
stage() { val mathFlag type mathFlag stage; }
result() { val mfResult round/investigator "$1/$2" value; } # ROUND INVESTIGATOR: the value announced
# the value of a b/4 expression i*i/4 at q, and of v*10+i, as the test's own arithmetic
quarter_square() { python3 -c "from fractions import Fraction as F; x=F($1)**2/4; print(x.numerator if x.denominator==1 else '%d/%d'%(x.numerator,x.denominator))"; }
quarter_square_decimal() { python3 -c "print(repr(($1)**2/4))"; }

# ------------------------------------------------------------- a whole game
"$NOMIC" init G --ruleset favor --ruleset mathflag --time $T0 --seed 4242 >init.out
expect_in init.out "committed: sha256" "init publishes a commitment to the seed"
commitment=$(sed -n 's/.*committed: sha256 \([0-9a-f]*\).*/\1/p' init.out)
for p in alice bob carol dave eve; do move_at $p@x $((T0 + 3600)) "REGISTER $p"; done
expect_eq "$(stage)" "Preliminary" "MathFlag begins in the Preliminary Stage"
for p in alice bob carol dave; do move_at $p@x $((T0 + 7200)) "MFJOIN"; done
move_at zed@x $((T0 + 7300)) "MFJOIN"
expect_eq "$(val mathNaut player zed role)" "(none)" "a non-player cannot join (favor answers: no known player)"
move_at alice@x $((T0 + 7400)) "MFJOIN"
expect_eq "$("$NOMIC" show G --type mathNaut | grep -c '^player:')" "4" "four MathNauts"
move_at alice@x $((T0 + 7500)) "MFSECRET i*i/4"

tick $((T0 + 2 * DAY - 1))
expect_eq "$(stage)" "Preliminary" "not before 2 days"
tick $((T0 + 2 * DAY))
expect_eq "$(stage)" "Selection" "the Selection Stage at 2 days, on the clock alone"
S=$((T0 + 2 * DAY))
move_at eve@x $((S + 60)) "MFJOIN"
carol_id=$("$NOMIC" show G --type player | awk 'BEGIN{RS="";FS="\n"} /nickname: carol/ {sub("objectId: ","",$1); print $1}')
move_at alice@x $((S + 100)) "MFSECRET i*i/4"
move_at bob@x $((S + 100)) "MFSECRET v*10+i" "MFVARIABLE $carol_id score"
move_at carol@x $((S + 100)) "MFSECRET 6/(i-3)"
move_at dave@x $((S + 100)) "MFSECRET 2*i+1"
move_at dave@x $((S + 200)) "subtype: mfSecret" "mfExpression: 2*i + 1"
move_at dave@x $((S + 200)) "MFSECRET 999999999"
move_at dave@x $((S + 200)) "MFVARIABLE $carol_id nickname"
move_at dave@x $((S + 200)) "MFVARIABLE 999999 score"
mathnaut_bob=$("$NOMIC" show G --type mathNaut | awk 'BEGIN{RS="";FS="\n"} /player: bob/ {sub("objectId: ","",$1); print $1}')
move_at dave@x $((S + 200)) "MFVARIABLE $mathnaut_bob mfExpression"
expect_eq "$(val mathNaut player dave mfExpression --as dave@x)" "2*i+1" "a refused change keeps the expression"
"$NOMIC" report G mathflag --time $((S + 250)) >report.out
cat >want <<EOF
MathFlag at 2026-01-03T00:04:10Z: the Selection Stage since 2026-01-03T00:00:00Z.
MathNauts choose their Secret Expression and Variable until the Active Stage begins, at 2026-01-05T00:00:00Z.

MathNauts (4):
  alice: Investigator; Input 1, Target dave
  bob: Investigator; Input 1, Target dave
  carol: Investigator; Input 1, Target dave
  dave: Investigator; Input 1, Target dave
EOF
expect_cmp want report.out "the report in the Selection Stage: the clock and every MathNaut, no secret"

# carol votes on a proposal of favor: a point, so bob's v is 1
move_at eve@x $((S + 300)) "CREATE 40000 IF F THEN halt()"
prop=$("$NOMIC" show G --type voteInProgress | sed -n 's/^propId: //p' | head -1)
move_at carol@x $((S + 400)) "VOTE $prop FOR"
expect_eq "$(val player nickname carol score)" "1" "carol has a point for voting (favor)"

tick $((S + 2 * DAY))
expect_eq "$(stage)" "Active" "the Active Stage 2 days later"
A=$((S + 2 * DAY))
move_at alice@x $((A + 60)) "MFINPUT 3 carol"
move_at bob@x $((A + 60)) "MFINPUT 2 alice"
move_at carol@x $((A + 60)) "MFINPUT 1 dave"
move_at dave@x $((A + 60)) "MFINPUT 7 bob"
move_at dave@x $((A + 70)) "MFINPUT 1.5 bob"
move_at dave@x $((A + 70)) "MFTARGET nobody"

tick $((A + DAY - 1))
expect_eq "$(val mathFlag type mathFlag computations)" "0" "no Computation before a day"
tick $((A + DAY))
expect_eq "$(val mathFlag type mathFlag computations)" "1" "the first Computation a day after the Active Stage began"
expect_eq "$(result 1 bob)" "1" "bob's probe: 2 in i*i/4 is 1"
expect_eq "$(result 1 carol)" "3" "carol's probe: 1 in 2*i+1 is 3"
expect_eq "$(result 1 dave)" "17" "dave's probe: 7 in v*10+i, v tracking carol's score 1, is 17"
expect_eq "$(result 1 alice)" "undefined" "alice's probe: 3 in 6/(i-3) is not a defined real number"
expect_eq "$(val formerMathNaut player carol why)" "the Secret Expression gave no defined real number" "carol ceases to be a MathNaut"
expect_eq "$(val mathNaut player alice target)" "dave" "alice's Target, gone, becomes the newest MathNaut"
"$NOMIC" report G mathflag --time $((A + DAY + 30)) >report.out
cat >want <<EOF
MathFlag at 2026-01-06T00:00:30Z: the Active Stage since 2026-01-05T00:00:00Z.
1 Computation so far; the next at 2026-01-07T00:00:00Z.

Results of Computation 1:
  alice's input 3 in carol's Secret Expression gives no defined real number.
  bob's input 2 in alice's Secret Expression gives 1.
  carol's input 1 in dave's Secret Expression gives 3.
  dave's input 7 in bob's Secret Expression gives 17.

MathNauts (3):
  alice: Investigator; Input 3, Target dave
  bob: Investigator; Input 2, Target alice
  dave: Investigator; Input 7, Target bob

Former MathNauts:
  carol: the Secret Expression gave no defined real number, at 2026-01-06T00:00:00Z
EOF
expect_cmp want report.out "the report after Computation 1: its results, the MathNauts, who ceased and why"

move_at carol@x $((A + DAY + 60)) "MFCHALLENGE dave"
move_at dave@x $((A + DAY + 60)) "MFCHALLENGE alice"
expect_eq "$(val mathNaut player dave role)" "Challenger" "dave challenges alice"
move_at bob@x $((A + DAY + 60)) "MFCHALLENGE dave"
move_at bob@x $((A + DAY + 70)) "MFANSWER 1 2 3"

tick $((A + 2 * DAY))
q=$(val mathNaut player dave query)
set -- $q
[ $# -eq 3 ] && ok || fail "dave's Query is three integers: '$q'"
for x in "$@"; do [ "$x" -ge -1000 ] && [ "$x" -le 1000 ] && ok || fail "a Query integer in [-1000, 1000]: $x"; done
# one answer as a decimal equal to the fraction
a1=$(quarter_square_decimal "$1") a2=$(quarter_square "$2") a3=$(quarter_square "$3")
move_at dave@x $((A + 2 * DAY + 60)) "MFANSWER $a1 $a2 $a3"
move_at bob@x $((A + 2 * DAY + 60)) "MFANSWER 0 0 0"

tick $((A + 3 * DAY))
expect_eq "$(val formerMathNaut player alice why)" "defeated by a Challenger" "three exact answers defeat alice"
expect_eq "$(val mathNaut player dave role)" "Investigator" "dave is an Investigator again"
expect_eq "$(val mathNaut player bob role)" "Prisoner" "0 of 3: bob is a Prisoner"
move_at bob@x $((A + 3 * DAY + 60)) "MFINPUT 4 dave"
move_at dave@x $((A + 3 * DAY + 60)) "MFCHALLENGE bob"
tick $((A + 4 * DAY))
expect_eq "$(val mathNaut player bob role)" "Prisoner" "still a Prisoner one Computation later"
q=$(val mathNaut player dave query)
set -- $q
ans=""
for x in "$@"; do ans="$ans $((10 + x))"; done
move_at dave@x $((A + 4 * DAY + 60)) "MFANSWER$ans"
tick $((A + 5 * DAY))
expect_eq "$(val formerMathNaut player bob why)" "defeated by a Challenger" "bob, released at this Computation, is defeated (v*10+i with v = 1)"
expect_eq "$(stage)" "Ended" "MathFlag ends"
expect_eq "$(val mathFlag type mathFlag winner)" "dave" "the last MathNaut wins"
expect_eq "$(val trophy type trophy owner)" "dave" "and owns the trophy"
expect_eq "$(val trophy type trophy name)" "Solar-Powered Pocket Calculator" "the trophy"
"$NOMIC" report G mathflag --time $((A + 5 * DAY + 30)) >report.out
cat >want <<EOF
MathFlag at 2026-01-10T00:00:30Z: ended.
It ended at 2026-01-10T00:00:00Z after 5 Computations: dave won the Solar-Powered Pocket Calculator.

Results of Computation 5: none

MathNauts (1):
  dave: Investigator; Input 7, Target dave; last challenge: bob 3/3 right

Former MathNauts:
  alice: defeated by a Challenger, at 2026-01-08T00:00:00Z
  bob: defeated by a Challenger, at 2026-01-10T00:00:00Z
  carol: the Secret Expression gave no defined real number, at 2026-01-06T00:00:00Z
EOF
expect_cmp want report.out "the report at the end: the winner, the last results, every former MathNaut"
tick $((A + 9 * DAY))
expect_eq "$(val mathFlag type mathFlag computations)" "5" "no Computation after the end"
# every mail of the game: joining and the refusals of each stage (no
# Secret Expression out of range, no Variable that is no number, no object or
# private, no Input, no challenge, no Answer before a Query), each Computation
# as one readable digest to each player with its results and who ceased, the
# Queries, the end; the draws are the seed's (4242)
expect_mails whole-game.mails "a whole game: every mail"

# ------------------------------------------------------------ secrets
"$NOMIC" show G >show.out
"$NOMIC" show G --json >show.json
"$NOMIC" export G >export.out
"$NOMIC" log G >log.out
"$NOMIC" log G --json >log.json
"$NOMIC" outbox G >outbox.out
"$NOMIC" outbox G --json >outbox.json
for f in show.out show.json export.out log.out log.json outbox.out outbox.json; do
    for secret in 'i*i/4' 'v*10+i' '6/(i-3)' '2*i+1' '2*i + 1' '99999999'; do
        if grep -qF "$secret" $f; then fail "$f shows the secret $secret"; else ok; fi
    done
    if grep -q "mfVarObject: $carol_id\|\"mfVarObject\":\"$carol_id\"" $f; then fail "$f shows bob's Variable"; else ok; fi
done
expect_eq "$(val formerMathNaut player bob mfExpression --as bob@x)" "v*10+i" "bob reads his own expression"
expect_eq "$(val formerMathNaut player bob mfExpression --as alice@x)" "" "alice does not"
"$NOMIC" log G --as alice@x >log-alice.out
expect_in log-alice.out "mfExpression: i*i/4" "alice reads her own move in the journal"
if grep -qF 'v*10+i' log-alice.out; then fail "alice's journal shows bob's secret"; else ok; fi

# ------------------------------------------------------------ the seed
"$NOMIC" reveal G >reveal.out 2>&1
expect_in reveal.out "seed: 4242" "reveal publishes the seed"
expect_in reveal.out "commitment: sha256 $commitment" "the commitment init printed"
salt=$(sed -n 's/^salt: //p' reveal.out)
expect_eq "$(printf 'nomic seed 4242 salt %s' "$salt" | sha256sum | cut -d' ' -f1)" "$commitment" "sha256 of seed and salt is the commitment"
expect_status 0 "the draws replay from the seed" "$NOMIC" replay G
expect_status 2 "try cannot look into the future" "$NOMIC" try G --from dave@x --time 2099-01-01 --file /dev/null

# ------------------------------------- the last MathNauts fall together
"$NOMIC" init G --ruleset favor --ruleset mathflag --time $T0 --seed 4243 --force >/dev/null # its mails are a golden: no draw left to chance
for p in xena yuri; do move_at $p@x $((T0 + 60)) "REGISTER $p"; done
for p in xena yuri; do move_at $p@x $((T0 + 120)) "MFJOIN"; done
tick $((T0 + 2 * DAY))
move_at xena@x $((T0 + 2 * DAY + 60)) "MFSECRET 1/(i-1)"
move_at yuri@x $((T0 + 2 * DAY + 60)) "MFSECRET 1/(i-i)"
tick $((T0 + 4 * DAY))
move_at yuri@x $((T0 + 4 * DAY + 60)) "MFTARGET xena"
expect_eq "$(val mathNaut player xena target)" "yuri" "xena's Target is by default the newest MathNaut"
tick $((T0 + 5 * DAY))
expect_eq "$(stage)" "Ended" "both undefined at input 1: MathFlag ends"
expect_eq "$(val mathFlag type mathFlag winner)" "" "nobody wins"
expect_eq "$(val trophy type trophy owner)" "(none)" "no trophy"
expect_mails fall-together.mails "the last fall together: every mail, everyone loses"
"$NOMIC" report G mathflag --time $((T0 + 5 * DAY + 30)) >report.out
cat >want <<EOF
MathFlag at 2026-01-06T00:00:30Z: ended.
It ended at 2026-01-06T00:00:00Z after 1 Computation: no MathNaut was left, so every former MathNaut lost and no trophy was awarded.

Results of Computation 1:
  xena's input 1 in yuri's Secret Expression gives no defined real number.
  yuri's input 1 in xena's Secret Expression gives no defined real number.

MathNauts (0): none

Former MathNauts:
  xena: the Secret Expression gave no defined real number, at 2026-01-06T00:00:00Z
  yuri: the Secret Expression gave no defined real number, at 2026-01-06T00:00:00Z
EOF
expect_cmp want report.out "the report when everyone lost: no winner, no trophy"

report mathflag
