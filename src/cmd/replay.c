/*
 * cmd/replay.c - nomic replay: rebuild a game in memory from its initial
 * sets, its seed and its journal, and check every recorded state hash
 * (game_replay.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_replay(int argc, char **argv)
{
    const char *pos[1];
    int npos;
    if (!cli_parse(argc, argv, NULL, 0, pos, 1, 1, &npos, commands[8].usage)) return EXIT_USAGE;
    Game *g = cli_open(pos[0]);
    if (!g) return EXIT_USAGE;
    int rc = game_replay(g) ? 0 : EXIT_REFUSED;
    game_close(g);
    return rc;
}
