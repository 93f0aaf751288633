/*
 * lang_check.c - static analysis of a parsed rule (lang_check.h).
 *
 * The walk follows evaluation order and tracks which variables are bound:
 * `&` passes bindings on, `|` keeps those bound on both sides, `!` and value
 * contexts (count, if, ...) keep theirs local, exists in a condition lets
 * them escape, and the verbs see the condition's bindings plus those their
 * own create(objectId==%v) adds.
 *
 * It also notes what binds each variable, so far as it can see: one bound
 * by objectId==%v (in a match, or create's) holds an object's id, and one
 * given as the recipients of a verb that sends (send, sendObject: their
 * first argument, BF_SENDS) should hold addresses.  A variable that every
 * binding makes an id, given as recipients, is warned about at the end.
 */
#include "lang_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_builtins.h"
#include "util.h"

typedef struct Chk {
    const Prog *p;
    Diags *out;
    int part;
    bool *ever_bound; /* bound somewhere */
    bool *read;       /* read somewhere */
    const Node **bound_at;
    int *bound_part;  /* the part (if/then) of that first binding */
    bool *by_id;      /* some binding is objectId==%v */
    bool *by_other;   /* some binding is anything else */
    const Node **to_addr; /* the first place it is given as a verb's recipients */
    int *to_addr_part;
    int *to_addr_verb;    /* that verb's BuiltinId */
} Chk;

static void diag(Chk *c, bool error, const Node *at, const char *fmt, ...)
{
    GROW(c->out->d, c->out->n, c->out->cap);
    Diag *d = &c->out->d[c->out->n++];
    d->error = error;
    d->part = c->part;
    d->line = at->line;
    d->col = at->col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    if (error) c->out->nerrors++;
}

static bool *copy(const Chk *c, const bool *b)
{
    size_t n = (size_t)(c->p->nvars ? c->p->nvars : 1);
    bool *r = xmalloc(n);
    memcpy(r, b, n);
    return r;
}

static void chk_cond(Chk *c, const Node *n, bool *bound, bool in_match);
static void chk_value(Chk *c, const Node *n, bool *bound, bool in_match);

/* value: what var is bound to (the other side of ==), NULL if not known. */
static void bind(Chk *c, const Node *var, bool *bound, const Node *value)
{
    if (value && value->kind == N_ATTR && value->sym == SYM_objectId) c->by_id[var->var] = true;
    else c->by_other[var->var] = true;
    bound[var->var] = true;
    if (!c->ever_bound[var->var]) {
        c->bound_at[var->var] = var;
        c->bound_part[var->var] = c->part;
    }
    c->ever_bound[var->var] = true;
}

static void chk_local_cond(Chk *c, const Node *n, const bool *bound, bool in_match)
{
    bool *b = copy(c, bound);
    chk_cond(c, n, b, in_match);
    free(b);
}

/* Arguments of a function or of a verb: matches bind for what follows. */
static void chk_args(Chk *c, const Node *call, bool *bound, bool in_match)
{
    const Builtin *b = &builtins[call->bi];
    bool after_match = false;
    for (int i = 0; i < call->n; i++) {
        if (builtin_argkind(b, i) == ARG_MATCH) {
            chk_cond(c, call->kid[i], bound, true);
            after_match = true;
        } else {
            chk_value(c, call->kid[i], bound, in_match || after_match);
        }
    }
}

static void chk_value(Chk *c, const Node *n, bool *bound, bool in_match)
{
    switch (n->kind) {
    case N_VAR:
        if (!bound[n->var]) diag(c, true, n, "variable %%%s is used before anything binds it", sym_text(n->sym));
        c->read[n->var] = true;
        return;
    case N_ATTR:
        if (!in_match) diag(c, true, n, "attribute %s is read outside a match (write %%var or put it inside exists(...))", sym_text(n->sym));
        return;
    case N_AND:
    case N_OR:
    case N_NOT:
    case N_CMP:
        chk_local_cond(c, n, bound, in_match);
        return;
    case N_CALL: {
        const Builtin *b = &builtins[n->bi];
        if (b->verb) {
            diag(c, true, n, "%s is a verb: it belongs in then, not in a condition or a value", b->name);
            return;
        }
        bool *local = copy(c, bound);
        chk_args(c, n, local, in_match);
        free(local);
        return;
    }
    default:
        for (int i = 0; i < n->n; i++) chk_value(c, n->kid[i], bound, in_match);
    }
}

static void chk_cond(Chk *c, const Node *n, bool *bound, bool in_match)
{
    switch (n->kind) {
    case N_AND:
        chk_cond(c, n->kid[0], bound, in_match);
        chk_cond(c, n->kid[1], bound, in_match);
        return;
    case N_OR: {
        bool *a = copy(c, bound), *b = copy(c, bound);
        chk_cond(c, n->kid[0], a, in_match);
        chk_cond(c, n->kid[1], b, in_match);
        for (int i = 0; i < c->p->nvars; i++) bound[i] = a[i] && b[i];
        free(a);
        free(b);
        return;
    }
    case N_NOT:
        chk_local_cond(c, n->kid[0], bound, in_match);
        return;
    case N_CMP:
        if (n->op == TK_EQ) {
            const Node *l = n->kid[0], *r = n->kid[1];
            bool lu = l->kind == N_VAR && !bound[l->var];
            bool ru = r->kind == N_VAR && !bound[r->var];
            if (lu && ru) {
                diag(c, true, n, "%%%s == %%%s: neither side is bound, so nothing can be compared", sym_text(l->sym), sym_text(r->sym));
                bind(c, l, bound, NULL);
                bind(c, r, bound, NULL);
                return;
            }
            if (lu || ru) {
                chk_value(c, lu ? r : l, bound, in_match);
                bind(c, lu ? l : r, bound, lu ? r : l);
                return;
            }
        }
        chk_value(c, n->kid[0], bound, in_match);
        chk_value(c, n->kid[1], bound, in_match);
        return;
    case N_CALL:
        if (n->bi == BI_exists) {
            chk_cond(c, n->kid[0], bound, true);
            return;
        }
        chk_value(c, n, bound, in_match);
        return;
    default:
        chk_value(c, n, bound, in_match);
    }
}

static void chk_assign(Chk *c, const Node *n, bool *bound, bool creating, bool in_match)
{
    if (n->kind == N_AND) {
        chk_assign(c, n->kid[0], bound, creating, in_match);
        chk_assign(c, n->kid[1], bound, creating, in_match);
        return;
    }
    if (n->kind == N_BOOL && n->sym == SYM_T && creating) return;
    if (n->kind != N_CMP || n->op != TK_EQ || n->kid[0]->kind != N_ATTR) {
        diag(c, true, n, "%s", "expected an assignment attr==value");
        return;
    }
    const Node *rhs = n->kid[1];
    if (n->kid[0]->sym == SYM_objectId) {
        if (creating && rhs->kind == N_VAR && !bound[rhs->var]) bind(c, rhs, bound, n->kid[0]);
        else diag(c, true, n, "%s", creating ? "objectId==%v in create needs an unbound variable, which gets the new id"
                                             : "objectId is assigned by the engine and cannot be set");
        return;
    }
    chk_value(c, rhs, bound, in_match);
}

static void chk_verbs(Chk *c, const Node *n, bool *bound, bool in_match)
{
    if (n->kind == N_AND) {
        chk_verbs(c, n->kid[0], bound, in_match);
        chk_verbs(c, n->kid[1], bound, in_match);
        return;
    }
    if (n->kind != N_CALL) {
        diag(c, true, n, "%s", "expected a verb (create, set, send, ...)");
        return;
    }
    const Builtin *b = &builtins[n->bi];
    if (!b->verb) {
        diag(c, true, n, "%s is a function, not a verb", b->name);
        return;
    }
    bool *local = copy(c, bound);
    switch ((BuiltinId)n->bi) {
    case BI_create:
        chk_assign(c, n->kid[0], bound, true, in_match); /* objectId==%v escapes */
        break;
    case BI_set:
    case BI_setAll:
        chk_cond(c, n->kid[0], local, true);
        chk_assign(c, n->kid[1], local, false, true);
        break;
    case BI_forEach:
        chk_cond(c, n->kid[0], local, true);
        for (int i = 1; i < n->n; i++) chk_verbs(c, n->kid[i], local, true);
        break;
    default:
        if (builtin_has(n->bi, BF_SENDS) && n->n > 0 && n->kid[0]->kind == N_VAR && !c->to_addr[n->kid[0]->var]) {
            c->to_addr[n->kid[0]->var] = n->kid[0];
            c->to_addr_part[n->kid[0]->var] = c->part;
            c->to_addr_verb[n->kid[0]->var] = n->bi;
        }
        chk_args(c, n, local, in_match);
    }
    free(local);
}

void check_prog(const Prog *p, Diags *out)
{
    size_t nv = (size_t)(p->nvars ? p->nvars : 1);
    Chk c = {p, out, 0, xcalloc(nv, 1), xcalloc(nv, 1), xcalloc(nv, sizeof(Node *)), xcalloc(nv, sizeof(int)),
             xcalloc(nv, 1), xcalloc(nv, 1), xcalloc(nv, sizeof(Node *)), xcalloc(nv, sizeof(int)), xcalloc(nv, sizeof(int))};
    bool *bound = xcalloc(nv, 1);
    if (p->cond) chk_cond(&c, p->cond, bound, false);
    c.part = PART_THEN;
    if (p->then) chk_verbs(&c, p->then, bound, false);
    for (int i = 0; i < p->nvars; i++) {
        if (c.ever_bound[i] && !c.read[i]) {
            c.part = c.bound_part[i];
            diag(&c, false, c.bound_at[i], "variable %%%s is bound but never used", sym_text(p->varnames[i]));
        }
    }
    for (int i = 0; i < p->nvars; i++) {
        if (c.to_addr[i] && c.by_id[i] && !c.by_other[i]) {
            const char *v = sym_text(p->varnames[i]);
            c.part = c.to_addr_part[i];
            diag(&c, false, c.to_addr[i], "%%%s is an object's id (bound by objectId==%%%s), not an address: %s sends to addresses",
                 v, v, builtins[c.to_addr_verb[i]].name);
        }
    }
    free(bound);
    free(c.ever_bound);
    free(c.read);
    free(c.bound_at);
    free(c.bound_part);
    free(c.by_id);
    free(c.by_other);
    free(c.to_addr);
    free(c.to_addr_part);
    free(c.to_addr_verb);
}

void diags_free(Diags *d)
{
    free(d->d);
    d->d = NULL;
    d->n = d->cap = d->nerrors = 0;
}
