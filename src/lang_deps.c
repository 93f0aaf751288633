/*
 * lang_deps.c - the reads of a rule's condition and the test of a change
 * against them (lang_deps.h).
 */
#include "lang_deps.h"

#include <stdlib.h>
#include <string.h>

#include "lang_builtins.h"
#include "util.h"

static bool is_exists(const Node *n)
{
    return n->kind == N_CALL && n->bi == BI_exists;
}

static bool takes_match(const Node *n)
{
    if (n->kind != N_CALL) return false;
    for (int i = 0; i < n->n; i++)
        if (builtin_argkind(&builtins[n->bi], i) == ARG_MATCH) return true;
    return false;
}

/* The type a match's candidates must have: its type=="c" key. */
static Sym match_type(const Node *m)
{
    const Match *mi = m->match;
    for (int i = 0; mi && i < mi->nkeys; i++)
        if (mi->keys[i].name == SYM_type && node_is_literal(mi->keys[i].val)) return sym_canon(mi->keys[i].val->sym);
    return SYM_EMPTY;
}

/* The match's attr == "literal" keys, but "" (absent) and objectId,
 * sorted by name as an object's attributes are (deps_may_match). */
static void const_keys(Read *r, const Node *m)
{
    const Match *mi = m->match;
    for (int i = 0; mi && i < mi->nkeys; i++) {
        const MatchKey *k = &mi->keys[i];
        if (k->name == SYM_objectId || !node_is_literal(k->val) || k->val->sym == SYM_EMPTY) continue;
        r->consts = xrealloc(r->consts, (size_t)(r->nconsts + 1) * sizeof *r->consts);
        int j = r->nconsts++;
        for (; j > 0 && r->consts[j - 1].name > k->name; j--) r->consts[j] = r->consts[j - 1];
        r->consts[j] = (ConstKey){k->name, sym_canon(k->val->sym)};
    }
}

static int new_read(Deps *d, const Node *m, int conj, int *cap)
{
    GROW(d->reads, d->nreads, *cap);
    Read *r = &d->reads[d->nreads];
    *r = (Read){.type = match_type(m), .conj = conj};
    const_keys(r, m);
    return d->nreads++;
}

static void add_attr(Read *r, Sym name)
{
    if (name == SYM_objectId) return; /* fixed for the object's life */
    for (int i = 0; i < r->nattrs; i++)
        if (r->attrs[i] == name) return;
    r->attrs = xrealloc(r->attrs, (size_t)(r->nattrs + 1) * sizeof *r->attrs);
    r->attrs[r->nattrs++] = name;
}

/* Adds what n reads: bare names read the candidate of read `r` (-1: none);
 * a call taking a match starts a read of its own, for its match and for the
 * expressions evaluated on its candidates (sum's expr). */
static void walk(Deps *d, const Node *n, int r, int *cap)
{
    if (n->kind == N_ATTR) {
        if (r >= 0) add_attr(&d->reads[r], n->sym);
        return;
    }
    if (n->kind == N_CALL && builtin_has(n->bi, BF_RANDOM | BF_BY_NAME)) d->always = true;
    if (n->kind == N_CALL && builtin_has(n->bi, BF_CLOCK)) d->timed = true;
    if (n->kind == N_CALL && builtin_has(n->bi, BF_CLOCK) && n->bi != BI_timeGE) d->timed_other = true;
    if (takes_match(n)) {
        const Node *m = NULL;
        for (int i = 0; i < n->n && !m; i++)
            if (builtin_argkind(&builtins[n->bi], i) == ARG_MATCH) m = n->kid[i];
        r = new_read(d, m, -1, cap);
    }
    for (int i = 0; i < n->n; i++) walk(d, n->kid[i], r, cap);
}

/* ---- variables, for the seeding conditions ---- */

static void count_vars(const Node *n, int *count)
{
    if (n->kind == N_VAR) count[n->var]++;
    for (int i = 0; i < n->n; i++) count_vars(n->kid[i], count);
}

/* Clears only_compared[x] for each occurrence of x that is not an operand
 * of a comparison with a non-variable. */
static void mark_uncompared(const Node *n, const Node *parent, bool *only_compared)
{
    if (n->kind == N_VAR) {
        bool ok = parent && parent->kind == N_CMP && parent->n == 2 &&
                  parent->kid[parent->kid[0] == n ? 1 : 0]->kind != N_VAR;
        if (!ok) only_compared[n->var] = false;
    }
    for (int i = 0; i < n->n; i++) mark_uncompared(n->kid[i], n, only_compared);
}

/* The variables a conjunct surely binds (or filters on) when it succeeds. */
static void binders(const Node *c, bool *bound)
{
    if (is_exists(c)) {
        const Match *mi = c->kid[0]->match;
        for (int k = 0; mi && k < mi->nkeys; k++)
            if (mi->keys[k].val->kind == N_VAR) bound[mi->keys[k].val->var] = true;
    } else if (c->kind == N_CMP && c->op == TK_EQ) {
        if (c->kid[0]->kind == N_VAR && c->kid[1]->kind != N_VAR) bound[c->kid[0]->var] = true;
        if (c->kid[1]->kind == N_VAR && c->kid[0]->kind != N_VAR) bound[c->kid[1]->var] = true;
    }
}

static int key_uses(const Node *m, int var)
{
    int n = 0;
    const Match *mi = m->match;
    for (int k = 0; mi && k < mi->nkeys; k++)
        if (mi->keys[k].val->kind == N_VAR && mi->keys[k].val->var == var) n++;
    return n;
}

/* May positive conjunct i be proved first?  See lang_deps.h. */
static bool may_seed(const Deps *d, int i, int nvars, const bool *only_compared)
{
    const Node *m = d->conj[i]->kid[0];
    int *in_m = xcalloc((size_t)nvars + 1, sizeof *in_m), *in_c = xcalloc((size_t)nvars + 1, sizeof *in_c);
    bool *bound = xcalloc((size_t)nvars + 1, sizeof *bound);
    count_vars(m, in_m);
    bool ok = true;
    for (int j = 0; j < i && ok; j++) {
        memset(in_c, 0, (size_t)nvars * sizeof *in_c);
        count_vars(d->conj[j], in_c);
        /* a variable of Ci seen before Ci: bound by then, or bound by
         * this conjunct's keys, which filter instead when Ci came first */
        for (int x = 0; x < nvars && ok; x++)
            if (in_c[x] && in_m[x] &&
                (!only_compared[x] || !(bound[x] || (is_exists(d->conj[j]) && key_uses(d->conj[j]->kid[0], x) == in_c[x]))))
                ok = false;
        binders(d->conj[j], bound);
    }
    for (int x = 0; x < nvars && ok; x++)
        if (in_m[x] && bound[x] && key_uses(m, x) != in_m[x]) ok = false;
    free(in_m);
    free(in_c);
    free(bound);
    return ok;
}

Deps *deps_analyse(const Prog *p)
{
    Deps *d = xcalloc(1, sizeof *d);
    if (!p->cond) return d;
    int cap = 0, rcap = 0;
    node_conjuncts(p->cond, &d->conj, &d->nconj, &cap);
    d->seedable = xcalloc((size_t)d->nconj, sizeof *d->seedable);
    bool *only_compared = xcalloc((size_t)p->nvars + 1, sizeof *only_compared);
    for (int x = 0; x < p->nvars; x++) only_compared[x] = true;
    mark_uncompared(p->cond, NULL, only_compared);
    for (int i = 0; i < d->nconj; i++) {
        const Node *c = d->conj[i];
        if (!is_exists(c)) {
            walk(d, c, -1, &rcap);
            continue;
        }
        int r = new_read(d, c->kid[0], i, &rcap);
        walk(d, c->kid[0], r, &rcap);
        d->seedable[i] = may_seed(d, i, p->nvars, only_compared);
    }
    free(only_compared);
    return d;
}

void deps_free(Deps *d)
{
    if (!d) return;
    for (int i = 0; i < d->nreads; i++) {
        free(d->reads[i].attrs);
        free(d->reads[i].consts);
    }
    free(d->reads);
    free(d->conj);
    free(d->seedable);
    free(d);
}

bool deps_relevant(const Read *r, const Change *c)
{
    if (r->type != SYM_EMPTY) {
        bool had = c->kind == CHANGE_SET && c->name == SYM_type && sym_canon(c->old) == r->type;
        if (!had && sym_canon(c->type) != r->type) return false;
        if (c->kind != CHANGE_SET || c->name == SYM_type) return true;
    } else if (c->kind != CHANGE_SET) {
        return true;
    }
    for (int i = 0; i < r->nattrs; i++)
        if (r->attrs[i] == c->name) return true;
    return false;
}

bool deps_may_match(const Read *r, const Obj *o)
{
    if (!o) return false;
    /* the keys and the attributes both sorted by name: one walk over the
     * attributes answers for every key (the engine asks at every change) */
    const Shape *sh = o->shape;
    uint32_t j = 0;
    for (int i = 0; i < r->nconsts; i++) {
        Sym name = r->consts[i].name;
        while (j < sh->n && sh->names[j] < name) j++;
        Sym v = j < sh->n && sh->names[j] == name ? o->vals[j] : SYM_EMPTY;
        if (sym_canon(v) != r->consts[i].value) return false;
    }
    return true;
}
