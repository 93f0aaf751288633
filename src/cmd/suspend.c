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

typedef struct SuspendArgs {
    ObjId id; /* RULE_ID */
} SuspendArgs;

static int check_rule_id(CmdCall *c)
{
    char *end;
    const char *arg = c->pos[1];
    long id = strtol(arg, &end, 10);
    if (*end || end == arg || id <= 0 || id > 0x7fffffffL) {
        fprintf(stderr, "nomic %s: \"%s\": expected a rule's objectId\n", c->spec->name, arg);
        cli_print_usage(c);
        return EXIT_USAGE;
    }
    ((SuspendArgs *)c->data)->id = (ObjId)id;
    return CMD_GO_ON;
}

/* Exit status: 0 done, 1 refused (no such rule, suspended already, not
 * suspended), 2 bad usage or an unusable game. */
static int suspend_or_resume(CmdCall *c, bool on)
{
    bool done = false;
    if (!game_suspend(c->g, ((SuspendArgs *)c->data)->id, on, print_keeper, &done)) {
        fprintf(stderr, "nomic %s: the store failed: %s\n", c->spec->name, store_error(c->g->st));
        return EXIT_USAGE;
    }
    return done ? 0 : EXIT_REFUSED;
}

static int suspend_run(CmdCall *c) { return suspend_or_resume(c, true); }
static int resume_run(CmdCall *c) { return suspend_or_resume(c, false); }

const CmdSpec cmd_suspend = {
    .name = "suspend",
    .args = "GAME RULE_ID",
    .minpos = 2,
    .maxpos = 2,
    .doc = "the game-keeper sets a rule aside (the engine skips it) until resumed; journaled",
    .more = "It sets rule RULE_ID aside: the engine leaves it out of its run order (it is never tested, fires\n"
            "never) until `resume` takes it back.  It is the game-keeper's way out of a rule that undoes every\n"
            "event, a repeal of itself included (docs/mechanics.md, \"A stuck game\"); the rule stays in the\n"
            "state as it is, for the players to repeal or fix by play.  Each is an event of the journal, kind\n"
            "`suspend` or `resume`, with the wall clock's time (never before the last event) and input `rule:\n"
            "N`; it runs no rule, changes no object, and starts the timer's back-off again (docs/limits.md).\n"
            "`show` marks a suspended rule; the page marks it `suspended` (`/api/game` has `suspended`,\n"
            "docs/api.md).  Exit status: 0 done; 1 refused, nothing kept (`there is no object N`, `object N is\n"
            "not a rule`, `rule N is suspended already`, `rule N is not suspended`); 2 bad usage (RULE_ID not a\n"
            "number) or a game that cannot be opened.\n",
    .data_size = sizeof(SuspendArgs),
    .check = check_rule_id,
    .run = suspend_run,
};

const CmdSpec cmd_resume = {
    .name = "resume",
    .args = "GAME RULE_ID",
    .minpos = 2,
    .maxpos = 2,
    .doc = "the game-keeper takes a suspended rule back; journaled",
    .more = "The event and the exit statuses are those of `suspend`.  Resuming a rule the players repealed while\n"
            "it was suspended takes it off the list and says `rule N is no longer in the game` (exit 0).\n",
    .data_size = sizeof(SuspendArgs),
    .check = check_rule_id,
    .run = resume_run,
};
