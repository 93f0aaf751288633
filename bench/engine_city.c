/*
 * engine_city.c - plays an Engine City move stream (see
 * ../shared/bench/clips/README.md and gen_moves.py) through the same code
 * as `nomic move` and `nomic tick`, one event per line, and prints the
 * figures that ../shared/bench/clips/check.sh compares, plus the time.
 *
 *   engine-city STREAM [--store FILE.db [--group N | --fsync-each]]
 *
 * Without --store the game lives in memory (the engine alone); with it,
 * every event is journaled and committed to SQLite as in a real game.
 * The stream is acknowledged as a whole, as a server acknowledges the
 * moves that waited on one fsync: its lines are played in groups of N
 * (default 64) in one transaction each (game_group_begin), whose commits
 * do not wait for the disk, and one fsync at the end (timed) makes them
 * all durable.  --group 1: a transaction per event.  --fsync-each: a
 * transaction per event that waits for the disk, as `nomic move` does
 * for its one.
 *
 * Every figure is read from the final pool or counted by the engine's
 * firing hook; none comes from the generator's arithmetic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"
#include "rulesets.h"

#define MAX_RULE 64

typedef struct Figures {
    long fired[MAX_RULE];   /* firings that changed the pool, per rule object */
    long for_votes, against_votes;
    long moves, votes, events;
    uint64_t work, first_work; /* the meter's units, the first look's apart */
} Figures;

static void on_fire(void *ud, ObjId rule, const Prog *p, const Sym *vars, bool changed)
{
    Figures *f = ud;
    if (!changed || rule >= MAX_RULE) return;
    f->fired[rule]++;
    if (rule != 19) return;
    /* rule 19 announces one vote: count it by its value %vc */
    for (int i = 0; i < p->nvars; i++)
        if (strcmp(sym_text(p->varnames[i]), "vc") == 0) {
            if (strcmp(sym_text(vars[i]), "FOR") == 0) f->for_votes++;
            else if (strcmp(sym_text(vars[i]), "AGAINST") == 0) f->against_votes++;
        }
}

/* Each event, and what the meter charged it: the same for the same stream
 * whatever the engine does to be faster (docs/limits.md), save where a
 * search is made to count less on purpose. */
static void count_event(void *ud, Game *g, const Outcome *o)
{
    Figures *f = ud;
    f->events++;
    if (o->ran) {
        f->work += o->run.used.work;
        f->first_work += o->run.used.first_work;
    }
}

/* bench/city-favor.nomic (favor as the CLIPS port encodes it), adapted as
 * the port is (its README, "Mapping and deviations"): rule 9's threshold
 * 100 becomes the stream's, and rule 10 (halt on the first win) gets
 * `if: F` so that the workload has a fixed size.  Returns a malloc'd text. */
static char *adapted_favor(long threshold)
{
    const char *label;
    char *text = ruleset_load(CITY_SET, &label, NULL);
    Buf b = {0};
    char thr[64];
    snprintf(thr, sizeof thr, "score>%ld", threshold);
    const char *r9 = strstr(text, "score>100");
    const char *r10 = strstr(text, "if: exists(type==\"win\")\nthen: halt()");
    if (!text || !r9 || !r10 || r10 < r9) {
        fprintf(stderr, "engine-city: " CITY_SET " lacks the rules 9 and 10 this benchmark adapts\n");
        exit(2);
    }
    buf_add(&b, text, (size_t)(r9 - text));
    buf_puts(&b, thr);
    const char *after9 = r9 + strlen("score>100");
    buf_add(&b, after9, (size_t)(r10 - after9));
    buf_puts(&b, "if: F\nthen: halt()");
    buf_puts(&b, r10 + strlen("if: exists(type==\"win\")\nthen: halt()"));
    free(text);
    return buf_take(&b);
}

/* One line of the stream: T ts, R ts batch sender word, C ts batch sender a,
 * V ts batch sender a word. */
typedef struct Line {
    long ts, batch, a;
    char sender[128], word[128];
} Line;

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

/* The fields `kinds` names after the line's tag (i: an integer, w: a word
 * of at most 127 bytes), each after blanks and ending at one or at the
 * end, into *num[] and *word[] in turn.  False when the line is not that
 * plain (a sign +, a word or number longer than that, a digit followed by
 * a letter...): the caller then reads it with sscanf, as it always did.
 * So a line reads the same either way, and the usual one without sscanf,
 * which was 3% of this benchmark's instructions (and snprintf of the move's
 * text 1%: put_text and put_long below). */
static bool plain_fields(const char *line, const char *kinds, long *const *num, char *const *word)
{
    const char *p = line + 1;
    for (; *kinds; kinds++) {
        while (is_blank(*p)) p++;
        const char *t = p;
        while (*p && !is_blank(*p)) p++;
        size_t n = (size_t)(p - t);
        if (*kinds == 'w') {
            if (n == 0 || n > 127) return false;
            memcpy(*word, t, n);
            (*word++)[n] = 0;
            continue;
        }
        size_t neg = n && *t == '-';
        if (n == neg || n - neg > 18) return false;
        long v = 0;
        for (const char *d = t + neg; d < p; d++) {
            if (*d < '0' || *d > '9') return false;
            v = v * 10 + (*d - '0');
        }
        **num++ = neg ? -v : v;
    }
    return true;
}

/* The line's tag when it reads as its kind, else 0. */
static char read_line(const char *line, Line *l)
{
    switch (line[0]) {
    case 'T':
        return plain_fields(line, "i", (long *[]){&l->ts}, NULL) || sscanf(line, "T %ld", &l->ts) == 1 ? 'T' : 0;
    case 'R':
        return plain_fields(line, "iiww", (long *[]){&l->ts, &l->batch}, (char *[]){l->sender, l->word}) ||
                       sscanf(line, "R %ld %ld %127s %127s", &l->ts, &l->batch, l->sender, l->word) == 4
                   ? 'R'
                   : 0;
    case 'C':
        return plain_fields(line, "iiwi", (long *[]){&l->ts, &l->batch, &l->a}, (char *[]){l->sender}) ||
                       sscanf(line, "C %ld %ld %127s %ld", &l->ts, &l->batch, l->sender, &l->a) == 4
                   ? 'C'
                   : 0;
    case 'V':
        return plain_fields(line, "iiwiw", (long *[]){&l->ts, &l->batch, &l->a}, (char *[]){l->sender, l->word}) ||
                       sscanf(line, "V %ld %ld %127s %ld %127s", &l->ts, &l->batch, l->sender, &l->a, l->word) == 5
                   ? 'V'
                   : 0;
    }
    return 0;
}

/* A move's text, as snprintf's %s and %ld write them. */
static char *put_text(char *b, const char *s)
{
    size_t n = strlen(s);
    memcpy(b, s, n);
    return b + n;
}

static char *put_long(char *b, long v)
{
    char d[24];
    int n = 0;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    do d[n++] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0) *b++ = '-';
    while (n) *b++ = d[--n];
    return b;
}

/* Stream batch ids of the proposals -> the engine's moveBatch. */
typedef struct BatchMap {
    long *from, *to;
    size_t n, cap;
} BatchMap;

static long map_batch(const BatchMap *m, long b)
{
    for (size_t i = m->n; i-- > 0;)
        if (m->from[i] == b) return m->to[i];
    return b;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long count_type(Game *g, const char *type)
{
    const IdSet *s = pool_lookup(g->pool, SYM_type, sym_cstr(type));
    return s ? (long)s->live : 0;
}

static void print_figures(Game *g, const Figures *f)
{
    const IdSet *players = pool_lookup(g->pool, SYM_type, sym_cstr("player"));
    long score_sum = 0, dup_owned = 0;
    unsigned long long checksum = 0;
    const unsigned long long MOD = 1000000007ULL;
    Sym s_score = sym_cstr("score"), s_nick = sym_cstr("nickname"), s_mail = sym_cstr("defaultEmail");
    for (uint32_t i = players ? idset_seek(players, 0, 1) : 0; players && i < players->len;
         i = idset_seek(players, i + 1, 0)) {
        const Obj *o = pool_get(g->pool, players->ids[i]);
        long score = 0, idx = 0;
        sym_to_long(obj_get(o, s_score), &score);
        score_sum += score;
        const char *nick = sym_text(obj_get(o, s_nick));
        if (nick[0] == 'p') idx = strtol(nick + 1, NULL, 10);
        checksum = (checksum + (unsigned long long)idx * (unsigned long long)score) % MOD;
        if (strncmp(sym_text(obj_get(o, s_mail)), "dup", 3) == 0) dup_owned++;
    }
    /* The list is "a b c": our juxtaposition joins non-empty parts with one
     * space, where CLIPS's str-cat builds " a b c".  So the figure is
     * measured as the generator defines it, each address plus one
     * separator: the sum over the words of (length + 1). */
    long list_len = 0;
    const IdSet *pl = pool_lookup(g->pool, SYM_type, sym_cstr("playerList"));
    if (pl && pl->live) {
        const char *l = sym_text(obj_get(pool_get(g->pool, pl->ids[idset_seek(pl, 0, 1)]), sym_cstr("listContent")));
        for (const char *p = l; *p;) {
            while (*p == ' ') p++;
            size_t n = strcspn(p, " ");
            if (n) list_len += (long)n + 1;
            p += n;
        }
    }
    long total = 0;
    for (int r = 0; r < MAX_RULE; r++) total += f->fired[r];
    printf("players %ld\n", count_type(g, "player"));
    printf("rejected_registrations %ld\n", f->fired[4]);
    printf("dup_owned_players %ld\n", dup_owned);
    printf("proposals %ld\n", f->fired[15]);
    printf("passed %ld\n", count_type(g, "proposalPassed"));
    printf("failed %ld\n", f->fired[20] + f->fired[22]);
    printf("quorum_failed %ld\n", f->fired[20]);
    printf("score_sum %ld\n", score_sum);
    printf("score_checksum %llu\n", checksum);
    printf("wins %ld\n", count_type(g, "win"));
    printf("for_votes %ld\n", f->for_votes);
    printf("against_votes %ld\n", f->against_votes);
    printf("playerlist_len %ld\n", list_len);
    printf("pool_objects %zu\n", pool_size(g->pool));
    printf("max_object_id %u\n", g->pool->next_id - 1);
    printf("moves %ld\n", f->moves);
    printf("votes_cast %ld\n", f->votes);
    printf("firings_total %ld\n", total);
    for (int r = 3; r <= 32; r++)
        if (r != 10) printf("fired_r%d %ld\n", r, f->fired[r]);
}

int main(int argc, char **argv)
{
    bool each = argc == 5 && strcmp(argv[4], "--fsync-each") == 0;
    long group = argc == 6 && strcmp(argv[4], "--group") == 0 ? strtol(argv[5], NULL, 10) : 64;
    if (argc != 2 && !((argc == 4 || each || (argc == 6 && group > 0)) && strcmp(argv[2], "--store") == 0)) {
        fprintf(stderr, "usage: engine-city STREAM [--store FILE.db [--group N | --fsync-each]]\n");
        return 2;
    }
    if (each) group = 1;
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    const char *store = argc >= 4 ? argv[3] : NULL;
    char line[512], body[512];
    long P = 0, K = 0, thr = 0;
    while (fgets(line, sizeof line, in) && sscanf(line, "H %ld %ld %ld", &P, &K, &thr) != 3) {}
    if (!P) {
        fprintf(stderr, "engine-city: %s has no H line\n", argv[1]);
        return 2;
    }
    char *set = adapted_favor(thr);
    Game *g;
    Buf err = {0};
    if (store) {
        char setpath[600];
        snprintf(setpath, sizeof setpath, "%s.favor.nomic", store);
        FILE *sf = fopen(setpath, "w");
        if (!sf || fputs(set, sf) < 0 || fclose(sf) != 0) {
            perror(setpath);
            return 2;
        }
        const char *sets[] = {setpath};
        g = game_init(store, sets, 1, true, 1, 0, true, &err);
    } else {
        g = game_memory(1);
        if (!game_load_set(g, "favor (adapted)", set, &err)) {
            game_close(g);
            g = NULL;
        }
    }
    if (!g) {
        fprintf(stderr, "engine-city: %s\n", buf_str(&err));
        return 2;
    }
    if (store && !each) {
        g->defer_sync = true;
        if (!store_sync_commits(g->st, false)) {
            fprintf(stderr, "engine-city: %s\n", store_error(g->st));
            return 2;
        }
    }
    g->eng->trace_on = false; /* the journal keeps inputs and outcomes; no traces */
    /* nobody is answered: a move with no effect is not explained (as CLIPS
     * does not); NOMIC_CITY_EXPLAIN=1 measures the explanations too */
    g->unexplained = !getenv("NOMIC_CITY_EXPLAIN");
    Figures f = {0};
    g->eng->hook = on_fire;
    g->eng->hook_ud = &f;
    fprintf(stderr, "engine-city: P=%ld K=%ld threshold=%ld, %s; favor adapted: rule 9 wins at score>%ld, rule 10 if: F\n",
            P, K, thr, store ? "SQLite store" : "engine alone (in memory)", thr);

    BatchMap bm = {0};
    double t0 = now_s();
    Line l;
    long lines = 0;
    while (fgets(line, sizeof line, in)) {
        if (store && group > 1 && lines++ % group == 0 &&
            !((lines == 1 || game_group_end(g, &err)) && game_group_begin(g, &err))) {
            fprintf(stderr, "engine-city: the store failed before: %s%s\n", line, buf_str(&err));
            return 1;
        }
        bool ok = true;
        char kind = read_line(line, &l), *e = body;
        if (kind == 'T') {
            ok = game_tick(g, l.ts, false, count_event, &f);
        } else if (kind == 'R') {
            e = put_text(e, "subtype: register\nnickname: ");
            e = put_text(e, l.word);
            strcpy(e, "\n");
            ok = game_move(g, l.sender, l.ts, body, false, count_event, &f);
            f.moves++;
        } else if (kind == 'C') {
            ok = game_tick(g, l.ts, false, count_event, &f); /* what game_move does first */
            GROW(bm.from, bm.n, bm.cap);
            bm.to = xrealloc(bm.to, bm.cap * sizeof *bm.to);
            bm.from[bm.n] = l.batch;
            bm.to[bm.n++] = (long)g->pool->next_id; /* the first move's id is the batch */
            e = put_text(e, "subtype: ruleChange\nruleChangeType: create\nnewif: F\nnewthen: noop\nneworder: ");
            e = put_long(e, l.a);
            strcpy(e, "\n");
            Outcome o;
            ok = ok && game_event_move(g, l.sender, l.ts, l.ts, body, false, &o);
            count_event(&f, g, &o);
            outcome_free(&o);
            f.moves++;
        } else if (kind == 'V') {
            e = put_text(e, "subtype: vote\npropId: ");
            e = put_long(e, map_batch(&bm, l.a));
            e = put_text(e, "\nvote: ");
            e = put_text(e, l.word);
            strcpy(e, "\n");
            ok = game_move(g, l.sender, l.ts, body, false, count_event, &f);
            f.moves++;
            f.votes++;
        }
        if (!ok) {
            fprintf(stderr, "engine-city: the store failed at: %s%s\n", line, buf_str(&err));
            return 1;
        }
    }
    if (store && group > 1 && !game_group_end(g, &err)) {
        fprintf(stderr, "engine-city: the store failed at the stream's end: %s\n", buf_str(&err));
        return 1;
    }
    if (store && !each && !store_sync_log(g->st)) {
        fprintf(stderr, "engine-city: the stream's fsync failed: %s\n", store_error(g->st));
        return 1;
    }
    double secs = now_s() - t0;
    print_figures(g, &f);
    printf("events %ld\n", f.events);
    printf("work_units %llu\nfirst_look_units %llu\n", (unsigned long long)f.work, (unsigned long long)f.first_work);
    printf("seconds %.3f\n", secs);
    /* per move, as CLIPS's driver counts (its timers are events too) */
    printf("us_per_move %.2f\n", f.moves ? secs * 1e6 / (double)f.moves : 0.0);
    game_close(g);
    fclose(in);
    free(set);
    free(bm.from);
    free(bm.to);
    buf_free(&err);
    value_shutdown();
    return 0;
}
