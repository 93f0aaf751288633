#!/bin/sh
# t50-hostile.sh - rules and moves written to take the host down, played
# through the command line on favor: each one ends in seconds with bounded
# memory, is refused (or stopped) with a reason naming the limit and the
# rule, the game goes on for the next player, and `nomic replay` agrees.
# Also: each engineSettings limit held to its ceiling, a bad value noted,
# a large event rolled back in linear time.  Uses $NOMIC.
set -u
FAVOR=$(cd "$(dirname "$0")/.." && pwd)/rulesets/favor.nomic
. "$(dirname "$0")/lib.sh"

# Runs CMD... with a hang guard (a hang fails the check, it does not block
# the suite) and its peak memory in KiB in the file rss.
guarded() {
    /usr/bin/time -f %M -o rss timeout 120 "$@"
}
rss_below() { # MIB DESCRIPTION
    kib=$(tail -1 rss)
    [ "$kib" -lt $(($1 * 1024)) ] && ok || fail "$2: peak RSS $kib KiB, expected below $1 MiB"
}
# A game of favor whose engineSettings (object 1) has SETTINGS-LINES, with
# one more rule (object 35) and OBJECTS; alice is a player.
hostile_game() { # NAME RULE-IF RULE-THEN [SETTINGS-LINES [OBJECTS]]
    {
        awk -v s="${4:-runType: rule}" '!done && $0 == "runType: rule" { print s; done = 1; next } { print }' "$FAVOR"
        printf '\ntype: rule\nruleOrder: 1\nif: %s\nthen: %s\n\n%s\n' "$2" "$3" "${5:-}"
    } > "$1.nomic"
    rm -f "$1.db" "$1.db-wal" "$1.db-shm"
    "$NOMIC" init "$1.db" --ruleset "$1.nomic" --time 2026-01-01Z > /dev/null
    printf 'subtype: register\nnickname: alice\n' | "$NOMIC" move "$1.db" --from alice@x.org --time 2026-01-01T00:01:00Z > /dev/null
}
# The game goes on: bob registers, and the whole journal replays.
goes_on() { # NAME
    printf 'subtype: register\nnickname: bob\n' > m
    expect_status 0 "$1: a later ordinary move is applied" "$NOMIC" move "$1.db" --from bob@y.org --time 2026-01-01T00:03:00Z --file m
    [ "$(val_in "$1.db" player nickname bob nickname)" = bob ] && ok || fail "$1: bob did not register"
    expect_status 0 "$1: replay matches every hash" "$NOMIC" replay "$1.db"
}
val_in() { # DB TYPE KEY VALUE ATTR
    "$NOMIC" show "$1" --type "$2" | awk -v k="$3" -v v="$4" -v a="$5" '
        BEGIN { RS = ""; FS = "\n" }
        { delete o; for (i = 1; i <= NF; i++) { p = index($i, ": "); if (p) o[substr($i, 1, p - 1)] = substr($i, p + 2) }
          if (o[k] == v) { print o[a]; exit } }'
}
attack() { # NAME DESCRIPTION: the move that triggers the rule, by mallory
    printf 'subtype: attack\n' > m
    guarded "$NOMIC" move "$1.db" --from mallory@evil.example --time 2026-01-01T00:02:00Z --file m > out 2> err
    echo $? > status
}
refused_for() { # NAME LIMIT [PHRASE]: the attack was refused, naming the limit and the hostile rule
    expect_eq "$(cat status)" 1 "$1: the attack is refused"
    expect_in out "${3:-took the event past $2}" "$1: the refusal names the limit"
    expect_in out "rule 35 (ruleOrder 1)" "$1: the refusal names the rule"
    expect_in out "the whole event was undone" "$1: the event is undone"
    "$NOMIC" log "$1.db" --event 2 --json > log.json
    expect_in log.json "\"status\":\"refused\"" "$1: journaled as refused"
    expect_in log.json "exceeded $2" "$1: the trace shows the limit"
}
TRIGGER='exists(type=="move" & subtype=="attack")'

# --- a text that doubles at each firing -----------------------------------
hostile_game text "$TRIGGER & exists(type==\"t\" & v==%v & objectId==%o)" 'set(%o)(v==glue(%v,%v) & n==n+1)' \
    "runType: rule" "type: t
v: abcdefgh
n: 0"
attack text
refused_for text maxMemory
rss_below 600 "text"
[ "$(val_in text.db t type t n)" = 0 ] && ok || fail "text: the doubling was not undone"
goes_on text

# --- objects that double at each firing ------------------------------------
hostile_game objects "$TRIGGER" 'forEach(type=="x")(create(type=="x"))' "runType: rule" "type: x"
attack objects
refused_for objects maxMemory
rss_below 600 "objects"
goes_on objects

# --- a number squared at each firing ---------------------------------------
# Not a trip: the rule meets a run-time error before GMP computes a number
# of more than maxNumberDigits digits, stops firing, and the event settles.
hostile_game number "$TRIGGER & exists(type==\"s\" & v==%v & objectId==%o)" 'set(%o)(v==%v*%v)' \
    "runType: rule" "type: s
v: 7"
attack number
expect_eq "$(cat status)" 0 "number: the event settles"
"$NOMIC" log number.db --event 2 > log.txt
expect_in log.txt "a number of more than 100000 digits (maxNumberDigits)" "number: the trace says why the rule stopped"
digits=$(val_in number.db s type s v | tr -d '\n' | wc -c)
[ "$digits" -gt 50000 ] && [ "$digits" -le 100000 ] && ok || fail "number: $digits digits, expected the last square within 100000"
rss_below 300 "number"
goes_on number

# --- a rule that scans for ever, one firing at a time -----------------------
hostile_game work "$TRIGGER & exists(type==\"c\" & n==%n & objectId==%o)" 'set(%o)(n==%n+1)' \
    "runType: rule
maxWork: 300000" "type: c
n: 0"
attack work
refused_for work maxWork
expect_in out "past maxWork (300000 units of work, engineSettings)" "work: the refusal gives the budget"
goes_on work

# --- aggregates nested 200 deep: 35^200 candidates ---------------------------
nested=$(awk 'BEGIN { s = "T"; for (i = 0; i < 200; i++) s = "count(" s ")>=0"; print s }')
hostile_game nested "$TRIGGER & $nested" 'halt()'
attack nested
# a rule met for the first time in the event: its test is the event's
# first look at the rules, which has an allowance of its own
refused_for nested maxWork "took the event's first look at the rules past 4 times maxWork (50000000 units of work"
goes_on nested

# --- a message sent to many, again and again --------------------------------
hostile_game mail "$TRIGGER & exists(type==\"c\" & n==%n & objectId==%o)" \
    'set(%o)(n==%n+1) & send("v1@victim.example v2@victim.example v3@victim.example", "spam")' \
    "runType: rule
maxDeliveries: 3000" "type: c
n: 0"
attack mail
refused_for mail maxDeliveries
expect_status 0 "mail: outbox" "$NOMIC" outbox mail.db
expect_not_in out "victim.example" "mail: nothing of the refused event is queued"
goes_on mail

# --- maxSteps: firings, and a large event rolled back -----------------------
# Each firing creates 20 objects; at maxSteps the rollback deletes 200,000
# objects and puts their posting lists back: linear, so within the guard.
hostile_game steps "$TRIGGER & exists(type==\"c\" & n==%n & objectId==%o)" \
    'set(%o)(n==%n+1) & create(type=="y" & k==1) & create(type=="y" & k==2) & create(type=="y" & k==3) & create(type=="y" & k==4) & create(type=="y" & k==5) & create(type=="y" & k==6) & create(type=="y" & k==7) & create(type=="y" & k==8) & create(type=="y" & k==9) & create(type=="y" & k==10) & create(type=="y" & k==11) & create(type=="y" & k==12) & create(type=="y" & k==13) & create(type=="y" & k==14) & create(type=="y" & k==15) & create(type=="y" & k==16) & create(type=="y" & k==17) & create(type=="y" & k==18) & create(type=="y" & k==19) & create(type=="y" & k==20)' \
    "runType: rule
maxSteps: 10000" "type: c
n: 0"
attack steps
expect_eq "$(cat status)" 1 "steps: the attack is refused"
expect_in out "did not settle within maxSteps (10000 firings)" "steps: the refusal names maxSteps"
[ -z "$(val_in steps.db y type y k)" ] && ok || fail "steps: objects of the refused event are left"
goes_on steps

# --- a thousand empty moves from a stranger ---------------------------------
# favor's rule 6 tests from=="", which no index answers; a message holds at
# most 1,000 moves, and what they cost is metered.
"$NOMIC" init many.db --ruleset favor --time 2026-01-01Z > /dev/null
printf 'REGISTER alice\n' | "$NOMIC" move many.db --from alice@x.org --time 2026-01-01T00:01:00Z > /dev/null
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "subtype: nothing\n\n" }' > m
guarded "$NOMIC" move many.db --from mallory@evil.example --time 2026-01-01T00:02:00Z --file m > out 2> err
[ $? -le 1 ] && ok || fail "many: exit $(cat status), expected 0 or 1"; cat err
rss_below 300 "many"
awk 'BEGIN { for (i = 0; i < 1001; i++) printf "subtype: nothing\n\n" }' > m
expect_status 1 "many: 1,001 moves are refused" "$NOMIC" move many.db --from mallory@evil.example --time 2026-01-01T00:02:30Z --file m
expect_in out "at most 1000" "many: the refusal states the limit"
printf 'REGISTER bob\n' > m
expect_status 0 "many: a later ordinary move is applied" "$NOMIC" move many.db --from bob@y.org --time 2026-01-01T00:03:00Z --file m
expect_status 0 "many: replay" "$NOMIC" replay many.db

# --- a vote on proposal 2147483647 -------------------------------------------
# The largest whole number held in a Sym read as an unbound variable: favor's
# rule 16 then bound %p to the open proposal's id, and each such vote earned
# its voter a point, again and again.
"$NOMIC" init big.db --ruleset favor --time 2026-01-01Z > /dev/null
printf 'REGISTER alice\n' | "$NOMIC" move big.db --from alice@x.org --time 2026-01-01T00:01:00Z > /dev/null
printf 'subtype: ruleChange\nruleChangeType: create\nnewif: F\nnewthen: halt()\nneworder: 5\n' |
    "$NOMIC" move big.db --from alice@x.org --time 2026-01-01T00:02:00Z > out
prop=$(sed -n 's/.*Vote: VOTE \([0-9]*\) FOR.*/\1/p' out | head -1)
for t in 03 04 05; do
    printf 'subtype: vote\npropId: 2147483647\nvote: FOR\n' | "$NOMIC" move big.db --from alice@x.org --time "2026-01-01T00:$t:00Z" > out
done
expect_in out "your vote on proposal 2147483647 was not counted" "big: a vote on no open proposal is not counted, and says so"
expect_eq "$("$NOMIC" show big.db --type player | sed -n 's/^score: //p')" "0" "big: it earns no point"
printf 'VOTE %s FOR\n' "$prop" | "$NOMIC" move big.db --from alice@x.org --time 2026-01-01T00:06:00Z > /dev/null
expect_eq "$("$NOMIC" show big.db --type player | sed -n 's/^score: //p')" "1" "big: a vote on the open proposal $prop earns one"
expect_status 0 "big: replay" "$NOMIC" replay big.db

# --- every limit is held to its ceiling; a bad value is noted ---------------
for l in "maxSteps 10000000" "maxWork 500000000" "maxMemory 536870912" "maxDeliveries 1000000000" "maxNumberDigits 1000000"; do
    name=${l% *} ceiling=${l#* }
    hostile_game ceil "exists(type==\"move\" & subtype==\"never\")" 'halt()' "runType: rule
$name: 99999999999999"
    "$NOMIC" log ceil.db --event 1 > log.txt
    expect_in log.txt "engineSettings: $name 99999999999999 is above the Mechanics' ceiling; $ceiling applies" "$name: held to its ceiling"
    hostile_game ceil "exists(type==\"move\" & subtype==\"never\")" 'halt()' "runType: rule
$name: -5"
    "$NOMIC" log ceil.db --event 1 > log.txt
    expect_in log.txt "engineSettings: $name \"-5\" is not a positive whole number" "$name: a bad value is noted"
    rm -f ceil.db ceil.db-*
done
# the ceiling is what applies: maxNumberDigits above it stops where it does
hostile_game ceilnum "$TRIGGER & exists(type==\"s\" & v==%v & objectId==%o)" 'set(%o)(v==%v*%v)' \
    "runType: rule
maxNumberDigits: 99999999999" "type: s
v: 7"
attack ceilnum
"$NOMIC" log ceilnum.db --event 2 > log.txt
expect_in log.txt "a number of more than 1000000 digits (maxNumberDigits)" "maxNumberDigits: the ceiling stops the squaring"

report hostile
