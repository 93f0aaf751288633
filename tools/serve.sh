#!/bin/sh
# serve.sh [GAME] [HOST:PORT] - the main job: serves a game of favor (the
# paper's Initial State) on its SQLite file, creating it the first time,
# with the web page, the JSON API, the clock and the mail out.  A new game
# takes moves only with their sender's token (mailPolicy tokens).  Stop it
# with Ctrl-C; the game stays in the file for the next start.
set -eu
NOMIC=${NOMIC:-build/nomic}
GAME=${1:-build/game.db}
LISTEN=${2:-127.0.0.1:8080}
if [ ! -f "$GAME" ]; then
    "$NOMIC" init "$GAME" --ruleset favor
    # a move counts only with its sender's token: the web form cannot move
    # under an address the mover has not proven
    "$NOMIC" config "$GAME" mailPolicy tokens
    echo "a new game of favor in $GAME; moves need a token:"
    echo "  $NOMIC token $GAME ADDRESS    gives the player at ADDRESS theirs"
    echo "  $NOMIC config $GAME mailPolicy open    lets anyone move under any address"
fi
# a game whose messages stay in its outbox mails no one, tokens included
if [ "$("$NOMIC" config "$GAME" transport)" = outbox ]; then
    echo "this game sends no mail (transport outbox): players ask you for their tokens; to mail them,"
    echo "  $NOMIC config $GAME transport smtp://127.0.0.1:25    (or sendmail:/usr/sbin/sendmail; docs/hosting.md)"
fi
exec "$NOMIC" serve "$GAME" --listen "$LISTEN"
