/*
 * scams.c - the scam search (scams.h): the vocabulary read from the rules,
 * the moves built from it at each state, and the iterative deepening over
 * events run in memory and rolled back with the pool's undo log.
 */
#include "scams.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_builtins.h"
#include "lang_check.h"
#include "objfmt.h"
#include "lang_parse.h"
#include "pool_privacy.h"

/* ---- the vocabulary ---- */

#define MAX_LITS 6
#define MAX_JOINS 4
#define MAX_CONSTS 4
#define MAX_BASE 8
#define MAX_CANDS 8     /* values tried for one attribute of a move */
#define PER_JOIN 3      /* live values taken from one join, newest first */
#define EXTRA_CANDS 2   /* values tried for an attribute honest moves do not set */
#define MAX_EXTRAS 24
#define BASE_COMBOS 32  /* honest moves of one shape at one state */
#define EXTRA_BASES 2   /* ... of which this many also get each extra attribute */

/* Objects whose `attr` the rules compare with a move's attribute through a
 * variable: propId==%p on a move, propId==%p on a voteInProgress. */
typedef struct Join {
    Sym type, attr;
} Join;

/* What the rules say of one attribute of a move (or of what moves become). */
typedef struct Word {
    Sym name;
    Sym lits[MAX_LITS]; /* literals it is compared with */
    int nlits;
    Join joins[MAX_JOINS];
    int njoins;
    bool numeric;       /* compared in order or computed with */
} Word;

typedef struct Consts {
    Attr a[MAX_CONSTS]; /* values canonical */
    int n;
} Consts;

/* A kind of move: the literal keys a rule matches it by, the attributes an
 * honest move of that kind sets, and the others the rules read on it. */
typedef struct Shape {
    Consts c;
    Sym base[MAX_BASE];
    char *const *alts[MAX_BASE]; /* the sugar's alternatives, or NULL */
    int nalts[MAX_BASE];
    int nbase;
    Sym extras[MAX_EXTRAS];
    int nextras;
} Shape;

/* An attribute a rule reads on objects of a type (for moves, with the
 * match's literal keys). */
typedef struct AttrRead {
    Sym type;
    Consts c;
    Sym attr;
} AttrRead;

/* A move matched with these keys becomes an object of this type. */
typedef struct Become {
    Consts c;
    Sym type;
} Become;

typedef struct Vocab {
    Word *w;
    int nw, wcap;
    Shape *s;
    int ns, scap;
    AttrRead *reads;
    int nreads, rcap;
    Become *bec;
    int nbec, bcap;
    Sym suspects[8];    /* 0, 1, -1, the state's largest numbers and their negatives */
    int nsuspects;
    Sym fresh;          /* a text nothing in the state holds */
} Vocab;

/* A variable of one rule compared with an attribute in some match. */
typedef struct VarUse {
    int var;
    Sym type, attr;
    Consts c;   /* the match's literal keys */
    bool verb;  /* in a verb's match (set, delete): binds nothing */
} VarUse;

typedef struct Uses {
    VarUse *u;
    int n, cap;
} Uses;

static bool is_mech(Sym name)
{
    return name == SYM_type || name == SYM_objectId || name == SYM_moveSender || name == SYM_moveTimeStamp ||
           name == SYM_moveBatch || name == SYM_moveIndex;
}

static bool is_literal(const Node *n) { return n->kind == N_STR || n->kind == N_NUM || n->kind == N_BOOL; }

static Word *word(Vocab *v, Sym name)
{
    for (int i = 0; i < v->nw; i++)
        if (v->w[i].name == name) return &v->w[i];
    GROW(v->w, v->nw, v->wcap);
    v->w[v->nw] = (Word){.name = name};
    return &v->w[v->nw++];
}

static void add_lit(Word *w, Sym lit)
{
    for (int i = 0; i < w->nlits; i++)
        if (w->lits[i] == lit) return;
    if (w->nlits < MAX_LITS) w->lits[w->nlits++] = lit;
}

static void add_join(Word *w, Sym type, Sym attr)
{
    for (int i = 0; i < w->njoins; i++)
        if (w->joins[i].type == type && w->joins[i].attr == attr) return;
    if (w->njoins < MAX_JOINS) w->joins[w->njoins++] = (Join){type, attr};
}

static Sym match_type(const Node *m)
{
    const Match *mi = m->match;
    for (int i = 0; mi && i < mi->nkeys; i++)
        if (mi->keys[i].name == SYM_type && is_literal(mi->keys[i].val)) return sym_canon(mi->keys[i].val->sym);
    return SYM_EMPTY;
}

static void match_consts(const Node *m, Consts *c)
{
    const Match *mi = m->match;
    c->n = 0;
    for (int i = 0; mi && i < mi->nkeys && c->n < MAX_CONSTS; i++) {
        const MatchKey *k = &mi->keys[i];
        if (is_mech(k->name) || !is_literal(k->val) || k->val->sym == SYM_EMPTY) continue;
        c->a[c->n++] = (Attr){k->name, sym_canon(k->val->sym)};
    }
}

/* Is every key of a also one of b? */
static bool consts_within(const Consts *a, const Consts *b)
{
    for (int i = 0; i < a->n; i++) {
        bool hit = false;
        for (int k = 0; k < b->n && !hit; k++) hit = a->a[i].name == b->a[k].name && a->a[i].value == b->a[k].value;
        if (!hit) return false;
    }
    return true;
}

static Shape *shape_of(Vocab *v, const Consts *c)
{
    for (int i = 0; i < v->ns; i++)
        if (v->s[i].c.n == c->n && consts_within(c, &v->s[i].c)) return &v->s[i];
    GROW(v->s, v->ns, v->scap);
    v->s[v->ns] = (Shape){.c = *c};
    return &v->s[v->ns++];
}

/* A match on moves with literal keys is a kind of move; what it binds to
 * variables (nickname==%n) is what an honest move of that kind sets. */
static void add_shape(Vocab *v, const Node *m, const Consts *c)
{
    if (!c->n) return;
    Shape *sh = shape_of(v, c);
    const Match *mi = m->match;
    for (int i = 0; mi && i < mi->nkeys; i++) {
        const MatchKey *k = &mi->keys[i];
        if (is_mech(k->name) || k->val->kind != N_VAR) continue;
        bool dup = false;
        for (int b = 0; b < sh->nbase; b++) dup |= sh->base[b] == k->name;
        if (!dup && sh->nbase < MAX_BASE) sh->base[sh->nbase++] = k->name;
    }
}

static void add_read(Vocab *v, Sym type, const Consts *c, Sym attr)
{
    for (int i = 0; i < v->nreads; i++)
        if (v->reads[i].type == type && v->reads[i].attr == attr && v->reads[i].c.n == c->n &&
            consts_within(c, &v->reads[i].c))
            return;
    GROW(v->reads, v->nreads, v->rcap);
    v->reads[v->nreads++] = (AttrRead){type, *c, attr};
}

static bool is_order(int op) { return op == TK_LT || op == TK_LE || op == TK_GT || op == TK_GE; }

/* The reads of one rule: every attribute read in a match (with the match's
 * type and literal keys), the literals attributes are compared with, the
 * attributes compared in order or used in arithmetic (numbers), and the
 * variables the matches' keys bind. */
static void scan(Vocab *v, const Node *n, Sym type, const Consts *c, Uses *uses, bool *numeric_var)
{
    if (n->kind == N_CALL) {
        const Builtin *b = &builtins[n->bi];
        for (int i = 0; i < n->n; i++) {
            if (builtin_argkind(b, i) != ARG_MATCH) {
                scan(v, n->kid[i], type, c, uses, numeric_var);
                continue;
            }
            const Node *m = n->kid[i];
            Sym t = match_type(m);
            Consts mc;
            match_consts(m, &mc);
            if (t == SYM_move) add_shape(v, m, &mc);
            const Match *mi = m->match;
            for (int k = 0; mi && k < mi->nkeys; k++)
                if (mi->keys[k].val->kind == N_VAR) {
                    GROW(uses->u, uses->n, uses->cap);
                    uses->u[uses->n++] = (VarUse){mi->keys[k].val->var, t, mi->keys[k].name, mc, b->verb};
                }
            scan(v, m, t, &mc, uses, numeric_var);
        }
        return;
    }
    if (n->kind == N_ATTR && c && !is_mech(n->sym)) {
        add_read(v, type, c, n->sym);
        word(v, n->sym);
    }
    if (n->kind == N_CMP && n->n == 2 && c)
        for (int s = 0; s < 2; s++)
            if (n->kid[s]->kind == N_ATTR && is_literal(n->kid[1 - s]) && !is_mech(n->kid[s]->sym))
                add_lit(word(v, n->kid[s]->sym), n->kid[1 - s]->sym);
    if ((n->kind == N_CMP && is_order(n->op)) || n->kind == N_ARITH || n->kind == N_NEG)
        for (int s = 0; s < n->n; s++) {
            if (n->kid[s]->kind == N_VAR) numeric_var[n->kid[s]->var] = true;
            if (n->kid[s]->kind == N_ATTR && c) word(v, n->kid[s]->sym)->numeric = true;
        }
    for (int i = 0; i < n->n; i++) scan(v, n->kid[i], type, c, uses, numeric_var);
}

/* set(objectId==%mo)(type=="vote"): the move %mo is bound to becomes a
 * vote, and keeps what its sender wrote on it. */
static void find_becomes(Vocab *v, const Node *n, const Uses *u)
{
    if (n->kind == N_CALL && n->bi == BI_set && n->n == 2 && n->kid[0]->match) {
        const Match *mi = n->kid[0]->match;
        int var = -1;
        for (int k = 0; k < mi->nkeys; k++)
            if (mi->keys[k].name == SYM_objectId && mi->keys[k].val->kind == N_VAR) var = mi->keys[k].val->var;
        const Node **cj = NULL;
        int nc = 0, cap = 0;
        node_conjuncts(n->kid[1], &cj, &nc, &cap);
        for (int i = 0; var >= 0 && i < nc; i++) {
            if (!(cj[i]->kind == N_CMP && cj[i]->op == TK_EQ && cj[i]->kid[0]->kind == N_ATTR &&
                  cj[i]->kid[0]->sym == SYM_type && is_literal(cj[i]->kid[1])))
                continue;
            for (int k = 0; k < u->n; k++)
                if (!u->u[k].verb && u->u[k].var == var && u->u[k].type == SYM_move && u->u[k].attr == SYM_objectId) {
                    GROW(v->bec, v->nbec, v->bcap);
                    v->bec[v->nbec++] = (Become){u->u[k].c, sym_canon(cj[i]->kid[1]->sym)};
                }
        }
        free(cj);
    }
    for (int i = 0; i < n->n; i++) find_becomes(v, n->kid[i], u);
}

/* A variable compared with a move's attribute and with another object's
 * attribute: that object's values are candidates for the move's.  A move's
 * attribute whose variable is compared in order or computed with is a
 * number. */
static void joins_of_rule(Vocab *v, const Uses *u, const bool *numeric_var)
{
    for (int i = 0; i < u->n; i++) {
        if (u->u[i].verb || u->u[i].type != SYM_move || is_mech(u->u[i].attr)) continue;
        if (numeric_var[u->u[i].var]) word(v, u->u[i].attr)->numeric = true;
        for (int k = 0; k < u->n; k++) {
            if (k == i || u->u[k].verb || u->u[k].var != u->u[i].var) continue;
            if (u->u[k].type != SYM_move && u->u[k].type != SYM_EMPTY)
                add_join(word(v, u->u[i].attr), u->u[k].type, u->u[k].attr);
            else if (u->u[k].type == SYM_move && u->u[k].attr == SYM_moveSender)
                add_join(word(v, u->u[i].attr), SYM_move, SYM_moveSender); /* the sender's own address */
        }
    }
}

static bool in_shape(const Shape *sh, Sym name)
{
    for (int i = 0; i < sh->c.n; i++)
        if (sh->c.a[i].name == name) return true;
    for (int i = 0; i < sh->nbase; i++)
        if (sh->base[i] == name) return true;
    return false;
}

/* An attribute that honest moves of some kind set (a vote's propId, a
 * proposal's target) is tried on those moves only: the extras are what no
 * honest move sets. */
static bool honest_somewhere(const Vocab *v, Sym name)
{
    for (int i = 0; i < v->ns; i++)
        if (in_shape(&v->s[i], name)) return true;
    return false;
}

/* The attributes honest moves of a kind do not set but the rules read on
 * such a move or on what it becomes: where its scams live. */
static void shape_extras(Vocab *v, Shape *sh)
{
    Sym types[16];
    int nt = 0;
    for (int i = 0; i < v->nbec && nt < 16; i++)
        if (consts_within(&v->bec[i].c, &sh->c)) types[nt++] = v->bec[i].type;
    for (int i = 0; i < v->nreads; i++) {
        const AttrRead *r = &v->reads[i];
        bool mine = r->type == SYM_EMPTY || (r->type == SYM_move && consts_within(&r->c, &sh->c));
        for (int k = 0; k < nt && !mine; k++) mine = r->type == types[k];
        if (!mine || honest_somewhere(v, r->attr)) continue;
        bool dup = false;
        for (int k = 0; k < sh->nextras; k++) dup |= sh->extras[k] == r->attr;
        if (!dup && sh->nextras < MAX_EXTRAS) sh->extras[sh->nextras++] = r->attr;
    }
}

/* The sugar's patterns whose literal attributes are a shape's keys say what
 * an honest move of that shape sets, and the alternatives it takes. */
static void shapes_from_sugar(Vocab *v, const Sugar *sg)
{
    for (int i = 0; i < sugar_count(sg); i++) {
        SugarAttr a[SCAM_MAX_ATTRS];
        int n = sugar_attrs(sg, i, a, SCAM_MAX_ATTRS);
        Consts c = {0};
        for (int k = 0; k < n; k++)
            if (a[k].literal && c.n < MAX_CONSTS) c.a[c.n++] = (Attr){sym_cstr(a[k].name), sym_canon(sym_cstr(a[k].literal))};
        Shape *sh = shape_of(v, &c);
        sh->nbase = 0; /* the sugar knows the honest move best */
        for (int k = 0; k < n; k++)
            if (!a[k].literal && sh->nbase < MAX_BASE) {
                sh->alts[sh->nbase] = a[k].alts;
                sh->nalts[sh->nbase] = a[k].nalts;
                sh->base[sh->nbase++] = sym_cstr(a[k].name);
            }
    }
}

/* The numbers of the state that are not times: their negatives are the
 * usual suspects for an amount nobody checks for sign. */
static void suspects(Vocab *v, const Pool *p, Sym private_attrs)
{
    Sym big[2] = {0, 0};
    for (uint32_t i = idset_seek(&p->all, 0, 1); i < p->all.len; i = idset_seek(&p->all, i + 1, 0)) {
        const Obj *o = pool_get(p, p->all.ids[i]);
        for (uint32_t k = 0; k < o->n; k++) {
            long n;
            Sym val = o->attrs[k].value;
            if (!sym_is_number(val) || !sym_to_long(val, &n) || n <= 1 || n >= 1000000000L) continue;
            if (o->attrs[k].name == SYM_ruleOrder || attr_is_private(private_attrs, o->attrs[k].name)) continue;
            long b0 = 0, b1 = 0;
            if (big[0]) sym_to_long(big[0], &b0);
            if (big[1]) sym_to_long(big[1], &b1);
            if (n > b0) big[1] = big[0], big[0] = sym_canon(val);
            else if (n < b0 && n > b1) big[1] = sym_canon(val);
        }
    }
    v->suspects[v->nsuspects++] = sym_cstr("0");
    v->suspects[v->nsuspects++] = sym_cstr("1");
    v->suspects[v->nsuspects++] = sym_cstr("-1");
    for (int i = 0; i < 2; i++)
        if (big[i]) {
            Buf b = {0};
            buf_printf(&b, "-%s", sym_text(big[i]));
            v->suspects[v->nsuspects++] = big[i];
            v->suspects[v->nsuspects++] = sym_cstr(buf_str(&b));
            buf_free(&b);
        }
    v->fresh = sym_cstr("scam");
}

static void vocab_build(Vocab *v, Game *g)
{
    Pool *p = g->pool;
    RuleInfo *ri;
    int nr = engine_rules(g->eng, &ri);
    Prog **progs = xcalloc((size_t)(nr ? nr : 1), sizeof *progs);
    for (int i = 0; i < nr; i++) {
        const Obj *o = pool_get(p, ri[i].id);
        ParseError pe;
        if (!ri[i].error && o)
            progs[i] = parse_rule(sym_text(obj_get(o, SYM_if)), sym_len(obj_get(o, SYM_if)), sym_text(obj_get(o, SYM_then)),
                                  sym_len(obj_get(o, SYM_then)), &pe);
    }
    for (int i = 0; i < nr; i++) {
        if (!progs[i]) continue;
        Uses u = {0};
        bool *numeric_var = xcalloc((size_t)progs[i]->nvars + 1, sizeof *numeric_var);
        if (progs[i]->cond) scan(v, progs[i]->cond, SYM_EMPTY, NULL, &u, numeric_var);
        if (progs[i]->then) scan(v, progs[i]->then, SYM_EMPTY, NULL, &u, numeric_var);
        joins_of_rule(v, &u, numeric_var);
        if (progs[i]->then) find_becomes(v, progs[i]->then, &u);
        free(numeric_var);
        free(u.u);
        prog_free(progs[i]);
    }
    free(progs);
    free(ri);
    if (g->sugar) shapes_from_sugar(v, g->sugar);
    if (!v->ns) { /* no rule tells moves apart: one shape, every attribute read is base */
        GROW(v->s, v->ns, v->scap);
        v->s[v->ns++] = (Shape){0};
    }
    for (int i = 0; i < v->ns; i++) shape_extras(v, &v->s[i]);
    suspects(v, p, g->eng->private_attrs);
}

static void vocab_free(Vocab *v)
{
    free(v->w);
    free(v->s);
    free(v->reads);
    free(v->bec);
}

static void vocab_mark(const Vocab *v)
{
    for (int i = 0; i < v->nw; i++) {
        sym_mark(v->w[i].name);
        for (int k = 0; k < v->w[i].nlits; k++) sym_mark(v->w[i].lits[k]);
        for (int k = 0; k < v->w[i].njoins; k++) sym_mark(v->w[i].joins[k].type), sym_mark(v->w[i].joins[k].attr);
    }
    for (int i = 0; i < v->ns; i++) {
        for (int k = 0; k < v->s[i].c.n; k++) sym_mark(v->s[i].c.a[k].name), sym_mark(v->s[i].c.a[k].value);
        for (int k = 0; k < v->s[i].nbase; k++) sym_mark(v->s[i].base[k]);
        for (int k = 0; k < v->s[i].nextras; k++) sym_mark(v->s[i].extras[k]);
    }
    for (int i = 0; i < v->nreads; i++) sym_mark(v->reads[i].type), sym_mark(v->reads[i].attr);
    for (int i = 0; i < v->nbec; i++) sym_mark(v->bec[i].type);
    for (int i = 0; i < v->nsuspects; i++) sym_mark(v->suspects[i]);
    sym_mark(v->fresh);
}

static const Word *find_word(const Vocab *v, Sym name)
{
    for (int i = 0; i < v->nw; i++)
        if (v->w[i].name == name) return &v->w[i];
    return NULL;
}

/* ---- the search ---- */

typedef struct Seen {
    uint64_t *h;
    uint8_t *depth;
    size_t cap, len;
} Seen;

typedef struct Search {
    Game *g;
    const ScamQuery *q;
    Vocab v;
    Prog *goal;
    Sym *goal_vars;
    Sym *senders;
    Seen seen;
    int64_t now;
    bool have_timer;
    int64_t next_timer;
    int64_t wait_until;         /* the latest time a wait may reach */
    bool halted;
    int limit;
    long events, explored;
    bool stop;                  /* found, or the budget is spent */
    ScamStep path[SCAM_MAX_DEPTH];
    MsgList sent[SCAM_MAX_DEPTH]; /* what each step of the path sent */
    int at;                     /* the step being run */
    bool see_messages;          /* the goal reads scamMessage objects */
    ScamResult *r;
    struct Frame *frames;       /* one per depth, and one for the replay */
} Search;

/* What an event changes besides the pool's objects. */
typedef struct Frame {
    EngineMemo *memo;
    size_t mark;
    ObjId next_id;
    uint64_t rng[4];
    MsgList queue;
    bool have_timer, halted;
    int64_t next_timer, now;
} Frame;

static void frame_save(Search *S, Frame *f)
{
    Game *g = S->g;
    msg_free(&f->queue);
    f->mark = pool_mark(g->pool);
    f->next_id = g->pool->next_id;
    memcpy(f->rng, g->eng->rng, sizeof f->rng);
    f->queue = (MsgList){0};
    for (size_t i = 0; i < g->eng->queue.len; i++) msg_push(&f->queue, g->eng->queue.m[i].to, g->eng->queue.m[i].text);
    f->have_timer = S->have_timer;
    f->next_timer = S->next_timer;
    f->halted = S->halted;
    f->now = S->now;
    engine_memo_save(g->eng, f->memo);
}

static void frame_restore(Search *S, Frame *f)
{
    Game *g = S->g;
    pool_undo_to(g->pool, f->mark);
    g->pool->next_id = f->next_id;
    memcpy(g->eng->rng, f->rng, sizeof f->rng);
    msg_free(&g->eng->queue);
    for (size_t i = 0; i < f->queue.len; i++) msg_push(&g->eng->queue, f->queue.m[i].to, f->queue.m[i].text);
    engine_memo_restore(g->eng, f->memo);
    S->have_timer = f->have_timer;
    S->next_timer = f->next_timer;
    S->halted = f->halted;
    S->now = f->now;
}

/* Runs one step as an event (a message of one move, or a wait for the
 * next timer).  False when it could not change anything (refused, ran
 * away, the game is over, no timer): the caller restores the frame. */
static bool run_step(Search *S, const ScamStep *st, Buf *trace)
{
    Game *g = S->g;
    if (S->halted) return false;
    if (st->wait) {
        if (!S->have_timer || S->next_timer > S->wait_until) return false;
        S->now = S->next_timer;
    } else {
        Sym from = S->senders[st->sender], when = sym_from_long((long)S->now), batch = SYM_EMPTY;
        for (int c = 0; c < st->copies; c++) {
            ObjId id = pool_create(g->pool);
            if (c == 0) batch = pool_get(g->pool, id)->idsym; /* the batch is named by its first move */
            pool_set(g->pool, id, SYM_moveSender, from);
            pool_set(g->pool, id, SYM_moveTimeStamp, when);
            pool_set(g->pool, id, SYM_moveBatch, batch);
            pool_set(g->pool, id, SYM_moveIndex, sym_from_long(c + 1));
            for (int k = 0; k < st->nattrs; k++) pool_set(g->pool, id, st->attrs[k].name, st->attrs[k].value);
            /* the type last: the engine hears of a move once, whole,
             * rather than of every attribute of a move still empty */
            pool_set(g->pool, id, SYM_type, SYM_move);
        }
    }
    EventRun er;
    g->eng->trace_on = trace != NULL;
    engine_run(g->eng, S->now, &er);
    S->events++;
    bool ok = er.status != RUN_RUNAWAY;
    if (ok) {
        if (er.status == RUN_LOOP || er.halt) S->halted = true;
        S->have_timer = er.have_timer;
        S->next_timer = er.next_timer;
    }
    if (S->see_messages && S->at < SCAM_MAX_DEPTH) {
        msg_free(&S->sent[S->at]);
        for (size_t i = 0; ok && i < er.sent.len; i++) msg_push(&S->sent[S->at], er.sent.m[i].to, er.sent.m[i].text);
    }
    if (trace) {
        buf_add(trace, er.trace.s ? er.trace.s : "", er.trace.len);
        if (er.status != RUN_QUIET) buf_printf(trace, "%s\n", er.message);
    }
    event_run_free(&er);
    return ok;
}

/* The messages of the path, for the goal to read: one object of type
 * scamMessage per message, with `to`, `text`, `step` (the step that sent
 * it, from 1) and `sent: T`, or `queued: T` for one still waiting for a
 * sendNow.  Made before the goal is tested and undone after; the
 * engine's record of changes is put back as it was. */
static void show_message(Pool *p, const Message *m, int step, bool queued)
{
    ObjId id = pool_create(p);
    pool_set(p, id, SYM_type, sym_cstr("scamMessage"));
    pool_set(p, id, sym_cstr("to"), m->to);
    pool_set(p, id, sym_cstr("text"), m->text);
    if (step) pool_set(p, id, sym_cstr("step"), sym_from_long(step));
    pool_set(p, id, sym_cstr(queued ? "queued" : "sent"), SYM_T);
}

static void show_messages(Search *S, int depth)
{
    Pool *p = S->g->pool;
    for (int d = 0; d < depth && d < SCAM_MAX_DEPTH; d++)
        for (size_t i = 0; i < S->sent[d].len; i++) show_message(p, &S->sent[d].m[i], d + 1, false);
    for (size_t i = 0; i < S->g->eng->queue.len; i++) show_message(p, &S->g->eng->queue.m[i], 0, true);
}

static bool goal_holds_now(Search *S);

static bool goal_holds(Search *S, int depth)
{
    if (!S->see_messages) return goal_holds_now(S);
    Pool *p = S->g->pool;
    size_t mark = pool_mark(p), changes = p->changes.len;
    bool lost = p->changes.lost;
    ObjId next = p->next_id;
    show_messages(S, depth);
    bool held = goal_holds_now(S);
    pool_undo_to(p, mark);
    p->next_id = next;
    p->changes.len = changes;
    p->changes.lost = lost;
    return held;
}

static bool goal_holds_now(Search *S)
{
    Ctx cx = {.pool = S->g->pool, .prog = S->goal, .vars = S->goal_vars, .now = S->now, .created = S->g->eng->created,
              .rng = S->g->eng->rng, .queue = &S->g->eng->queue};
    MsgList sent = {0};
    cx.sent = &sent;
    cx.meter = (Meter){.work_max = 50000000, .memory_max = 64 << 20, .deliveries_max = 1, .number_digits = 100000,
                       .number_bits = 100000 * 10 / 3 + 1};
    ctx_bind_reset(&cx);
    const Node **conj = NULL;
    int n = 0, cap = 0;
    node_conjuncts(S->goal->cond, &conj, &n, &cap);
    bool first;
    uint64_t rng[4];
    memcpy(rng, S->g->eng->rng, sizeof rng);
    bool held = eval_conjunction(&cx, conj, n, &first);
    memcpy(S->g->eng->rng, rng, sizeof rng); /* a goal drawing random() draws nothing the game keeps */
    free(conj);
    free(cx.trail);
    msg_free(&sent);
    return held && !cx.failed;
}

/* The seen states of this round: hash -> the lowest depth reached. */
static bool seen_visit(Seen *s, uint64_t h, int depth)
{
    if ((s->len + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1 << 12;
        uint64_t *nh = xcalloc(cap, sizeof *nh);
        uint8_t *nd = xcalloc(cap, sizeof *nd);
        for (size_t i = 0; i < s->cap; i++)
            if (s->h[i]) {
                size_t j = s->h[i] & (cap - 1);
                while (nh[j]) j = (j + 1) & (cap - 1);
                nh[j] = s->h[i];
                nd[j] = s->depth[i];
            }
        free(s->h);
        free(s->depth);
        s->h = nh;
        s->depth = nd;
        s->cap = cap;
    }
    if (!h) h = 1;
    size_t j = h & (s->cap - 1);
    while (s->h[j] && s->h[j] != h) j = (j + 1) & (s->cap - 1);
    if (s->h[j] && s->depth[j] <= depth) return false;
    if (!s->h[j]) s->len++;
    s->h[j] = h;
    s->depth[j] = (uint8_t)depth;
    return true;
}

static void seen_clear(Seen *s)
{
    if (s->h) memset(s->h, 0, s->cap * sizeof *s->h);
    s->len = 0;
}

/* The state as the search tells states apart: the objects, and whether
 * the game is over. */
static uint64_t state_key(const Search *S, int depth)
{
    uint64_t h = S->g->pool->state_hash ^ (S->halted ? 0x5ca3ULL : 0);
    /* a goal that reads the messages tells apart two paths to the same
     * objects that sent different ones (a proposal announced or not) */
    for (int d = 0; S->see_messages && d < depth && d < SCAM_MAX_DEPTH; d++)
        for (size_t i = 0; i < S->sent[d].len; i++)
            h += hash_mix((uint64_t)S->sent[d].m[i].to << 32 ^ S->sent[d].m[i].text);
    return h;
}

static void add_cand(Sym *c, int *n, int max, Sym s)
{
    if (*n >= max) return;
    for (int i = 0; i < *n; i++)
        if (c[i] == s || (sym_is_number(s) && sym_canon(c[i]) == sym_canon(s))) return;
    c[(*n)++] = s;
}

/* The values of a join in the live state, newest object first. */
static void join_values(const Search *S, const Join *j, Sym *c, int *n, int max)
{
    const Pool *p = S->g->pool;
    const IdSet *set = pool_lookup(p, SYM_type, j->type);
    int took = 0;
    for (uint32_t i = set ? set->len : 0; i-- > 0 && took < PER_JOIN;) {
        const Obj *o = pool_get(p, set->ids[i]);
        if (!o) continue;
        Sym val = j->attr == SYM_objectId ? o->idsym : obj_get(o, j->attr);
        /* an answer shows its moves: never what the rules keep private */
        if (j->attr != SYM_objectId && attr_is_private(S->g->eng->private_attrs, j->attr)) return;
        if (val == SYM_EMPTY) continue;
        int before = *n;
        add_cand(c, n, max, val);
        took += *n > before;
    }
}

/* Values to try for attribute `name` of a move: the sugar's alternatives,
 * the literals the rules compare it with, the live values they join it
 * with, then the usual suspects. */
static int candidates(const Search *S, Sym name, char *const *alts, int nalts, bool extra, Sym sender, Sym *c, int max)
{
    int n = 0;
    for (int i = 0; i < nalts; i++) add_cand(c, &n, max, sym_cstr(alts[i]));
    const Word *w = find_word(&S->v, name);
    for (int i = 0; w && i < w->nlits; i++)
        if (w->lits[i] != SYM_EMPTY) add_cand(c, &n, max, w->lits[i]);
    for (int i = 0; w && i < w->njoins; i++) {
        if (w->joins[i].type == SYM_move) add_cand(c, &n, max, sender);
        else join_values(S, &w->joins[i], c, &n, max);
    }
    if (extra) {
        add_cand(c, &n, max, SYM_T);
        add_cand(c, &n, max, SYM_F);
        return n;
    }
    if (nalts || (w && w->njoins)) {
        add_cand(c, &n, max, S->v.fresh); /* a new name, an id nothing has, none of the choices */
        return n;
    }
    if (n) return n;
    if (w && w->numeric) /* an amount: zero and the negatives nobody checks for */
        for (int i = 0; i < S->v.nsuspects; i++) add_cand(c, &n, max, S->v.suspects[i]);
    add_cand(c, &n, max, S->v.fresh); /* a text: a new one */
    return n;
}

typedef struct Moves {
    ScamStep *m;
    int n, cap;
} Moves;

static void push_move(Moves *ms, int sender, const Attr *a, int na, int copies)
{
    GROW(ms->m, ms->n, ms->cap);
    ScamStep *st = &ms->m[ms->n++];
    memset(st, 0, sizeof *st);
    st->sender = sender;
    st->copies = copies;
    for (int i = 0; i < na && i < SCAM_MAX_ATTRS; i++) st->attrs[st->nattrs++] = a[i];
}

/* The moves of one shape from one sender at this state: the honest ones
 * (every combination of the base attributes' candidates, up to a bound),
 * then the first of those sent twice in one message, and the first few
 * with one more attribute the rules read. */
static void shape_moves(const Search *S, const Shape *sh, int sender, Moves *out)
{
    Sym cand[MAX_BASE][MAX_CANDS];
    int ncand[MAX_BASE];
    Sym from = S->senders[sender];
    for (int b = 0; b < sh->nbase; b++) {
        ncand[b] = candidates(S, sh->base[b], sh->alts[b], sh->nalts[b], false, from, cand[b], MAX_CANDS);
        if (!ncand[b]) cand[b][ncand[b]++] = S->v.fresh;
    }
    int idx[MAX_BASE] = {0};
    for (int combo = 0; combo < BASE_COMBOS; combo++) {
        Attr a[SCAM_MAX_ATTRS];
        int na = 0;
        for (int k = 0; k < sh->c.n; k++) a[na++] = sh->c.a[k];
        for (int b = 0; b < sh->nbase; b++) a[na++] = (Attr){sh->base[b], cand[b][idx[b]]};
        push_move(out, sender, a, na, 1);
        if (combo == 0)
            push_move(out, sender, a, na, 2); /* the same move twice in one message */
        if (combo < EXTRA_BASES)
            for (int x = 0; x < sh->nextras && na < SCAM_MAX_ATTRS; x++) {
                Sym e = sh->extras[x];
                Sym ec[EXTRA_CANDS];
                int nec = candidates(S, e, NULL, 0, true, from, ec, EXTRA_CANDS);
                for (int k = 0; k < nec; k++) {
                    a[na] = (Attr){e, ec[k]};
                    push_move(out, sender, a, na + 1, 1);
                }
            }
        /* the next combination, odometer-wise; done after the last */
        int b = sh->nbase - 1;
        while (b >= 0 && ++idx[b] == ncand[b]) idx[b--] = 0;
        if (b < 0) break;
    }
}

static void all_moves(const Search *S, Moves *out)
{
    out->n = 0;
    for (int s = 0; s < S->q->nsenders; s++)
        for (int i = 0; i < S->v.ns; i++) shape_moves(S, &S->v.s[i], s, out);
}

static void collect(Search *S, const Moves *stack, int depth)
{
    if (!sym_gc_due()) return;
    sym_gc_begin();
    pool_mark_syms(S->g->pool);
    engine_mark_syms(S->g->eng);
    vocab_mark(&S->v);
    prog_mark_syms(S->goal);
    for (int i = 0; i < S->q->nsenders; i++) sym_mark(S->senders[i]);
    for (int d = 0; d <= SCAM_MAX_DEPTH; d++) {
        engine_memo_mark_syms(S->frames[d].memo);
        for (size_t i = 0; i < S->frames[d].queue.len; i++)
            sym_mark(S->frames[d].queue.m[i].to), sym_mark(S->frames[d].queue.m[i].text);
    }
    for (int d = 0; d < SCAM_MAX_DEPTH; d++)
        for (size_t i = 0; i < S->sent[d].len; i++) sym_mark(S->sent[d].m[i].to), sym_mark(S->sent[d].m[i].text);
    for (int d = 0; d < depth; d++) {
        for (int k = 0; k < S->path[d].nattrs; k++) sym_mark(S->path[d].attrs[k].name), sym_mark(S->path[d].attrs[k].value);
        for (int m = 0; m < stack[d].n; m++)
            for (int k = 0; k < stack[d].m[m].nattrs; k++)
                sym_mark(stack[d].m[m].attrs[k].name), sym_mark(stack[d].m[m].attrs[k].value);
    }
    sym_gc_end();
}

static void progress(Search *S)
{
    if (!S->q->progress || S->events % 4096) return;
    fprintf(stderr, "\rnomic scams: depth %d, %ld events, %ld states", S->limit, S->events, S->explored);
}

static bool same_step(const ScamStep *a, const ScamStep *b)
{
    if (a->wait || b->wait || a->sender != b->sender || a->nattrs != b->nattrs || a->copies != b->copies) return false;
    for (int k = 0; k < a->nattrs; k++)
        if (a->attrs[k].name != b->attrs[k].name || a->attrs[k].value != b->attrs[k].value) return false;
    return true;
}

/* Depth-first to S->limit: true when the goal was reached (S->path holds
 * the way).  The move just made is tried again first: a scam is often one
 * move that counts more than once. */
static bool dfs(Search *S, Moves *stack, int depth)
{
    if (depth == S->limit || S->halted) return false;
    Moves *ms = &stack[depth];
    all_moves(S, ms);
    int again = -1;
    for (int i = 0; depth > 0 && i < ms->n && again < 0; i++)
        if (same_step(&ms->m[i], &S->path[depth - 1])) again = i;
    Frame *f = &S->frames[depth];
    frame_save(S, f);
    int nm = ms->n + (S->q->wait ? 1 : 0);
    for (int k = 0; k < nm && !S->stop; k++) {
        int i = again < 0 ? k : k == 0 ? again : k <= again ? k - 1 : k;
        if (S->events >= S->q->budget) {
            S->stop = true;
            S->r->budget_spent = true;
            return false;
        }
        ScamStep st;
        if (i < ms->n) {
            st = ms->m[i];
            st.time = S->now;
        } else {
            memset(&st, 0, sizeof st);
            st.wait = true;
            if (!S->have_timer || S->halted) continue;
            st.time = S->next_timer;
        }
        S->at = depth;
        bool changed = run_step(S, &st, NULL);
        progress(S);
        if (changed && seen_visit(&S->seen, state_key(S, depth + 1), depth + 1)) {
            S->explored++;
            S->path[depth] = st;
            if (goal_holds(S, depth + 1) || dfs(S, stack, depth + 1)) {
                if (!S->r->nsteps) S->r->nsteps = depth + 1;
                S->stop = true;
                frame_restore(S, f);
                return true;
            }
        }
        frame_restore(S, f);
        if ((S->events & 1023) == 0) collect(S, stack, depth + 1);
    }
    return false;
}

static Prog *parse_goal(const char *text, Buf *err)
{
    ParseError pe;
    Prog *p = parse_rule(text, strlen(text), NULL, 0, &pe);
    if (!p) {
        buf_printf(err, "the goal %d:%d: %s", pe.line, pe.col, pe.msg);
        return NULL;
    }
    Diags d = {0};
    check_prog(p, &d);
    for (int i = 0; i < d.n; i++)
        if (d.d[i].error) {
            buf_printf(err, "the goal %d:%d: %s", d.d[i].line, d.d[i].col, d.d[i].msg);
            prog_free(p);
            p = NULL;
            break;
        }
    diags_free(&d);
    return p;
}

/* Plays the answer again from the start, keeping the last event's trace. */
static void replay_answer(Search *S)
{
    Frame *f = &S->frames[SCAM_MAX_DEPTH];
    frame_save(S, f);
    for (int i = 0; i < S->r->nsteps; i++) {
        S->r->steps[i] = S->path[i];
        S->at = i;
        run_step(S, &S->path[i], i == S->r->nsteps - 1 ? &S->r->trace : NULL);
    }
    frame_restore(S, f);
}

/* The engine learns which rules are false at the start, once: a pass at
 * the start's time that changes nothing leaves it knowing. */
static void warm_up(Search *S)
{
    Frame *f = &S->frames[SCAM_MAX_DEPTH];
    frame_save(S, f);
    size_t mark = pool_mark(S->g->pool);
    EventRun er;
    S->g->eng->trace_on = false;
    engine_run(S->g->eng, S->now, &er);
    bool quiet = er.status == RUN_QUIET && pool_mark(S->g->pool) == mark && !er.sent.len;
    event_run_free(&er);
    if (!quiet) frame_restore(S, f);
}

/* The search's state as q->viewer may see it (scams.h): the private
 * values of what the viewer does not own blanked under the undo log, the
 * messages queued for others set aside, and waits held to the real clock
 * in a game with private attributes (a timer's result may tell a secret
 * before the game does).  Returns the queue as it was, to put back. */
static MsgList view_of(Search *S)
{
    Game *g = S->g;
    const char *viewer = S->q->viewer;
    bool private = privacy_attributes(g->pool) != SYM_EMPTY;
    privacy_blank(g->pool, viewer);
    engine_invalidate(g->eng);
    MsgList was = g->eng->queue, kept = {0};
    for (size_t i = 0; i < was.len; i++)
        if (!private || (viewer && addressed_to(was.m[i].to, viewer))) msg_push(&kept, was.m[i].to, was.m[i].text);
    g->eng->queue = kept;
    S->wait_until = private ? time_now_wall() : INT64_MAX;
    return was;
}

bool scams_search(Game *g, int64_t now, const ScamQuery *q, ScamResult *r, Buf *err)
{
    memset(r, 0, sizeof *r);
    Search S = {.g = g, .q = q, .now = now, .have_timer = g->have_timer, .next_timer = g->next_timer, .halted = g->halted,
                .r = r};
    if (!(S.goal = parse_goal(q->goal, err))) return false;
    S.goal_vars = xcalloc((size_t)S.goal->nvars + 1, sizeof *S.goal_vars);
    S.senders = xcalloc((size_t)q->nsenders, sizeof *S.senders);
    for (int i = 0; i < q->nsenders; i++) S.senders[i] = sym_cstr(q->senders[i]);
    bool was_logging = g->pool->logging;
    g->pool->logging = true;
    size_t view_mark = pool_mark(g->pool);
    MsgList queue = view_of(&S);
    vocab_build(&S.v, g);
    /* the search's own generator: the same answer on every run, and
     * nothing about the game's next draws */
    uint64_t saved_rng[4];
    memcpy(saved_rng, g->eng->rng, sizeof saved_rng);
    uint64_t x = 0x5ca3u;
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        g->eng->rng[i] = z ^ (z >> 31);
    }
    S.frames = xcalloc(SCAM_MAX_DEPTH + 1, sizeof *S.frames);
    for (int i = 0; i <= SCAM_MAX_DEPTH; i++) S.frames[i].memo = engine_memo_new();
    warm_up(&S);
    Moves stack[SCAM_MAX_DEPTH] = {{0}};
    S.see_messages = strstr(q->goal, "scamMessage") != NULL;
    if (goal_holds(&S, 0)) {
        r->found = true; /* no step needed */
    } else {
        int top = q->depth < SCAM_MAX_DEPTH ? q->depth : SCAM_MAX_DEPTH;
        for (S.limit = 1; S.limit <= top && !S.stop; S.limit++) {
            seen_clear(&S.seen);
            seen_visit(&S.seen, state_key(&S, 0), 0);
            S.explored = 0;
            r->found = dfs(&S, stack, 0);
            if (!S.stop) r->depth_done = S.limit;
        }
        if (r->found) replay_answer(&S);
    }
    if (q->progress) fprintf(stderr, "\r\033[K");
    r->explored = S.explored;
    r->events = S.events;
    for (int i = 0; i < SCAM_MAX_DEPTH; i++) free(stack[i].m), msg_free(&S.sent[i]);
    for (int i = 0; i <= SCAM_MAX_DEPTH; i++) {
        engine_memo_free(S.frames[i].memo);
        msg_free(&S.frames[i].queue);
    }
    free(S.frames);
    pool_undo_to(g->pool, view_mark); /* the private values back */
    msg_free(&g->eng->queue);
    g->eng->queue = queue;
    pool_forget_undo(g->pool);
    g->pool->logging = was_logging;
    memcpy(g->eng->rng, saved_rng, sizeof saved_rng);
    engine_invalidate(g->eng);
    g->eng->trace_on = true;
    vocab_free(&S.v);
    free(S.seen.h);
    free(S.seen.depth);
    free(S.goal_vars);
    free(S.senders);
    prog_free(S.goal);
    return true;
}

void scam_result_free(ScamResult *r) { buf_free(&r->trace); }

int64_t scams_game_time(Game *g)
{
    long n = g->st ? store_last_event(g->st) : 0;
    JournalRow row;
    if (n > 0 && store_event_get(g->st, n, &row) == 1) {
        int64_t t = row.time;
        journal_row_free(&row);
        return t;
    }
    return g->eng->created;
}

void scam_result_json(Buf *b, const ScamQuery *q, const ScamResult *r)
{
    buf_printf(b, "{\"found\": %s, \"explored\": %ld", r->found ? "true" : "false", r->explored);
    if (!r->found && r->budget_spent) buf_printf(b, ", \"budgetSpent\": true");
    if (r->found) {
        buf_puts(b, ", \"steps\": [");
        for (int i = 0; i < r->nsteps; i++) {
            const ScamStep *st = &r->steps[i];
            if (i) buf_puts(b, ", ");
            if (st->wait) {
                buf_printf(b, "{\"wait\": %lld}", (long long)st->time);
                continue;
            }
            buf_puts(b, "{\"from\": ");
            json_string(b, q->senders[st->sender], strlen(q->senders[st->sender]));
            buf_printf(b, ", \"time\": %lld, \"moves\": [", (long long)st->time);
            for (int c = 0; c < st->copies; c++) {
                buf_puts(b, c ? ", {" : "{");
                for (int k = 0; k < st->nattrs; k++) {
                    if (k) buf_puts(b, ", ");
                    json_string(b, sym_text(st->attrs[k].name), sym_len(st->attrs[k].name));
                    buf_puts(b, ": ");
                    json_string(b, sym_text(st->attrs[k].value), sym_len(st->attrs[k].value));
                }
                buf_putc(b, '}');
            }
            buf_puts(b, "]}");
        }
        buf_putc(b, ']');
    }
    buf_putc(b, '}');
}
