/*
 * suber_random.c - random players for suber and suber1982, checked against
 * an independent model of Suber's rules.
 *
 *   suber-random [--variant suber|suber1982] [--games N] [--seed S] [--game N] [--quiet]
 *
 * Each game: three to five players join (nicknames not in surname order),
 * then turn after turn the player whose turn it is proposes a random
 * rule-change (an improper one now and then, and a proposal out of turn),
 * every player votes at random (a second vote now and then), until someone
 * wins.  After every event the game's objects are compared with the model:
 * every score, whose turn and the circuit, the proposal's number and
 * status, the rules in effect (number, mutable), at most one open proposal,
 * the win and the halt.  The model is written from the rule texts, not from
 * the formal rules: it is what the formal rules are checked against.
 *
 * Exit status 0 when every game agreed with the model; prints games per
 * second (the figure bench/suber reports).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"
#include "rulesets.h"

#define MAXP 5
#define MAXR 400

typedef struct Player {
    char nick[16], surname[16], email[32], seat[40];
    long joined; /* order of joining: the seat in suber1982 */
    long score;
} Player;

typedef struct RuleText {
    long number, initial;
    bool mutable, amended, alive;
} RuleText;

typedef struct Model {
    bool revised;
    int np;
    Player p[MAXP];
    int order[MAXP]; /* playing order: indexes into p */
    int turn;        /* position in order */
    long circuit, next;
    RuleText r[MAXR];
    int nr;
    int winner; /* -1: none */
} Model;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int pick(int n) { return (int)(rnd() % (uint64_t)n); }
static bool chance(int percent) { return pick(100) < percent; }

static const char *failure;
static char failbuf[512];
static void fail(const char *fmt, ...)
{
    if (failure) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(failbuf, sizeof failbuf, fmt, ap);
    va_end(ap);
    failure = failbuf;
}

/* ---- reading the game ---- */

static const Obj *first_of(Game *g, const char *type)
{
    const IdSet *s = pool_lookup(g->pool, SYM_type, sym_cstr(type));
    if (!s) return NULL;
    uint32_t i = idset_seek(s, 0, 1);
    return i < s->len ? pool_get(g->pool, s->ids[i]) : NULL;
}

static int count_of(Game *g, const char *type)
{
    const IdSet *s = pool_lookup(g->pool, SYM_type, sym_cstr(type));
    int n = 0;
    for (uint32_t i = s ? idset_seek(s, 0, 1) : 0; s && i < s->len; i = idset_seek(s, i + 1, 0)) n++;
    return n;
}

static const char *attr(const Obj *o, const char *name) { return o ? sym_text(obj_get(o, sym_cstr(name))) : ""; }
static long num(const Obj *o, const char *name) { return strtol(attr(o, name), NULL, 10); }

static const Obj *find(Game *g, const char *type, const char *name, const char *value)
{
    const IdSet *s = pool_lookup(g->pool, sym_cstr(name), sym_cstr(value));
    for (uint32_t i = s ? idset_seek(s, 0, 1) : 0; s && i < s->len; i = idset_seek(s, i + 1, 0)) {
        const Obj *o = pool_get(g->pool, s->ids[i]);
        if (strcmp(attr(o, "type"), type) == 0) return o;
    }
    return NULL;
}

/* ---- the model ---- */

static int cmp_seat(const Model *m, int a, int b)
{
    if (!m->revised) return (m->p[a].joined > m->p[b].joined) - (m->p[a].joined < m->p[b].joined);
    return strcmp(m->p[a].seat, m->p[b].seat);
}

static void sort_order(Model *m)
{
    for (int i = 0; i < m->np; i++) m->order[i] = i;
    for (int i = 1; i < m->np; i++)
        for (int j = i; j > 0 && cmp_seat(m, m->order[j - 1], m->order[j]) > 0; j--) {
            int t = m->order[j];
            m->order[j] = m->order[j - 1];
            m->order[j - 1] = t;
        }
}

static int mutable_count(Model *m)
{
    int n = 0;
    for (int i = 0; i < m->nr; i++) n += m->r[i].alive && m->r[i].mutable;
    return n;
}

static bool rule203_changed(Model *m)
{
    for (int i = 0; i < m->nr; i++)
        if (m->r[i].initial == 203) return !m->r[i].alive || m->r[i].amended;
    return true;
}

static long round_half_away(long num, long den) /* num/den, den > 0 */
{
    long q = (2 * labs(num) + den) / (2 * den);
    return num < 0 ? -q : q;
}

/* The first player (in joining order, as the engine's objects are) to
 * reach the winning score wins. */
static void check_win(Model *m)
{
    if (m->winner >= 0) return;
    for (int i = 0; i < m->np; i++)
        if (m->p[i].score >= (m->revised ? 200 : 100)) {
            m->winner = i;
            return;
        }
}

/* ---- comparing ---- */

static void compare(Model *m, Game *g, const char *when)
{
    if (failure) return;
    for (int i = 0; i < m->np; i++) {
        const Obj *o = find(g, "player", "nickname", m->p[i].nick);
        if (!o) return fail("%s: player %s is missing", when, m->p[i].nick);
        if (num(o, "score") != m->p[i].score)
            return fail("%s: %s has %s points, the rules give %ld", when, m->p[i].nick, attr(o, "score"), m->p[i].score);
    }
    if (count_of(g, "player") != m->np) return fail("%s: %d players, expected %d", when, count_of(g, "player"), m->np);
    const Obj *t = first_of(g, "turn");
    if (m->np && !t) return fail("%s: no turn object", when);
    if (t && m->winner < 0) {
        const char *who = m->p[m->order[m->turn]].nick;
        if (strcmp(attr(t, "player"), who) != 0) return fail("%s: the turn is %s's, the rules say %s's", when, attr(t, "player"), who);
        if (num(t, "circuit") != m->circuit) return fail("%s: circuit %s, expected %ld", when, attr(t, "circuit"), m->circuit);
        if (!find(g, "player", "nickname", attr(t, "player"))) return fail("%s: the turn is on no player", when);
    }
    if (num(first_of(g, "nomicState"), "nextProposal") != m->next)
        return fail("%s: next proposal number %s, expected %ld", when, attr(first_of(g, "nomicState"), "nextProposal"), m->next);
    if (count_of(g, "ruleText") != (int)(m->nr - 0)) {
        int alive = 0;
        for (int i = 0; i < m->nr; i++) alive += m->r[i].alive;
        if (count_of(g, "ruleText") != alive) return fail("%s: %d rules in effect, expected %d", when, count_of(g, "ruleText"), alive);
    }
    for (int i = 0; i < m->nr; i++) {
        if (!m->r[i].alive) continue;
        char n[24];
        snprintf(n, sizeof n, "%ld", m->r[i].number);
        const Obj *o = find(g, "ruleText", "number", n);
        if (!o) return fail("%s: rule %s is missing", when, n);
        if (strcmp(attr(o, "mutable"), m->r[i].mutable ? "T" : "F") != 0) return fail("%s: rule %s mutable %s", when, n, attr(o, "mutable"));
    }
    const IdSet *open = pool_lookup(g->pool, sym_cstr("status"), sym_cstr("open"));
    int nopen = 0;
    for (uint32_t i = open ? idset_seek(open, 0, 1) : 0; open && i < open->len; i = idset_seek(open, i + 1, 0))
        nopen += strcmp(attr(pool_get(g->pool, open->ids[i]), "type"), "proposal") == 0;
    if (nopen > 1) return fail("%s: %d open proposals", when, nopen);
    const Obj *w = first_of(g, "win");
    if (m->winner >= 0 && (!w || strcmp(attr(w, "player"), m->p[m->winner].nick) != 0)) {
        char scores[256] = "";
        for (int i = 0; i < m->np; i++)
            snprintf(scores + strlen(scores), sizeof scores - strlen(scores), " %s:%ld", m->p[i].nick, m->p[i].score);
        return fail("%s: %s should have won, the win object says '%s' (scores now:%s)", when, m->p[m->winner].nick,
                    attr(w, "player"), scores);
    }
    if (m->winner < 0 && w) return fail("%s: %s won too early", when, attr(w, "player"));
    if ((m->winner >= 0) != g->halted) return fail("%s: halted is %d", when, g->halted);
}

/* ---- playing ---- */

static int64_t now;
static bool tracing; /* SUBER_TRACE=1: print every event's trace */

static void print_trace(void *ud, Game *g, const Outcome *o)
{
    if (tracing && o->ran) printf("--- %s\n%s", (const char *)ud, buf_str((Buf *)&o->run.trace));
}

static void move(Game *g, const Player *p, const char *fmt, ...)
{
    char body[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    now += 60;
    if (!game_move(g, p->email, now, body, false, print_trace, body)) fail("the move failed: %s", body);
}

static const char *surnames[] = {"Zed", "Young", "adams", "Moss", "brown", "Kline", "Ortiz", "Baker"};
static const char *nicks[] = {"ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"};

/* Plays one game to a win (or maxturns); false on a disagreement. */
static bool play(Game *g, Model *m, int maxturns)
{
    memset(m->p, 0, sizeof m->p);
    m->np = 0;
    m->turn = 0;
    m->circuit = 1;
    m->next = 301;
    m->winner = -1;
    m->nr = 0;
    for (int n = 101; n <= 213; n++) {
        if (n == 117) n = 201;
        m->r[m->nr++] = (RuleText){n, n, n >= 201, false, true};
    }
    int want = 3 + pick(3);
    int base = pick(8);
    for (int i = 0; i < want; i++) {
        Player *p = &m->p[m->np];
        const char *nick = nicks[(base + i) % 8], *surname = surnames[(base * 3 + i * 5) % 8];
        snprintf(p->nick, sizeof p->nick, "%s", nick);
        snprintf(p->surname, sizeof p->surname, "%s", surname);
        snprintf(p->email, sizeof p->email, "%s@suber.test", nick);
        snprintf(p->seat, sizeof p->seat, "%s %s", surname, nick);
        for (char *c = p->seat; *c; c++) *c = (char)tolower((unsigned char)*c); /* the order ignores case */
        p->joined = m->np + 1;
        move(g, p, "subtype: join\nnickname: %s\nsurname: %s", p->nick, p->surname);
        m->np++;
        sort_order(m);
        compare(m, g, "after a join");
        if (chance(20)) { /* a second join under a taken nickname is refused */
            Player dup = *p;
            snprintf(dup.email, sizeof dup.email, "other-%s", p->email);
            move(g, &dup, "subtype: join\nnickname: %s\nsurname: Else", p->nick);
            compare(m, g, "after a refused join");
        }
    }
    for (int turn = 0; turn < maxturns && m->winner < 0 && !failure; turn++) {
        Player *pp = &m->p[m->order[m->turn]];
        if (chance(10)) { /* out of turn: refused, takes no number */
            Player *other = &m->p[m->order[(m->turn + 1) % m->np]];
            move(g, other, "subtype: propose\nruleChangeType: enact\ntext: Out of turn.");
            compare(m, g, "after a proposal out of turn");
        }
        const char *kinds[] = {"enact", "amend", "repeal", "transmute"};
        int k;
        RuleText *target = NULL;
        for (;;) { /* improper proposals are refused until a proper one */
            int roll = pick(100);
            k = roll < 40 ? 0 : roll < 65 ? 1 : roll < 80 ? 2 : 3;
            int alive[MAXR] = {0}, na = 0;
            for (int i = 0; i < m->nr; i++)
                if (m->r[i].alive) alive[na++] = i;
            target = k ? &m->r[alive[pick(na)]] : NULL;
            bool proper = true;
            int mc = mutable_count(m);
            if ((k == 1 || k == 2) && !target->mutable) proper = false;
            if ((k == 0 || (k == 3 && !target->mutable)) && mc >= 25) proper = false;
            if ((k == 2 || (k == 3 && target->mutable)) && mc <= 1) proper = false;
            if (k == 0) move(g, pp, "subtype: propose\nruleChangeType: enact\ntext: Rule text %ld.", m->next);
            else if (k == 1)
                move(g, pp, "subtype: propose\nruleChangeType: amend\ntarget: %ld\ntext: Amended by %ld.", target->number, m->next);
            else move(g, pp, "subtype: propose\nruleChangeType: %s\ntarget: %ld", kinds[k], target->number);
            if (proper) break;
            compare(m, g, "after an improper proposal");
            if (failure) return false;
        }
        long n = m->next++;
        char ns[24];
        snprintf(ns, sizeof ns, "%ld", n);
        const Obj *prop = find(g, "proposal", "number", ns);
        if (!prop || strcmp(attr(prop, "status"), "open") != 0) {
            fail("proposal %ld (%s) was not opened", n, kinds[k]);
            return false;
        }
        bool unanimity = !m->revised || m->circuit < 3 || rule203_changed(m) || (k == 3 && !target->mutable);
        int forv = 0, against = 0;
        bool voted_against[MAXP] = {0};
        for (int i = 0; i < m->np && !failure; i++) {
            Player *v = &m->p[i];
            bool yes = chance(m->revised ? 75 : 95);
            forv += yes;
            against += !yes;
            voted_against[i] = !yes;
            if (i == m->np - 1) { /* the last vote completes it: the model first */
                bool adopted = against == 0 || (!unanimity && forv > against);
                Player *proposer = pp;
                if (!adopted) proposer->score -= 10;                 /* 206 */
                check_win(m);
                bool bonus = adopted && against > 0 && (m->revised || rule203_changed(m));
                for (int j = 0; j < m->np && bonus; j++)
                    if (voted_against[j]) m->p[j].score += 10;         /* 204 */
                check_win(m);
                long points = m->revised ? round_half_away((n - 291) * forv, forv + against) : 0;
                move(g, v, "subtype: vote\nproposal: %ld\nvote: %s", n, yes ? "FOR" : "AGAINST");
                prop = find(g, "proposal", "number", ns);
                if (!m->revised) {                                   /* the die */
                    points = num(prop, "roll");
                    if (points < 1 || points > 6) fail("proposal %ld: a die roll of %s", n, attr(prop, "roll"));
                }
                proposer->score += points;                           /* 202 */
                check_win(m);
                if (strcmp(attr(prop, "status"), adopted ? "adopted" : "defeated") != 0)
                    fail("proposal %ld (%d FOR, %d AGAINST, %s): %s", n, forv, against,
                         unanimity ? "unanimity" : "majority", attr(prop, "status"));
                if (adopted) { /* 108, 103, 109 */
                    if (k == 0) m->r[m->nr++] = (RuleText){n, 0, true, false, true};
                    else if (k == 1) target->number = n, target->amended = true;
                    else if (k == 2) target->alive = false;
                    else target->number = n, target->mutable = !target->mutable;
                }
                int at = m->turn;
                m->turn = (m->turn + 1) % m->np;
                if (m->turn <= at) m->circuit++;
            } else {
                move(g, v, "subtype: vote\nproposal: %ld\nvote: %s", n, yes ? "FOR" : "AGAINST");
                if (chance(5)) move(g, v, "subtype: vote\nproposal: %ld\nvote: FOR", n); /* refused */
            }
            compare(m, g, i == m->np - 1 ? "after the vote" : "during the vote");
        }
        if (m->nr >= MAXR - 1) break;
    }
    if (!failure && m->winner < 0) fail("no winner after %d turns", maxturns);
    return !failure;
}

int main(int argc, char **argv)
{
    const char *variant = "suber";
    int games = 20;
    uint64_t seed = 1;
    bool quiet = false;
    int only = -1; /* --game N: that game alone, as it is played among the others */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) variant = argv[++i];
        else if (strcmp(argv[i], "--games") == 0 && i + 1 < argc) games = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--quiet") == 0) quiet = true;
        else if (strcmp(argv[i], "--game") == 0 && i + 1 < argc) only = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: suber-random [--variant suber|suber1982] [--games N] [--seed S] [--game N] [--quiet]\n");
            return 2;
        }
    }
    const char *label;
    char *set = ruleset_load(variant, &label, NULL);
    if (!set) {
        fprintf(stderr, "suber-random: no ruleset %s\n", variant);
        return 2;
    }
    tracing = getenv("SUBER_TRACE") != NULL;
    Model m = {.revised = strcmp(variant, "suber") == 0};
    long moves = 0, turns = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int bad = 0;
    for (int i = only >= 0 ? only : 0; i < (only >= 0 ? only + 1 : games); i++) {
        rng_state = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i + 1;
        Game *g = game_memory(seed + (uint64_t)i);
        Buf err = {0};
        if (!game_load_set(g, label, set, &err)) {
            fprintf(stderr, "suber-random: %s\n", buf_str(&err));
            return 2;
        }
        buf_free(&err);
        now = 1767225600;
        failure = NULL;
        bool ok = play(g, &m, m.revised ? 400 : 3000);
        moves += (now - 1767225600) / 60;
        turns += m.next - 301;
        if (!ok) {
            bad++;
            fprintf(stderr, "game %d (seed %llu): %s\n", i, (unsigned long long)seed, failure);
        } else if (!quiet) {
            printf("game %d: %d players, %ld proposals, %s wins with %ld\n", i, m.np, m.next - 301,
                   m.p[m.winner].nick, m.p[m.winner].score);
        }
        game_close(g);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%s: %d games, %ld proposals, %ld moves in %.2f s: %.1f games/s, %.0f moves/s; %d disagreed with the rules\n",
           variant, games, turns, moves, s, games / s, moves / s, bad);
    free(set);
    value_shutdown();
    return bad ? 1 : 0;
}
