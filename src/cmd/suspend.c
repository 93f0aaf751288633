/*
 * cmd/suspend.c - nomic suspend and nomic resume: the game-keeper sets a
 * rule aside, or takes it back (game_suspend.c says why this is the
 * Mechanics' and how it is journaled).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void print_keeper(void *ud, Game *g, const Outcome *o)
{
    *(bool *)ud = o->verdict != VERDICT_REFUSED;
    cli_print_outcome(o, NULL, false);
}

/* Exit status: 0 done, 1 refused (no such rule, suspended already, not
 * suspended), 2 bad usage or an unusable game. */
static int suspend_or_resume(int argc, char **argv, bool on, const char *usage)
{
    const char *pos[2];
    int npos;
    if (!cli_parse(argc, argv, NULL, 0, pos, 2, 2, &npos, usage)) return EXIT_USAGE;
    char *end;
    long id = strtol(pos[1], &end, 10);
    if (*end || end == pos[1] || id <= 0 || id > 0x7fffffffL) {
        fprintf(stderr, "nomic %s: \"%s\": expected a rule's objectId\nusage: %s\n", argv[0], pos[1], usage);
        return EXIT_USAGE;
    }
    Game *g = cli_open(pos[0]);
    if (!g) return EXIT_USAGE;
    bool done = false;
    int rc = 0;
    if (!game_suspend(g, (ObjId)id, on, print_keeper, &done)) {
        fprintf(stderr, "nomic %s: the store failed: %s\n", argv[0], store_error(g->st));
        rc = EXIT_USAGE;
    } else if (!done) {
        rc = EXIT_REFUSED;
    }
    game_close(g);
    return rc;
}

int cmd_suspend(int argc, char **argv)
{
    return suspend_or_resume(argc, argv, true, "nomic suspend GAME RULE_ID");
}

int cmd_resume(int argc, char **argv)
{
    return suspend_or_resume(argc, argv, false, "nomic resume GAME RULE_ID");
}
