#!/bin/sh
# t31-backup.sh - nomic backup: a copy of a game taken while it is served
# and moves keep coming holds every move acknowledged before it began,
# replays, and takes FILE's name only whole and checked; a plain cp of the
# served file is shown to be no backup; bad usages exit 2, a copy that
# cannot be written exits 1 and leaves FILE as it was; a game of an older
# format is upgraded when opened, with the old file kept beside it and the
# keeper told.  Uses $NOMIC, sqlite3 and curl.
set -u
. "$(dirname "$0")/lib.sh"
. "$SRCDIR/tests/serve.sh"

players() { "$NOMIC" show "$1" --type player 2>/dev/null | grep -c '^defaultEmail:'; }

"$NOMIC" init G --ruleset favor --time 1000 >/dev/null || fail "init"
start_server G || exit 1

# --- under load: moves by the command line while the server serves ------
# Each mover notes its player once nomic move has exited 0: the move is
# then on disk, acknowledged.
(
    i=1
    while [ ! -e stop ] && [ $i -le 400 ]; do
        echo "REGISTER p$i" | "$NOMIC" move G --from "p$i@x" --time $((2000 + i)) >/dev/null 2>&1 && echo "p$i@x" >>acked
        i=$((i + 1))
    done
) &
MOVER=$!
wait_until 20 test -s acked || fail "no move was acknowledged"
sleep 1
cp acked acked_before # every move acknowledged before the backup began
expect_status 0 "backup of a served game under load" "$NOMIC" backup G B
expect_in out "B: a copy of G, checked by replay" "backup says what it made"
expect_in out "every state hash matches" "and the replay it checked it with"
touch stop
wait $MOVER
missing=0
while read -r who; do
    "$NOMIC" show B --type player | grep -q "^defaultEmail: $who\$" || missing=$((missing + 1))
done <acked_before
expect_eq "$missing" "0" "the copy holds every move acknowledged before it began ($(wc -l <acked_before) of them)"
expect_eq "$(ls B-wal B.tmp* 2>/dev/null)" "" "the copy is one file, with nothing left beside it"
expect_status 0 "the copy replays on its own" "$NOMIC" replay B
[ "$(players B)" -le "$(players G)" ] && ok || fail "the copy holds no move the game does not"

# the server still serves G, and the copy is a game that can be served
expect_http 200 "the served game answers after the backup" GET /api/game
stop_server
start_server B || exit 1
expect_http 200 "the copy is served" GET /api/game
stop_server

# --- a plain cp of a live game is not one ---------------------------------
# With a reader holding the log open nothing checkpoints it: the last
# events are in G-wal, and a copy of G alone lacks them.
"$NOMIC" init L --ruleset favor --time 1000 >/dev/null
start_server L || exit 1
for i in 1 2 3; do echo "REGISTER q$i" | "$NOMIC" move L --from "q$i@x" --time $((3000 + i)) >/dev/null; done
cp L plain.db
cp L-wal stale-wal # another game's log, for the backup over an older file below
expect_eq "$(players plain.db)" "0" "a cp of the served file alone holds none of the players (they are in L-wal)"
expect_status 0 "while nomic backup of it holds all three" "$NOMIC" backup L lb.db
expect_eq "$(players lb.db)" "3" "the backup: three players"
stop_server

# --- bad usages, and a copy that cannot be written -----------------------
expect_status 2 "backup without FILE" "$NOMIC" backup G
expect_status 2 "backup onto the game itself" "$NOMIC" backup G G
expect_in err "is the game itself" "and says why"
expect_status 2 "backup of no game" "$NOMIC" backup nosuch.db X
echo "not replaced" >keep.db
mkdir ro && chmod 555 ro
if [ "$(id -u)" = 0 ]; then
    # root writes anywhere: a folder that does not exist instead
    expect_status 1 "a copy into a folder that does not exist" "$NOMIC" backup G nowhere/copy.db
else
    expect_status 1 "a copy into a folder it cannot write" "$NOMIC" backup G ro/copy.db
fi
expect_in err "nomic backup:" "and says why"
expect_eq "$(cat keep.db)" "not replaced" "FILE untouched by a backup elsewhere that failed"
# the older file left a log beside it (another game's, here): SQLite
# would read it with the copy
cp stale-wal keep.db-wal
expect_status 0 "a backup over an older file replaces it" "$NOMIC" backup G keep.db
expect_eq "$(players keep.db)" "$(players G)" "the older file is now the copy, and the old log is not read with it"
expect_status 0 "the copy replays, the old log gone" "$NOMIC" replay keep.db

# --- a game of an older format ---------------------------------------------
cp "$SRCDIR/tests/data/format3/favor.db" f3.db
"$NOMIC" show f3.db >out 2>err
expect_cmp "$SRCDIR/tests/data/format3/favor.show" out "format 3: the state, as before"
expect_in err "f3.db was a game of format 3: upgraded to format 4" "the keeper is told the game was upgraded"
expect_in err "kept as f3.db.format3" "and where the old file is"
expect_eq "$(sqlite3 f3.db.format3 "SELECT value FROM meta WHERE key='format'")" "3" "the kept copy is the old format"
expect_eq "$(sqlite3 f3.db.format3 "SELECT count(*) FROM events")" "$(sqlite3 "$SRCDIR/tests/data/format3/favor.db" "SELECT count(*) FROM events")" "with every event"
"$NOMIC" show f3.db >out 2>err
expect_eq "$(cat err)" "" "opened again: nothing to say"
expect_status 0 "nomic --version" "$NOMIC" --version
expect_in out "game files of format 4" "--version names the format it writes"

report backup
