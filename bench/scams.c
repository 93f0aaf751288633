/*
 * scams.c - the scam search's speed (build/scams-bench; bench/scams runs
 * it): a game of favor and one of suber, each with three players and an
 * open proposal, searched in memory for one of the set's own scamGoals
 * (favor: a win; suber: two ballots on one proposal), which no sequence
 * within the depth meets, so that the search is complete: favor as alice,
 * suber (where most moves wait for their turn) as the three players
 * together, one level deeper.  Prints the hypothetical
 * events (messages played and rolled back) and the distinct states per
 * second of CPU time.  Figures, not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/resource.h>

#include "game.h"
#include "rulesets.h"
#include "scams.h"

/* CPU seconds of this process and of its children that ended (JOBS) */
static double cpu_seconds(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
           (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
}

static double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static Game *play(const char *set, const char *const *moves, int n, int64_t *now)
{
    const char *label;
    char *sugar = NULL;
    char *text = ruleset_load(set, &label, &sugar);
    Buf err = {0};
    Game *g = game_memory(7);
    if (!text || !game_load_set(g, label, text, &err)) {
        fprintf(stderr, "scams-bench: %s: %s\n", set, buf_str(&err));
        exit(1);
    }
    if (sugar) g->sugar = sugar_parse(sugar, set, &err);
    *now = 1767225600;
    for (int i = 0; i < n; i += 2) {
        Outcome o;
        *now += 60;
        if (!game_event_move(g, moves[i], *now, *now, moves[i + 1], false, &o) || o.verdict == VERDICT_REFUSED) {
            fprintf(stderr, "scams-bench: %s: move %d refused: %s\n", set, i / 2 + 1, o.message ? o.message : "");
            exit(1);
        }
        outcome_free(&o);
    }
    free(text);
    free(sugar);
    buf_free(&err);
    return g;
}

static void bench(const char *name, Game *g, int64_t now, int nsenders, int depth, long budget, const char *goal)
{
    const char *as[] = {"alice@x", "bob@x", "carol@x"};
    /* GOAL: the condition searched for (default: one of the set's own
     * scamGoals, which no sequence within these depths meets, so that the
     * search is complete; F, which nothing can make hold, plays no last
     * move); PLAY_ALL=1: skip no move; JOBS=N: N processes share each round */
    if (getenv("GOAL")) goal = getenv("GOAL");
    ScamQuery q = {.senders = as, .nsenders = nsenders, .goal = goal, .depth = depth, .budget = budget,
                   .play_all = getenv("PLAY_ALL") != NULL, .jobs = getenv("JOBS") ? atoi(getenv("JOBS")) : 1};
    ScamResult r;
    Buf err = {0};
    double t0 = cpu_seconds(), w0 = wall_seconds();
    if (!scams_search(g, now, &q, &r, &err)) {
        fprintf(stderr, "scams-bench: %s\n", buf_str(&err));
        exit(1);
    }
    double s = cpu_seconds() - t0, w = wall_seconds() - w0;
    printf("%-6s %d sender%s depth %d: %9ld events %8ld states %6.2f s wall %6.2f s CPU  %8.0f events/s  %7.0f states/s  %ld skipped  %ld last skipped  %ld out of reach  %ld revisits%s%s\n", name,
           nsenders, nsenders == 1 ? ", " : "s,", r.depth_done > depth ? depth : (r.budget_spent ? r.depth_done + 1 : depth), r.events, r.explored, w, s,
           (double)r.events / s, (double)r.explored / s, r.skipped, r.skipped_last, r.skipped_reach, r.revisits, r.budget_spent ? "  (budget spent)" : "",
           r.found ? "  (found)" : "");
    scam_result_free(&r);
    buf_free(&err);
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 3;
    long budget = argc > 2 ? atol(argv[2]) : 2000000;
    const char *favor[] = {
        "alice@x", "subtype: register\nnickname: alice\n", "bob@x", "subtype: register\nnickname: bob\n",
        "carol@x", "subtype: register\nnickname: carol\n",
        "bob@x", "subtype: ruleChange\nruleChangeType: create\nnewif: F\nnewthen: halt()\nneworder: 50000\n"};
    const char *suber[] = {
        "alice@x", "subtype: join\nnickname: alice\nsurname: Adams\n", "bob@x", "subtype: join\nnickname: bob\nsurname: Brown\n",
        "carol@x", "subtype: join\nnickname: carol\nsurname: Clark\n",
        "alice@x", "subtype: propose\nruleChangeType: enact\ntext: A new rule.\n"};
    const char *only = argc > 3 ? argv[3] : ""; /* "favor" or "suber": that game alone */
    int64_t now;
    if (strcmp(only, "suber")) {
        Game *g = play("favor", favor, 8, &now);
        bench("favor", g, now, 1, depth, budget, "exists(type==\"win\")");
        game_close(g);
    }
    if (strcmp(only, "favor")) {
        Game *g = play("suber", suber, 8, &now);
        bench("suber", g, now, 3, depth + 1, budget, /* most of suber's moves wait for a turn: the whole table plays */
              "exists(type==\"ballot\" & proposal==%p & player==%n & objectId==%a) & "
              "exists(type==\"ballot\" & proposal==%p & player==%n & objectId!=%a)");
        game_close(g);
    }
    return 0;
}
