/*
 * cmd/replay.c - nomic replay: rebuild a game in memory from its initial
 * sets, its seed and its journal, and check every recorded state hash
 * (game_replay.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int run(CmdCall *c) { return game_replay(c->g) ? 0 : EXIT_REFUSED; }

const CmdSpec cmd_replay = {
    .name = "replay",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .doc = "rebuild the game from its initial sets and journal, checking every hash",
    .more = "It rebuilds the game in memory from the initial sets and the journal, with the game's seed and hash\n"
            "key, and compares every event's state hash; on a difference it names the first event that differs\n"
            "and exits 1.  A game made before the hash was keyed (no `hash_key` in its meta) is hashed with a\n"
            "zero key; the hashes it recorded before do not replay.\n",
    .run = run,
};
