/*
 * cmd/move.c - nomic move and nomic try: a message of moves from one
 * sender, kept (move) or only tried (try).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game_mechanics.h"

typedef struct Printer {
    const char *sender;
    bool trace;
    bool refused; /* the move itself was refused */
} Printer;

static void print_one(void *ud, Game *g, const Outcome *o)
{
    Printer *p = ud;
    bool is_move = strcmp(o->kind, "move") == 0;
    cli_print_outcome(o, is_move ? p->sender : NULL, p->trace);
    if (is_move) p->refused = o->verdict == VERDICT_REFUSED;
    /* a rule designer trying a move sees how much of the budget it takes */
    const Meter *m = &o->run.used;
    if (p->trace && o->ran && m->work_max)
        printf("cost: %llu of maxWork %llu, about %llu bytes of maxMemory %llu, %llu of maxDeliveries %llu; "
               "the first look at the rules %llu of maxWork\n",
               (unsigned long long)m->work, (unsigned long long)m->work_max, (unsigned long long)m->memory,
               (unsigned long long)m->memory_max, (unsigned long long)m->deliveries, (unsigned long long)m->deliveries_max,
               (unsigned long long)m->first_work);
}

static int move_or_try(int argc, char **argv, bool dry)
{
    Opt o[] = {{"--from", true}, {"--time", true}, {"--file", true}};
    const char *pos[1];
    int npos, rc = EXIT_USAGE;
    const char *usage = dry ? "nomic try GAME --from ADDR [--time T] [--file F]"
                            : "nomic move GAME --from ADDR [--time T] [--file F]";
    int64_t t;
    char *body = NULL, *from = NULL;
    Game *g = NULL;
    if (!cli_parse(argc, argv, o, 3, pos, 1, 1, &npos, usage) || !cli_time(&o[1], &t)) goto out;
    if (!o[0].set || !*o[0].value) {
        fprintf(stderr, "nomic %s: --from ADDR is required\nusage: %s\n", argv[0], usage);
        goto out;
    }
    if (dry && t > time_now_wall()) {
        /* the rules would run at that time: a dry run would show what the
         * timers due before then do, a Computation or a draw, in advance */
        fprintf(stderr, "nomic try: --time is later than now: a dry run cannot look into the future\n");
        goto out;
    }
    if (!o[1].set) t = GAME_TIME_NOW; /* read under the game's lock */
    const char *file = o[2].set ? o[2].value : "-";
    body = read_file(file, NULL);
    if (!body) {
        fprintf(stderr, "nomic %s: cannot read %s\n", argv[0], strcmp(file, "-") ? file : "standard input");
        goto out;
    }
    if (!(g = cli_open(pos[0]))) goto out;
    const char *bad;
    from = game_address(g, o[0].value, &bad); /* the replies are to the address's one form */
    Printer p = {from ? from : o[0].value, dry, false};
    if (!game_move(g, o[0].value, t, body, dry, print_one, &p)) {
        fprintf(stderr, "nomic %s: the store failed: %s\n", argv[0], store_error(g->st));
        rc = EXIT_USAGE;
        goto out;
    }
    if (dry) printf("(dry run: nothing was kept)\n");
    else cli_send_mail(g, pos[0], false, true, NULL);
    rc = p.refused ? EXIT_REFUSED : 0;
out:
    game_close(g);
    free(body);
    free(from);
    cli_free_opts(o, 3);
    return rc;
}

int cmd_move(int argc, char **argv) { return move_or_try(argc, argv, false); }
int cmd_try(int argc, char **argv) { return move_or_try(argc, argv, true); }
