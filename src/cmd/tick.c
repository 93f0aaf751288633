/*
 * cmd/tick.c - nomic tick: run the timers that are due.
 */
#include <stdio.h>

#include "cli.h"
#include "scams_check.h"

static void print_tick(void *ud, Game *g, const Outcome *o)
{
    (*(int *)ud)++;
    if (!o->event && o->verdict == VERDICT_REFUSED) (*(int *)ud) = -1000000; /* refused by the Mechanics: no event */
    cli_print_outcome(o, NULL, false);
}

enum { TICK_TIME };
static const OptSpec tick_opts[] = {
    [TICK_TIME] = {"--time", "T", 0, "the time the timers run at (default: now)"},
    {NULL},
};

typedef struct TickArgs {
    int64_t t; /* --time, or GAME_TIME_NOW */
} TickArgs;

static int tick_check(CmdCall *c)
{
    TickArgs *a = c->data;
    if (!cli_time(&c->opt[TICK_TIME], &a->t)) return EXIT_USAGE;
    if (!c->opt[TICK_TIME].set) a->t = GAME_TIME_NOW; /* read under the game's lock */
    return CMD_GO_ON;
}

/* What tick says when no timer ran. */
static void say_none_due(const Game *g)
{
    char when[32];
    if (g->halted) printf("no timer runs: the game has ended\n");
    else if (g->have_timer && game_timer_due(g) > g->next_timer) {
        time_format(game_timer_due(g), when);
        printf("no timer due: the timer's event ran past the budget %d time%s in a row; it is tried again at %s "
               "(%lld)\n",
               g->timer_fails, g->timer_fails == 1 ? "" : "s", when, (long long)game_timer_due(g));
    } else if (g->have_timer) {
        time_format(g->next_timer, when);
        printf("no timer due; the next is at %s (%lld)\n", when, (long long)g->next_timer);
    } else printf("no timer is set\n");
}

static int tick_run(CmdCall *c)
{
    Game *g = c->g;
    int n = 0;
    /* a proposal a timer opens (a decision distributed) is checked once on disk (scams_check.h) */
    ScamChecks checks = {0};
    scam_checks_install(g, scam_checks_hook, &checks);
    bool kept = game_tick(g, ((TickArgs *)c->data)->t, false, print_tick, &n);
    scam_checks_install(g, NULL, NULL);
    scam_checks_finish(&checks, g);
    if (!kept) {
        fprintf(stderr, "nomic tick: the store failed: %s\n", store_error(g->st));
        return EXIT_USAGE;
    }
    if (n < 0) return 1;
    cli_send_mail(g, c->pos[0], false, true, NULL);
    if (n == 0) say_none_due(g);
    return 0;
}

const CmdSpec cmd_tick = {
    .name = "tick",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = tick_opts,
    .doc = "run the timers due at T (default: now)",
    .more = "On a game whose rules have not run yet (no timer is known) it first asks them for one by a dry run\n"
            "at T.  It runs no timer while a timer backs off after running past the budget: it says `no timer\n"
            "due: the timer's event ran past the budget N times in a row; it is tried again at T`\n"
            "(docs/limits.md).\n",
    .data_size = sizeof(TickArgs),
    .check = tick_check,
    .run = tick_run,
};
