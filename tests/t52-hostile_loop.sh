#!/bin/sh
# t52-hostile_loop.sh - the state hash against players who attack it: a move
# forged (by tests/old_hash.py, against the hash as it once was) so that
# deleting it left the hash as before wins nothing, while real loops, in
# every evaluation mode, are still loops; consecutive public hashes give a
# search over short Secret Expressions nothing, where the old hash gave
# the secret, yet after reveal anyone can recompute them (public_hash.py);
# and replay agrees with every game, whatever dry runs
# (`try`, the timer probe) ran away meanwhile.  Uses $NOMIC and sqlite3.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

T0=1767225600 # 2026-01-01
replays() { # GAME DESCRIPTION: replay agrees, and had hashes to check
    "$NOMIC" replay "$1" >replay.out 2>&1
    expect_in replay.out "every state hash matches" "$2: replay matches"
    hashes=$("$NOMIC" log "$1" --json | python3 -c 'import json,sys; print(sum(1 for e in json.load(sys.stdin)["events"] if e["hash"]))')
    [ "$hashes" -gt 0 ] && ok || fail "$2: no event has a hash to check"
}

# One value of the game's state row (meta key "state": "settled=N next_id=N ...")
meta_state() { sqlite3 "$1" "SELECT value FROM meta WHERE key='state'" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# ------------------------------------------------ a forged loop wins nothing
"$NOMIC" init G --ruleset favor --time $T0 --seed 5 >/dev/null
move_at alice@x $((T0 + 60)) "REGISTER alice"
move_at bob@x $((T0 + 60)) "REGISTER bob"
next=$(meta_state G next_id)
# sixteen values that cancel the move's own terms in the old hash (the
# script checks the sum); favor's rule 7 deletes a stranger's move
python3 "$HERE/old_hash.py" forge "$next" zed@x $((T0 + 120)) zed >forged.txt || fail "no forgery found"
expect_eq "$(grep -c '^f[0-9]*: ' forged.txt)" "16" "the forged move has its sixteen values"
"$NOMIC" move G --from zed@x --time $((T0 + 120)) --file forged.txt >out 2>&1
expect_in out "no effect" "the forged move is taken as any other (favor's rule 7 deletes a stranger's move: no effect)"
expect_in out "You are no known player" "favor answers the stranger"
expect_not_in out "verifiable loop" "no loop is declared"
move_at carol@x $((T0 + 180)) "REGISTER carol"
expect_in out "applied" "the game goes on after the forged move"
expect_eq "$(val player nickname carol nickname)" "carol" "and takes a new player"
expect_eq "$(meta_state G halted)" "0" "the game has not halted"
expect_eq "$(sqlite3 G "SELECT count(*) FROM meta WHERE key='loop_winner'")" "0" "nobody won by a loop"
replays G "the forged game"

# the key of the hash is the game's own, private until reveal
key=$(sqlite3 G "SELECT value FROM meta WHERE key='hash_key'")
expect_eq "$(printf %s "$key" | tr -d '0-9a-f' | wc -c) $(printf %s "$key" | wc -c)" "0 32" "a 128-bit key in the meta"
"$NOMIC" init G2 --ruleset favor --time $T0 --seed 5 >/dev/null
key2=$(sqlite3 G2 "SELECT value FROM meta WHERE key='hash_key'")
[ "$key" != "$key2" ] && ok || fail "two games of one seed have one key"
"$NOMIC" log G --json >log.json
expect_not_in log.json "$key" "the log does not show the key"
"$NOMIC" reveal G >reveal.out 2>&1
expect_in reveal.out "hash key: $key" "reveal publishes the key"
# with it, anyone can recompute the published hash as docs/formats.md says
"$NOMIC" show G --json >show.json
revealed=$(sed -n 's/^hash key: //p' reveal.out)
version=$(sed -n 's/^hash version: \([0-9]*\) .*/\1/p' reveal.out)
expect_eq "$version" "2" "reveal says how the hash is made: a new game's is of version 2"
expect_eq "$(sqlite3 G "SELECT value FROM meta WHERE key='hash_version'")" "2" "which the meta keeps"
python3 "$HERE/public_hash.py" "$revealed" "$version" show.json log.json >check.out 2>&1
expect_eq "$(cat check.out)" "matches" "the published hash follows from the state and the revealed key"
python3 "$HERE/public_hash.py" "$key2" "$version" show.json log.json >check.out 2>&1
expect_in check.out "differs" "and not from another key"
python3 "$HERE/public_hash.py" "$revealed" 1 show.json log.json >check.out 2>&1
expect_in check.out "differs" "nor under version 1's definition"

# ----------------------------------------------------- real loops stay loops
loop_set() { # FILE EVALUATION NORESTART: a light flipped for ever, and a
    # token made and deleted for ever (new ids, repeating states)
    cat >"$1" <<EOF
type: engineSettings
runType: rule
evaluation: $2

type: rule
ruleOrder: 1
$3
if: exists(type=="move" & subtype=="flip" & objectId==%m) & exists(type=="light" & on!=T & objectId==%l)
then: set(%l)(on==T)

type: rule
ruleOrder: 2
$3
if: exists(type=="light" & on==T & objectId==%l)
then: set(%l)(on==F)

type: rule
ruleOrder: 3
$3
if: exists(type=="move" & subtype=="spin" & objectId==%m) & !exists(type=="token")
then: create(type=="token")

type: rule
ruleOrder: 4
$3
if: exists(type=="token" & objectId==%t)
then: delete(%t)

type: light
on: F
EOF
}
for mode in "immediate" "shadow" "immediate noRestart: T"; do
    eval=${mode%% *}
    nr=$(printf %s "$mode" | sed -n 's/^[a-z]* //p')
    [ -n "$nr" ] || nr="noRestart: F"
    for what in flip spin; do
        rm -f L
        loop_set loop.nomic "$eval" "$nr"
        "$NOMIC" init L --ruleset loop.nomic --time 1000 >/dev/null
        printf 'subtype: register\n' | "$NOMIC" move L --from alice@x --time 1001 >out 2>&1
        printf 'subtype: %s\n' "$what" | "$NOMIC" move L --from bob@x --time 1002 >out 2>&1
        expect_in out "loop" "$mode, $what: the repeated state is a loop"
        expect_in out "bob@x, wins" "$mode, $what: the last mover wins"
        expect_eq "$(meta_state L halted)" "1" "$mode, $what: the game halts"
        replays L "$mode, $what"
    done
done

# ----------------------------- public hashes tell nothing of a private value
"$NOMIC" init M --ruleset favor --ruleset mathflag --time $T0 --seed 4242 >/dev/null
for p in alice bob; do printf 'REGISTER %s\n' $p | "$NOMIC" move M --from $p@x --time $((T0 + 3600)) >/dev/null; done
for p in alice bob; do printf 'MFJOIN\n' | "$NOMIC" move M --from $p@x --time $((T0 + 7200)) >/dev/null; done
"$NOMIC" tick M --time $((T0 + 2 * 86400)) >/dev/null
"$NOMIC" show M --json >before.json
printf 'MFSECRET (i+v)*17\n' | "$NOMIC" move M --from alice@x --time $((T0 + 2 * 86400 + 100)) >out 2>&1
expect_in out "Your Secret Expression is set" "alice sets her Secret Expression"
"$NOMIC" show M --json >after.json
"$NOMIC" log M --json >log.json
expect_not_in log.json "(i+v)*17" "the log does not show the secret"
# the search finds the secret in the difference the old hash published
python3 "$HERE/old_hash.py" secret before.json after.json log.json --control i '(i+v)*17' >found.out 2>&1
expect_in found.out "(i+v)*17 (was i)" "the search recovers the secret from an old-hash difference"
python3 "$HERE/old_hash.py" secret before.json after.json log.json >found.out 2>&1
expect_eq "$(cat found.out)" "nothing found" "the same search on the published hashes finds nothing"
replays M "mathflag"

# ------------------------------ replay agrees, whatever dry runs ran away
fuse_set() { # FILE EVALUATION NORESTART: two rules that run away while the
    # fuse is lit after time 2000, both creating objects (shadow firings
    # reserve ids), so a dry tick at 2500 (the timer probe) hits maxSteps;
    # the moves come first, so that a douse is heard
    cat >"$1" <<EOF
type: engineSettings
runType: rule
maxSteps: 41
evaluation: $2

type: rule
ruleOrder: 1
if: exists(type=="move" & subtype=="douse" & objectId==%m) & exists(type=="fuse" & objectId==%f)
then: set(%f)(lit==F) & delete(%m)

type: rule
ruleOrder: 2
if: exists(type=="move" & subtype=="light" & objectId==%m) & exists(type=="fuse" & objectId==%f)
then: set(%f)(lit==T) & delete(%m)

type: rule
ruleOrder: 3
if: exists(type=="move" & subtype=="note" & moveSender==%s & objectId==%m)
then: create(type=="note") & send(%s, "noted") & delete(%m)

type: rule
ruleOrder: 4
$3
if: exists(type=="fuse" & lit==T) & timeGE(2000) & exists(type=="counter" & n==%n & objectId==%c)
then: set(%c)(n==%n+1) & create(type=="spark")

type: rule
ruleOrder: 5
$3
if: exists(type=="fuse" & lit==T) & timeGE(2000)
then: create(type=="ember")

type: fuse
lit: T

type: counter
n: 0
EOF
}
for mode in "immediate" "shadow" "immediate noRestart: T" "shadow noRestart: T"; do
    eval=${mode%% *}
    nr=$(printf %s "$mode" | sed -n 's/^[a-z]* //p')
    [ -n "$nr" ] || nr="noRestart: F"
    rm -f F
    fuse_set fuse.nomic "$eval" "$nr"
    "$NOMIC" init F --ruleset fuse.nomic --time 1000 >/dev/null
    "$NOMIC" tick F --time 2500 >out 2>&1
    expect_in out "did not settle within maxSteps" "$mode: the timer runs away"
    "$NOMIC" export F >state0
    n0=$(sqlite3 F "SELECT count(*) FROM events")
    m0=$(sqlite3 F "SELECT key || '=' || value FROM meta ORDER BY key")
    for body in "subtype: light" "subtype: note" "subtype: douse"; do
        printf '%s\n' "$body" | "$NOMIC" try F --from a@x --time 2550 >/dev/null 2>&1
    done
    "$NOMIC" export F >state1
    cmp -s state0 state1 && ok || fail "$mode: try changed the objects"
    expect_eq "$(sqlite3 F "SELECT count(*) FROM events")" "$n0" "$mode: try journals nothing"
    expect_eq "$(sqlite3 F "SELECT key || '=' || value FROM meta ORDER BY key")" "$m0" "$mode: try leaves the meta"
    printf 'subtype: douse\n' | "$NOMIC" move F --from a@x --time 2600 >out 2>&1
    expect_in out "applied" "$mode: douse"
    printf 'subtype: note\n' | "$NOMIC" move F --from a@x --time 2700 >out 2>&1
    printf 'subtype: light\n' | "$NOMIC" move F --from a@x --time 2800 >out 2>&1
    expect_in out "did not settle within maxSteps" "$mode: a move that lights the fuse runs away"
    printf 'subtype: note\n' | "$NOMIC" move F --from b@x --time 2900 >out 2>&1
    expect_in out "applied" "$mode: the game goes on"
    expect_eq "$("$NOMIC" show F --type note | grep -c '^type: note')" "2" "$mode: the notes are made"
    replays F "$mode"
done

report hostile_loop
