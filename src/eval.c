/*
 * eval.c - conditions with backtracking, values, matches and verbs.
 *
 * The search keeps an explicit list of goals still to prove (Goal), each
 * with the candidate object its bare attribute names read, so that
 * `exists(A) & exists(B)` backtracks into A when B fails without any
 * recursion on the C side beyond the depth of the condition.  Candidates of
 * a match come from the pool's posting lists: the `attr == value` conjuncts
 * whose value is known when the match starts are intersected by a
 * leapfrog join over the sorted lists, so a match costs about the size of
 * the smallest list, never the size of the pool.
 */
#include "eval.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval_builtins.h"
#include "objfmt.h"
#include "util.h"

void ctx_error(Ctx *cx, const Node *at, const char *fmt, ...)
{
    if (cx->failed) return;
    cx->failed = true;
    cx->error_at = at;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cx->error, sizeof cx->error, fmt, ap);
    va_end(ap);
}

/* ---- the meter ---- */

bool meter_trip(Ctx *cx, const char *setting)
{
    if (!cx->meter.tripped) cx->meter.tripped = setting;
    cx->failed = true;
    snprintf(cx->error, sizeof cx->error, "the event exceeded %s", setting);
    return false;
}

static uint64_t mpq_bits(mpq_srcptr q)
{
    return mpz_sizeinbase(mpq_numref(q), 2) + mpz_sizeinbase(mpq_denref(q), 2);
}

/* What mpq_bits says of a whole number: the bits of its magnitude (1 for
 * 0) and 1 for the denominator. */
static uint64_t int64_bits(int64_t x)
{
    uint64_t m = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    return (m ? 64 - (uint64_t)__builtin_clzll(m) : 1) + 1;
}

static bool meter_number_bits(Ctx *cx, const Node *at, uint64_t bits)
{
    if (!meter_work(cx, 1 + bits / 64)) return false;
    if (bits <= cx->meter.number_bits) return true;
    ctx_error(cx, at, "a number of more than %ld digits (maxNumberDigits)", cx->meter.number_digits);
    return false;
}

bool meter_number(Ctx *cx, const Node *at, mpq_srcptr a, mpq_srcptr b)
{
    return meter_number_bits(cx, at, mpq_bits(a) + (b ? mpq_bits(b) : 0));
}

/* ---- variables ---- */

void ctx_bind(Ctx *cx, int slot, Sym value)
{
    cx->vars[slot] = value;
    GROW(cx->trail, cx->trail_len, cx->trail_cap);
    cx->trail[cx->trail_len++] = slot;
}

size_t ctx_trail_mark(const Ctx *cx) { return cx->trail_len; }

void ctx_trail_undo(Ctx *cx, size_t mark)
{
    while (cx->trail_len > mark) cx->vars[cx->trail[--cx->trail_len]] = VAR_UNBOUND;
}

void ctx_bind_reset(Ctx *cx)
{
    if (cx->prog)
        for (int i = 0; i < cx->prog->nvars; i++) cx->vars[i] = VAR_UNBOUND;
    cx->trail_len = 0;
}

static bool unbound_var(const Ctx *cx, const Node *n)
{
    return n->kind == N_VAR && cx->vars[n->var] == VAR_UNBOUND;
}

/* The object id a key's value names, if it names one (a whole number that
 * fits an IdSet), in *id. */
static bool id_of(Sym v, ObjId *id)
{
    long n;
    if (!sym_to_long(v, &n) || n <= 0 || n >= (long)IDSET_DEAD) return false;
    *id = (ObjId)n;
    return true;
}

/* eval_value, for the leaves that conditions evaluate most (the keys of
 * matches, the sides of comparisons, assigned values) answered here
 * without a call: a literal, a bound variable, an attribute of the
 * candidate.  The same answer and the same unit of work as eval_value. */
static inline Sym eval_leaf(Ctx *cx, const Node *n, const Obj *cand)
{
    bool literal = node_is_literal(n);
    bool bound = n->kind == N_VAR && cx->vars[n->var] != VAR_UNBOUND;
    bool attr = n->kind == N_ATTR && cand;
    if (!literal && !bound && !attr) return eval_value(cx, n, cand);
    if (cx->failed || !meter_work(cx, 1)) return SYM_EMPTY;
    return literal ? n->sym : bound ? cx->vars[n->var] : obj_get(cand, n->sym);
}

/* ---- messages ---- */

void msg_push(MsgList *l, Sym to, Sym text)
{
    GROW(l->m, l->len, l->cap);
    l->m[l->len++] = (Message){to, text};
}

void msg_truncate(MsgList *l, size_t len)
{
    if (len < l->len) l->len = len;
}

void msg_free(MsgList *l)
{
    free(l->m);
    l->m = NULL;
    l->len = l->cap = 0;
}

/* ---- candidates ---- */

#define MAX_KEYS 8

typedef struct Cands {
    const IdSet *sets[MAX_KEYS];
    uint32_t pos[MAX_KEYS];
    int n;
    ObjId single;     /* objectId == value: one candidate */
    bool none;        /* a key has no objects at all */
    bool every_key;   /* every conjunct was used as a key */
    uint32_t held;    /* keys (bit i: keys[i]) every candidate satisfies: a literal or a
                         bound variable, compared through its posting list */
    ObjId next_from;  /* iteration point */
    int nowned;
    IdSet owned[MAX_KEYS]; /* lists built here from the range index (each is cleared
                              when taken) */
} Cands;

static void cands_free(Cands *c)
{
    for (int i = 0; i < c->nowned; i++) idset_free(&c->owned[i]);
    c->nowned = 0;
}

static void cands_add_set(Cands *c, const IdSet *s)
{
    /* keep the lists smallest first: the join is led by the rarest key */
    c->pos[c->n] = 0; /* every list's place is 0 until the join starts */
    int j = c->n++;
    while (j > 0 && c->sets[j - 1]->live > s->live) {
        c->sets[j] = c->sets[j - 1];
        j--;
    }
    c->sets[j] = s;
}

/* First position in the ascending numbers of r whose value is > v (or >= v
 * when `inclusive`). */
static uint32_t range_start(const RangeIndex *r, Sym v, bool inclusive)
{
    uint32_t lo = 0, hi = r->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = num_cmp(r->nums[mid], v);
        if (c < 0 || (c == 0 && !inclusive)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* attr > v or attr >= v, v a number: when the objects above v are few
 * (a quarter of the best list so far), gathers them into a list of their
 * own, so that "score > 100" does not visit every player.  Only > and >=:
 * an absent attribute reads "", which is less than any number as text, so
 * < and <= also hold for objects that lack the attribute, and those the
 * index cannot list.  Likewise it stands aside while any object holds a
 * text value for the attribute.  Returns false when nothing can match. */
static bool cands_add_range(Ctx *cx, Cands *c, const MatchRange *mr)
{
    if ((mr->op != TK_GT && mr->op != TK_GE) || c->n == MAX_KEYS || unbound_var(cx, mr->val)) return true;
    Sym v = eval_value(cx, mr->val, NULL);
    if (cx->failed) return false;
    if (!sym_is_number(v)) return true;
    const RangeIndex *ri = pool_range_index(cx->pool, mr->name);
    if (!ri) return false; /* no object ever had it: "" is not > a number */
    if (ri->text_live) return true;
    uint32_t budget = (c->n ? c->sets[0]->live : cx->pool->all.live) / 4, total = 0, visited = 0;
    uint32_t from = range_start(ri, v, mr->op == TK_GE);
    if (!meter_work(cx, 1 + (ri->n - from) / 8)) return false;
    for (uint32_t i = from; i < ri->n; i++) {
        const IdSet *s = pool_lookup(cx->pool, mr->name, ri->nums[i]);
        total += s ? s->live : 0;
        if (total > budget || ++visited > 4 * budget + 64) return true;
    }
    if (!meter_work(cx, total) || !meter_memory(cx, 4 * (uint64_t)total)) return false;
    IdSet *own = &c->owned[c->nowned++];
    memset(own, 0, sizeof *own);
    for (uint32_t i = from; i < ri->n; i++) {
        const IdSet *s = pool_lookup(cx->pool, mr->name, ri->nums[i]);
        IDSET_FOREACH (s, id)
            idset_add(own, id);
    }
    if (own->live == 0) return false;
    cands_add_set(c, own);
    return true;
}

static void cands_init(Ctx *cx, const Node *m, Cands *c)
{
    /* field by field: the arrays are filled only as far as c->n */
    const Match *mi = m->match;
    c->n = 0;
    c->single = 0;
    c->none = false;
    c->every_key = mi->pure;
    c->held = 0;
    c->next_from = 1;
    c->nowned = 0;
    for (int i = 0; i < mi->nkeys && !c->none; i++) {
        const MatchKey *k = &mi->keys[i];
        /* eval_leaf's way, from the key alone for a literal or a variable */
        Sym v;
        if (k->kind == KEY_VAR && cx->vars[k->var] == VAR_UNBOUND) {
            c->every_key = false; /* it binds rather than filters */
            continue;
        }
        if (k->kind == KEY_OTHER) v = eval_value(cx, k->val, NULL);
        else if (cx->failed || !meter_work(cx, 1)) v = SYM_EMPTY;
        else v = k->kind == KEY_LITERAL ? k->lit : cx->vars[k->var];
        if (cx->failed) {
            c->none = true;
            return;
        }
        if (v == SYM_EMPTY) {
            c->every_key = false; /* absent attributes are not indexed */
            continue;
        }
        if (i < 32 && k->kind != KEY_OTHER) c->held |= 1u << i; /* (undone below if the key is not used) */
        if (k->name == SYM_objectId) {
            ObjId id;
            if (!id_of(v, &id) || (c->single && c->single != id)) c->none = true;
            else c->single = id;
            continue;
        }
        const IdSet *s = pool_lookup_at(cx->pool, k->site, k->name, v);
        if (!s || s->live == 0) {
            c->none = true;
            return;
        }
        if (c->n == MAX_KEYS) {
            c->every_key = false;
            if (i < 32) c->held &= ~(1u << i);
            continue;
        }
        cands_add_set(c, s);
    }
    for (int i = 0; i < mi->nranges && !c->none && !c->single; i++)
        if (!cands_add_range(cx, c, &mi->ranges[i])) c->none = true;
    if (c->none) return;
    if (!c->single && c->n == 0) cands_add_set(c, &cx->pool->all);
}

/* Next candidate id >= c->next_from, or 0. */
static ObjId cands_next(Ctx *cx, Cands *c)
{
    if (c->none) return 0;
    if (c->single) {
        ObjId id = c->single;
        if (id < c->next_from) return 0;
        c->next_from = id + 1;
        for (int i = 0; i < c->n; i++)
            if (!idset_has(c->sets[i], id)) return 0;
        return pool_get(cx->pool, id) ? id : 0;
    }
    ObjId target = c->next_from;
    int agree = 0;
    for (int i = 0; agree < c->n; i = i + 1 == c->n ? 0 : i + 1) { /* (not %: a division each step) */
        if (!meter_work(cx, 1)) return 0;
        const IdSet *s = c->sets[i];
        c->pos[i] = idset_seek(s, c->pos[i], target);
        if (c->pos[i] >= s->len) return 0;
        ObjId id = s->ids[c->pos[i]];
        if (id == target) agree++;
        else {
            target = id;
            agree = 1;
        }
    }
    c->next_from = target + 1;
    return target;
}

/* ---- the search ---- */

typedef struct Goal Goal;
typedef bool (*GoalFn)(Ctx *cx, void *ud);
struct Goal {
    const Node *n;    /* NULL: the end of the goals, call fn */
    const Obj *cand;
    const MatchKey *key; /* n is this key of the candidate's match (prove_match), or NULL */
    const Goal *next;
    GoalFn fn;
    void *ud;
};

static bool prove(Ctx *cx, const Node *n, const Obj *cand, const Goal *rest);

/* Room for the goals of a condition: on the stack for the usual sizes,
 * since the engine tests a rule on every pass. */
#define LOCAL_GOALS 16

/* The attribute of the candidate that goal n binds a variable to, when n
 * is `attr==%v` or `%v==attr` with %v unbound (*var: %v), else NULL. */
static const Node *binding_attr(const Ctx *cx, const Node *n, const Obj *cand, const Node **var)
{
    if (n->kind != N_CMP || n->op != TK_EQ || !cand) return NULL;
    const Node *a = n->kid[0], *b = n->kid[1];
    if (unbound_var(cx, a) && b->kind == N_ATTR) {
        *var = a;
        return b;
    }
    if (a->kind == N_ATTR && unbound_var(cx, b)) {
        *var = b;
        return a;
    }
    return NULL;
}

/* Proves the goals from rest on.  Those that bind a variable to an
 * attribute of their candidate (`from==%f`, most of what a match leaves
 * after its keys) have one solution each: they are made here in a loop,
 * each charged what prove and prove_binding charge for it (a unit for
 * the goal, one for the attribute's value), and a failure of what
 * follows undoes them together, as prove_binding's would one by one. */
static bool prove_rest(Ctx *cx, const Goal *rest)
{
    if (cx->failed) return true;
    size_t mark = ctx_trail_mark(cx);
    for (; rest->n; rest = rest->next) {
        int slot;
        Sym name;
        if (rest->key) { /* a key binds when its other side is a variable not yet bound */
            if (rest->key->kind != KEY_VAR || cx->vars[rest->key->var] != VAR_UNBOUND) break;
            slot = rest->key->var;
            name = rest->key->name;
        } else {
            const Node *var, *attr = binding_attr(cx, rest->n, rest->cand, &var);
            if (!attr) break;
            slot = var->var;
            name = attr->sym;
        }
        if (!meter_work(cx, 1) || !meter_work(cx, 1)) return true;
        ctx_bind(cx, slot, obj_get(rest->cand, name));
    }
    if (!rest->n) {
        if (rest->fn(cx, rest->ud)) return true;
    } else if (prove(cx, rest->n, rest->cand, rest->next)) {
        return true;
    }
    ctx_trail_undo(cx, mark);
    return false;
}

static bool stop_here(Ctx *cx, void *ud) { return true; }

/* Is there a solution of n?  Bindings made inside are undone. */
static bool has_solution(Ctx *cx, const Node *n, const Obj *cand)
{
    size_t mark = ctx_trail_mark(cx);
    Goal stop = {.fn = stop_here};
    Choices *ch = cx->choices;
    cx->choices = NULL; /* a search inside the condition's: no choice of it */
    bool r = prove(cx, n, cand, &stop);
    cx->choices = ch;
    ctx_trail_undo(cx, mark);
    return r && !cx->failed;
}

static bool prove_binding(Ctx *cx, const Node *var, const Node *other, const Obj *cand, const Goal *rest)
{
    if (unbound_var(cx, other)) {
        ctx_error(cx, var, "%%%s == %%%s: neither variable is bound", sym_text(var->sym), sym_text(other->sym));
        return true;
    }
    Sym v = eval_leaf(cx, other, cand);
    if (cx->failed) return true;
    size_t mark = ctx_trail_mark(cx);
    ctx_bind(cx, var->var, v);
    if (prove_rest(cx, rest)) return true;
    ctx_trail_undo(cx, mark);
    return false;
}

/* A choice point of the condition's search (Choices): its depth, and
 * where it starts: from the first choice, or, while the path so far is
 * the one it resumes, from that path's choice here. */
static int choice_enter(Choices *ch, uint32_t *start)
{
    int d = ch->depth++;
    if (ch->follow == d && d < ch->nfrom) *start = ch->from[d];
    return d;
}

/* Choice v taken at depth d, entered with `follow` f0. */
static void choice_take(Choices *ch, int d, int f0, uint32_t v)
{
    if (d < MAX_CHOICES) ch->at[d] = v;
    ch->follow = f0 == d && d < ch->nfrom && ch->from[d] == v ? d + 1 : f0;
}

static void choice_leave(Choices *ch, int d, int f0)
{
    ch->depth = d;
    ch->follow = f0;
}

/* A candidate's proof of match m: its conjuncts in order, but for the
 * keys its posting lists already vouch for (Cands.held): favor's
 * `type=="vote" & propId==%p & objectId==%o` tests only its binding. */
static bool prove_match(Ctx *cx, const Node *m, const Cands *c, const Obj *cand, const Goal *rest)
{
    const Match *mi = m->match;
    if (!c->held || mi->nconj > LOCAL_GOALS) return prove(cx, m, cand, rest);
    Goal g[LOCAL_GOALS];
    int n = 0;
    for (int i = 0; i < mi->nconj; i++) {
        int k = mi->key[i];
        if (k >= 0 && k < 32 && (c->held >> k & 1)) continue;
        g[n++] = (Goal){.n = mi->conj[i], .cand = cand, .key = k >= 0 ? &mi->keys[k] : NULL};
    }
    if (!n) return prove_rest(cx, rest);
    for (int i = 0; i + 1 < n; i++) g[i].next = &g[i + 1];
    g[n - 1].next = rest;
    return prove_rest(cx, &g[0]);
}

static bool prove_exists(Ctx *cx, const Node *m, const Goal *rest)
{
    Cands c;
    cands_init(cx, m, &c);
    Choices *ch = cx->choices;
    int d = 0, f0 = 0;
    if (ch) {
        uint32_t start = 0;
        f0 = ch->follow;
        d = choice_enter(ch, &start);
        if (start > c.next_from) c.next_from = start;
    }
    bool found = false;
    for (ObjId id; !cx->failed && (id = cands_next(cx, &c));) {
        size_t mark = ctx_trail_mark(cx);
        if (ch) choice_take(ch, d, f0, id);
        if ((found = prove_match(cx, m, &c, pool_get(cx->pool, id), rest))) break;
        ctx_trail_undo(cx, mark);
    }
    if (ch && !found) choice_leave(ch, d, f0);
    cands_free(&c);
    return found || cx->failed;
}

static bool prove_or(Ctx *cx, const Node *n, const Obj *cand, const Goal *rest)
{
    Choices *ch = cx->choices;
    uint32_t start = 0;
    int d = 0, f0 = 0;
    if (ch) {
        f0 = ch->follow;
        d = choice_enter(ch, &start);
    }
    for (int i = (int)start; i < n->n; i++) {
        if (ch) choice_take(ch, d, f0, (uint32_t)i);
        if (prove(cx, n->kid[i], cand, rest)) return true;
    }
    if (ch) choice_leave(ch, d, f0);
    return false;
}

static bool is_exists(const Node *n) { return n->kind == N_CALL && n->bi == BI_exists; }

static bool prove(Ctx *cx, const Node *n, const Obj *cand, const Goal *rest)
{
    if (cx->failed || !meter_work(cx, 1)) return true;
    switch (n->kind) {
    case N_AND: {
        Goal g = {.n = n->kid[1], .cand = cand, .next = rest};
        return prove(cx, n->kid[0], cand, &g);
    }
    case N_OR:
        return prove_or(cx, n, cand, rest);
    case N_NOT: {
        bool found = has_solution(cx, n->kid[0], cand);
        if (cx->failed) return true;
        return found ? false : prove_rest(cx, rest);
    }
    case N_BOOL:
        return n->sym == SYM_T ? prove_rest(cx, rest) : false;
    case N_CMP:
        if (n->op == TK_EQ && unbound_var(cx, n->kid[0])) return prove_binding(cx, n->kid[0], n->kid[1], cand, rest);
        if (n->op == TK_EQ && unbound_var(cx, n->kid[1])) return prove_binding(cx, n->kid[1], n->kid[0], cand, rest);
        break;
    case N_CALL:
        if (is_exists(n)) return prove_exists(cx, n->kid[0], rest);
        break;
    default:
        break;
    }
    Sym v = eval_value(cx, n, cand);
    if (cx->failed) return true;
    return v == SYM_T ? prove_rest(cx, rest) : false;
}

/* The goal after the first conjunct's: it had a solution (ud: the next goal). */
static bool note_first(Ctx *cx, void *ud)
{
    cx->first_held = true;
    return prove_rest(cx, ud);
}

static Goal *goal_room(Goal *local, int n)
{
    return n <= LOCAL_GOALS ? local : xcalloc((size_t)n, sizeof(Goal));
}

/* The end of the condition's search: its choices are the solution's,
 * when they are kept. */
static bool condition_end(Ctx *cx, void *ud)
{
    Choices *ch = cx->choices;
    if (!ch) return true;
    ch->nfound = ch->depth <= MAX_CHOICES ? ch->depth : -1;
    if (ch->nfound > 0) memcpy(ch->found, ch->at, (size_t)ch->nfound * sizeof *ch->at);
    return true;
}

/* goals[0..nconj]: the goals after conj[0] is proved, a mark that it
 * held, then each later conjunct, then the end. */
static void fill_goals(Goal *goals, const Node *const *conj, int nconj)
{
    goals[nconj] = (Goal){.fn = condition_end};
    for (int k = nconj - 1; k >= 1; k--) goals[k] = (Goal){.n = conj[k], .next = &goals[k + 1]};
    goals[0] = (Goal){.fn = note_first, .ud = &goals[1]};
}

static bool prove_condition(Ctx *cx, const Node *first, const Goal *goals, bool *first_held)
{
    ctx_bind_reset(cx);
    cx->first_held = false;
    if (cx->choices) {
        cx->choices->depth = cx->choices->follow = 0;
        cx->choices->nfound = -1;
    }
    bool r = prove(cx, first, NULL, goals);
    *first_held = cx->first_held;
    return r && !cx->failed;
}

bool eval_conjunction(Ctx *cx, const Node *const *conj, int nconj, bool *first_held)
{
    Goal local[LOCAL_GOALS], *goals = goal_room(local, nconj + 1);
    fill_goals(goals, conj, nconj);
    bool r = prove_condition(cx, conj[0], goals, first_held);
    if (goals != local) free(goals);
    return r;
}

struct CondGoals {
    const Node *first;
    Goal goals[]; /* fill_goals' */
};

CondGoals *cond_goals_new(const Node *const *conj, int nconj)
{
    CondGoals *g = xmalloc(sizeof *g + (size_t)(nconj + 1) * sizeof(Goal));
    g->first = conj[0];
    fill_goals(g->goals, conj, nconj);
    return g;
}

void cond_goals_free(CondGoals *g) { free(g); }

bool eval_cond_goals(Ctx *cx, const CondGoals *g, bool *first_held)
{
    return prove_condition(cx, g->first, g->goals, first_held);
}

/* Is there a solution of the conjunction conj[0..nconj) in which conjunct
 * `first` (a plain exists) takes one of ids as its candidate?  That
 * conjunct is proved first, the others after it in their order; lang_deps.h
 * says when this finds the same solutions as the condition. */
bool eval_condition_seeded(Ctx *cx, const Node *const *conj, int nconj, int first, const ObjId *ids, int nids)
{
    ctx_bind_reset(cx);
    Goal local[LOCAL_GOALS], *goals = goal_room(local, nconj);
    int ng = 0;
    for (int k = 0; k < nconj; k++)
        if (k != first) goals[ng++] = (Goal){.n = conj[k]};
    goals[ng] = (Goal){.fn = stop_here};
    for (int k = 0; k < ng; k++) goals[k].next = &goals[k + 1];
    const Node *m = conj[first]->kid[0];
    bool found = false;
    Choices *ch = cx->choices;
    cx->choices = NULL;
    for (int k = 0; k < nids && !found && !cx->failed; k++) {
        const Obj *o = pool_get(cx->pool, ids[k]);
        if (!o) continue;
        /* the match's own conjuncts, keys included, are tested by prove */
        size_t mark = ctx_trail_mark(cx);
        found = prove(cx, m, o, &goals[0]);
        ctx_trail_undo(cx, mark);
    }
    cx->choices = ch;
    if (goals != local) free(goals);
    return found && !cx->failed;
}

/* ---- matches for builtins ---- */

typedef struct EachState {
    MatchFn fn;
    void *ud;
    const Obj *obj;
    bool stop;
} EachState;

static bool each_solution(Ctx *cx, void *ud)
{
    EachState *st = ud;
    if (!st->fn(cx, st->obj, st->ud)) st->stop = true;
    return true; /* first solution per object only */
}

/* The object of a match that is `objectId==X` alone, X a literal or a
 * bound variable that is not "": the target of most sets and deletes.
 * Found as cands_init and cands_next would find it, and charged as they
 * charge it (a unit for X; the key vouches for the candidate, so nothing
 * is left to prove).  *by_id: the match has this form. */
static const Obj *object_by_id(Ctx *cx, const Match *mi, bool *by_id)
{
    *by_id = false;
    if (mi->nkeys != 1 || mi->nconj != 1 || mi->nranges || mi->key[0] != 0 || mi->keys[0].name != SYM_objectId)
        return NULL;
    const Node *x = mi->keys[0].val;
    bool bound = x->kind == N_VAR && cx->vars[x->var] != VAR_UNBOUND;
    Sym v = node_is_literal(x) ? x->sym : bound ? cx->vars[x->var] : SYM_EMPTY;
    if (v == SYM_EMPTY) return NULL; /* not a key: cands_init's way */
    *by_id = true;
    ObjId id;
    if (cx->failed || !meter_work(cx, 1) || !id_of(v, &id)) return NULL;
    return pool_get(cx->pool, id);
}

void eval_each_match(Ctx *cx, const Node *m, MatchFn fn, void *ud)
{
    Choices *ch = cx->choices;
    bool by_id;
    const Obj *o = object_by_id(cx, m->match, &by_id);
    if (by_id) {
        size_t mark = ctx_trail_mark(cx);
        cx->choices = NULL;
        if (o && !cx->failed) fn(cx, o, ud);
        cx->choices = ch;
        ctx_trail_undo(cx, mark);
        return;
    }
    Cands c;
    cands_init(cx, m, &c);
    EachState st = {fn, ud, NULL, false};
    Goal g = {.fn = each_solution, .ud = &st};
    cx->choices = NULL; /* a search inside the condition's: no choice of it */
    for (ObjId id; !cx->failed && !st.stop && (id = cands_next(cx, &c));) {
        size_t mark = ctx_trail_mark(cx);
        st.obj = pool_get(cx->pool, id);
        prove_match(cx, m, &c, st.obj, &g);
        ctx_trail_undo(cx, mark);
    }
    cx->choices = ch;
    cands_free(&c);
}

static bool take_first(Ctx *cx, const Obj *o, void *ud)
{
    *(ObjId *)ud = o->id;
    return false;
}

ObjId eval_first_match(Ctx *cx, const Node *m)
{
    ObjId id = 0;
    eval_each_match(cx, m, take_first, &id);
    return cx->failed ? 0 : id;
}

static bool count_one(Ctx *cx, const Obj *o, void *ud)
{
    (*(long *)ud)++;
    return true;
}

long eval_count(Ctx *cx, const Node *m)
{
    Cands c;
    cands_init(cx, m, &c);
    bool fast = !cx->failed && !c.none && c.every_key && !c.single;
    long n = 0;
    if (fast) {
        /* every conjunct is an indexed equality: the join is the answer */
        if (c.n == 1) n = c.sets[0]->live;
        else while (cands_next(cx, &c)) n++;
    }
    bool done = fast || cx->failed || c.none;
    cands_free(&c);
    if (done) return n;
    eval_each_match(cx, m, count_one, &n);
    return n;
}

/* ---- values ---- */

/* The number n evaluates to, or SYM_EMPTY and an error. */
static Sym eval_number_sym(Ctx *cx, const Node *n, const Obj *cand)
{
    Sym v = eval_value(cx, n, cand);
    if (cx->failed) return SYM_EMPTY;
    if (!sym_is_number(v)) {
        ctx_error(cx, n, "arithmetic on text \"%.40s\"", sym_text(v));
        return SYM_EMPTY;
    }
    return v;
}

bool eval_number(Ctx *cx, const Node *n, const Obj *cand, mpq_t out)
{
    Sym v = eval_number_sym(cx, n, cand);
    if (cx->failed) return false;
    mpq_set(out, sym_num(v));
    return true;
}

/* x op y in 64 bits, when the result is a whole number that fits: most
 * arithmetic (scores, counts, times) needs no rational.  False otherwise
 * (an overflow, a fraction), and GMP computes it. */
static bool int64_arith(int op, int64_t x, int64_t y, int64_t *r)
{
    switch (op) {
    case TK_PLUS: return !__builtin_add_overflow(x, y, r);
    case TK_MINUS: return !__builtin_sub_overflow(x, y, r);
    case TK_STAR: return !__builtin_mul_overflow(x, y, r);
    default:
        if (y == 0 || (x == INT64_MIN && y == -1) || x % y != 0) return false;
        *r = x / y;
        return true;
    }
}

/* The number a computation made: the memory of its text. */
static Sym metered_result(Ctx *cx, Sym r)
{
    meter_text(cx, sym_len(r));
    return r;
}

static Sym eval_arith(Ctx *cx, const Node *n, const Obj *cand)
{
    Sym va = eval_number_sym(cx, n->kid[0], cand);
    if (cx->failed) return SYM_EMPTY;
    Sym vb = eval_number_sym(cx, n->kid[1], cand);
    if (cx->failed) return SYM_EMPTY;
    int64_t x, y, z;
    bool small = sym_small_int(va, &x) && sym_small_int(vb, &y);
    if (small) {
        /* charged as the rationals would be */
        if (!meter_number_bits(cx, n, int64_bits(x) + int64_bits(y))) return SYM_EMPTY;
        if (n->op == TK_SLASH && y == 0) {
            ctx_error(cx, n, "%s", "division by zero");
            return SYM_EMPTY;
        }
        if (int64_arith(n->op, x, y, &z)) return metered_result(cx, sym_from_int64(z));
    }
    mpq_t a, b;
    mpq_inits(a, b, NULL);
    mpq_set(a, sym_num(va));
    mpq_set(b, sym_num(vb));
    Sym r = SYM_EMPTY;
    if (small || meter_number(cx, n, a, b)) {
        switch (n->op) {
        case TK_PLUS: mpq_add(a, a, b); break;
        case TK_MINUS: mpq_sub(a, a, b); break;
        case TK_STAR: mpq_mul(a, a, b); break;
        default:
            if (mpq_sgn(b) == 0) {
                ctx_error(cx, n, "%s", "division by zero");
                goto done;
            }
            mpq_div(a, a, b);
        }
        r = metered_result(cx, sym_from_mpq(a));
    }
done:
    mpq_clears(a, b, NULL);
    return r;
}

static Sym eval_compare(Ctx *cx, const Node *n, const Obj *cand)
{
    if (n->op == TK_EQ && (unbound_var(cx, n->kid[0]) || unbound_var(cx, n->kid[1])))
        return has_solution(cx, n, cand) ? SYM_T : SYM_F;
    Sym a = eval_leaf(cx, n->kid[0], cand);
    Sym b = eval_leaf(cx, n->kid[1], cand);
    if (cx->failed) return SYM_EMPTY;
    bool r;
    switch (n->op) {
    case TK_EQ: r = val_eq(a, b); break;
    case TK_NE: r = !val_eq(a, b); break;
    case TK_LT: r = val_cmp(a, b) < 0; break;
    case TK_LE: r = val_cmp(a, b) <= 0; break;
    case TK_GT: r = val_cmp(a, b) > 0; break;
    default: r = val_cmp(a, b) >= 0; break;
    }
    return r ? SYM_T : SYM_F;
}

/* Room on the stack for a message's text (a rule's send, at every vote
 * of Engine City): composing it in a Buf took four reallocs. */
#define CONCAT_LOCAL 256

static Sym eval_concat(Ctx *cx, const Node *n, const Obj *cand)
{
    char local[CONCAT_LOCAL];
    size_t len = 0; /* of the text in local */
    Buf b = {0};    /* the text, once it outgrows local */
    for (int i = 0; i < n->n && !cx->failed; i++) {
        Sym v = eval_value(cx, n->kid[i], cand);
        if (v == SYM_EMPTY || !meter_text(cx, sym_len(v) + 1)) continue;
        size_t vlen = sym_len(v), sep = (b.s ? b.len : len) != 0;
        if (!b.s && len + sep + vlen <= sizeof local) {
            if (sep) local[len] = ' ';
            memcpy(local + len + sep, sym_text(v), vlen);
            len += sep + vlen;
            continue;
        }
        if (!b.s) buf_add(&b, local, len);
        if (sep) buf_putc(&b, ' ');
        buf_add(&b, sym_text(v), vlen);
    }
    Sym r = b.s ? sym_intern(b.s, b.len) : sym_intern(local, len);
    buf_free(&b);
    return r;
}

Sym eval_value(Ctx *cx, const Node *n, const Obj *cand)
{
    if (cx->failed || !meter_work(cx, 1)) return SYM_EMPTY;
    switch (n->kind) {
    case N_NUM:
    case N_STR:
    case N_BOOL:
        return n->sym;
    case N_VAR:
        if (cx->vars[n->var] == VAR_UNBOUND) {
            ctx_error(cx, n, "variable %%%s is not bound here", sym_text(n->sym));
            return SYM_EMPTY;
        }
        return cx->vars[n->var];
    case N_ATTR:
        if (!cand) {
            ctx_error(cx, n, "attribute %s is read outside a match", sym_text(n->sym));
            return SYM_EMPTY;
        }
        return obj_get(cand, n->sym);
    case N_CALL: {
        const Builtin *b = &builtins[n->bi];
        if (b->verb) {
            ctx_error(cx, n, "%s is a verb, not a function", b->name);
            return SYM_EMPTY;
        }
        return handlers[n->bi].func(cx, n, cand);
    }
    case N_AND:
    case N_OR:
    case N_NOT:
        return has_solution(cx, n, cand) ? SYM_T : SYM_F;
    case N_CMP:
        return eval_compare(cx, n, cand);
    case N_CONCAT:
        return eval_concat(cx, n, cand);
    case N_ARITH:
        return eval_arith(cx, n, cand);
    case N_NEG: {
        int64_t x;
        Sym v = eval_number_sym(cx, n->kid[0], cand);
        if (cx->failed) return SYM_EMPTY;
        if (sym_small_int(v, &x) && x != INT64_MIN)
            return meter_number_bits(cx, n, int64_bits(x)) ? sym_from_int64(-x) : SYM_EMPTY;
        mpq_t a;
        mpq_init(a);
        mpq_set(a, sym_num(v));
        Sym r = SYM_EMPTY;
        if (meter_number(cx, n, a, NULL)) {
            mpq_neg(a, a);
            r = sym_from_mpq(a);
        }
        mpq_clear(a);
        return r;
    }
    }
    return SYM_EMPTY;
}

/* ---- verbs ---- */

void eval_verbs(Ctx *cx, const Node *v, const Obj *cand)
{
    if (cx->failed) return;
    if (v->kind == N_AND) {
        eval_verbs(cx, v->kid[0], cand);
        eval_verbs(cx, v->kid[1], cand);
        return;
    }
    if (v->kind != N_CALL || !builtins[v->bi].verb) {
        ctx_error(cx, v, "%s", "expected a verb");
        return;
    }
    handlers[v->bi].act(cx, v, cand);
}

void eval_then(Ctx *cx) { eval_verbs(cx, cx->prog->then, NULL); }

typedef struct Assignment {
    Sym name;
    Sym value;
} Assignment;

/* The assignments being read: most verbs assign a few attributes, kept on
 * the stack; more go to the heap. */
#define LOCAL_ASSIGNMENTS 16
typedef struct Assignments {
    Assignment local[LOCAL_ASSIGNMENTS], *as;
    int n, cap;
    const Node *bind_id; /* creating: the variable objectId==%v binds */
} Assignments;

static void assignment_add(Assignments *a, Sym name, Sym value)
{
    if (a->n == a->cap) {
        a->cap *= 2;
        if (a->as == a->local) a->as = memcpy(xmalloc((size_t)a->cap * sizeof *a->as), a->local, sizeof a->local);
        else a->as = xrealloc(a->as, (size_t)a->cap * sizeof *a->as);
    }
    a->as[a->n++] = (Assignment){name, value};
}

/* Reads the conjuncts of an assignment list, left to right, until one fails. */
static void read_assignments(Ctx *cx, const Node *c, bool creating, const Obj *t, Assignments *a)
{
    if (cx->failed) return;
    if (c->kind == N_AND) {
        read_assignments(cx, c->kid[0], creating, t, a);
        read_assignments(cx, c->kid[1], creating, t, a);
        return;
    }
    if (c->kind == N_BOOL && c->sym == SYM_T) return; /* create(T): an empty object */
    if (c->kind != N_CMP || c->op != TK_EQ || c->kid[0]->kind != N_ATTR) {
        ctx_error(cx, c, "%s", "expected an assignment attr==value");
        return;
    }
    Sym name = c->kid[0]->sym;
    if (name == SYM_objectId) {
        if (creating && unbound_var(cx, c->kid[1])) a->bind_id = c->kid[1];
        else ctx_error(cx, c, "%s", "objectId is assigned by the engine and cannot be set");
        return;
    }
    Sym value = eval_leaf(cx, c->kid[1], t);
    assignment_add(a, name, value);
}

/* Assigns attr==expr pairs to target (read everything, then write).  When
 * creating, target is 0: the object is made after the values are read,
 * objectId==%v binds %v to its id, and bare names read `cand` (forEach's
 * object) since there is no target yet. */
void eval_assign(Ctx *cx, const Node *assigns, ObjId target, const Obj *cand)
{
    bool creating = target == 0;
    Assignments a; /* not zeroed: only the first n are read */
    a.as = a.local, a.n = 0, a.cap = LOCAL_ASSIGNMENTS, a.bind_id = NULL;
    read_assignments(cx, assigns, creating, target ? pool_get(cx->pool, target) : cand, &a);
    const Node *bind_id = a.bind_id;
    Assignment *as = a.as;
    int na = a.n;
    /* what the pool adds: the object, then per attribute an undo record,
     * a slot and a posting-list entry */
    if (!cx->failed && meter_work(cx, 1 + (uint64_t)na) && meter_memory(cx, (creating ? 96 : 0) + 64 * (uint64_t)na)) {
        if (creating) {
            target = pool_create(cx->pool);
            if (bind_id) ctx_bind(cx, bind_id->var, pool_get(cx->pool, target)->idsym);
        }
        for (int i = 0; i < na; i++) pool_set(cx->pool, target, as[i].name, as[i].value);
    }
    if (as != a.local) free(as);
}
