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

static const char usage[] = "nomic scams GAME --as ADDR [--with ADDR]... --goal CONDITION [--depth K] [--budget N] "
                            "[--wait] [--proposal ID] [--json]";

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

static bool parse_count(const Opt *o, long lo, long hi, long *out)
{
    if (!o->set) return true;
    char *end;
    long n = strtol(o->value, &end, 10);
    if (*o->value && !*end && n >= lo && n <= hi) {
        *out = n;
        return true;
    }
    fprintf(stderr, "nomic scams: %s %s: expected a whole number from %ld to %ld\n", o->name, o->value, lo, hi);
    return false;
}

int cmd_scams(int argc, char **argv)
{
    Opt o[] = {{"--as", true},     {"--with", true, true}, {"--goal", true}, {"--depth", true},
               {"--budget", true}, {"--wait", false},      {"--json", false}, {"--proposal", true}};
    enum { O_AS, O_WITH, O_GOAL, O_DEPTH, O_BUDGET, O_WAIT, O_JSON, O_PROPOSAL, NOPTS };
    const char *pos[1];
    int npos, rc = EXIT_USAGE;
    Game *g = NULL;
    const char **senders = NULL;
    long depth = 3, budget = 1000000;
    if (!cli_parse(argc, argv, o, NOPTS, pos, 1, 1, &npos, usage)) goto out;
    if (!o[O_AS].set || !o[O_GOAL].set) {
        fprintf(stderr, "nomic scams: --as and --goal are needed\nusage: %s\n", usage);
        goto out;
    }
    if (!parse_count(&o[O_DEPTH], 1, SCAM_MAX_DEPTH, &depth) || !parse_count(&o[O_BUDGET], 1, 1000000000L, &budget))
        goto out;
    senders = xcalloc((size_t)o[O_WITH].nvalues + 1, sizeof *senders);
    senders[0] = o[O_AS].value;
    for (int i = 0; i < o[O_WITH].nvalues; i++) senders[i + 1] = o[O_WITH].values[i];
    rc = EXIT_FAILED;
    if (!(g = cli_open(pos[0]))) goto out;
    Buf err = {0};
    if (o[O_PROPOSAL].set && !scams_adopt(g, o[O_PROPOSAL].value, &err)) {
        fprintf(stderr, "nomic scams: --proposal %s: %s\n", o[O_PROPOSAL].value, buf_str(&err));
        buf_free(&err);
        goto out;
    }
    /* the search sees what --as may: their own private values, nobody else's */
    ScamQuery q = {senders, o[O_WITH].nvalues + 1, o[O_GOAL].value, (int)depth, budget, o[O_WAIT].set,
                   isatty(2), senders[0]};
    ScamResult r;
    if (!scams_search(g, scams_game_time(g), &q, &r, &err)) {
        fprintf(stderr, "nomic scams: %s\n", buf_str(&err));
        buf_free(&err);
        rc = EXIT_USAGE;
        goto out;
    }
    if (o[O_JSON].set) print_json(&q, &r);
    else print_text(&q, &r);
    rc = r.found ? 0 : EXIT_NONE;
    scam_result_free(&r);
out:
    free(senders);
    game_close(g);
    cli_free_opts(o, NOPTS);
    return rc;
}
