/*
 * cmd/scams.c - nomic scams: the search of scams.h from a game's current
 * state (or as it would be if a proposal were adopted), and its answer for
 * people or as JSON.  Exit 0 found, 3 none, 2 bad usage, 1 other errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "objfmt.h"
#include "scams.h"

#define EXIT_NONE 3
#define EXIT_FAILED 1

enum { SCAMS_AS, SCAMS_WITH, SCAMS_GOAL, SCAMS_DEPTH, SCAMS_BUDGET, SCAMS_WAIT, SCAMS_PROPOSAL, SCAMS_JSON };
static const OptSpec scams_opts[] = {
    [SCAMS_AS] = {"--as", "ADDR", OPT_REQUIRED, "the player the search plays for, and whose view it sees"},
    [SCAMS_WITH] = {"--with", "ADDR", OPT_MULTI, "another player who plays along"},
    [SCAMS_GOAL] = {"--goal", "CONDITION", OPT_REQUIRED, "the condition to make hold"},
    [SCAMS_DEPTH] = {"--depth", "K", 0, "at most K messages (default 3)"},
    [SCAMS_BUDGET] = {"--budget", "N", 0, "at most N events played (default 1000000)"},
    [SCAMS_WAIT] = {"--wait", NULL, 0, "may also wait for the next timer"},
    [SCAMS_PROPOSAL] = {"--proposal", "ID", 0, "from the state as it would be if proposal ID were adopted"},
    [SCAMS_JSON] = {"--json", NULL, 0, "as JSON"},
    {NULL},
};

typedef struct ScamsArgs {
    long depth, budget;
    const char **senders; /* --as, then each --with */
} ScamsArgs;

static void print_text(const ScamQuery *q, const ScamResult *r)
{
    if (!r->found) {
        printf("none within depth %d (explored %ld states)\n", q->depth, r->explored);
        if (r->budget_spent)
            printf("the budget of %ld events ran out at depth %d: deeper sequences were not all tried\n", q->budget,
                   r->depth_done + 1);
        return;
    }
    if (!r->nsteps) {
        printf("the goal holds already: no message is needed\n");
        return;
    }
    Buf b = {0};
    int message = 0;
    for (int i = 0; i < r->nsteps; i++) {
        const ScamStep *st = &r->steps[i];
        char when[32];
        time_format(st->time, when);
        if (st->wait) {
            printf("# wait until %s\n", when);
            continue;
        }
        printf("# message %d from %s at %s\n", ++message, q->senders[st->sender], when);
        buf_reset(&b);
        for (int c = 0; c < st->copies; c++) {
            if (c) buf_puts(&b, "---\n");
            for (int k = 0; k < st->nattrs; k++) {
                buf_printf(&b, "%s: ", sym_text(st->attrs[k].name));
                fmt_print_value(&b, st->attrs[k].value);
                buf_putc(&b, '\n');
            }
        }
        fwrite(b.s, 1, b.len, stdout);
    }
    buf_free(&b);
    printf("# the last event's trace\n%s", buf_str((Buf *)&r->trace));
}

static void print_json(const ScamQuery *q, const ScamResult *r)
{
    Buf b = {0};
    scam_result_json(&b, q, r);
    buf_putc(&b, '\n');
    fwrite(b.s, 1, b.len, stdout);
    buf_free(&b);
}

static bool parse_count(const OptSpec *spec, const OptVal *o, long lo, long hi, long *out)
{
    if (!o->set) return true;
    char *end;
    long n = strtol(o->value, &end, 10);
    if (*o->value && !*end && n >= lo && n <= hi) {
        *out = n;
        return true;
    }
    fprintf(stderr, "nomic scams: %s %s: expected a whole number from %ld to %ld\n", spec->name, o->value, lo, hi);
    return false;
}

static int scams_check(CmdCall *c)
{
    ScamsArgs *a = c->data;
    const OptVal *o = c->opt;
    if (!o[SCAMS_AS].set || !o[SCAMS_GOAL].set) {
        fprintf(stderr, "nomic scams: --as and --goal are needed\n");
        cli_print_usage(c);
        return EXIT_USAGE;
    }
    a->depth = 3, a->budget = 1000000;
    if (!parse_count(&scams_opts[SCAMS_DEPTH], &o[SCAMS_DEPTH], 1, SCAM_MAX_DEPTH, &a->depth) ||
        !parse_count(&scams_opts[SCAMS_BUDGET], &o[SCAMS_BUDGET], 1, 1000000000L, &a->budget))
        return EXIT_USAGE;
    const OptVal *with = &o[SCAMS_WITH];
    a->senders = xcalloc((size_t)with->nvalues + 1, sizeof *a->senders);
    a->senders[0] = o[SCAMS_AS].value;
    for (int i = 0; i < with->nvalues; i++) a->senders[i + 1] = with->values[i];
    return CMD_GO_ON;
}

static int scams_run(CmdCall *c)
{
    const ScamsArgs *a = c->data;
    const OptVal *o = c->opt;
    Game *g = c->g;
    Buf err = {0};
    if (o[SCAMS_PROPOSAL].set && !scams_adopt(g, o[SCAMS_PROPOSAL].value, &err)) {
        fprintf(stderr, "nomic scams: --proposal %s: %s\n", o[SCAMS_PROPOSAL].value, buf_str(&err));
        buf_free(&err);
        return EXIT_FAILED;
    }
    /* the search sees what --as may: their own private values, nobody else's */
    ScamQuery q = {a->senders, o[SCAMS_WITH].nvalues + 1, o[SCAMS_GOAL].value, (int)a->depth, a->budget,
                   o[SCAMS_WAIT].set, isatty(2), a->senders[0]};
    ScamResult r;
    if (!scams_search(g, scams_game_time(g), &q, &r, &err)) {
        fprintf(stderr, "nomic scams: %s\n", buf_str(&err));
        buf_free(&err);
        return EXIT_USAGE;
    }
    if (o[SCAMS_JSON].set) print_json(&q, &r);
    else print_text(&q, &r);
    int rc = r.found ? 0 : EXIT_NONE;
    scam_result_free(&r);
    return rc;
}

static void scams_cleanup(CmdCall *c) { free(((ScamsArgs *)c->data)->senders); }

const CmdSpec cmd_scams = {
    .name = "scams",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = scams_opts,
    .doc = "search the moves after which a goal holds (a scam), in memory: found 0, none 3",
    .more = "It plays, in memory, sequences of messages from `--as` (and the `--with` addresses) built from what\n"
            "the rules read on moves, and prints the shortest after which `--goal` holds (exit 0), or none\n"
            "(exit 3); nothing is written to GAME.  It sees what `--as` may (others' private values read `\"\"`),\n"
            "and in a game with private attributes `--wait` plays no timer later than now.  docs/scams.md.\n",
    .bad_game = EXIT_FAILED,
    .data_size = sizeof(ScamsArgs),
    .check = scams_check,
    .run = scams_run,
    .cleanup = scams_cleanup,
};
