/*
 * cmd/tick.c - nomic tick: run the timers that are due.
 */
#include <stdio.h>

#include "cli.h"

static void print_tick(void *ud, Game *g, const Outcome *o)
{
    (*(int *)ud)++;
    if (!o->event && o->verdict == VERDICT_REFUSED) (*(int *)ud) = -1000000; /* refused by the Mechanics: no event */
    cli_print_outcome(o, NULL, false);
}

int cmd_tick(int argc, char **argv)
{
    Opt o[] = {{"--time", true}};
    const char *pos[1];
    int npos, rc = EXIT_USAGE;
    int64_t t;
    Game *g = NULL;
    if (!cli_parse(argc, argv, o, 1, pos, 1, 1, &npos, "nomic tick GAME [--time T]") || !cli_time(&o[0], &t)) goto out;
    if (!o[0].set) t = GAME_TIME_NOW; /* read under the game's lock */
    if (!(g = cli_open(pos[0]))) goto out;
    int n = 0;
    if (!game_tick(g, t, false, print_tick, &n)) {
        fprintf(stderr, "nomic tick: the store failed: %s\n", store_error(g->st));
        goto out;
    }
    if (n < 0) {
        rc = 1;
        goto out;
    }
    cli_send_mail(g, pos[0], false, true, NULL);
    if (n == 0) {
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
    rc = 0;
out:
    game_close(g);
    cli_free_opts(o, 1);
    return rc;
}
