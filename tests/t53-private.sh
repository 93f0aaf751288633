#!/bin/sh
# t53-private.sh - private means private on every path a request can make
# the rules run: a favor+mathflag game whose Secret Expression alice set,
# probed by a stranger (and by another player) through the real server and
# command line, with goals and moves that reach the secret indirectly
# (attribute() of a glued name, word() over privateAttributes, length(), a
# variable bound by an indexed match).  Each probe is made with a true and
# a false guess: the two answers must be the same.  The owner, asking with
# her token, gets different answers: so the probes can tell, and only the
# view hides.  Also: a search's wait never plays a timer past the real
# clock; a report asked by the public runs on the public view; the "no
# effect" explanation draws from a throwaway generator.  Run from the
# project root.
. "$(dirname "$0")/lib.sh"
. "$SRCDIR/tests/serve.sh"

SECRET='(7-i)*i'
WRONG='(6-i)*i'
# ------------------------------------------------------------- the game
# the Selection Stage began 10 minutes ago; the Active Stage (a timer) is
# two days ahead of the real clock
DAY=86400
T0=$(($(date +%s) - 2 * DAY - 600))
S=$((T0 + 2 * DAY))
# a rule of the game reading another's secret through a name it computes,
# and a report that tells it: in a real event the rules may do what they
# like with it; no dry run, explanation or search may
cat >probe.nomic <<'EOF'
# probe: rules that read alice's Secret Expression through computed names
type: rule
ruleOrder: 90000
if: exists(type=="move" & subtype=="probe" & guess==%g & of==%p) &
    exists(type=="mathNaut" & player==%p & objectId==%o) &
    attribute(%o, glue("mfExp", "ression"))==%g & exists(type=="nothing")
then: set(%o)(probed==1)

type: rule
ruleOrder: 10
if: exists(type=="move" & subtype=="report" & kind=="probe" & moveSender==%s & objectId==%m) &
    exists(type=="mathNaut" & player=="alice" & objectId==%o)
then: send(%s, glue("alice's secret: [", attribute(%o, "mfExpression"), "]")) & delete(%m) & sendNow()
EOF
"$NOMIC" init p.db --ruleset favor --ruleset mathflag --ruleset probe.nomic --time $T0 >/dev/null
for p in alice bob carol; do printf 'REGISTER %s\n' $p | "$NOMIC" move p.db --from $p@x --time $((T0 + 3600)) >/dev/null; done
for p in alice bob carol; do echo MFJOIN | "$NOMIC" move p.db --from $p@x --time $((T0 + 7200)) >/dev/null; done
"$NOMIC" tick p.db --time $S >/dev/null
echo "MFSECRET $SECRET" | "$NOMIC" move p.db --from alice@x --time $((S + 100)) >/dev/null
echo 'MFSECRET 2*i+1' | "$NOMIC" move p.db --from bob@x --time $((S + 100)) >/dev/null
expect_eq "$("$NOMIC" show p.db --type mathNaut --as alice@x | grep -cF "mfExpression: $SECRET")" 1 "alice's secret is set"
TA=$("$NOMIC" token p.db alice@x)
TB=$("$NOMIC" token p.db bob@x)

# goals GUESS LENGTH: the indirect probes of alice's secret, one per line
ALICE='exists(type=="mathNaut" & player=="alice" & objectId==%o)'
goals() {
    echo "$ALICE & attribute(%o, glue(\"mfExp\", \"ression\"))==\"$1\""
    echo "exists(type==\"engineSettings\" & privateAttributes==%pa) & $ALICE & attribute(%o, word(%pa, 1))==\"$1\""
    echo "$ALICE & length(attribute(%o, glue(\"mfExp\", \"ression\")))==$2"
    echo "exists(type==\"mathNaut\" & player==\"alice\" & mfExpression==%x) & %x==\"$1\""
}
goals "$SECRET" 7 >goals.0
goals "$WRONG" 8 >goals.1

# ------------------------------------------------------------- the scam search, by the command line
# nomic scams sees what --as may: a stranger's search answers alike
i=0
while IFS= read -r goal; do
    i=$((i + 1))
    wrong=$(sed -n "${i}p" goals.1)
    "$NOMIC" scams p.db --as zed@x --goal "$goal" --depth 1 --budget 1 --json >cli.true 2>&1
    "$NOMIC" scams p.db --as zed@x --goal "$wrong" --depth 1 --budget 1 --json >cli.false 2>&1
    expect_cmp cli.true cli.false "nomic scams --as a stranger: goal $i answers the same for a true and a false guess"
    "$NOMIC" scams p.db --as alice@x --goal "$goal" --depth 1 --budget 1 --json >own.true 2>&1
    "$NOMIC" scams p.db --as alice@x --goal "$wrong" --depth 1 --budget 1 --json >own.false 2>&1
    expect_eq "$(json own.true "j['found']") $(json own.false "j['found']")" "True False" \
        "nomic scams --as alice: goal $i sees her own secret"
done <goals.0
# a wait plays no timer past the real clock in a game with private attributes
ACTIVE='exists(type=="mathFlag" & stage=="Active")'
expect_status 3 "nomic scams --wait: the Active Stage is two days ahead, not played" \
    "$NOMIC" scams p.db --as alice@x --goal "$ACTIVE" --depth 1 --wait
expect_in out "none within depth 1" "nomic scams --wait: none"

# ------------------------------------------------------------- the server
start_server p.db || exit 1
# as a stranger (no token), as alice without her token, as alice with bob's
i=0
while IFS= read -r goal; do
    i=$((i + 1))
    wrong=$(sed -n "${i}p" goals.1)
    for who in none alice-untokened alice-by-bob; do
        case $who in
        none) set -- --data-urlencode as=zed@x ;;
        alice-untokened) set -- --data-urlencode as=alice@x ;;
        alice-by-bob) set -- --data-urlencode as=alice@x -H "Authorization: Bearer $TB" ;;
        esac
        expect_http 200 "scams $who: goal $i, true guess" POST /api/scams "$@" --data-urlencode "goal=$goal" --data budget=1
        cp body api.true
        expect_http 200 "scams $who: goal $i, false guess" POST /api/scams "$@" --data-urlencode "goal=$wrong" --data budget=1
        expect_cmp api.true body "POST /api/scams ($who): goal $i answers the same for a true and a false guess"
    done
    http POST /api/scams --data-urlencode as=alice@x -H "Authorization: Bearer $TA" --data-urlencode "goal=$goal" --data budget=1
    cp body own.true
    http POST /api/scams --data-urlencode as=alice@x -H "Authorization: Bearer $TA" --data-urlencode "goal=$wrong" --data budget=1
    expect_eq "$(json own.true "j['found']") $(json body "j['found']")" "True False" \
        "POST /api/scams as alice with her token: goal $i sees her own secret"
done <goals.0
expect_http 200 "scams: wait=T" POST /api/scams --data-urlencode as=zed@x --data-urlencode "goal=$ACTIVE" --data wait=T --data depth=1
expect_eq "$(json body "j['found']")" "False" "POST /api/scams wait=T: no timer past the real clock is played"

# reports run on the public view
expect_http 200 "the probe report, as the public" GET /api/report/probe
expect_eq "$(json body "j['text']")" "alice's secret: []" "GET /api/report: the rules read \"\" for a private value"
expect_http 200 "the mathflag report, as the public" GET /api/report/mathflag
expect_not_in body "$SECRET" "GET /api/report/mathflag shows no secret"
"$NOMIC" report p.db probe >report.out 2>&1
expect_eq "$(cat report.out)" "alice's secret: []" "nomic report: the same public view"

# the "no effect" explanation of a move naming alice's secret, by bob:
# the same words for a true and a false guess (the guess itself aside)
neutral() { python3 -c 'import sys; [sys.stdout.write(l.replace(sys.argv[1], "GUESS")) for l in sys.stdin]' "$1"; }
explain() { # GUESS PATH [curl args]: the explanation of the probe rule, the guess made neutral
    guess=$1 path=$2
    shift 2
    printf 'subtype: probe\nguess: %s\nof: alice\n' "$guess" >probe.move
    http POST "$path" "$@" --data-binary @probe.move
    json body "j['message']" | grep -F "ruleOrder 90000" | neutral "$guess"
}
explain "$SECRET" /api/move -H "Authorization: Bearer $TB" >why.true
explain "$WRONG" /api/move -H "Authorization: Bearer $TB" >why.false
expect_in why.true "does not hold" "the explanation explains"
expect_cmp why.true why.false "the no-effect explanation of bob's probe is the same for a true and a false guess"
expect_not_in why.true "nothing" "bob's explanation stops where the secret is read, not after it"
explain "$SECRET" /api/move -H "Authorization: Bearer $TA" >why.own
expect_in why.own 'exists(type=="nothing")' "alice's explanation of her own secret reads it (the mover's view)"
# the game is mailPolicy open: anyone may move as alice without a token,
# but the answer goes to whoever asked, so it takes the public view
explain "$SECRET" '/api/move?from=alice@x' >why.true
explain "$WRONG" '/api/move?from=alice@x' >why.false
expect_in why.true "does not hold" "a token-less move as alice is explained"
expect_cmp why.true why.false "a token-less move as alice: the same explanation for a true and a false guess"
# nomic try: the same view as its sender's
for g in "$SECRET" "$WRONG"; do
    printf 'subtype: probe\nguess: %s\nof: alice\n' "$g" | "$NOMIC" try p.db --from bob@x 2>&1 |
        grep -F "ruleOrder 90000" | neutral "$g" >try.$g.out
done
expect_cmp "try.$SECRET.out" "try.$WRONG.out" "nomic try --from bob: the same for a true and a false guess"
stop_server

expect_status 0 "replay agrees after the explanations and dry runs" "$NOMIC" replay p.db

# ------------------------------------------------------------- the explanation's generator
# A roll's explanation says whether random() drew low; the next event's
# first draw is the game's.  Were the explanation's generator a copy of
# the game's, the two would agree every time: 20 rounds agreeing by
# chance is one in a million.
cat >roll.nomic <<'EOF'
# roll: a move whose explanation reads random(), and a move that draws
type: engineSettings
runType: rule

type: rule
ruleOrder: 100
if: exists(type=="move" & subtype=="roll" & objectId==%m) & random(1, 1000000) < 500000 & exists(type=="nothing")
then: delete(%m)

type: rule
ruleOrder: 200
if: exists(type=="move" & subtype=="roll" & objectId==%m)
then: delete(%m)

type: rule
ruleOrder: 300
if: exists(type=="move" & subtype=="draw" & objectId==%m)
then: create(type=="drawn" & value==random(1, 1000000)) & delete(%m)
EOF
"$NOMIC" init r.db --ruleset roll.nomic --time $T0 >/dev/null
agree=0
k=0
while [ $k -lt 20 ]; do
    k=$((k + 1))
    printf 'subtype: roll\n' | "$NOMIC" move r.db --from a@x >roll.out 2>&1
    printf 'subtype: draw\n' | "$NOMIC" move r.db --from a@x >/dev/null 2>&1
    drawn=$("$NOMIC" show r.db --type drawn | sed -n 's/^value: //p' | tail -n 1)
    if grep -qF '`random(1, 1000000) < 500000` does not hold' roll.out; then said=high; else said=low; fi
    if [ "$drawn" -lt 500000 ]; then was=low; else was=high; fi
    [ $said = $was ] && agree=$((agree + 1))
done
expect_in roll.out "no effect" "a roll has no effect and is explained"
[ $agree -lt 20 ] && ok || fail "the explanation's random() foretold the game's next draw 20 times out of 20"
report t53-private
