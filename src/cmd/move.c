/*
 * cmd/move.c - nomic move and nomic try: a message of moves from one
 * sender, kept (move) or only tried (try).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scams_check.h"
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

enum { MOVE_FROM, MOVE_TIME, MOVE_FILE };
static const OptSpec move_opts[] = {
    [MOVE_FROM] = {"--from", "ADDR", OPT_REQUIRED, "the sender's address"},
    [MOVE_TIME] = {"--time", "T", 0, "the move's time (default: now)"},
    [MOVE_FILE] = {"--file", "F", 0, "read the message from F (default: standard input)"},
    {NULL},
};

typedef struct MoveArgs {
    int64_t t;  /* --time, or GAME_TIME_NOW */
    char *body; /* the message */
    char *from; /* --from, in the form the game knows it by */
} MoveArgs;

/* The arguments and the message, read before the game opens. */
static int move_check(CmdCall *c)
{
    MoveArgs *a = c->data;
    const OptVal *o = c->opt;
    const char *name = c->spec->name;
    bool dry = c->spec == &cmd_try;
    if (!cli_time(&o[MOVE_TIME], &a->t)) return EXIT_USAGE;
    if (!o[MOVE_FROM].set || !*o[MOVE_FROM].value) {
        fprintf(stderr, "nomic %s: --from ADDR is required\n", name);
        cli_print_usage(c);
        return EXIT_USAGE;
    }
    if (dry && a->t > time_now_wall()) {
        /* the rules would run at that time: a dry run would show what the
         * timers due before then do, a Computation or a draw, in advance */
        fprintf(stderr, "nomic try: --time is later than now: a dry run cannot look into the future\n");
        return EXIT_USAGE;
    }
    if (!o[MOVE_TIME].set) a->t = GAME_TIME_NOW; /* read under the game's lock */
    const char *file = o[MOVE_FILE].set ? o[MOVE_FILE].value : "-";
    if (!(a->body = read_file(file, NULL))) {
        fprintf(stderr, "nomic %s: cannot read %s\n", name, strcmp(file, "-") ? file : "standard input");
        return EXIT_USAGE;
    }
    return CMD_GO_ON;
}

static int move_run(CmdCall *c)
{
    MoveArgs *a = c->data;
    Game *g = c->g;
    const char *sender = c->opt[MOVE_FROM].value, *bad;
    bool dry = c->spec == &cmd_try;
    a->from = game_address(g, sender, &bad); /* the replies are to the address's one form */
    Printer p = {a->from ? a->from : sender, dry, false};
    /* a proposal the move opens is checked once it is on disk (scams_check.h) */
    ScamChecks checks = {0};
    if (!dry) {
        scam_checks_install(g, scam_checks_hook, &checks);
    }
    bool kept = game_move(g, sender, a->t, a->body, dry, print_one, &p);
    scam_checks_install(g, NULL, NULL);
    scam_checks_finish(&checks, g);
    if (!kept) {
        fprintf(stderr, "nomic %s: the store failed: %s\n", c->spec->name, store_error(g->st));
        return EXIT_USAGE;
    }
    if (dry) printf("(dry run: nothing was kept)\n");
    else cli_send_mail(g, c->pos[0], false, true, NULL);
    return p.refused ? EXIT_REFUSED : 0;
}

static void move_cleanup(CmdCall *c)
{
    MoveArgs *a = c->data;
    free(a->body);
    free(a->from);
}

const CmdSpec cmd_move = {
    .name = "move",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = move_opts,
    .doc = "submit a message of moves (from F or stdin); prints the replies",
    .more = "It first runs the timers due by the move's time (each its own event), then the move.  It prints the\n"
            "event's outcome and every message addressed to the sender; messages for others are counted (\"see\n"
            "nomic outbox\").  An event whose rules changed nothing but the move itself says `no effect` and why\n"
            "(docs/mechanics.md); exit status 0, as for `applied`; a refused move exits 1.\n"
            "\n"
            "The message holds moves in the object format or sugar lines (`REGISTER Ann`, `VOTE 12 FOR`); see\n"
            "docs/mechanics.md.  The command line is the game-keeper's: `mailPolicy` does not apply to it.\n",
    .data_size = sizeof(MoveArgs),
    .check = move_check,
    .run = move_run,
    .cleanup = move_cleanup,
};

const CmdSpec cmd_try = {
    .name = "try",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = move_opts,
    .doc = "dry run of a move: the trace and the changes; nothing is kept",
    .more = "It runs the same as `move`, prints the trace and the changes, ends with what the move cost of the\n"
            "event's budget (`cost: N of maxWork ...`, docs/limits.md), and keeps nothing.  It refuses a time\n"
            "later than now and draws from a throwaway generator, so it cannot show what a future timer or the\n"
            "next draw will do; and it plays on what `--from` may see: every private value of an object that\n"
            "address does not own reads `\"\"`.\n",
    .data_size = sizeof(MoveArgs),
    .check = move_check,
    .run = move_run,
    .cleanup = move_cleanup,
};
