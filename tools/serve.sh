#!/bin/sh
# serve.sh [GAME] [HOST:PORT] - the main job: serves a game of favor (the
# paper's Initial State) on its SQLite file, creating it the first time,
# with the web page, the JSON API, the clock and the mail out.  Stop it
# with Ctrl-C; the game stays in the file for the next start.
set -eu
NOMIC=${NOMIC:-build/nomic}
GAME=${1:-build/game.db}
LISTEN=${2:-127.0.0.1:8080}
if [ ! -f "$GAME" ]; then
    "$NOMIC" init "$GAME" --ruleset favor
    echo "a new game of favor in $GAME"
fi
exec "$NOMIC" serve "$GAME" --listen "$LISTEN"
