/*
 * cmd/scams.c - nomic scams: the search of scams.h from a game's current
 * state (or as it would be if a proposal were adopted), and its answer for
 * people or as JSON.  Exit 0 found, 3 none, 2 bad usage, 1 other errors.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "objfmt.h"
#include "scams.h"

#define EXIT_NONE 3
#define EXIT_FAILED 1

enum { SCAMS_AS, SCAMS_WITH, SCAMS_GOAL, SCAMS_DEPTH, SCAMS_BUDGET, SCAMS_MODE, SCAMS_SEED, SCAMS_WAIT, SCAMS_PROPOSAL, SCAMS_JSON, SCAMS_PLAY_ALL, SCAMS_JOBS };
static const OptSpec scams_opts[] = {
    [SCAMS_AS] = {"--as", "ADDR", OPT_REQUIRED, "the player the search plays for, and whose view it sees"},
    [SCAMS_WITH] = {"--with", "ADDR", OPT_MULTI, "another player who plays along"},
    [SCAMS_GOAL] = {"--goal", "CONDITION", OPT_REQUIRED, "the condition to make hold"},
    [SCAMS_DEPTH] = {"--depth", "K", 0, "at most K messages (default 3)"},
    [SCAMS_BUDGET] = {"--budget", "N[work]", 0, "at most N events played, or N units of work with `work` (default 1000000 events and 10000000000 work)"},
    [SCAMS_MODE] = {"--mode", "MODE", 0, "exhaustive (default), best (best-first on the goal's distance) or walk (random walks)"},
    [SCAMS_SEED] = {"--seed", "S", 0, "the walks' seed (--mode walk; default 1)"},
    [SCAMS_WAIT] = {"--wait", NULL, 0, "may also wait for the next timer"},
    [SCAMS_PROPOSAL] = {"--proposal", "ID", 0, "from the state as it would be if proposal ID were adopted"},
    [SCAMS_JSON] = {"--json", NULL, 0, "as JSON"},
    [SCAMS_PLAY_ALL] = {"--play-all", NULL, 0, "play every move, skip none whose effect is known (slower: the same answer)"},
    [SCAMS_JOBS] = {"--jobs", "N", 0, "N processes share the search from depth 3 (0: one per core; default 1)"},
    {NULL},
};

#define DEFAULT_WORK 10000000000ULL /* units of work (docs/limits.md), summed over the events */

typedef struct ScamsArgs {
    long depth, budget, jobs;
    uint64_t work, seed;
    ScamMode mode;
    const char **senders; /* --as, then each --with */
} ScamsArgs;

/* What the vocabulary left out, said rather than silently dropped. */
static void print_cut(const ScamResult *r)
{
    static const char *const what[NCUTS] = {
        [CUT_VALUES] = "values past an attribute's room or the state's largest numbers",
        [CUT_JOINS] = "live values of a join past the newest few",
        [CUT_COMBOS] = "honest moves of a kind past the bound per state",
        [CUT_EXTRAS] = "values of an attribute no honest move sets, past two",
        [CUT_RULES] = "literals, joins or attributes of the rules past their room",
    };
    bool any = false;
    for (int i = 0; i < NCUTS; i++)
        if (r->cut[i]) {
            printf("%s %ld times: %s", any ? ";" : "the vocabulary was cut:", r->cut[i], what[i]);
            any = true;
        }
    if (any) printf("\n");
}

static void print_text(const ScamQuery *q, const ScamResult *r)
{
    if (!r->found) {
        printf("none within depth %d (explored %ld states)\n", q->depth, r->explored);
        if (r->budget_spent) {
            Buf what = {0};
            if (q->budget != LONG_MAX) buf_printf(&what, "%ld events", q->budget);
            if (q->work_budget)
                buf_printf(&what, "%s%llu units of work", what.len ? " or " : "", (unsigned long long)q->work_budget);
            if (q->mode == SCAM_EXHAUSTIVE)
                printf("the budget of %s ran out at depth %d: deeper sequences were not all tried\n", buf_str(&what),
                       r->depth_done + 1);
            else
                printf("the budget of %s ran out (%ld events, %llu units of work)\n", buf_str(&what), r->events,
                       (unsigned long long)r->work);
            buf_free(&what);
        }
        if (q->mode != SCAM_EXHAUSTIVE)
            printf("the %s search is not exhaustive: none is what it met, not a proof\n", q->mode == SCAM_BEST ? "best-first" : "random");
        print_cut(r);
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
        for (int c = 0; c < st->copies + (st->nattrs2 > 0); c++) {
            const Attr *at = c < st->copies ? st->attrs : st->attrs2;
            int na = c < st->copies ? st->nattrs : st->nattrs2;
            if (c) buf_puts(&b, "---\n");
            for (int k = 0; k < na; k++) {
                buf_printf(&b, "%s: ", sym_text(at[k].name));
                fmt_print_value(&b, at[k].value);
                buf_putc(&b, '\n');
            }
        }
        fwrite(b.s, 1, b.len, stdout);
    }
    buf_free(&b);
    printf("# the last event's trace\n%s", buf_str((Buf *)&r->trace));
    print_cut(r);
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
    a->depth = 3, a->budget = 1000000, a->work = DEFAULT_WORK, a->seed = 1, a->mode = SCAM_EXHAUSTIVE;
    if (o[SCAMS_MODE].set) {
        const char *m = o[SCAMS_MODE].value;
        if (!strcmp(m, "exhaustive")) a->mode = SCAM_EXHAUSTIVE;
        else if (!strcmp(m, "best")) a->mode = SCAM_BEST;
        else if (!strcmp(m, "walk")) a->mode = SCAM_WALK;
        else {
            fprintf(stderr, "nomic scams: --mode %s: expected exhaustive, best or walk\n", m);
            return EXIT_USAGE;
        }
    }
    if (o[SCAMS_SEED].set && a->mode != SCAM_WALK) {
        fprintf(stderr, "nomic scams: --seed is for --mode walk\n");
        return EXIT_USAGE;
    }
    long seed = 1;
    if (!parse_count(&scams_opts[SCAMS_DEPTH], &o[SCAMS_DEPTH], 1,
                     a->mode == SCAM_EXHAUSTIVE ? SCAM_MAX_EXHAUSTIVE : SCAM_MAX_DEPTH, &a->depth) ||
        !parse_count(&scams_opts[SCAMS_SEED], &o[SCAMS_SEED], 0, LONG_MAX, &seed))
        return EXIT_USAGE;
    a->seed = (uint64_t)seed;
    a->jobs = 1;
    if (!parse_count(&scams_opts[SCAMS_JOBS], &o[SCAMS_JOBS], 0, 16, &a->jobs)) return EXIT_USAGE;
    if (a->jobs == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        a->jobs = cores < 1 ? 1 : cores > 16 ? 16 : cores;
    }
    if (o[SCAMS_BUDGET].set) { /* N events (as ever), or N units of work: N followed by `work` */
        const char *v = o[SCAMS_BUDGET].value;
        char *end;
        unsigned long long n = strtoull(v, &end, 10);
        bool digits = *v >= '0' && *v <= '9';
        if (digits && !*end && n >= 1 && n <= 1000000000ULL) {
            a->budget = (long)n; /* events, and no bound on their work */
            a->work = 0;
        } else if (digits && (!strcmp(end, "work") || !strcmp(end, "w")) && n >= 1 && n <= 1000000000000000ULL) {
            a->work = n; /* units of work, and no bound on the events */
            a->budget = LONG_MAX;
        } else {
            fprintf(stderr, "nomic scams: --budget %s: expected a whole number of events from 1 to 1000000000, "
                            "or of units of work followed by `work` (2000000000work)\n", v);
            return EXIT_USAGE;
        }
    }
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
                   o[SCAMS_WAIT].set, isatty(2), a->senders[0], a->work, a->mode, a->seed, o[SCAMS_PLAY_ALL].set, (int)a->jobs};
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
            "and in a game with private attributes `--wait` plays no timer later than now.  With `--jobs N`,\n"
            "N processes share each round from depth 3: the same answer, sooner; a budget is theirs together.\n"
            "docs/scams.md.\n",
    .bad_game = EXIT_FAILED,
    .data_size = sizeof(ScamsArgs),
    .check = scams_check,
    .run = scams_run,
    .cleanup = scams_cleanup,
};
