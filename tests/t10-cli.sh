#!/bin/sh
# t10-cli.sh - command-line behaviour that the golden scenarios do not cover
# well: the draft's scam played to a win, exit statuses, try, show --at,
# export, replay catching a tampered journal, and the journal keeping
# every move.  Uses $NOMIC (default build/nomic) and sqlite3.
set -u
. "$(dirname "$0")/lib.sh"
move() { # GAME FROM TIME BODY
    printf '%s\n' "$4" | "$NOMIC" move "$1" --from "$2" --time "$3"
}

# --- exit statuses -------------------------------------------------------
expect_status 2 "no command" "$NOMIC"
# each usage error says, on standard error, what was wrong and how to ask
expect_status 2 "unknown command" "$NOMIC" frobnicate
printf 'nomic: unknown command "frobnicate" (see nomic help)\n' >want
expect_cmp want err "unknown command message"
expect_status 2 "missing game" "$NOMIC" show
printf 'usage: nomic show GAME [--type T] [--id N] [--at N] [--json] [--as ADDR]\n' >want
expect_cmp want err "missing game message"
expect_status 2 "unknown option" "$NOMIC" show g.db --colour
printf 'nomic show: unknown option --colour\nusage: nomic show GAME [--type T] [--id N] [--at N] [--json] [--as ADDR]\n' >want
expect_cmp want err "unknown option message"
expect_status 2 "bad time" "$NOMIC" init g.db --time yesterday
printf 'nomic: --time yesterday: expected seconds since 1970 or YYYY-MM-DD[THH:MM:SS]Z\n' >want
expect_cmp want err "bad time message"
expect_status 2 "unknown ruleset" "$NOMIC" init g.db --ruleset nosuchset
expect_in err "nomic init: --ruleset nosuchset: not a shipped set (favor, " "unknown ruleset message names it and the shipped sets"
expect_status 2 "game that does not exist" "$NOMIC" show nosuch.db
printf 'nomic: nosuch.db: no such game (create it with nomic init)\n' >want
expect_cmp want err "no such game message"
expect_status 0 "init" "$NOMIC" init g.db --ruleset favor --time 2026-01-01Z
expect_status 2 "init over an existing game" "$NOMIC" init g.db --ruleset favor
expect_status 0 "init --force" "$NOMIC" init g.db --ruleset favor --time 2026-01-01Z --force
expect_status 2 "move without --from" sh -c "echo 'subtype: x' | '$NOMIC' move g.db"
expect_status 1 "a refused move" sh -c "printf 'type: player\n' | '$NOMIC' move g.db --from a@x --time 2026-01-01T01:00:00Z"
expect_in out "type is set by the Mechanics" "refusal says why"
expect_status 1 "a malformed move" sh -c "printf 'subtype register\n' | '$NOMIC' move g.db --from a@x --time 2026-01-01T01:01:00Z"
expect_in out "move:1:8: expected ':'" "malformed move message says where"
expect_status 0 "an applied move" sh -c "printf 'subtype: register\nnickname: alice\n' | '$NOMIC' move g.db --from a@x --time 2026-01-01T02:00:00Z"
expect_status 1 "check on a game database" "$NOMIC" check g.db
printf '%s\n' 'g.db: this is a game'"'"'s database, not rules; `nomic export g.db` prints its objects' '0 rules checked: 1 error, 0 warnings' >want
expect_cmp want out "check explains it was given a database"
# an object's id given to a verb that sends, which takes addresses: a
# warning at the recipients, naming the rule; an address (moveSender) and
# an id in the text are not warned about
cat >ids.nomic <<'EOF'
type: rule
ruleOrder: 1
if: exists(type=="move" & moveSender==%s & objectId==%o)
then: send(%s, glue("move ", %o)) & delete(%o)

type: rule
ruleOrder: 2
if: exists(type=="player" & score>100 & objectId==%p)
then: create(type=="win" & who==%p & objectId==%w) &
      send(%p, "you win") & sendObject(%w)(objectId==%w)("win")
EOF
expect_status 0 "check warns of an object's id as recipients" "$NOMIC" check ids.nomic
printf '%s\n' "ids.nomic:10:12: warning: (rule 2) %p is an object's id (bound by objectId==%p), not an address: send sends to addresses" \
    "ids.nomic:10:40: warning: (rule 2) %w is an object's id (bound by objectId==%w), not an address: sendObject sends to addresses" \
    '2 rules checked: 0 errors, 2 warnings' >want
expect_cmp want out "the warnings say the rule, the line and column, and why"

# --- the journal keeps every move received, applied or refused ------------
n=$(sqlite3 g.db "select count(*) from events")
[ "$n" -eq 3 ] && ok || fail "journal holds 3 events, has $n"
"$NOMIC" log g.db > log.txt
expect_in log.txt "refused" "log shows the refusal"
expect_in log.txt "subtype register" "log keeps the malformed input"

# --- try keeps nothing -----------------------------------------------------
before=$(sqlite3 g.db "select count(*) from events; select count(*) from objects")
expect_status 0 "try" sh -c "printf 'subtype: register\nnickname: bob\n' | '$NOMIC' try g.db --from b@x --time 2026-01-01T03:00:00Z"
expect_in out "create" "try shows the trace"
expect_in out "of maxWork 50000000, about " "try shows what the move costs of the budget"
after=$(sqlite3 g.db "select count(*) from events; select count(*) from objects")
[ "$before" = "$after" ] && ok || fail "try changed the database"
"$NOMIC" show g.db --type player > players.txt
if grep -q bob players.txt; then fail "try registered bob"; else ok; fi

# --- show --at and export ---------------------------------------------------
move g.db b@x 2026-01-01T04:00:00Z 'subtype: register
nickname: bob' > /dev/null
"$NOMIC" show g.db --at 3 --type player > at3.txt
"$NOMIC" show g.db --type player > now.txt
if grep -q bob at3.txt; then fail "show --at 3 shows a later player"; else ok; fi
expect_in now.txt "nickname: bob" "bob is registered now"
"$NOMIC" export g.db > exported.nomic
expect_status 0 "a game made from an export" "$NOMIC" init copy.db --ruleset ./exported.nomic --time 2026-01-02Z
"$NOMIC" show copy.db | grep -v '^objectId' > copy.txt
"$NOMIC" show g.db | grep -v '^objectId' > orig.txt
cmp -s copy.txt orig.txt && ok || fail "export then init does not give the same objects"

# --- replay catches a tampered journal --------------------------------------
expect_status 0 "replay" "$NOMIC" replay g.db
sqlite3 g.db "update events set input = replace(input, 'nickname: bob', 'nickname: eve') where input like '%nickname: bob%'"
expect_status 1 "replay of a tampered journal" "$NOMIC" replay g.db
expect_in out "event 4" "replay names the event whose hash differs"

# --- the paper's scam: wins in favor-draft, scores once in favor ------------
for set in favor-draft favor; do
    "$NOMIC" init s.db --ruleset $set --time 2026-01-01Z --force > /dev/null
    move s.db m@x 2026-01-01T01:00:00Z 'subtype: register
nickname: mallory' > /dev/null
    move s.db m@x 2026-01-01T02:00:00Z 'subtype: ruleChange
ruleChangeType: create
newif: F
newthen: halt()
neworder: 50000' > /dev/null
    p=$("$NOMIC" show s.db --type voteInProgress | awk '$1 == "propId:" { print $2 }')
    i=0
    while [ $i -lt 102 ]; do
        i=$((i + 1))
        move s.db m@x $((1767232800 + 60 * i)) "subtype: vote
propId: $p
vote: FOR
cleanup: T" > /dev/null 2>&1
    done
    score=$("$NOMIC" show s.db --type player | awk '$1 == "score:" { print $2 }')
    wins=$("$NOMIC" show s.db --type win | grep -c '^type: win')
    if [ $set = favor-draft ]; then
        [ "$score" -eq 101 ] && ok || fail "favor-draft: the scam should reach 101 points, got $score"
        [ "$wins" -eq 1 ] && ok || fail "favor-draft: the scam should win"
        "$NOMIC" log s.db > log.txt
        expect_in log.txt "halted" "favor-draft: the win halts the game"
        expect_in log.txt "the game has ended; no more moves are accepted" "favor-draft: moves after the win are refused"
    else
        [ "$score" -eq 1 ] && ok || fail "favor: the scam should score once, got $score"
        [ "$wins" -eq 0 ] && ok || fail "favor: the scam should not win"
    fi
done

# --- a game made before the journal kept the code check ---------------------
# its events table lacks code_check: opening it adds the column, the old
# events show no note, a new one its own, and replay agrees
"$NOMIC" init old.db --ruleset favor >/dev/null
printf 'REGISTER alice\n' | "$NOMIC" move old.db --from a@x >/dev/null
sqlite3 old.db "ALTER TABLE events DROP COLUMN code_check"
expect_eq "$(sqlite3 old.db "select count(*) from pragma_table_info('events') where name='code_check'")" "0" \
    "(the game is as an earlier build made it)"
printf 'CREATE 40000 IF exists(type="player") THEN halt()\n' | "$NOMIC" move old.db --from a@x >/dev/null
"$NOMIC" log old.db --json >old.json
expect_eq "$(python3 -c 'import json; print([[n["attribute"] + " " + n["severity"] for n in e["codeCheck"]] for e in json.load(open("old.json"))["events"]])')" \
    "[[], ['newif error']]" "opened, the old event has no note and the new one its code check"
expect_status 0 "replay agrees with the journal" "$NOMIC" replay old.db

# --- a game made before the state row -----------------------------------------
# its meta keeps settled, next_id, rng... a key each: opened, it goes on from
# them (object numbers, the generator), its next event writes the row
# "state" in their place, and replay agrees
"$NOMIC" init rows.db --ruleset favor --seed 3 >/dev/null
printf 'REGISTER alice\n' | "$NOMIC" move rows.db --from a@x --time 100 >/dev/null
state=$(sqlite3 rows.db "SELECT value FROM meta WHERE key='state'")
for kv in $state; do
    k=${kv%%=*} v=${kv#*=}
    [ "$k" = rng ] && v=$(printf %s "$v" | tr , ' ')
    [ "$k" = next_timer ] && [ "$v" = - ] && v=
    sqlite3 rows.db "INSERT INTO meta(key,value) VALUES('$k','$v')"
done
sqlite3 rows.db "DELETE FROM meta WHERE key='state'"
expect_eq "$(sqlite3 rows.db "SELECT count(*) FROM meta WHERE key IN ('settled','next_id','rng','halted','next_timer','last_mover')")" "6" \
    "(the game keeps its state as an earlier build did)"
# (a copy whose next_id no object has reached: only the key can give it)
cp rows.db bumped.db
next=$(($(sqlite3 bumped.db "SELECT value FROM meta WHERE key='next_id'") + 100))
sqlite3 bumped.db "UPDATE meta SET value='$next' WHERE key='next_id'"
printf 'REGISTER bob\n' | "$NOMIC" move bumped.db --from b@x --time 200 >out
# (the move took the number $next; made and deleted in its event, it left
# no change: the player the rules made is the first one kept)
expect_eq "$(sqlite3 bumped.db "SELECT changes FROM events WHERE n=(SELECT max(n) FROM events)" |
    sed -n 's/^objectId: //p' | awk -v lo=$((next - 100)) '$1 >= lo' | sort -n | head -1)" "$((next + 1))" \
    "its objects are numbered from the stored next_id on"
printf 'REGISTER bob\n' | "$NOMIC" move rows.db --from b@x --time 200 >out
expect_in out "applied" "opened, the game takes a move"
expect_eq "$(sqlite3 rows.db "SELECT count(*) FROM meta WHERE key IN ('settled','next_id','rng','halted','next_timer','last_mover')")" "0" \
    "the event wrote the state row in place of the keys"
sqlite3 rows.db "SELECT value FROM meta WHERE key='state'" >state.txt
expect_in state.txt "last_mover=b@x" "the row names the last mover"
expect_status 0 "replay agrees with the journal" "$NOMIC" replay rows.db

# a state row that does not read (a damaged file): refused with the reason, no crash
cp rows.db broken.db
sqlite3 broken.db "UPDATE meta SET value='garbage' WHERE key='state'"
"$NOMIC" show broken.db >out 2>&1
expect_eq "$?" "2" "a damaged state row: nomic show refuses the game"
expect_in out "meta row \"state\" does not read" "and says which row and why"

# --- a game of format 3 (tests/data/format3): upgraded when opened -------
# its objects table was its last event's; format 4's may lag behind the
# journal, whose rows now hold each event's changes
cp "$SRCDIR/tests/data/format3/favor.db" f3.db
"$NOMIC" show f3.db >out 2>err
expect_cmp "$SRCDIR/tests/data/format3/favor.show" out "format 3: opened, the game is the state the earlier build showed"
expect_eq "$(sqlite3 f3.db "SELECT value FROM meta WHERE key IN ('format','objects_at') ORDER BY key")" "4
10" "format 3: upgraded to 4, its objects table up to date with its last event"
"$NOMIC" show f3.db --at 6 >out 2>&1
expect_cmp "$SRCDIR/tests/data/format3/favor.at6" out "format 3: a past state from the changes it kept in their table"
move f3.db erin@x 900100 "REGISTER erin" >out 2>&1
expect_in out "applied" "format 3: upgraded, the game takes a move"
move f3.db alice@x 900200 "CREATE 60 IF F THEN noop" >out 2>&1
expect_in out "applied" "format 3: and another"
"$NOMIC" show f3.db >now.txt
"$NOMIC" show f3.db --at 12 >out
expect_cmp now.txt out "format 3: the state after the new events, from the changes in their journal rows and the old table's"
"$NOMIC" show f3.db --at 10 >out
expect_cmp "$SRCDIR/tests/data/format3/favor.show" out "format 3: the state before them, still"
expect_status 0 "format 3: replay agrees with the journal, old events and new" "$NOMIC" replay f3.db
# made before the state hash had versions: it keeps version 1's
expect_eq "$(sqlite3 f3.db "SELECT count(*) FROM meta WHERE key='hash_version'")" "0" "format 3: the hash keeps its version"
"$NOMIC" reveal f3.db >out 2>&1
expect_in out "hash version: 1 " "format 3: reveal says the hash is of version 1"
"$NOMIC" show f3.db --json >show.json
"$NOMIC" log f3.db --json >log.json
python3 "$SRCDIR/tests/public_hash.py" "$(sed -n 's/^hash key: //p' out)" 1 show.json log.json >check.out 2>&1
expect_eq "$(cat check.out)" "matches" "format 3: its last published hash, recomputed under version 1's definition"
sqlite3 f3.db "INSERT INTO meta VALUES('hash_version','3')"
"$NOMIC" show f3.db >out 2>&1
expect_eq "$?" "2" "a hash of a version this build does not know: the game is refused"
expect_in out "state hash is of version 3, and this build knows versions 1 to 2" "and says why"
sqlite3 f3.db "UPDATE meta SET value='two' WHERE key='hash_version'"
"$NOMIC" show f3.db >out 2>&1
expect_in out 'meta hash_version reads "two": not a version' "a version that is no number: refused, saying which row"

for args in "show g.db --type nothing --json" "show g.db --json" "log g.db --json" "outbox g.db --json"; do
    # shellcheck disable=SC2086
    "$NOMIC" $args > out && python3 -c 'import json; json.load(open("out"))' && ok || fail "nomic $args: not JSON"
done

# docs/language.md is the table of builtins as `nomic help --markdown`
# prints it (make docs); it must not drift from lang_builtins_list.h.
"$NOMIC" help --markdown >language.md
expect_cmp "$SRCDIR/docs/language.md" language.md "docs/language.md is nomic help --markdown (run make docs)"

# docs/cli.md and the man page are the command table as nomic help prints
# them (make docs); they must not drift from src/nomic.c and src/cmd/.
"$NOMIC" help --cli-markdown >cli.md
expect_cmp "$SRCDIR/docs/cli.md" cli.md "docs/cli.md is nomic help --cli-markdown (run make docs)"
"$NOMIC" help --man >nomic.1
expect_cmp "$SRCDIR/docs/nomic.1" nomic.1 "docs/nomic.1 is nomic help --man (run make docs)"
if command -v groff >/dev/null; then
    groff -ww -man -Tutf8 "$SRCDIR/docs/nomic.1" >/dev/null 2>groff.err
    expect_cmp /dev/null groff.err "the man page formats without a warning"
else
    fail "groff is not installed (tools/setup installs it): the man page is not checked"
fi

# every command's usage line, as its errors print it and as nomic help
# lists it, is the one of docs/cli.md's synopsis (made from the table)
sed -n '/^```$/,/^```$/{/^nomic /p}' "$SRCDIR/docs/cli.md" >synopsis
expect_eq "$(wc -l <synopsis)" "$(grep -c '^## ' "$SRCDIR/docs/cli.md" | awk '{ print $1 - 1 }')" \
    "(the synopsis has a line for each command)"
"$NOMIC" help >help.txt
while read -r line; do
    name=${line#nomic }
    name=${name%% *}
    grep -qxF "  $(printf '%-60s' "$line") $(sed -n "/^## $name\$/,/^## /{/^\`nomic /!{/^[a-zA-Z]/{p;q}}}" "$SRCDIR/docs/cli.md" |
        sed 's/\.$//')" help.txt && ok || fail "nomic help does not list \"$line\" with its doc"
    [ "$name" = help ] && continue
    want=2
    [ "$name" = deliver ] && want=64
    expect_status $want "nomic $name --no-such-option" "$NOMIC" $name --no-such-option
    printf 'usage: %s\n' "$line" >want
    tail -n 1 err >got
    expect_cmp want got "nomic $name prints the table's usage line"
done <synopsis
for sub in parse emit; do
    expect_status 2 "nomic slr $sub --no-such-option" "$NOMIC" slr $sub --no-such-option
    printf 'nomic slr %s: unknown option --no-such-option\nusage: %s\n' $sub "$(grep '^nomic slr ' synopsis)" >want
    expect_cmp want err "nomic slr $sub names itself and prints slr's usage line"
done

report cli
