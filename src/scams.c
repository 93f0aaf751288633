/*
 * scams.c - the scam search (scams.h): the vocabulary read from the rules,
 * the moves built from it at each state, and the iterative deepening over
 * events run in memory and rolled back with the pool's undo log (with the
 * no-ops it need not play again), or the best-first search and the random
 * walks for depths it cannot reach.
 */
#include "scams.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

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
#define MAX_CANDS 32    /* values tried for one attribute of a move */
#define PER_JOIN 3      /* live values taken from one join, newest first */
#define EXTRA_CANDS 2   /* values tried for an attribute honest moves do not set */
#define MAX_EXTRAS 24
#define BASE_COMBOS 128 /* honest moves of one shape at one state */
#define STATE_NUMS 3    /* the state's largest numbers taken at each step */
#define MAX_GOAL 8      /* the goal's own literals */
#define MAX_PAIRS 16    /* kinds of move a rule reads together */
#define LONG_TEXT 4096  /* bytes of the long text tried (docs/limits.md: maxValueBytes is 1 MiB) */
#define EXTRA_BASES 2   /* ... of which this many also get each extra attribute */

/* Objects whose `attr` the rules compare with a move's attribute through a
 * variable: propId==%p on a move, propId==%p on a voteInProgress. */
typedef struct Join {
    Sym type, attr;
} Join;

/* How the rules look at a value beyond copying it or comparing it for
 * equality (variants()). */
enum { SEEN_INSPECTED = 1, /* compared in order, computed with, handed to a function (parses, lower, ...) */
       SEEN_EMPTY = 2,    /* compared with "" */
       SEEN_LONG = 4 /* its length matters: compared in order, measured (length, words, word, pad, charsIn) */ };

/* What the rules say of one attribute of a move (or of what moves become). */
typedef struct Word {
    Sym name;
    Sym lits[MAX_LITS]; /* literals it is compared with */
    int nlits;
    Join joins[MAX_JOINS];
    int njoins;
    bool numeric;       /* compared in order or computed with */
    unsigned seen;      /* SEEN_* */
} Word;

typedef struct Consts {
    Attr a[MAX_CONSTS]; /* values canonical */
    int n;
} Consts;

/* A kind of move: the literal keys a rule matches it by, the attributes an
 * honest move of that kind sets, and the others the rules read on it. */
typedef struct MoveShape {
    Consts c;
    Sym base[MAX_BASE];
    char *const *alts[MAX_BASE]; /* the sugar's alternatives, or NULL */
    int nalts[MAX_BASE];
    int nbase;
    Sym extras[MAX_EXTRAS];
    int nextras;
} MoveShape;

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

/* What a rule reads (its if and its then), for skipping a move that
 * changed nothing when nothing it could meet has changed since: one read
 * per attribute asked of the objects of a match (attr SYM_EMPTY: their
 * presence), with the match's type and literal keys. */
enum { FP_PINNED = 1, /* a match of the then on one object the if found (objectId==%v) */
       FP_ALLATTR = 2 /* every attribute (sendObject prints the object) */ };

typedef struct FpRead {
    Sym type;     /* SYM_EMPTY: any */
    Consts c;
    Sym attr;
    unsigned flags;
} FpRead;

typedef struct RuleFp {
    bool all;     /* reads the generator, or objects named by values: anything */
    FpRead *r;
    int n, cap;
    Sym types[8]; /* the types its reads name, for a quick no */
    int ntypes;   /* -1: too many, or a read of any type */
} RuleFp;

typedef struct Vocab {
    RuleFp *fp;         /* per rule, in the order engine_rules gave them */
    RuleFp *fp_if;      /* ... what its if alone reads */
    struct RuleIx *by_id; /* the rules by id: (id, index in fp) */
    struct Guards *guards; /* per rule: objects its if cannot hold without */
    struct Reach *reach; /* what each rule's changes can concern (reach_build) */
    int nfp;
    Sym run_type;       /* the rules' type: a change to one stops all skipping */
    Word *w;
    int nw, wcap;
    MoveShape *s;
    int ns, scap;
    AttrRead *reads;
    int nreads, rcap;
    Become *bec;
    int nbec, bcap;
    Sym bounds[8];      /* boundary numbers: 0, 1, -1, +-10^18, 2^64, -2^64 */
    int nbounds;
    Sym goal_nums[2 * MAX_GOAL]; /* the goal's numbers and their negatives */
    int ngoal_nums;
    Sym goal_texts[MAX_GOAL]; /* the goal's texts */
    int ngoal_texts;
    Sym long_text;      /* LONG_TEXT bytes */
    Consts pair[MAX_PAIRS][2]; /* two kinds of move one rule reads together */
    int npairs;
    long cut_rules;     /* literals, joins, attributes past their room */
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

static Word *word(Vocab *v, Sym name)
{
    for (int i = 0; i < v->nw; i++)
        if (v->w[i].name == name) return &v->w[i];
    GROW(v->w, v->nw, v->wcap);
    v->w[v->nw] = (Word){.name = name};
    return &v->w[v->nw++];
}

static const Word *find_word(const Vocab *v, Sym name)
{
    for (int i = 0; i < v->nw; i++)
        if (v->w[i].name == name) return &v->w[i];
    return NULL;
}

static void add_lit(Vocab *v, Word *w, Sym lit)
{
    for (int i = 0; i < w->nlits; i++)
        if (w->lits[i] == lit) return;
    if (w->nlits < MAX_LITS) w->lits[w->nlits++] = lit;
    else v->cut_rules++;
}

static void add_join(Vocab *v, Word *w, Sym type, Sym attr)
{
    for (int i = 0; i < w->njoins; i++)
        if (w->joins[i].type == type && w->joins[i].attr == attr) return;
    if (w->njoins < MAX_JOINS) w->joins[w->njoins++] = (Join){type, attr};
    else v->cut_rules++;
}

static Sym match_type(const Node *m)
{
    const Match *mi = m->match;
    for (int i = 0; mi && i < mi->nkeys; i++)
        if (mi->keys[i].name == SYM_type && node_is_literal(mi->keys[i].val)) return sym_canon(mi->keys[i].val->sym);
    return SYM_EMPTY;
}

static void match_consts(const Node *m, Consts *c)
{
    const Match *mi = m->match;
    c->n = 0;
    for (int i = 0; mi && i < mi->nkeys && c->n < MAX_CONSTS; i++) {
        const MatchKey *k = &mi->keys[i];
        if (is_mech(k->name) || !node_is_literal(k->val) || k->val->sym == SYM_EMPTY) continue;
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

static MoveShape *shape_of(Vocab *v, const Consts *c)
{
    for (int i = 0; i < v->ns; i++)
        if (v->s[i].c.n == c->n && consts_within(c, &v->s[i].c)) return &v->s[i];
    GROW(v->s, v->ns, v->scap);
    v->s[v->ns] = (MoveShape){.c = *c};
    return &v->s[v->ns++];
}

/* A match on moves with literal keys is a kind of move; what it binds to
 * variables (nickname==%n) is what an honest move of that kind sets. */
static void add_shape(Vocab *v, const Node *m, const Consts *c)
{
    if (!c->n) return;
    MoveShape *sh = shape_of(v, c);
    const Match *mi = m->match;
    for (int i = 0; mi && i < mi->nkeys; i++) {
        const MatchKey *k = &mi->keys[i];
        if (is_mech(k->name) || k->val->kind != N_VAR) continue;
        bool dup = false;
        for (int b = 0; b < sh->nbase; b++) dup |= sh->base[b] == k->name;
        if (!dup && sh->nbase < MAX_BASE) sh->base[sh->nbase++] = k->name;
        else if (!dup) v->cut_rules++;
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

/* Every attribute and variable whose value flows into expression n is
 * seen `how` (SEEN_*).  A function's result, a comparison's truth and a
 * match's keys are other values: scan() sees to what looks at them. */
static void mark_seen(Vocab *v, const Node *n, const Consts *c, unsigned char *seen_var, unsigned how)
{
    if (n->kind == N_VAR) seen_var[n->var] |= (unsigned char)how;
    if (n->kind == N_ATTR && c && !is_mech(n->sym)) word(v, n->sym)->seen |= how;
    if (n->kind == N_CALL) { /* if(c, a, b): a or b flows on; glue(a, b): both */
        for (int i = n->bi == BI_glue ? 0 : 1; (n->bi == BI_if || n->bi == BI_glue) && i < n->n; i++)
            mark_seen(v, n->kid[i], c, seen_var, how);
        return;
    }
    if (n->kind == N_CMP || n->kind == N_AND || n->kind == N_OR || n->kind == N_NOT) return;
    for (int i = 0; i < n->n; i++) mark_seen(v, n->kid[i], c, seen_var, how);
}

/* A value copied into an attribute that is inspected (by the rules, as
 * read so far: seen_fixpoint reads them again until nothing changes; or by
 * the engine: a rule's if, then and ruleOrder) is inspected too:
 * create(type=="rule" & ruleOrder==%no) hands %no to the engine's
 * ordering. */
static void assigns_seen(Vocab *v, const Node *n, unsigned char *seen_var)
{
    if (n->kind == N_AND)
        for (int i = 0; i < n->n; i++) assigns_seen(v, n->kid[i], seen_var);
    if (n->kind != N_CMP || n->op != TK_EQ || n->kid[0]->kind != N_ATTR) return;
    Sym a = n->kid[0]->sym;
    const Word *w = find_word(v, a);
    if (a == SYM_if || a == SYM_then || a == SYM_ruleOrder) mark_seen(v, n->kid[1], NULL, seen_var, SEEN_INSPECTED);
    else if (w && w->seen) mark_seen(v, n->kid[1], NULL, seen_var, w->seen);
}

/* What of a rule looks at values beyond copying them or comparing them for
 * equality (the literals, the joined values and a fresh one tell those
 * apart): an operand compared in order or computed with, an argument of a
 * function (if() reads its condition, glue() only copies, attribute()
 * looks its object up by id), a value taken as true or false, one
 * compared with "" (SEEN_EMPTY). */
static void seen_in(Vocab *v, const Node *n, const Consts *c, unsigned char *seen_var)
{
    if (n->kind == N_CALL) {
        const Builtin *b = &builtins[n->bi];
        bool measures = n->bi == BI_length || n->bi == BI_words || n->bi == BI_word || n->bi == BI_pad || n->bi == BI_charsIn;
        for (int i = n->bi == BI_attribute ? 1 : 0; !b->verb && n->bi != BI_glue && i < (n->bi == BI_if ? 1 : n->n); i++)
            if (builtin_argkind(b, i) == ARG_EXPR)
                mark_seen(v, n->kid[i], c, seen_var, SEEN_INSPECTED | (measures && i == 0 ? SEEN_LONG : 0));
        for (int i = 0; i < n->n; i++)
            if (builtin_argkind(b, i) == ARG_ASSIGN) assigns_seen(v, n->kid[i], seen_var);
    }
    if ((n->kind == N_CMP && is_order(n->op)) || n->kind == N_ARITH || n->kind == N_NEG)
        for (int s = 0; s < n->n; s++) mark_seen(v, n->kid[s], c, seen_var, SEEN_INSPECTED | (n->kind == N_CMP ? SEEN_LONG : 0));
    if (n->kind == N_CMP && !is_order(n->op) && n->n == 2)
        for (int s = 0; s < 2; s++)
            if (n->kid[1 - s]->kind == N_STR && n->kid[1 - s]->sym == SYM_EMPTY) mark_seen(v, n->kid[s], c, seen_var, SEEN_EMPTY);
    if (n->kind == N_AND || n->kind == N_OR || n->kind == N_NOT)
        for (int s = 0; s < n->n; s++)
            if (n->kid[s]->kind == N_ATTR || n->kid[s]->kind == N_VAR) mark_seen(v, n->kid[s], c, seen_var, SEEN_INSPECTED);
}

/* The reads of one rule: every attribute read in a match (with the match's
 * type and literal keys), the literals attributes are compared with, the
 * attributes compared in order or used in arithmetic (numbers), how values
 * are looked at (seen_in), and the variables the matches' keys bind. */
static void scan(Vocab *v, const Node *n, Sym type, const Consts *c, Uses *uses, bool *numeric_var, unsigned char *seen_var)
{
    seen_in(v, n, c, seen_var);
    if (n->kind == N_CALL) {
        const Builtin *b = &builtins[n->bi];
        for (int i = 0; i < n->n; i++) {
            if (builtin_argkind(b, i) != ARG_MATCH) {
                scan(v, n->kid[i], type, c, uses, numeric_var, seen_var);
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
            scan(v, m, t, &mc, uses, numeric_var, seen_var);
        }
        return;
    }
    if (n->kind == N_ATTR && c && !is_mech(n->sym)) {
        add_read(v, type, c, n->sym);
        word(v, n->sym);
    }
    if (n->kind == N_CMP && n->n == 2 && c)
        for (int s = 0; s < 2; s++)
            if (n->kid[s]->kind == N_ATTR && node_is_literal(n->kid[1 - s]) && !is_mech(n->kid[s]->sym))
                add_lit(v, word(v, n->kid[s]->sym), n->kid[1 - s]->sym);
    if ((n->kind == N_CMP && is_order(n->op)) || n->kind == N_ARITH || n->kind == N_NEG)
        for (int s = 0; s < n->n; s++) {
            if (n->kid[s]->kind == N_VAR) numeric_var[n->kid[s]->var] = true;
            if (n->kid[s]->kind == N_ATTR && c) word(v, n->kid[s]->sym)->numeric = true;
        }
    for (int i = 0; i < n->n; i++) scan(v, n->kid[i], type, c, uses, numeric_var, seen_var);
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
                  cj[i]->kid[0]->sym == SYM_type && node_is_literal(cj[i]->kid[1])))
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
                add_join(v, word(v, u->u[i].attr), u->u[k].type, u->u[k].attr);
            else if (u->u[k].type == SYM_move && u->u[k].attr == SYM_moveSender)
                add_join(v, word(v, u->u[i].attr), SYM_move, SYM_moveSender); /* the sender's own address */
        }
    }
}

static bool in_shape(const MoveShape *sh, Sym name)
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
static void shape_extras(Vocab *v, MoveShape *sh)
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
        else if (!dup) v->cut_rules++;
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
        MoveShape *sh = shape_of(v, &c);
        sh->nbase = 0; /* the sugar knows the honest move best */
        for (int k = 0; k < n; k++)
            if (!a[k].literal && sh->nbase < MAX_BASE) {
                sh->alts[sh->nbase] = a[k].alts;
                sh->nalts[sh->nbase] = a[k].nalts;
                sh->base[sh->nbase++] = sym_cstr(a[k].name);
            }
    }
}

/* The boundary values: the numbers where arithmetic and comparisons
 * break (zero, one, the edges of 64 bits and past them), the empty text
 * (an attribute left out) and a long text within the caps of
 * docs/limits.md. */
static void boundaries(Vocab *v)
{
    static const char *const nums[] = {"0", "1", "-1", /* the small ones first, the huge ones last (candidates) */
                                       "1000000000000000000", "-1000000000000000000", "18446744073709551616",
                                       "-18446744073709551616"};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) v->bounds[v->nbounds++] = sym_cstr(nums[i]);
    char *t = xmalloc(LONG_TEXT + 1);
    memset(t, 'x', LONG_TEXT);
    t[LONG_TEXT] = 0;
    v->long_text = sym_cstr(t);
    free(t);
    v->fresh = sym_cstr("scam");
}

/* The goal's own literals: "eve has 100 coins" gives 100 (and -100) to
 * the amounts, and its texts to the texts. */
static void goal_literals(Vocab *v, const Node *n)
{
    if (!n) return;
    if (n->kind == N_NUM) {
        Sym c = sym_canon(n->sym);
        bool dup = false;
        for (int i = 0; i < v->ngoal_nums; i++) dup |= v->goal_nums[i] == c;
        if (!dup && v->ngoal_nums + 2 <= 2 * MAX_GOAL) {
            Buf b = {0};
            buf_printf(&b, "-%s", sym_text(c));
            v->goal_nums[v->ngoal_nums++] = c;
            v->goal_nums[v->ngoal_nums++] = sym_canon(sym_cstr(sym_text(c)[0] == '-' ? sym_text(c) + 1 : buf_str(&b)));
            buf_free(&b);
        } else if (!dup) v->cut_rules++;
    } else if (n->kind == N_STR) { /* "" too: nickname=="" asks for an attribute left out */
        bool dup = false;
        for (int i = 0; i < v->ngoal_texts; i++) dup |= v->goal_texts[i] == n->sym;
        if (!dup && v->ngoal_texts < MAX_GOAL) v->goal_texts[v->ngoal_texts++] = n->sym;
        else if (!dup) v->cut_rules++;
    }
    for (int i = 0; i < n->n; i++) goal_literals(v, n->kid[i]);
}

/* Two kinds of move one rule's condition reads together (a claim and a
 * confirm of one message): the messages that hold both are tried. */
static void find_pairs(Vocab *v, const Node *n, Consts *seen, int *nseen)
{
    if (n->kind == N_CALL) {
        const Builtin *b = &builtins[n->bi];
        for (int i = 0; i < n->n; i++)
            if (builtin_argkind(b, i) == ARG_MATCH && match_type(n->kid[i]) == SYM_move && !b->verb) {
                Consts c;
                match_consts(n->kid[i], &c);
                if (!c.n) continue;
                for (int k = 0; k < *nseen; k++) {
                    if (seen[k].n == c.n && consts_within(&c, &seen[k])) continue;
                    bool dup = false;
                    for (int p = 0; p < v->npairs; p++)
                        dup |= v->pair[p][0].n == seen[k].n && consts_within(&seen[k], &v->pair[p][0]) &&
                               v->pair[p][1].n == c.n && consts_within(&c, &v->pair[p][1]);
                    if (dup) continue;
                    if (v->npairs < MAX_PAIRS) {
                        v->pair[v->npairs][0] = seen[k];
                        v->pair[v->npairs++][1] = c;
                    } else v->cut_rules++;
                }
                if (*nseen < 8) seen[(*nseen)++] = c;
            }
    }
    for (int i = 0; i < n->n; i++) find_pairs(v, n->kid[i], seen, nseen);
}

static void fp_add(RuleFp *f, Sym type, const Consts *c, Sym attr, unsigned flags)
{
    for (int i = 0; i < f->n; i++)
        if (f->r[i].type == type && f->r[i].attr == attr && f->r[i].flags == flags && f->r[i].c.n == c->n &&
            consts_within(c, &f->r[i].c))
            return;
    GROW(f->r, f->n, f->cap);
    f->r[f->n++] = (FpRead){type, *c, attr, flags};
    if (f->ntypes < 0) return;
    if (type == SYM_EMPTY) {
        f->ntypes = -1;
        return;
    }
    for (int i = 0; i < f->ntypes; i++)
        if (f->types[i] == type) return;
    if (f->ntypes < 8) f->types[f->ntypes++] = type;
    else f->ntypes = -1;
}

typedef struct FpCtx {
    bool on;      /* inside a match (or a set's assignments) */
    Sym type;
    Consts c;
    unsigned flags;
} FpCtx;

/* The variables a typed match binds to objectId: what a then's
 * set(objectId==%v) changes is of that type. */
static void fp_var_types(const Node *n, Sym *var_type, int nvars)
{
    if (n->match) {
        Sym t = match_type(n);
        for (int k = 0; t != SYM_EMPTY && k < n->match->nkeys; k++)
            if (n->match->keys[k].name == SYM_objectId && n->match->keys[k].val->kind == N_VAR &&
                n->match->keys[k].val->var < nvars)
                var_type[n->match->keys[k].val->var] = t;
    }
    for (int i = 0; i < n->n; i++) fp_var_types(n->kid[i], var_type, nvars);
}

/* A rule's variables, for its footprint: the type of the object each
 * names, and whether its if found that object (objectId==%v in a match of
 * the if, which reads the object's presence). */
typedef struct FpVars {
    Sym *type;
    bool *in_if;
    int n;
} FpVars;

static void ids_found(const Node *n, bool *in, int nvars)
{
    for (int k = 0; n->match && k < n->match->nkeys; k++) {
        const MatchKey *key = &n->match->keys[k];
        if (key->name == SYM_objectId && key->val->kind == N_VAR && key->val->var < nvars) in[key->val->var] = true;
    }
    for (int i = 0; i < n->n; i++) ids_found(n->kid[i], in, nvars);
}

/* A then's match on objectId==%v is pinned to one object the if found
 * when the if found %v so; otherwise (a forEach's own %v, an id read from
 * a value) it may find any object. */
static FpCtx fp_match(const Node *m, bool in_then, const FpVars *fv, bool all_attrs)
{
    FpCtx cx = {.on = true, .type = match_type(m)};
    match_consts(m, &cx.c);
    const Match *mi = m->match;
    for (int k = 0; in_then && mi && k < mi->nkeys; k++) {
        if (mi->keys[k].name != SYM_objectId) continue;
        const Node *val = mi->keys[k].val;
        int var = val->kind == N_VAR && val->var < fv->n ? val->var : -1;
        if (cx.type == SYM_EMPTY && var >= 0) cx.type = fv->type[var];
        if (node_is_literal(val) || (var >= 0 && fv->in_if[var])) cx.flags |= FP_PINNED;
    }
    if (all_attrs) cx.flags |= FP_ALLATTR;
    return cx;
}

static void fp_walk(RuleFp *f, const Node *n, const FpCtx *cx, bool in_then, const FpVars *fv)
{
    if (n->kind == N_CALL) {
        const Builtin *b = &builtins[n->bi];
        if (n->bi == BI_attribute && in_then && n->n == 2) {
            /* attribute(%t, "if") in a then reads one object the if
             * found: that attribute of it, or any when the name is computed */
            Consts none = {0};
            if (n->kid[1]->kind == N_STR) fp_add(f, SYM_EMPTY, &none, n->kid[1]->sym, FP_PINNED);
            else fp_add(f, SYM_EMPTY, &none, SYM_EMPTY, FP_PINNED | FP_ALLATTR);
        } else if (b->flags & (BF_RANDOM | BF_BY_NAME)) {
            f->all = true;
        }
        FpCtx last = {0};
        for (int i = 0; i < n->n; i++) {
            ArgKind k = builtin_argkind(b, i);
            if (k == ARG_MATCH) {
                last = fp_match(n->kid[i], in_then, fv, n->bi == BI_sendObject);
                fp_add(f, last.type, &last.c, SYM_EMPTY, last.flags); /* its presence */
                fp_walk(f, n->kid[i], &last, in_then, fv);
            } else if (k == ARG_ASSIGN) {
                FpCtx none = {0};
                /* set's assignments read the target (score==score+1), and
                 * whether they change anything depends on what it holds */
                fp_walk(f, n->kid[i], n->bi == BI_set || n->bi == BI_setAll ? &last : &none, in_then, fv);
            } else {
                fp_walk(f, n->kid[i], cx, in_then, fv);
            }
        }
        return;
    }
    if (n->kind == N_ATTR && cx->on && n->sym != SYM_objectId) fp_add(f, cx->type, &cx->c, n->sym, cx->flags);
    for (int i = 0; i < n->n; i++) fp_walk(f, n->kid[i], cx, in_then, fv);
}

/* What a rule reads: its if and its then (f), and its if alone (f_if,
 * unless NULL): a rule that did not fire read no more than its if. */
static void rule_footprint(RuleFp *f, RuleFp *f_if, const Prog *p)
{
    FpVars fv = {xcalloc((size_t)p->nvars + 1, sizeof *fv.type), xcalloc((size_t)p->nvars + 1, sizeof *fv.in_if), p->nvars};
    if (p->cond) fp_var_types(p->cond, fv.type, p->nvars), ids_found(p->cond, fv.in_if, p->nvars);
    if (p->then) fp_var_types(p->then, fv.type, p->nvars);
    FpCtx none = {0};
    if (p->cond) fp_walk(f, p->cond, &none, false, &fv);
    if (p->cond && f_if) fp_walk(f_if, p->cond, &none, false, &fv);
    if (p->then) fp_walk(f, p->then, &none, true, &fv);
    free(fv.type);
    free(fv.in_if);
}

static void vocab_free(Vocab *v);

/* How the rules look at each attribute, to a fixed point: a value copied
 * into an attribute that a later rule inspects is inspected too.  The
 * reading is done on a scratch vocabulary and only the SEEN_* marks are
 * kept. */
static void seen_fixpoint(Vocab *v, Prog **progs, int nr)
{
    Vocab t = {0};
    for (long before = -1, after = 0; after != before;) {
        before = after;
        for (int i = 0; i < nr; i++) {
            if (!progs[i]) continue;
            Uses u = {0};
            bool *numeric_var = xcalloc((size_t)progs[i]->nvars + 1, sizeof *numeric_var);
            unsigned char *seen_var = xcalloc((size_t)progs[i]->nvars + 1, sizeof *seen_var);
            if (progs[i]->cond) scan(&t, progs[i]->cond, SYM_EMPTY, NULL, &u, numeric_var, seen_var);
            if (progs[i]->then) scan(&t, progs[i]->then, SYM_EMPTY, NULL, &u, numeric_var, seen_var);
            for (int k = 0; k < u.n; k++) /* words are by name: what a move becomes keeps its attributes */
                if (!u.u[k].verb && !is_mech(u.u[k].attr)) word(&t, u.u[k].attr)->seen |= seen_var[u.u[k].var];
            free(numeric_var);
            free(seen_var);
            free(u.u);
        }
        after = t.nw; /* the marks only grow: their count stops when they do */
        for (int i = 0; i < t.nw; i++)
            for (unsigned m = t.w[i].seen; m; m &= m - 1) after++;
    }
    for (int i = 0; i < t.nw; i++) {
        Word *w = (Word *)find_word(v, t.w[i].name);
        if (w) w->seen |= t.w[i].seen;
    }
    vocab_free(&t);
}

typedef struct RuleIx {
    ObjId id;
    int i;
} RuleIx;

/* The objects a rule's if needs: each a top-level exists() of a literal
 * type (with its literal keys).  While none is there, the rule is false
 * whatever else changes. */
#define MAX_GUARDS 4
typedef struct Guards {
    FpRead g[MAX_GUARDS];
    Sym timed[MAX_GUARDS]; /* the attribute the guard's match asks timeGE of (a
                              time reached: timeGE(expiryTime)), or SYM_EMPTY */
    Sym num[MAX_GUARDS];   /* the attribute the guard's match asks to pass a whole
                              number (score>100, score>=100), or SYM_EMPTY ... */
    long num_floor[MAX_GUARDS]; /* ... the least value that passes (101, 100) */
    int n;
} Guards;

static Sym timed_attr(const Node *m)
{
    const Match *mi = m->match;
    for (int i = 0; mi && i < mi->nconj; i++) {
        const Node *c = mi->conj[i];
        if (c->kind == N_CALL && c->bi == BI_timeGE && c->n == 1 && c->kid[0]->kind == N_ATTR) return c->kid[0]->sym;
    }
    return SYM_EMPTY;
}

/* attr > L or attr >= L in m, L a whole number: the attribute, and the
 * least whole number that passes in *floor. */
static Sym numeric_floor(const Node *m, long *floor)
{
    const Match *mi = m->match;
    for (int i = 0; mi && i < mi->nranges; i++) {
        const MatchRange *r = &mi->ranges[i];
        long l;
        if ((r->op != TK_GT && r->op != TK_GE) || is_mech(r->name) || r->val->kind != N_NUM ||
            !sym_to_long(sym_canon(r->val->sym), &l) || l <= LONG_MIN / 4 || l >= LONG_MAX / 4)
            continue;
        *floor = r->op == TK_GT ? l + 1 : l;
        return r->name;
    }
    return SYM_EMPTY;
}

static void rule_guards(Guards *gs, const Prog *p)
{
    gs->n = 0;
    if (!p->cond) return;
    const Node **conj = NULL;
    int n = 0, cap = 0;
    node_conjuncts(p->cond, &conj, &n, &cap);
    for (int i = 0; i < n && gs->n < MAX_GUARDS; i++) {
        const Node *c = conj[i];
        if (c->kind != N_CALL || c->bi != BI_exists || c->n != 1) continue;
        Sym type = match_type(c->kid[0]);
        if (type == SYM_EMPTY) continue;
        gs->timed[gs->n] = timed_attr(c->kid[0]);
        gs->num[gs->n] = numeric_floor(c->kid[0], &gs->num_floor[gs->n]);
        FpRead *g = &gs->g[gs->n++];
        *g = (FpRead){.type = type};
        match_consts(c->kid[0], &g->c);
    }
    free(conj);
}

/* ---- what an event can change: the reach of a last move ----
 *
 * A move played as the last of a sequence (at the depth's limit) is
 * played only for the goal to be asked of the state after it, and its
 * event can change no more than the move itself, then what the rules
 * those changes concern can write, and so on.  A rule no change concerns
 * does what it did at the state before, which was quiet (every rule false,
 * or true and changing nothing: the engine ran to quiescence), so it
 * changes nothing; a rule whose guard (an object its if asks for) is not
 * in the state, and that nothing reached can make, does not fire.  When
 * nothing reached concerns what the goal reads, the goal is as false
 * after the move as it was before, and the move is not played there.  A
 * rule that can change rules or settings, or objects of a type it does
 * not name, reaches everything. */

/* What a rule's then can change: each change with the type of the object
 * (SYM_EMPTY: any), the literal keys the object has, and the attribute
 * (SYM_EMPTY: the object made, gone, or given another type), in FpRead's
 * terms so that a change meets a read as a touch does. */
enum { NW_LIT, /* set to c */
       NW_INC, /* raised by c from a value the attribute held */
       NW_ANY };
typedef struct NumWrite {
    Sym attr;
    int kind;
    long c;
} NumWrite;

typedef struct RuleWrites {
    FpRead *w;
    int n, cap;
    bool wild;          /* rules or settings, or objects of no known type or key */
    bool loose;         /* objects of no known type, by literal keys (W_LOOSE): taken on the
                           types of the objects that hold them (closure_loose) */
    Sym *future;        /* per change: an object made with this attribute a time to
                           come (timeNow() + a positive constant), or SYM_EMPTY */
    Sym *value;         /* per change of an attribute: the literal it is set to, or SYM_EMPTY */
    int fcap;
    NumWrite *num;      /* what each firing does to numbers (num_reachable) */
    int nnum, numcap;
    bool has_token;     /* each firing takes an object out of `token`, one of the
                           if's exists (set(objectId==%v)(credited==T) after
                           exists(type=="vote" & credited==F & objectId==%v)) */
    FpRead token;
    const Node *cond;   /* (while reading: the rule's if) */
    int many;           /* (while reading: inside a forEach or a setAll) */
} RuleWrites;

enum { W_GONE = 1,  /* the object is deleted, or leaves its type: it fills no guard */
       W_LOOSE = 2, /* of no known type, by literal keys: its types are read from the state (loose_rows) */
       W_SOME = 4,  /* an object made with values computed too: it may hold any key */
       W_MANY = 8   /* made or changed many times in a firing (forEach, setAll) */ };

static void write_add(RuleWrites *rw, Sym type, const Consts *c, Sym attr, Sym future, unsigned flags)
{
    static const Consts none;
    GROW(rw->w, rw->n, rw->cap);
    if (rw->fcap < rw->cap) {
        rw->fcap = rw->cap;
        rw->future = xrealloc(rw->future, (size_t)rw->fcap * sizeof *rw->future);
        rw->value = xrealloc(rw->value, (size_t)rw->fcap * sizeof *rw->value);
    }
    rw->future[rw->n] = future;
    rw->value[rw->n] = SYM_EMPTY;
    rw->w[rw->n++] = (FpRead){type, c ? *c : none, attr, flags | (rw->many ? W_MANY : 0)};
}

/* Whether the if finds %var as the value of `name` of some object: a key
 * name==%var of one of its top-level exists. */
static bool var_holds(const Node *cond, int var, Sym name)
{
    const Node **conj = NULL;
    int n = 0, cap = 0;
    bool found = false;
    if (cond) node_conjuncts(cond, &conj, &n, &cap);
    for (int i = 0; i < n && !found; i++) {
        const Node *c = conj[i];
        if (c->kind != N_CALL || c->bi != BI_exists || c->n != 1 || !c->kid[0]->match) continue;
        const Match *m = c->kid[0]->match;
        for (int k = 0; k < m->nkeys && !found; k++)
            found = m->keys[k].name == name && m->keys[k].val->kind == N_VAR && m->keys[k].val->var == var;
    }
    free(conj);
    return found;
}

/* name==val assigned by a firing, as a change of a number: a whole number
 * literal, a constant added to a value `name` held (so that no value of
 * `name` grows by more than c a time), or anything. */
static void num_write(RuleWrites *rw, Sym name, const Node *val)
{
    if (is_mech(name)) return;
    NumWrite nw = {name, NW_ANY, 0};
    long x;
    if (node_is_literal(val)) {
        if (val->sym == SYM_EMPTY) return; /* the attribute removed: "" passes no floor */
        if (sym_to_long(sym_canon(val->sym), &x) && x > LONG_MIN / 4 && x < LONG_MAX / 4) nw.kind = NW_LIT, nw.c = x;
    } else if (!rw->many && val->kind == N_ARITH && (val->op == TK_PLUS || val->op == TK_MINUS)) {
        for (int i = 0; i < 2 && nw.kind == NW_ANY; i++) {
            const Node *k = val->kid[i], *v = val->kid[1 - i];
            if (i == 0 && val->op == TK_MINUS) continue; /* c - %s */
            if (k->kind == N_NUM && sym_to_long(sym_canon(k->sym), &x) && x > LONG_MIN / 4 && x < LONG_MAX / 4 &&
                v->kind == N_VAR && var_holds(rw->cond, v->var, name))
                nw.kind = NW_INC, nw.c = val->op == TK_MINUS ? -x : x;
        }
    }
    GROW(rw->num, rw->nnum, rw->numcap);
    rw->num[rw->nnum++] = nw;
}

/* A sum or product of positive number literals (10*24*60*60). */
static bool positive_constant(const Node *n)
{
    long x;
    if (n->kind == N_NUM) return sym_to_long(n->sym, &x) && x > 0;
    if (n->kind == N_ARITH && (n->op == TK_PLUS || n->op == TK_STAR)) return positive_constant(n->kid[0]) && positive_constant(n->kid[1]);
    return false;
}

/* timeNow() + a positive constant: a time after the event's. */
static bool time_to_come(const Node *n)
{
    if (n->kind != N_ARITH || n->op != TK_PLUS) return false;
    for (int i = 0; i < 2; i++)
        if (n->kid[i]->kind == N_CALL && n->kid[i]->bi == BI_timeNow && positive_constant(n->kid[1 - i])) return true;
    return false;
}

/* A change to objects of type `type` with keys c: rules or settings, or
 * perhaps (no type known); returns the flag its writes take. */
static unsigned write_target(RuleWrites *rw, Sym type, const Consts *c, Sym run_type)
{
    if (type == run_type || type == SYM_engineSettings || (type == SYM_EMPTY && !c->n)) rw->wild = true;
    else if (type == SYM_EMPTY) return rw->loose = true, W_LOOSE;
    return 0;
}

/* What the then's variables name as its verbs run, in order: the type of
 * the object each found or made (objectId==%v) and the literal keys it was
 * found or made with.  A verb that assigns an attribute makes it unknown
 * on every variable's object after it (two variables may name one
 * object), and a type it assigns makes every other variable's type
 * unknown. */
typedef struct VarObjs {
    Sym *type;
    Consts *c;
    int n;
} VarObjs;

/* The names a verb (or every verb within n) assigns. */
typedef struct Assigned {
    Sym name[16];
    int n;
    bool many;
} Assigned;

static void assigns_of(const Node *assigns, Assigned *a)
{
    const Node **conj = NULL;
    int k = 0, cap = 0;
    node_conjuncts(assigns, &conj, &k, &cap);
    for (int i = 0; i < k; i++) {
        if (conj[i]->kind != N_CMP || conj[i]->kid[0]->kind != N_ATTR) continue;
        if (a->n == 16) a->many = true;
        else a->name[a->n++] = conj[i]->kid[0]->sym;
    }
    free(conj);
}

static void assigns_within(const Node *n, Assigned *a)
{
    if (n->kind == N_CALL && (n->bi == BI_set || n->bi == BI_setAll) && n->n == 2) assigns_of(n->kid[1], a);
    for (int i = 0; i < n->n; i++) assigns_within(n->kid[i], a);
}

static bool is_assigned(const Assigned *a, Sym name)
{
    for (int i = 0; i < a->n; i++)
        if (a->name[i] == name) return true;
    return a->many;
}

/* After verbs that assign a: what every variable's object is no longer
 * known to be; var (if >= 0) is the object whose type became `type`. */
static void vars_forget(VarObjs *vo, const Assigned *a, int var, Sym type)
{
    for (int u = 0; u < vo->n; u++) {
        Consts *c = &vo->c[u];
        int kept = 0;
        for (int i = 0; i < c->n; i++)
            if (!is_assigned(a, c->a[i].name)) c->a[kept++] = c->a[i];
        c->n = kept;
        if (is_assigned(a, SYM_type)) vo->type[u] = u == var ? type : SYM_EMPTY;
    }
}

/* A match that binds objectId==%v names an object of its literal type and
 * keys (less those `a` assigns, when verbs may have run since).  The if's
 * matches add to what each other says of one variable; a forEach's says
 * all that is known of the objects it goes through. */
static void vars_bind(VarObjs *vo, const Node *m, const Assigned *a)
{
    for (int k = 0; m->match && k < m->match->nkeys; k++) {
        const MatchKey *key = &m->match->keys[k];
        if (key->name != SYM_objectId || key->val->kind != N_VAR || key->val->var >= vo->n) continue;
        int v = key->val->var;
        if (a) vo->type[v] = SYM_EMPTY, vo->c[v].n = 0; /* a forEach */
        Consts all, *c = &vo->c[v];
        match_consts(m, &all);
        for (int i = 0; i < all.n && c->n < MAX_CONSTS; i++) {
            bool have = false;
            for (int j = 0; j < c->n && !have; j++) have = c->a[j].name == all.a[i].name;
            if (!have && !(a && is_assigned(a, all.a[i].name))) c->a[c->n++] = all.a[i];
        }
        if (vo->type[v] == SYM_EMPTY && !(a && is_assigned(a, SYM_type))) vo->type[v] = match_type(m);
    }
}

static int var_of(const Node *m, const VarObjs *vo)
{
    for (int k = 0; m->match && k < m->match->nkeys; k++) {
        const MatchKey *key = &m->match->keys[k];
        if (key->name == SYM_objectId && key->val->kind == N_VAR && key->val->var < vo->n) return key->val->var;
    }
    return -1;
}

/* The objects a verb's match names: its literal type and keys, and those
 * of the object its variable names (objectId==%v); type SYM_EMPTY if none. */
static Sym target_of(const Node *m, const VarObjs *vo, Consts *c)
{
    Sym t = match_type(m);
    match_consts(m, c);
    int var = var_of(m, vo);
    if (var < 0) return t;
    if (t == SYM_EMPTY) t = vo->type[var];
    const Consts *vc = &vo->c[var];
    for (int i = 0; i < vc->n && c->n < MAX_CONSTS; i++) {
        bool have = false;
        for (int k = 0; k < c->n && !have; k++) have = c->a[k].name == vc->a[i].name;
        if (!have) c->a[c->n++] = vc->a[i];
    }
    return t;
}

/* create(...): an object made, with its literal values as keys. */
static void writes_of_create(RuleWrites *rw, const Node *assigns, VarObjs *vo, Sym run_type)
{
    const Node **conj = NULL;
    int n = 0, cap = 0;
    node_conjuncts(assigns, &conj, &n, &cap);
    Sym type = SYM_EMPTY, future = SYM_EMPTY;
    Consts c = {0};
    int var = -1;
    unsigned some = 0;
    for (int i = 0; i < n; i++) {
        const Node *a = conj[i];
        if (a->kind != N_CMP || a->op != TK_EQ || a->kid[0]->kind != N_ATTR) continue;
        Sym name = a->kid[0]->sym;
        bool lit = node_is_literal(a->kid[1]) && a->kid[1]->sym != SYM_EMPTY;
        num_write(rw, name, a->kid[1]);
        if (future == SYM_EMPTY && time_to_come(a->kid[1])) future = name;
        if (name == SYM_objectId && a->kid[1]->kind == N_VAR && a->kid[1]->var < vo->n) var = a->kid[1]->var;
        else if (name == SYM_type && lit) type = sym_canon(a->kid[1]->sym);
        else if (name == SYM_type) rw->wild = true; /* a type computed: anything */
        else if (lit && !is_mech(name) && c.n < MAX_CONSTS) c.a[c.n++] = (Attr){name, sym_canon(a->kid[1]->sym)};
        else if (name != SYM_type) some = W_SOME;
    }
    free(conj);
    if (type == run_type || type == SYM_engineSettings) rw->wild = true;
    write_add(rw, type, &c, SYM_EMPTY, future, some); /* (no type: an object no typed read sees, SYM_EMPTY meets them all anyway) */
    if (var >= 0) vo->type[var] = type, vo->c[var] = c;
}

/* set(M)(...) and setAll: each attribute assigned on M's objects; a type
 * assigned takes them out of M's type and into another. */
static void writes_of_set(RuleWrites *rw, const Node *m, const Node *assigns, VarObjs *vo, Sym run_type)
{
    Consts c;
    Sym type = target_of(m, vo, &c), to = SYM_EMPTY;
    unsigned loose = write_target(rw, type, &c, run_type);
    const Node **conj = NULL;
    int n = 0, cap = 0;
    node_conjuncts(assigns, &conj, &n, &cap);
    for (int i = 0; i < n; i++) {
        const Node *a = conj[i];
        if (a->kind != N_CMP || a->op != TK_EQ || a->kid[0]->kind != N_ATTR) continue;
        Sym name = a->kid[0]->sym;
        if (name != SYM_type) {
            write_add(rw, type, &c, name, SYM_EMPTY, loose);
            if (node_is_literal(a->kid[1])) rw->value[rw->n - 1] = sym_canon(a->kid[1]->sym);
            num_write(rw, name, a->kid[1]);
            continue;
        }
        write_add(rw, type, &c, SYM_EMPTY, SYM_EMPTY, W_GONE | loose); /* gone from its type */
        to = node_is_literal(a->kid[1]) ? sym_canon(a->kid[1]->sym) : SYM_EMPTY;
        if (to == SYM_EMPTY || to == run_type || to == SYM_engineSettings) rw->wild = true;
        write_add(rw, to, NULL, SYM_EMPTY, SYM_EMPTY, W_SOME); /* ... and come into another, with whatever keys it had */
    }
    free(conj);
    Assigned as = {0};
    assigns_of(assigns, &as);
    vars_forget(vo, &as, var_of(m, vo), to);
}

static void writes_walk(RuleWrites *rw, const Node *n, VarObjs *vo, Sym run_type)
{
    if (n->kind == N_AND) {
        for (int i = 0; i < n->n; i++) writes_walk(rw, n->kid[i], vo, run_type);
        return;
    }
    if (n->kind != N_CALL) {
        rw->wild = true;
        return;
    }
    switch (n->bi) {
    case BI_create:
        writes_of_create(rw, n->kid[0], vo, run_type);
        break;
    case BI_delete:
    case BI_deleteAll: {
        Consts c;
        Sym type = target_of(n->kid[0], vo, &c);
        unsigned loose = write_target(rw, type, &c, run_type);
        write_add(rw, type, &c, SYM_EMPTY, SYM_EMPTY, W_GONE | loose);
        break;
    }
    case BI_set:
        writes_of_set(rw, n->kid[0], n->kid[1], vo, run_type);
        break;
    case BI_setAll:
        rw->many++;
        writes_of_set(rw, n->kid[0], n->kid[1], vo, run_type);
        rw->many--;
        break;
    case BI_forEach: {
        /* its verbs run once per object: what they assign is unknown from
         * the first on, the objects taken first included */
        Assigned body = {0};
        for (int i = 1; i < n->n; i++) assigns_within(n->kid[i], &body);
        vars_forget(vo, &body, -1, SYM_EMPTY);
        vars_bind(vo, n->kid[0], &body);
        rw->many++;
        for (int i = 1; i < n->n; i++) writes_walk(rw, n->kid[i], vo, run_type);
        rw->many--;
        break;
    }
    case BI_send:
    case BI_sendObject:
    case BI_sendNow:
    case BI_halt: /* no object */
        break;
    default: /* not a verb this reading knows */
        rw->wild = true;
        break;
    }
}

/* Whether match m is objectId==%var alone: the one object %var names. */
static bool names_only(const Node *m, int var)
{
    const Match *mi = m->match;
    return mi && mi->nconj == 1 && mi->nkeys == 1 && mi->keys[0].name == SYM_objectId &&
           mi->keys[0].val->kind == N_VAR && mi->keys[0].val->var == var;
}

/* Whether verb n takes the object %var names out of the objects of `type`
 * with keys c: deletes it, or sets its type or one of the keys to another
 * literal. */
static bool takes_out(const Node *n, int var, Sym type, const Consts *c)
{
    if (n->kind != N_CALL || n->n < 1 || !names_only(n->kid[0], var)) return false;
    if (n->bi == BI_delete) return true;
    if (n->bi != BI_set || n->n != 2) return false;
    const Node **conj = NULL;
    int k = 0, cap = 0;
    bool out = false;
    node_conjuncts(n->kid[1], &conj, &k, &cap);
    for (int i = 0; i < k && !out; i++) {
        const Node *a = conj[i];
        if (a->kind != N_CMP || a->op != TK_EQ || a->kid[0]->kind != N_ATTR || !node_is_literal(a->kid[1])) continue;
        Sym name = a->kid[0]->sym, to = sym_canon(a->kid[1]->sym);
        if (name == SYM_type) out = to != type;
        for (int j = 0; j < c->n && !out; j++) out = c->a[j].name == name && c->a[j].value != to;
    }
    free(conj);
    return out;
}

/* The token of a rule (RuleWrites.token): a top-level exists of a literal
 * type that finds objectId==%v, and a verb of the then, at its top level
 * (run once a firing), that takes %v's object out of it.  Such a rule
 * fires at most once for each object that matches the exists at the
 * start of the event or comes to match it during it. */
static void rule_token(RuleWrites *rw, const Prog *p)
{
    const Node **conj = NULL, **verbs = NULL;
    int n = 0, cap = 0, nv = 0, vcap = 0;
    node_conjuncts(p->cond, &conj, &n, &cap);
    node_conjuncts(p->then, &verbs, &nv, &vcap);
    for (int i = 0; i < n && !rw->has_token; i++) {
        const Node *c = conj[i];
        if (c->kind != N_CALL || c->bi != BI_exists || c->n != 1 || !c->kid[0]->match) continue;
        Sym type = match_type(c->kid[0]);
        int var = -1;
        const Match *m = c->kid[0]->match;
        for (int k = 0; k < m->nkeys; k++)
            if (m->keys[k].name == SYM_objectId && m->keys[k].val->kind == N_VAR) var = m->keys[k].val->var;
        if (type == SYM_EMPTY || var < 0) continue;
        Consts keys;
        match_consts(c->kid[0], &keys);
        int lits = 0; /* (each must be kept: a change of one left out could bring an object back) */
        for (int k = 0; k < m->nkeys; k++)
            lits += !is_mech(m->keys[k].name) && node_is_literal(m->keys[k].val) && m->keys[k].val->sym != SYM_EMPTY;
        if (lits > keys.n) continue;
        for (int v = 0; v < nv && !rw->has_token; v++)
            if (takes_out(verbs[v], var, type, &keys)) rw->has_token = true, rw->token = (FpRead){.type = type, .c = keys};
    }
    free(verbs);
    free(conj);
}

static void rule_writes(RuleWrites *rw, const Prog *p, Sym run_type)
{
    if (!p->then) return;
    rw->cond = p->cond;
    if (p->cond) rule_token(rw, p);
    VarObjs vo = {xcalloc((size_t)p->nvars + 1, sizeof *vo.type), xcalloc((size_t)p->nvars + 1, sizeof *vo.c), p->nvars};
    if (p->cond) { /* what the if found: its top-level exists */
        const Node **conj = NULL;
        int n = 0, cap = 0;
        node_conjuncts(p->cond, &conj, &n, &cap);
        for (int i = 0; i < n; i++)
            if (conj[i]->kind == N_CALL && conj[i]->bi == BI_exists && conj[i]->n == 1) vars_bind(&vo, conj[i]->kid[0], NULL);
        free(conj);
    }
    writes_walk(rw, p->then, &vo, run_type);
    rw->cond = NULL;
    free(vo.c);
    free(vo.type);
}

/* Whether change w can concern read r (as touch_relevant, before the
 * fact): the same type, no literal key they disagree on (unless w changes
 * that key), and the attribute r reads, a key of r's, or the object
 * itself. */
static bool write_meets(const FpRead *w, const FpRead *r)
{
    if (w->type != SYM_EMPTY && r->type != SYM_EMPTY && w->type != r->type) return false;
    for (int i = 0; i < w->c.n; i++)
        for (int k = 0; k < r->c.n; k++)
            if (w->c.a[i].name == r->c.a[k].name && w->c.a[i].value != r->c.a[k].value && w->c.a[i].name != w->attr)
                return false;
    if (w->attr == SYM_EMPTY) return !(r->flags & FP_PINNED);
    for (int k = 0; k < r->c.n; k++)
        if (r->c.a[k].name == w->attr) return true;
    return (r->flags & FP_ALLATTR) || r->attr == w->attr;
}

static bool writes_meet(const FpRead *w, int nw, const RuleFp *f)
{
    for (int i = 0; i < nw; i++) {
        if (w[i].flags & W_LOOSE) continue; /* (loose_rows) */
        if (f->all) return true;
        for (int k = 0; k < f->n; k++)
            if (write_meets(&w[i], &f->r[k])) return true;
    }
    return false;
}

/* Whether change w (of rule writes rw, index x) can fill guard k of gs:
 * make, or give its keys to, an object the guard asks for; for a guard on
 * a time reached (timeGE(expiryTime)), one whose time may be reached now,
 * which an object made with that time to come is not. */
static bool write_fills(const FpRead *w, Sym future, const Guards *gs, int k)
{
    FpRead g = gs->g[k];
    Sym timed = gs->timed[k];
    if (w->flags & (W_GONE | W_LOOSE)) return false;
    if (gs->num[k] != SYM_EMPTY) { /* a number raised may pass the floor */
        g.attr = gs->num[k];
        if (write_meets(w, &g) && w->attr != SYM_EMPTY) return true;
    }
    if (timed == SYM_EMPTY) return write_meets(w, &g);
    g.attr = timed;
    return write_meets(w, &g) && !(w->attr == SYM_EMPTY && future == timed);
}

/* The rules' reach, as bits: a rule reaches those whose reads its changes
 * can concern (the if's alone, for a rule known false where the move is
 * played; if and then, for one that may hold), and the guards they can
 * fill. */
typedef struct Reach {
    int words;          /* a row of rules: a bit per rule of the vocabulary's order */
    int gwords;         /* a row of guards: bit j * MAX_GUARDS + k, guard k of rule j */
    uint64_t *wild;     /* the rules that reach everything */
    uint64_t *meets_if; /* row i: the rules whose if rule i's changes concern */
    uint64_t *meets;    /* row i: the rules whose if or then they concern */
    uint64_t *fills;    /* row i (gwords): the guards rule i's changes can fill */
    uint64_t *numeric;  /* (gwords) the guards that ask a floor of a number: filled only
                           if the event can raise a number that far (num_reachable) */
    RuleWrites *rw;     /* per rule */
} Reach;

/* Past this many rules every last move is played: the reach is not read. */
#define REACH_RULES_MAX 512

static void reach_build(Reach *R, const Prog *const *progs, const RuleFp *fp, const RuleFp *fp_if, const Guards *guards,
                        int nr, Sym run_type)
{
    R->words = (nr + 63) / 64 + 1;
    R->gwords = (nr * MAX_GUARDS + 63) / 64 + 1;
    R->rw = xcalloc((size_t)nr + 1, sizeof *R->rw);
    R->wild = xcalloc((size_t)R->words, sizeof *R->wild);
    R->meets_if = xcalloc((size_t)(nr + 1) * (size_t)R->words, sizeof *R->meets_if);
    R->meets = xcalloc((size_t)(nr + 1) * (size_t)R->words, sizeof *R->meets);
    R->fills = xcalloc((size_t)(nr + 1) * (size_t)R->gwords, sizeof *R->fills);
    R->numeric = xcalloc((size_t)R->gwords, sizeof *R->numeric);
    for (int j = 0; j < nr; j++)
        for (int k = 0; k < guards[j].n; k++)
            if (guards[j].num[k] != SYM_EMPTY) R->numeric[(j * MAX_GUARDS + k) / 64] |= 1ULL << ((j * MAX_GUARDS + k) % 64);
    for (int i = 0; i < nr; i++) {
        if (progs[i]) rule_writes(&R->rw[i], progs[i], run_type);
        if (R->rw[i].wild) R->wild[i / 64] |= 1ULL << (i % 64);
    }
    for (int i = 0; i < nr; i++) {
        const RuleWrites *rw = &R->rw[i];
        for (int j = 0; j < nr && rw->n; j++) {
            uint64_t bit = 1ULL << (j % 64);
            if (writes_meet(rw->w, rw->n, &fp_if[j])) R->meets_if[(size_t)i * R->words + j / 64] |= bit;
            if (writes_meet(rw->w, rw->n, &fp[j])) R->meets[(size_t)i * R->words + j / 64] |= bit;
            for (int k = 0; k < guards[j].n; k++) {
                bool fill = false;
                for (int x = 0; x < rw->n && !fill; x++) fill = write_fills(&rw->w[x], rw->future[x], &guards[j], k);
                int g = j * MAX_GUARDS + k;
                if (fill) R->fills[(size_t)i * R->gwords + g / 64] |= 1ULL << (g % 64);
            }
        }
    }
}

static void reach_free(Reach *R, int nr)
{
    for (int i = 0; R->rw && i < nr; i++) free(R->rw[i].w), free(R->rw[i].future), free(R->rw[i].value), free(R->rw[i].num);
    free(R->rw);
    free(R->wild);
    free(R->meets_if);
    free(R->meets);
    free(R->fills);
    free(R->numeric);
}

static int cmp_rule_ix(const void *a, const void *b)
{
    ObjId x = ((const RuleIx *)a)->id, y = ((const RuleIx *)b)->id;
    return (x > y) - (x < y);
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
    v->fp = xcalloc((size_t)(nr ? nr : 1), sizeof *v->fp);
    v->fp_if = xcalloc((size_t)(nr ? nr : 1), sizeof *v->fp_if);
    v->by_id = xcalloc((size_t)(nr ? nr : 1), sizeof *v->by_id);
    v->guards = xcalloc((size_t)(nr ? nr : 1), sizeof *v->guards);
    for (int i = 0; i < nr; i++) v->by_id[i] = (RuleIx){ri[i].id, i};
    qsort(v->by_id, (size_t)nr, sizeof *v->by_id, cmp_rule_ix);
    v->nfp = nr;
    v->run_type = g->eng->run_type;
    for (int i = 0; i < nr; i++) {
        if (!progs[i]) continue;
        rule_footprint(&v->fp[i], &v->fp_if[i], progs[i]);
        rule_guards(&v->guards[i], progs[i]);
        Uses u = {0};
        bool *numeric_var = xcalloc((size_t)progs[i]->nvars + 1, sizeof *numeric_var);
        unsigned char *seen_var = xcalloc((size_t)progs[i]->nvars + 1, sizeof *seen_var);
        if (progs[i]->cond) scan(v, progs[i]->cond, SYM_EMPTY, NULL, &u, numeric_var, seen_var);
        if (progs[i]->then) scan(v, progs[i]->then, SYM_EMPTY, NULL, &u, numeric_var, seen_var);
        joins_of_rule(v, &u, numeric_var); /* (the SEEN_* marks: seen_fixpoint) */
        if (progs[i]->cond) {
            Consts seen[8];
            int nseen = 0;
            find_pairs(v, progs[i]->cond, seen, &nseen);
        }
        if (progs[i]->then) find_becomes(v, progs[i]->then, &u);
        free(numeric_var);
        free(seen_var);
        free(u.u);
    }
    seen_fixpoint(v, progs, nr);
    if (nr <= REACH_RULES_MAX) { /* (reach_build's cost is the square of the rules') */
        v->reach = xcalloc(1, sizeof *v->reach);
        reach_build(v->reach, (const Prog *const *)progs, v->fp, v->fp_if, v->guards, nr, v->run_type);
    }
    for (int i = 0; i < nr; i++) prog_free(progs[i]);
    free(progs);
    free(ri);
    if (g->sugar) shapes_from_sugar(v, g->sugar);
    if (!v->ns) { /* no rule tells moves apart: one shape, every attribute read is base */
        GROW(v->s, v->ns, v->scap);
        v->s[v->ns++] = (MoveShape){0};
    }
    for (int i = 0; i < v->ns; i++) shape_extras(v, &v->s[i]);
    boundaries(v);
}

static void vocab_free(Vocab *v)
{
    for (int i = 0; i < v->nfp; i++) free(v->fp[i].r), free(v->fp_if ? v->fp_if[i].r : NULL);
    free(v->fp);
    free(v->fp_if);
    free(v->by_id);
    free(v->guards);
    if (v->reach) reach_free(v->reach, v->nfp);
    free(v->reach);
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
    for (int i = 0; i < v->nbounds; i++) sym_mark(v->bounds[i]);
    for (int i = 0; i < v->ngoal_nums; i++) sym_mark(v->goal_nums[i]);
    for (int i = 0; i < v->ngoal_texts; i++) sym_mark(v->goal_texts[i]);
    for (int i = 0; i < v->npairs; i++)
        for (int k = 0; k < 2; k++)
            for (int a = 0; a < v->pair[i][k].n; a++) sym_mark(v->pair[i][k].a[a].name), sym_mark(v->pair[i][k].a[a].value);
    sym_mark(v->long_text);
    sym_mark(v->run_type);
    for (int i = 0; i < v->nfp; i++)
        for (int k = 0; k < v->fp[i].n; k++) {
            const FpRead *r = &v->fp[i].r[k];
            sym_mark(r->type), sym_mark(r->attr);
            for (int a = 0; a < r->c.n; a++) sym_mark(r->c.a[a].name), sym_mark(r->c.a[a].value);
        }
    for (int i = 0; v->reach && i < v->nfp; i++)
        for (int k = 0; k < v->reach->rw[i].n; k++) {
            const FpRead *w = &v->reach->rw[i].w[k];
            sym_mark(w->type), sym_mark(w->attr), sym_mark(v->reach->rw[i].future[k]);
            for (int a = 0; a < w->c.n; a++) sym_mark(w->c.a[a].name), sym_mark(w->c.a[a].value);
        }
    sym_mark(v->fresh);
}

/* ---- the search ---- */

typedef struct Seen {
    uint64_t *h;
    uint8_t *depth;
    size_t cap, len;
} Seen;

typedef struct Touch {
    Sym type;           /* the object's type (SYM_EMPTY: unknown) */
    Sym attr;           /* SYM_EMPTY: the object came or went */
    Sym old, now;       /* a set's values before and after */
    const Obj *o;       /* the object as it is (or was, if gone): its keys */
} Touch;

typedef struct Touches {
    Touch *t;
    int n, cap;
    bool rules;         /* a rule or the settings changed: skip nothing */
} Touches;

#define LOOSE_TYPES 8   /* per rule, the types of the objects its loose changes may find now */
#define LOOSE_PAIRS 64  /* (rule, type) taken in one closure */

/* A rule's loose change (no type known: delete(cleanup==T)) taken as a
 * change of objects of one type: what it concerns, as reach_build's rows.
 * Kept for the search, emptied when texts are collected. */
typedef struct LooseRows {
    int rule, write;
    Sym type;
    bool goal;          /* the goal reads them (or they change rules) */
    uint64_t *rows;     /* meets_if (words), meets (words), fills (gwords) */
} LooseRows;

/* What the search knows of the reach at the state of the last moves
 * (reach_ready), and its scratch. */
#define NUM_ATTRS 8
#define NO_NUMBER (LONG_MIN / 4)
#define UNBOUNDED LONG_MAX
typedef struct ReachNow {
    uint64_t *goal_hit;         /* the rules whose changes the goal's reads concern */
    uint64_t *present;          /* the guards that may have an object here */
    uint64_t *wild_now;         /* the rules that reach everything here */
    uint64_t *false_now;        /* the rules the engine knows false here */
    ObjId *false_ids;
    Sym (*loose_types)[LOOSE_TYPES]; /* per rule: the types of the objects its loose changes find here */
    int *nloose;                /* ... how many (-1: too many to tell: the rule is wild here) */
    uint64_t *tmp;              /* cand, active (words), sat, nsat (gwords) */
    Sym num_attrs[NUM_ATTRS];   /* the attributes the guards ask a floor of ... */
    int nnum;
    long num_top[NUM_ATTRS];    /* ... the largest whole number an object holds in each
                                   here (NO_NUMBER: none), or UNBOUNDED (a text, a fraction, ...) */
    long moves_top[NUM_ATTRS];  /* the largest of each in the moves of the state (any_reaches) */
    long *tokens_now;           /* per rule with a token: the objects that match it here
                                   (UNBOUNDED: too many to count) */
    long *fire;                 /* (scratch of firings()) */
    LooseRows *cache;
    int ncache, cachecap;
    uint64_t here;              /* a hash of what reach_ready found */
    uint64_t *known;            /* answers by hash of (here, move): key | 1 when it reaches
                                   the goal, key & ~1 when not; 0 empty */
    size_t nknown, known_cap;
} ReachNow;

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
    uint64_t work;              /* units of work of the events run */
    struct Noops *noops;        /* per depth: the moves known to change nothing there */
    Touches tmp;                /* scratch */
    bool no_skip;               /* the rules changed on the way: skip nothing below */
    RuleFp goal_fp;             /* what the goal reads: a last move whose known effect misses it is not played */
    bool goal_blind;            /* the goal's reads are not known (random(), names from values, messages) */
    uint64_t *fired;            /* the rules (a bit each, the vocabulary's order) that fired in the last event */
    struct ReachNow rn;         /* the reach at the state of the last moves (reaches_goal) */
    bool reach_on;              /* last moves out of the goal's reach are not played (not --play-all) */
    struct Jobs *jobs;          /* a round shared between processes (--jobs), or NULL */
    int split;                  /* > 0: the fresh states at this depth are the tasks of a round shared */
    long task;                  /* the tasks numbered so far in this round */
    long cur_task;              /* the task being searched, or -1 */
    long only_task;             /* NO_TASK, or the one task searched (-1: none) when a round is played again alone */
    int worker;                 /* this process's number in a round shared (0: the parent) */
    bool unbounded;             /* the budget does not stop this round (the answer's task played again) */
    Sym nums[4 * STATE_NUMS];   /* the state's numbers at this step, doubled and negated */
    int nnums;
    bool nums_ready;            /* nums is this state's */
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

/* ---- a round shared between processes (--jobs) ----
 *
 * Every process plays the round's steps above the split depth alike, and
 * numbers the fresh states it reaches at that depth the same way: those
 * are the tasks, and each is searched below by the first process to claim
 * it.  A process keeps its own states, so a state two tasks reach may be
 * searched by both; none is searched by nobody.  The answer is the one the
 * round would find alone: the first in the order of the tasks (a goal
 * reached above the split counts between the tasks around it), which the
 * parent then plays again, alone and in that task only, for the steps. */

#define NO_TASK (-2L)
#define MAX_JOBS 16
#define JOB_CLAIMS (1u << 20) /* tasks claimed one by one; past them, by number */

typedef struct JobCounts {
    long explored, skipped, skipped_last, skipped_reach, revisits, cut[NCUTS];
    bool budget_spent;
} JobCounts;

typedef struct Jobs {
    int n;
    _Atomic long events;        /* of the whole search, every process's */
    _Atomic uint64_t work;
    _Atomic long found;         /* the least place (search_place) of a goal reached */
    JobCounts w[MAX_JOBS];
    _Atomic unsigned char claims[JOB_CLAIMS];
} Jobs;

static int worker_of(const Search *S) { return S->worker; }

/* Where the search is in the order of the round: 2t + 1 in task t, 2t
 * between task t - 1 and task t. */
static long search_place(const Search *S) { return S->cur_task >= 0 ? 2 * S->cur_task + 1 : 2 * S->task; }

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

/* One move of a step's message, made as the Mechanics make a move. */
static void make_move(Pool *p, const Attr *attrs, int nattrs, Sym from, Sym when, Sym batch, int index)
{
    Attr a[MOVE_MECHANICS + SCAM_MAX_ATTRS];
    int n = move_mechanics(a, from, when, batch, index);
    memcpy(a + n, attrs, (size_t)nattrs * sizeof *a);
    pool_create_with(p, a, (uint32_t)(n + nattrs));
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
            if (c == 0) batch = sym_from_long((long)g->pool->next_id); /* the batch is named by its first move */
            make_move(g->pool, st->attrs, st->nattrs, from, when, batch, c + 1);
        }
        if (st->nattrs2) /* a second, different move of the same message */
            make_move(g->pool, st->attrs2, st->nattrs2, from, when, batch, st->copies + 1);
    }
    EventRun er;
    g->eng->trace_on = trace != NULL;
    engine_run(g->eng, S->now, &er);
    S->events++;
    S->work += er.used.work;
    if (S->jobs) {
        atomic_fetch_add(&S->jobs->events, 1);
        atomic_fetch_add(&S->jobs->work, er.used.work);
    }
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

/* A context to read the goal in, at this state, under one event's budget. */
static void goal_ctx(Search *S, Ctx *cx, MsgList *sent)
{
    *cx = (Ctx){.pool = S->g->pool, .prog = S->goal, .vars = S->goal_vars, .now = S->now, .created = S->g->eng->created,
                .rng = S->g->eng->rng, .queue = &S->g->eng->queue, .sent = sent};
    cx->meter = (Meter){.work_max = 50000000, .memory_max = 64 << 20, .deliveries_max = 1, .number_digits = 100000,
                        .number_bits = 100000 * 10 / 3 + 1};
    ctx_bind_reset(cx);
}

/* One condition (a conjunct of the goal) at this state, on its own. */
static bool cond_holds(Search *S, const Node *cond)
{
    Ctx cx;
    MsgList sent = {0};
    goal_ctx(S, &cx, &sent);
    uint64_t rng[4];
    memcpy(rng, S->g->eng->rng, sizeof rng);
    bool first;
    bool held = eval_conjunction(&cx, &cond, 1, &first);
    memcpy(S->g->eng->rng, rng, sizeof rng);
    free(cx.trail);
    msg_free(&sent);
    return held && !cx.failed;
}

static bool goal_holds_now(Search *S)
{
    Ctx cx;
    MsgList sent = {0};
    goal_ctx(S, &cx, &sent);
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

static bool add_cand(Sym *c, int *n, int max, Sym s, long *cut)
{
    for (int i = 0; i < *n; i++)
        if (c[i] == s || (sym_is_number(s) && sym_canon(c[i]) == sym_canon(s))) return false;
    if (*n >= max) {
        if (cut) (*cut)++;
        return false;
    }
    c[(*n)++] = s;
    return true;
}

/* The values of a join in the live state, newest object first. */
static void join_values(const Search *S, const Join *j, Sym *c, int *n, int max)
{
    const Pool *p = S->g->pool;
    const IdSet *set = pool_lookup(p, SYM_type, j->type);
    /* an answer shows its moves: never what the rules keep private */
    if (j->attr != SYM_objectId && attr_is_private(S->g->eng->private_attrs, j->attr)) return;
    int took = 0;
    for (uint32_t i = set ? set->len : 0; i-- > 0;) {
        const Obj *o = pool_get(p, set->ids[i]);
        if (!o) continue;
        Sym val = j->attr == SYM_objectId ? o->idsym : obj_get(o, j->attr);
        if (val == SYM_EMPTY) continue;
        if (took >= PER_JOIN) { /* a value past the newest few: the answer says the vocabulary was cut */
            bool known = false;
            for (int k = 0; k < *n && !known; k++) known = c[k] == val;
            if (!known) {
                S->r->cut[CUT_JOINS]++;
                return;
            }
            continue;
        }
        took += add_cand(c, n, max, val, &S->r->cut[CUT_VALUES]);
    }
}

/* The numbers of the state as it is at this step (not times, not rule
 * orders, not private): the largest few, their negatives and doubles,
 * the values that cancel or double what the rules compare. */
static void state_numbers(Search *S)
{
    if (S->nums_ready) return;
    S->nums_ready = true;
    S->nnums = 0;
    const Pool *p = S->g->pool;
    long big[STATE_NUMS] = {0};
    int nbig = 0;
    for (uint32_t i = idset_seek(&p->all, 0, 1); i < p->all.len; i = idset_seek(&p->all, i + 1, 0)) {
        const Obj *o = pool_get(p, p->all.ids[i]);
        for (uint32_t k = 0; k < obj_n(o); k++) {
            long n;
            Sym val = obj_value(o, k);
            if (!sym_is_number(val) || !sym_to_long(val, &n) || n <= 1 || n >= 1000000000L) continue;
            if (obj_name(o, k) == SYM_ruleOrder || attr_is_private(S->g->eng->private_attrs, obj_name(o, k))) continue;
            int at = 0;
            while (at < nbig && big[at] > n) at++;
            if (at < nbig && big[at] == n) continue;
            if (at == STATE_NUMS) {
                S->r->cut[CUT_VALUES]++; /* a smaller number of the state, not tried */
                continue;
            }
            if (nbig == STATE_NUMS) S->r->cut[CUT_VALUES]++;
            else nbig++;
            memmove(&big[at + 1], &big[at], (size_t)(nbig - 1 - at) * sizeof *big);
            big[at] = n;
        }
    }
    for (int i = 0; i < nbig; i++) {
        S->nums[S->nnums++] = sym_from_long(big[i]);
        S->nums[S->nnums++] = sym_from_long(-big[i]);
        if (big[i] < LONG_MAX / 2) {
            S->nums[S->nnums++] = sym_from_long(2 * big[i]);
            S->nums[S->nnums++] = sym_from_long(-2 * big[i]);
        }
    }
}

/* Values to try for attribute `name` of a move: the sugar's alternatives,
 * the literals the rules compare it with, the live values they join it
 * with, then the usual suspects: for an amount, the state's numbers at
 * this step (doubled, negated), the goal's and the boundaries. */
static int candidates(Search *S, Sym name, char *const *alts, int nalts, bool extra, Sym sender, Sym *c, int max)
{
    long *cut = &S->r->cut[extra ? CUT_EXTRAS : CUT_VALUES];
    int n = 0;
    for (int i = 0; i < nalts; i++) add_cand(c, &n, max, sym_cstr(alts[i]), cut);
    const Word *w = find_word(&S->v, name);
    for (int i = 0; w && i < w->nlits; i++)
        if (w->lits[i] != SYM_EMPTY) add_cand(c, &n, max, w->lits[i], cut);
    for (int i = 0; w && i < w->njoins; i++) {
        if (w->joins[i].type == SYM_move) add_cand(c, &n, max, sender, cut);
        else join_values(S, &w->joins[i], c, &n, max);
    }
    if (extra) {
        add_cand(c, &n, max, SYM_T, cut);
        add_cand(c, &n, max, SYM_F, cut);
        return n;
    }
    if (nalts || (w && w->njoins)) {
        add_cand(c, &n, max, S->v.fresh, cut); /* a new name, an id nothing has, none of the choices */
        return n;
    }
    if (n) return n;
    if (w && w->numeric) { /* an amount: what the state holds now, the goal's, the boundaries */
        state_numbers(S);
        for (int i = 0; i < 3; i++) add_cand(c, &n, max, S->v.bounds[i], cut); /* 0, 1, -1 */
        for (int i = 0; i < S->nnums; i++) add_cand(c, &n, max, S->nums[i], cut);
        for (int i = 0; i < S->v.ngoal_nums; i++) add_cand(c, &n, max, S->v.goal_nums[i], cut);
        for (int i = 3; i < S->v.nbounds; i++) add_cand(c, &n, max, S->v.bounds[i], cut);
        return n;
    }
    add_cand(c, &n, max, S->v.fresh, cut); /* a text: a new one */
    return n;
}

/* The values tried on the first honest move only, one attribute at a
 * time: the goal's own (its numbers for a number, its texts for a text,
 * "" among them: copied into the state, they may make the goal true) and
 * the boundaries where the rules can feel them (SEEN_*).  The boundary
 * numbers go to a number; the empty text (the attribute left out) to an
 * attribute the rules inspect or compare with ""; the long text to one
 * whose length they measure or compare in order.  An attribute the rules
 * only copy, or compare for equality, meets nothing at a boundary that
 * the fresh value and the joined ones do not show already. */
static int variants(Search *S, Sym name, const Sym *have, int nhave, Sym *c, int max)
{
    const Word *w = find_word(&S->v, name);
    int n = 0;
    Sym all[2 + MAX_GOAL * 2 + 8];
    int na = 0;
    bool inspected = w && (w->seen & SEEN_INSPECTED || w->numeric), empty = inspected || (w && w->seen & SEEN_EMPTY);
    for (int i = 0; w && i < w->nlits; i++) empty |= w->lits[i] == SYM_EMPTY;
    if (empty) all[na++] = SYM_EMPTY;
    if (w && w->numeric) {
        for (int i = 0; i < S->v.ngoal_nums; i++) all[na++] = S->v.goal_nums[i];
        for (int i = 0; i < S->v.nbounds; i++) all[na++] = S->v.bounds[i];
    } else {
        for (int i = 0; i < S->v.ngoal_texts; i++) all[na++] = S->v.goal_texts[i];
        if (w && w->seen & SEEN_LONG) all[na++] = S->v.long_text;
    }
    for (int i = 0; i < na; i++) {
        bool known = false;
        for (int k = 0; k < nhave && !known; k++)
            known = have[k] == all[i] || (sym_is_number(all[i]) && sym_canon(have[k]) == sym_canon(all[i]));
        if (!known) add_cand(c, &n, max, all[i], &S->r->cut[CUT_VALUES]);
    }
    return n;
}

typedef struct Moves {
    ScamStep *m;
    int n, cap;
} Moves;

static ScamStep *push_move(Moves *ms, int sender, const Attr *a, int na, int copies)
{
    GROW(ms->m, ms->n, ms->cap);
    ScamStep *st = &ms->m[ms->n++];
    memset(st, 0, sizeof *st);
    st->sender = sender;
    st->copies = copies;
    for (int i = 0; i < na && i < SCAM_MAX_ATTRS; i++) st->attrs[st->nattrs++] = a[i];
    return st;
}

/* The moves of one shape from one sender at this state: the honest ones
 * (every combination of the base attributes' candidates, up to a bound),
 * then the first of those sent twice in one message, the first few with
 * one more attribute the rules read, and the first with one attribute
 * given a boundary value.  Returns the index of the first honest move. */
static int shape_moves(Search *S, const MoveShape *sh, int sender, Moves *out)
{
    Sym cand[MAX_BASE][MAX_CANDS];
    int ncand[MAX_BASE];
    Sym from = S->senders[sender];
    for (int b = 0; b < sh->nbase; b++) {
        ncand[b] = candidates(S, sh->base[b], sh->alts[b], sh->nalts[b], false, from, cand[b], MAX_CANDS);
        if (!ncand[b]) cand[b][ncand[b]++] = S->v.fresh;
    }
    int idx[MAX_BASE] = {0};
    int first = out->n;
    for (int combo = 0;; combo++) {
        if (combo == BASE_COMBOS) {
            S->r->cut[CUT_COMBOS]++;
            break;
        }
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
        if (combo == 0)
            for (int b = 0; b < sh->nbase; b++) {
                Sym vc[2 + 3 * MAX_GOAL + 8];
                int nv = variants(S, sh->base[b], cand[b], ncand[b], vc, (int)(sizeof vc / sizeof *vc));
                for (int k = 0; k < nv; k++) {
                    Attr va[SCAM_MAX_ATTRS];
                    memcpy(va, a, sizeof va);
                    va[sh->c.n + b].value = vc[k];
                    push_move(out, sender, va, na, 1);
                }
            }
        /* the next combination, odometer-wise; done after the last */
        int b = sh->nbase - 1;
        while (b >= 0 && ++idx[b] == ncand[b]) idx[b--] = 0;
        if (b < 0) break;
    }
    return first;
}

static bool consts_same(const Consts *a, const Consts *b) { return a->n == b->n && consts_within(a, b); }

static void all_moves(Search *S, Moves *out)
{
    out->n = 0;
    S->nums_ready = false;
    int first[64];
    for (int s = 0; s < S->q->nsenders; s++) {
        for (int i = 0; i < S->v.ns; i++) {
            int at = shape_moves(S, &S->v.s[i], s, out);
            if (i < 64) first[i] = at;
        }
        /* two different moves in one message: the first honest move of
         * each of two kinds a rule reads together */
        for (int p = 0; p < S->v.npairs; p++) {
            int a = -1, b = -1;
            for (int i = 0; i < S->v.ns && i < 64; i++) {
                if (a < 0 && consts_same(&S->v.s[i].c, &S->v.pair[p][0])) a = i;
                if (b < 0 && consts_same(&S->v.s[i].c, &S->v.pair[p][1])) b = i;
            }
            if (a < 0 || b < 0 || a == b) continue;
            const ScamStep *ma = &out->m[first[a]], *mb = &out->m[first[b]];
            ScamStep *st = push_move(out, s, ma->attrs, ma->nattrs, 1);
            for (int k = 0; k < mb->nattrs; k++) st->attrs2[st->nattrs2++] = mb->attrs[k];
        }
    }
}

static void reach_cache_clear(ReachNow *N);

static void step_mark(const ScamStep *st)
{
    for (int k = 0; k < st->nattrs; k++) sym_mark(st->attrs[k].name), sym_mark(st->attrs[k].value);
    for (int k = 0; k < st->nattrs2; k++) sym_mark(st->attrs2[k].name), sym_mark(st->attrs2[k].value);
}

typedef struct Tree Tree;
static void tree_mark(const Tree *t);

/* Collects the texts nothing holds any more: those of the pool, the
 * engine, the vocabulary, the path and the moves of every level (stack,
 * to depth), or of the tree and the moves at hand (best-first, walks). */
static void collect_all(Search *S, const Moves *stack, int depth, const Tree *t, const Moves *ms)
{
    if (!sym_gc_due()) return;
    sym_gc_begin();
    if (t) {
        tree_mark(t);
        for (int m = 0; m < ms->n; m++) step_mark(&ms->m[m]);
        depth = SCAM_MAX_DEPTH;
    }
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
        step_mark(&S->path[d]);
        for (int m = 0; stack && m < stack[d].n; m++) step_mark(&stack[d].m[m]);
    }
    sym_gc_end();
    reach_cache_clear(&S->rn);
}

static void collect(Search *S, const Moves *stack, int depth) { collect_all(S, stack, depth, NULL, NULL); }

static void progress(Search *S)
{
    if (!S->q->progress || S->events % 4096 || (S->jobs && worker_of(S))) return;
    fprintf(stderr, "\rnomic scams: depth %d, %ld events, %ld states", S->limit, S->events, S->explored);
}

static bool same_step(const ScamStep *a, const ScamStep *b)
{
    if (a->wait || b->wait || a->sender != b->sender || a->nattrs != b->nattrs || a->copies != b->copies ||
        a->nattrs2 != b->nattrs2)
        return false;
    for (int k = 0; k < a->nattrs; k++)
        if (a->attrs[k].name != b->attrs[k].name || a->attrs[k].value != b->attrs[k].value) return false;
    for (int k = 0; k < a->nattrs2; k++)
        if (a->attrs2[k].name != b->attrs2[k].name || a->attrs2[k].value != b->attrs2[k].value) return false;
    return true;
}

/* ---- skipping a move whose effect is known ----
 *
 * A move that left the state as it was at S (refused, answered, deleted)
 * is, at a later state S', the same no-op when no difference between S
 * and S' is relevant to what the rules it met read: those rules find the
 * same things and make the same changes, and the rules it did not meet
 * stay false (the engine's own argument, lang_deps.h).  The rules it met
 * are those a change of its event is relevant to: a rule that fired read
 * its if and its then, one that did not fire only its if.  So each no-op
 * is remembered with those rules, and passed down to a child while the
 * child's difference (the net changes of the step) touches none of their
 * reads, nor any object the event changed that was there before it (a
 * difference in that object's keys could make the same change relevant
 * to another rule).
 *
 * A move that did change the state is remembered the same way when none
 * of its changes is relevant to what the goal reads: at a later state
 * where it is known so, it makes the same changes (to new objects with
 * other ids), which leave the goal as false as it was there.  As a last
 * move (the depth's limit) it is not played, since only the goal is asked
 * of the state after a last move; above the limit it is played, since
 * that state is searched further. */

static void touch(Search *S, Touches *ts, Sym type, Sym attr, Sym old, Sym now, const Obj *o)
{
    if (type != SYM_EMPTY && (type == S->v.run_type || type == SYM_engineSettings)) ts->rules = true;
    for (int i = ts->n - 1; i >= 0 && i >= ts->n - 8; i--) { /* the same again: once is enough */
        const Touch *t = &ts->t[i];
        if (t->type == type && t->attr == attr && t->old == old && t->now == now && t->o == o) return;
    }
    GROW(ts->t, ts->n, ts->cap);
    ts->t[ts->n++] = (Touch){type, attr, old, now, o};
}

/* The object id as it is now, or as the undo record that deleted it in
 * [from, to) saved it. */
static const Obj *obj_at(const Pool *p, ObjId id, size_t from, size_t to)
{
    const Obj *o = pool_get(p, id);
    for (size_t k = from; !o && k < to; k++)
        if (p->undo[k].kind == UNDO_DELETE && p->undo[k].id == id) o = p->undo[k].saved;
    return o;
}

/* The first record after k that sets attribute `name` of object id, or NULL. */
static const Undo *first_set(const Pool *p, size_t k, ObjId id, Sym name)
{
    for (size_t j = k + 1; j < p->undo_len; j++)
        if (p->undo[j].kind == UNDO_SET && p->undo[j].id == id && p->undo[j].name == name) return &p->undo[j];
    return NULL;
}

/* One attribute an object was made with, as the set of it touches. */
static void touch_made_attr(Search *S, Touches *ts, Sym type, Sym name, Sym value, const Obj *o)
{
    if (value == SYM_EMPTY) return; /* it had none */
    if (name == SYM_type) touch(S, ts, sym_canon(value), SYM_EMPTY, SYM_EMPTY, SYM_EMPTY, o);
    else touch(S, ts, type, name, SYM_EMPTY, value, o);
}

/* An object made whole at undo record k (a move: pool_create_with) met
 * the rules with the attributes it was made with, as if each had been
 * set: a rule that reads one of them met the event even when a later
 * change took it away.  Each is the object's value now (o: as it is, or
 * was when deleted) unless a later record set it, whose first old value
 * it then was. */
static void touch_made(Search *S, Touches *ts, size_t k, const Obj *o, Sym type)
{
    const Pool *p = S->g->pool;
    ObjId id = p->undo[k].id;
    for (uint32_t i = 0; o && i < obj_n(o); i++) {
        const Undo *later = first_set(p, k, id, obj_name(o, i));
        touch_made_attr(S, ts, type, obj_name(o, i), later ? later->old : o->vals[i], o);
    }
    for (size_t j = k + 1; j < p->undo_len; j++) { /* those it has no more */
        const Undo *u = &p->undo[j];
        if (u->kind != UNDO_SET || u->id != id || (o && obj_get(o, u->name) != SYM_EMPTY)) continue;
        if (first_set(p, k, id, u->name) == u) touch_made_attr(S, ts, type, u->name, u->old, o);
    }
}

/* Every change of the undo records [from, end): what an event met. */
static void touches_all(Search *S, size_t from, Touches *ts)
{
    const Pool *p = S->g->pool;
    ts->n = 0, ts->rules = false;
    for (size_t k = from; k < p->undo_len; k++) {
        const Undo *u = &p->undo[k];
        const Obj *o = u->kind == UNDO_DELETE ? u->saved : obj_at(p, u->id, k, p->undo_len);
        Sym type = o ? obj_get(o, SYM_type) : SYM_EMPTY;
        if (u->kind != UNDO_SET) {
            touch(S, ts, type, SYM_EMPTY, SYM_EMPTY, SYM_EMPTY, o);
            if (u->kind == UNDO_CREATE && u->whole) touch_made(S, ts, k, o, type);
        } else if (u->name == SYM_type) { /* it leaves one type and joins another ("": none) */
            if (u->old != SYM_EMPTY) touch(S, ts, sym_canon(u->old), SYM_EMPTY, SYM_EMPTY, SYM_EMPTY, o);
            if (u->new != SYM_EMPTY) touch(S, ts, sym_canon(u->new), SYM_EMPTY, SYM_EMPTY, SYM_EMPTY, o);
        } else touch(S, ts, type, u->name, u->old, u->new, o);
    }
}

/* The net changes of the undo records [from, end): an object made and
 * gone again, or a value set and set back, is no difference. */
static void touches_net(Search *S, size_t from, Touches *ts)
{
    const Pool *p = S->g->pool;
    ts->n = 0, ts->rules = false;
    for (size_t k = from; k < p->undo_len; k++) {
        const Undo *u = &p->undo[k];
        bool first = true; /* the first record of this object (and, for a set, of this name) */
        for (size_t j = from; j < k && first; j++)
            first = !(p->undo[j].id == u->id &&
                      (u->kind != UNDO_SET || p->undo[j].kind != UNDO_SET || p->undo[j].name == u->name));
        if (!first) continue;
        const Obj *now = pool_get(p, u->id);
        if (u->kind == UNDO_CREATE) {
            if (now) touch(S, ts, obj_get(now, SYM_type), SYM_EMPTY, SYM_EMPTY, SYM_EMPTY, now);
        } else if (u->kind == UNDO_DELETE) {
            touch(S, ts, obj_get(u->saved, SYM_type), SYM_EMPTY, SYM_EMPTY, SYM_EMPTY, u->saved);
            if (now) touch(S, ts, obj_get(now, SYM_type), SYM_EMPTY, SYM_EMPTY, SYM_EMPTY, now);
        } else {
            Sym val = now ? obj_get(now, u->name) : SYM_EMPTY;
            if (!now || val == u->old) continue; /* gone (its delete says so), or set back */
            if (u->name == SYM_type) {
                if (u->old != SYM_EMPTY) touch(S, ts, sym_canon(u->old), SYM_EMPTY, SYM_EMPTY, SYM_EMPTY, now);
                if (val != SYM_EMPTY) touch(S, ts, sym_canon(val), SYM_EMPTY, SYM_EMPTY, SYM_EMPTY, now);
            } else touch(S, ts, obj_get(now, SYM_type), u->name, u->old, val, now);
        }
    }
}

static bool keys_hold(const Consts *c, const Obj *o)
{
    for (int i = 0; o && i < c->n; i++)
        if (sym_canon(obj_get(o, c->a[i].name)) != c->a[i].value) return false;
    return true;
}

static bool touch_relevant(const FpRead *r, const Touch *t)
{
    if (r->type != SYM_EMPTY && t->type != SYM_EMPTY && r->type != sym_canon(t->type)) return false;
    if (t->attr == SYM_EMPTY) return !(r->flags & FP_PINNED) && keys_hold(&r->c, t->o);
    for (int i = 0; i < r->c.n; i++) /* a key itself changed: was it, or is it, the key's value? */
        if (r->c.a[i].name == t->attr) return sym_canon(t->old) == r->c.a[i].value || sym_canon(t->now) == r->c.a[i].value;
    if (!(r->flags & FP_ALLATTR) && r->attr != t->attr) return false;
    return keys_hold(&r->c, t->o);
}

static bool rule_touched(const RuleFp *f, const Touches *ts)
{
    if (f->all) return ts->n > 0;
    for (int k = 0; k < ts->n; k++) {
        const Touch *t = &ts->t[k];
        if (f->ntypes >= 0 && t->type != SYM_EMPTY) {
            Sym ty = sym_canon(t->type);
            bool mine = false;
            for (int i = 0; i < f->ntypes && !mine; i++) mine = f->types[i] == ty;
            if (!mine) continue;
        }
        for (int i = 0; i < f->n; i++)
            if (touch_relevant(&f->r[i], t)) return true;
    }
    return false;
}

#define NOOP_OBJS 8

/* A move found to change nothing (or nothing the goal reads), the rules
 * its event met and the objects it changed that were there before it. */
typedef struct Noop {
    const ScamStep *st;
    uint64_t h;
    uint64_t *rules;    /* a bit per rule of the vocabulary's order, in rows
                           of rule_words: the rules whose if it met, those that
                           fired, then per guard k those it met whose guard k
                           stayed empty */
    bool effect;        /* it changed the state, not what the goal reads */
    int nobjs;          /* -1: more than NOOP_OBJS */
    ObjId objs[NOOP_OBJS];
} Noop;

typedef struct Noops {
    Noop *n;
    int len, cap;
    uint32_t *tab;      /* open addressing by hash: index + 1, 0 empty */
    size_t tcap;
} Noops;

static void noops_index(Noops *ns, int i)
{
    size_t j = ns->n[i].h & (ns->tcap - 1);
    while (ns->tab[j]) j = (j + 1) & (ns->tcap - 1);
    ns->tab[j] = (uint32_t)i + 1;
}

static void noops_push(Noops *ns, const Noop *e)
{
    GROW(ns->n, ns->len, ns->cap);
    ns->n[ns->len++] = *e;
    if ((size_t)ns->len * 2 > ns->tcap) {
        free(ns->tab);
        ns->tcap = ns->tcap ? ns->tcap * 2 : 64;
        ns->tab = xcalloc(ns->tcap, sizeof *ns->tab);
        for (int i = 0; i < ns->len; i++) noops_index(ns, i);
    } else {
        noops_index(ns, ns->len - 1);
    }
}

static uint64_t step_hash(const ScamStep *st)
{
    uint64_t h = hash_mix((uint64_t)st->sender * 31 + (uint64_t)st->copies * 7 + (uint64_t)st->nattrs2);
    for (int k = 0; k < st->nattrs; k++) h = hash_mix(h ^ ((uint64_t)st->attrs[k].name << 32 ^ st->attrs[k].value));
    for (int k = 0; k < st->nattrs2; k++) h = hash_mix(h ^ ((uint64_t)st->attrs2[k].name << 32 ^ st->attrs2[k].value) ^ 0x55);
    return h;
}

static int rule_words(const Search *S) { return (S->v.nfp + 63) / 64 + 1; }
static int noop_words(const Search *S) { return (2 + MAX_GUARDS) * rule_words(S); }

/* The rules whose footprints (the if alone, or if and then) the touches
 * are relevant to, as bits. */
static void rules_touched(const Search *S, const RuleFp *fps, const Touches *ts, uint64_t *bits)
{
    for (int i = 0; i < S->v.nfp; i++)
        if (rule_touched(&fps[i], ts)) bits[i / 64] |= 1ULL << (i % 64);
}

/* The rules whose guard k the touches are relevant to, as bits: a row
 * of rule_words per guard. */
static void guards_touched(const Search *S, const Touches *ts, uint64_t *bits)
{
    int row = rule_words(S);
    for (int i = 0; i < S->v.nfp; i++) {
        const Guards *gs = &S->v.guards[i];
        for (int k = 0; k < gs->n; k++) {
            bool hit = false;
            for (int j = 0; j < ts->n && !hit; j++) hit = touch_relevant(&gs->g[k], &ts->t[j]);
            if (hit) bits[k * row + i / 64] |= 1ULL << (i % 64);
        }
    }
}

/* The shortest of the posting lists of g's type and keys: every object
 * of that type with those keys is on it (NULL or empty: there is none). */
static const IdSet *shortest_list(const Search *S, const FpRead *g)
{
    const Pool *p = S->g->pool;
    const IdSet *best = pool_lookup(p, SYM_type, g->type);
    for (int i = 0; best && best->live && i < g->c.n; i++) {
        const IdSet *s = pool_lookup(p, g->c.a[i].name, g->c.a[i].value);
        if (!s || s->live < best->live) best = s;
    }
    return best;
}

/* Whether no object the guard asks for is there now (false when it would
 * take long to tell). */
static bool guard_absent(const Search *S, const FpRead *g)
{
    const Pool *p = S->g->pool;
    const IdSet *best = shortest_list(S, g);
    if (!best || !best->live) return true;
    if (best->live > 64) return false;
    IDSET_FOREACH(best, id) {
        const Obj *o = pool_get(p, id);
        if (o && sym_canon(obj_get(o, SYM_type)) == g->type && keys_hold(&g->c, o)) return false;
    }
    return true;
}

/* Whether no object the guard asks for was there at any time of the event
 * whose changes are ts: none is there now, and none of its changes is
 * relevant to the guard (made, deleted, given or losing its keys).  False
 * when it would take long to tell. */
static bool guard_empty(const Search *S, const FpRead *g, const Touches *ts)
{
    for (int k = 0; k < ts->n; k++)
        if (touch_relevant(g, &ts->t[k])) return false;
    return guard_absent(S, g);
}

/* The place of a rule in the vocabulary's order, or -1. */
static int rule_index(const Search *S, ObjId rule)
{
    int lo = 0, hi = S->v.nfp;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (S->v.by_id[mid].id < rule) lo = mid + 1;
        else hi = mid;
    }
    return lo < S->v.nfp && S->v.by_id[lo].id == rule ? S->v.by_id[lo].i : -1;
}

/* The engine's hook during the search: the rules that fire. */
static void fired_hook(void *ud, ObjId rule, const Prog *p, const Sym *vars, bool changed)
{
    Search *S = ud;
    int i = rule_index(S, rule);
    if (i >= 0) S->fired[i / 64] |= 1ULL << (i % 64);
    else S->fired[rule_words(S) - 1] |= 1ULL << 63; /* a rule the vocabulary does not know */
}

/* The objects the undo records from `mark` changed or deleted that were
 * there before them (ids under `before`), at most NOOP_OBJS: -1 past. */
static int old_objects(const Search *S, size_t mark, ObjId before, ObjId *ids)
{
    const Pool *p = S->g->pool;
    int n = 0;
    for (size_t k = mark; k < p->undo_len; k++) {
        ObjId id = p->undo[k].id;
        if (id >= before) continue;
        bool have = false;
        for (int i = 0; i < n && !have; i++) have = ids[i] == id;
        if (have) continue;
        if (n == NOOP_OBJS) return -1;
        ids[n++] = id;
    }
    return n;
}

/* Remembers that st changed nothing at this state (effect: nothing the
 * goal reads), with the rules its event (the undo records from `mark`,
 * the firings in S->fired) met.  `before`: the first id the event made. */
static void noop_add(Search *S, Noops *ns, const ScamStep *st, uint64_t h, size_t mark, ObjId before, bool effect)
{
    int words = rule_words(S);
    if (S->fired[words - 1] >> 63) return;
    touches_all(S, mark, &S->tmp);
    if (S->tmp.rules) return;
    if (effect && (S->goal_blind || rule_touched(&S->goal_fp, &S->tmp))) return;
    Noop e = {st, h, NULL, effect, 0, {0}};
    e.nobjs = old_objects(S, mark, before, e.objs);
    e.rules = xcalloc((size_t)noop_words(S), sizeof *e.rules);
    rules_touched(S, S->v.fp_if, &S->tmp, e.rules);
    memcpy(e.rules + words, S->fired, (size_t)words * sizeof *e.rules);
    /* a rule met but not fired whose guard stayed empty was false all
     * along: only its guard matters below */
    for (int i = 0; i < S->v.nfp; i++) {
        uint64_t bit = 1ULL << (i % 64);
        if (!(e.rules[i / 64] & bit) || (S->fired[i / 64] & bit)) continue;
        const Guards *gs = &S->v.guards[i];
        for (int k = 0; k < gs->n; k++)
            if (guard_empty(S, &gs->g[k], &S->tmp)) {
                e.rules[i / 64] &= ~bit;
                e.rules[(2 + k) * words + i / 64] |= bit;
                break;
            }
    }
    noops_push(ns, &e);
}

/* Whether the step changed an object the entry's event changed too. */
static bool objects_meet(const Noop *e, const ObjId *ids, int n)
{
    if (!n || !e->nobjs) return false;
    if (n < 0 || e->nobjs < 0) return true;
    for (int i = 0; i < e->nobjs; i++)
        for (int k = 0; k < n; k++)
            if (e->objs[i] == ids[k]) return true;
    return false;
}

static void noops_clear(Noops *ns)
{
    for (int i = 0; i < ns->len; i++) free(ns->n[i].rules);
    ns->len = 0;
    if (ns->tab) memset(ns->tab, 0, ns->tcap * sizeof *ns->tab);
}

/* The child's no-ops: the parent's whose rules and objects the step's net
 * changes (the undo records from `mark`; `before`: the first id it made)
 * leave alone. */
static void noops_inherit(Search *S, const Noops *parent, Noops *child, size_t mark, ObjId before)
{
    noops_clear(child);
    touches_net(S, mark, &S->tmp);
    if (!parent->len || S->tmp.rules) return;
    ObjId changed[NOOP_OBJS];
    int nchanged = old_objects(S, mark, before, changed);
    int words = noop_words(S), row = rule_words(S);
    /* the rules the step touched, once: their ifs, their ifs and thens,
     * their guards */
    uint64_t *hit = xcalloc((size_t)words, sizeof *hit);
    rules_touched(S, S->v.fp_if, &S->tmp, hit);
    rules_touched(S, S->v.fp, &S->tmp, hit + row);
    guards_touched(S, &S->tmp, hit + 2 * row);
    for (int i = 0; i < parent->len; i++) {
        bool alive = !objects_meet(&parent->n[i], changed, nchanged);
        for (int w = 0; w < words && alive; w++) alive = !(parent->n[i].rules[w] & hit[w]);
        if (!alive) continue;
        Noop e = parent->n[i];
        e.rules = xmalloc((size_t)words * sizeof *e.rules);
        memcpy(e.rules, parent->n[i].rules, (size_t)words * sizeof *e.rules);
        noops_push(child, &e);
    }
    free(hit);
}

static const Noop *noop_known(const Noops *ns, const ScamStep *st, uint64_t h)
{
    if (!ns->len) return NULL;
    for (size_t j = h & (ns->tcap - 1); ns->tab[j]; j = (j + 1) & (ns->tcap - 1)) {
        const Noop *e = &ns->n[ns->tab[j] - 1];
        if (e->h == h && same_step(e->st, st)) return e;
    }
    return NULL;
}

/* ---- a last move out of the goal's reach (see "what an event can
 * change" above) ---- */

/* The keys of a move the search makes: its own attributes' values. */
static void step_consts(const Attr *a, int n, Consts *c)
{
    c->n = 0;
    for (int i = 0; i < n && c->n < MAX_CONSTS; i++)
        if (!is_mech(a[i].name) && a[i].value != SYM_EMPTY) c->a[c->n++] = (Attr){a[i].name, sym_canon(a[i].value)};
}

static bool fp_names(const RuleFp *f, Sym type)
{
    for (int i = 0; f->ntypes >= 0 && i < f->ntypes; i++)
        if (f->types[i] == type) return true;
    return f->ntypes < 0 || f->all;
}

static void reach_now_init(Search *S)
{
    const Reach *R = S->v.reach;
    ReachNow *N = &S->rn;
    int nr = S->v.nfp + 1;
    N->goal_hit = xcalloc((size_t)R->words, sizeof *N->goal_hit);
    N->present = xcalloc((size_t)R->gwords, sizeof *N->present);
    N->wild_now = xcalloc((size_t)R->words, sizeof *N->wild_now);
    N->false_now = xcalloc((size_t)R->words, sizeof *N->false_now);
    N->false_ids = xcalloc((size_t)nr, sizeof *N->false_ids);
    N->loose_types = xcalloc((size_t)nr, sizeof *N->loose_types);
    N->nloose = xcalloc((size_t)nr, sizeof *N->nloose);
    N->tmp = xcalloc((size_t)(2 * R->words + 2 * R->gwords), sizeof *N->tmp);
    N->tokens_now = xcalloc((size_t)nr, sizeof *N->tokens_now);
    N->fire = xcalloc((size_t)nr, sizeof *N->fire);
    for (int j = 0; j < S->v.nfp; j++) {
        if (writes_meet(R->rw[j].w, R->rw[j].n, &S->goal_fp)) N->goal_hit[j / 64] |= 1ULL << (j % 64);
        const Guards *gs = &S->v.guards[j];
        for (int k = 0; k < gs->n; k++) {
            int have = 0;
            while (have < N->nnum && N->num_attrs[have] != gs->num[k]) have++;
            if (gs->num[k] != SYM_EMPTY && have == N->nnum && N->nnum < NUM_ATTRS) N->num_attrs[N->nnum++] = gs->num[k];
        }
    }
}

/* Empties what is kept by Sym (the collector may give a Sym to another
 * text). */
static void reach_cache_clear(ReachNow *N)
{
    for (int i = 0; i < N->ncache; i++) free(N->cache[i].rows);
    N->ncache = 0;
    if (N->known) memset(N->known, 0, N->known_cap * sizeof *N->known);
    N->nknown = 0;
}

static void reach_now_free(ReachNow *N)
{
    reach_cache_clear(N);
    free(N->cache);
    free(N->goal_hit);
    free(N->present);
    free(N->wild_now);
    free(N->false_now);
    free(N->false_ids);
    free(N->loose_types);
    free(N->nloose);
    free(N->tmp);
    free(N->tokens_now);
    free(N->fire);
    free(N->known);
}

static long number_top(const Search *S, Sym name);

/* Whether guard k of rule j may have an object now: one the guard asks for
 * and, for a guard on a time reached, one whose time is reached at `now`
 * (true when it would take long to tell). */
static bool guard_present(const Search *S, int j, int k)
{
    const FpRead *g = &S->v.guards[j].g[k];
    Sym timed = S->v.guards[j].timed[k], num = S->v.guards[j].num[k];
    if (guard_absent(S, g)) return false;
    if (timed == SYM_EMPTY && num == SYM_EMPTY) return true;
    const IdSet *all = pool_lookup(S->g->pool, SYM_type, g->type);
    if (all && all->live > 64 && num != SYM_EMPTY) { /* too many to look at: is any number that high? */
        long top = number_top(S, num);
        if (top == NO_NUMBER || (top != UNBOUNDED && top < S->v.guards[j].num_floor[k])) return false;
    }
    if (!all || all->live > 64) return true;
    IDSET_FOREACH(all, id) {
        const Obj *o = pool_get(S->g->pool, id);
        long t, x;
        if (!o || !keys_hold(&g->c, o)) continue;
        if (timed != SYM_EMPTY && sym_to_long(obj_get(o, timed), &t) && t > S->now) continue; /* a time to come */
        Sym v = num == SYM_EMPTY ? SYM_EMPTY : obj_get(o, num);
        if (num != SYM_EMPTY && (v == SYM_EMPTY || (sym_to_long(v, &x) && x < S->v.guards[j].num_floor[k]))) continue;
        return true; /* (or a value not a whole number, which may pass) */
    }
    return false;
}

/* The largest whole number an object holds under `name` here, NO_NUMBER
 * when none holds one, UNBOUNDED when one holds a text or a fraction (which
 * may pass any floor) or there are too many objects to look at. */
static long number_top(const Search *S, Sym name)
{
    const Pool *p = S->g->pool;
    Sym max;
    long top = NO_NUMBER, x;
    int r = pool_number_max(p, name, &max);
    if (r == 0) return UNBOUNDED;
    if (r > 0) return max == SYM_EMPTY ? NO_NUMBER : sym_to_long(max, &x) && x < LONG_MAX / 4 ? x : UNBOUNDED;
    if (p->all.live > 4096) return UNBOUNDED;
    IDSET_FOREACH(&p->all, id) {
        Sym v = obj_get(pool_get(p, id), name);
        if (v == SYM_EMPTY) continue;
        if (!sym_to_long(v, &x) || x >= LONG_MAX / 4) return UNBOUNDED;
        if (x > top) top = x;
    }
    return top;
}

/* How many objects match token t here (UNBOUNDED: too many to count). */
static long tokens_here(const Search *S, const FpRead *t)
{
    const Pool *p = S->g->pool;
    const IdSet *best = shortest_list(S, t);
    if (!best || !best->live) return 0;
    if (best->live > 4096) return UNBOUNDED;
    long n = 0;
    IDSET_FOREACH(best, id) {
        const Obj *o = pool_get(p, id);
        n += o && sym_canon(obj_get(o, SYM_type)) == t->type && keys_hold(&t->c, o);
    }
    return n;
}

/* The types of the objects that hold keys c now, added to types[*n]
 * (LOOSE_TYPES at most); false when there are too many to tell. */
static bool types_holding(const Search *S, const Consts *c, Sym *types, int *n)
{
    const Pool *p = S->g->pool;
    const IdSet *best = NULL;
    for (int i = 0; i < c->n; i++) {
        const IdSet *s = pool_lookup(p, c->a[i].name, c->a[i].value);
        if (!s || !s->live) return true; /* nothing holds them */
        if (!best || s->live < best->live) best = s;
    }
    if (!best || best->live > 64) return false;
    IDSET_FOREACH(best, id) {
        const Obj *o = pool_get(p, id);
        if (!o || !keys_hold(c, o)) continue;
        Sym t = sym_canon(obj_get(o, SYM_type));
        bool have = false;
        for (int k = 0; k < *n && !have; k++) have = types[k] == t;
        if (have) continue;
        if (*n == LOOSE_TYPES) return false;
        types[(*n)++] = t;
    }
    return true;
}

/* Before the last moves at a state: which guards may have an object
 * there (bit j * MAX_GUARDS + k), which rules the engine knows false
 * there, and the types of the objects each rule's loose changes find. */
static void reach_ready(Search *S)
{
    const Reach *R = S->v.reach;
    ReachNow *N = &S->rn;
    memset(N->present, 0, (size_t)R->gwords * sizeof *N->present);
    memcpy(N->wild_now, R->wild, (size_t)R->words * sizeof *N->wild_now);
    memset(N->false_now, 0, (size_t)R->words * sizeof *N->false_now);
    for (int j = 0; j < S->v.nfp; j++) {
        for (int k = 0; k < S->v.guards[j].n; k++) {
            int bit = j * MAX_GUARDS + k;
            if (guard_present(S, j, k)) N->present[bit / 64] |= 1ULL << (bit % 64);
        }
        const RuleWrites *rw = &R->rw[j];
        N->nloose[j] = 0;
        for (int x = 0; rw->loose && x < rw->n && N->nloose[j] >= 0; x++)
            if ((rw->w[x].flags & W_LOOSE) && !types_holding(S, &rw->w[x].c, N->loose_types[j], &N->nloose[j]))
                N->nloose[j] = -1;
        if (N->nloose[j] < 0) N->wild_now[j / 64] |= 1ULL << (j % 64);
    }
    int n = engine_false_rules(S->g->eng, S->now, N->false_ids);
    for (int i = 0; i < n; i++) {
        int j = rule_index(S, N->false_ids[i]);
        if (j >= 0) N->false_now[j / 64] |= 1ULL << (j % 64);
    }
    for (int i = 0; i < N->nnum; i++) N->num_top[i] = number_top(S, N->num_attrs[i]);
    for (int j = 0; j < S->v.nfp; j++)
        N->tokens_now[j] = N->nnum && R->rw[j].has_token ? tokens_here(S, &R->rw[j].token) : 0;
    uint64_t h = 0x7265616368ULL; /* all of it: a move's answer depends on nothing else */
    for (int i = 0; i < N->nnum; i++) h = hash_mix(h ^ (uint64_t)N->num_top[i]);
    for (int j = 0; j < S->v.nfp; j++) h = hash_mix(h ^ (uint64_t)N->tokens_now[j]);
    for (int x = 0; x < R->gwords; x++) h = hash_mix(h ^ N->present[x]);
    for (int x = 0; x < R->words; x++) h = hash_mix(h ^ N->wild_now[x] ^ hash_mix(N->false_now[x]));
    for (int j = 0; j < S->v.nfp; j++)
        for (int t = 0; t < N->nloose[j]; t++) h = hash_mix(h ^ ((uint64_t)j << 32 | N->loose_types[j][t]));
    N->here = h;
}

/* Change x of rule j, a loose one, as a change of objects of `type`
 * (cached). */
static const LooseRows *loose_rows(Search *S, int j, int x, Sym type)
{
    ReachNow *N = &S->rn;
    for (int i = 0; i < N->ncache; i++)
        if (N->cache[i].rule == j && N->cache[i].write == x && N->cache[i].type == type) return &N->cache[i];
    const Reach *R = S->v.reach;
    int W = R->words, G = R->gwords;
    GROW(N->cache, N->ncache, N->cachecap);
    LooseRows *L = &N->cache[N->ncache++];
    *L = (LooseRows){j, x, type, type == SYM_EMPTY || type == S->v.run_type || type == SYM_engineSettings,
                     xcalloc((size_t)(2 * W + G), sizeof *L->rows)};
    FpRead w = R->rw[j].w[x];
    w.type = type, w.flags &= ~(unsigned)W_LOOSE;
    if (writes_meet(&w, 1, &S->goal_fp)) L->goal = true;
    for (int k = 0; k < S->v.nfp; k++) {
        if (writes_meet(&w, 1, &S->v.fp_if[k])) L->rows[k / 64] |= 1ULL << (k % 64);
        if (writes_meet(&w, 1, &S->v.fp[k])) L->rows[W + k / 64] |= 1ULL << (k % 64);
        for (int g = 0; g < S->v.guards[k].n; g++) {
            int bit = k * MAX_GUARDS + g;
            if (write_fills(&w, SYM_EMPTY, &S->v.guards[k], g)) L->rows[2 * W + bit / 64] |= 1ULL << (bit % 64);
        }
    }
    return L;
}

/* The closure of reaches_goal: what the event may change, grown by the
 * rules it reaches. */
typedef struct Closure {
    uint64_t *cand, *active, *sat;
    uint64_t *nsat;             /* guards on a number that a change reached concerns
                                   (filled if num_reachable) */
    const FpRead *made;         /* the move's object (or two) */
    const ScamStep *st;         /* ... and the move */
    unsigned gen;               /* grows with each rule made active: what level[] was read at */
    long level[NUM_ATTRS];      /* num_level of each attribute with a floor, ... */
    unsigned level_gen[NUM_ATTRS]; /* ... as it was at this gen (0: never) */
    int nmade;
    struct { int rule, write; Sym type; } taken[LOOSE_PAIRS]; /* loose changes taken, on a type */
    int ntaken;
} Closure;

/* Adds rows (meets_if, meets, fills) to the closure. */
static void closure_add(const Search *S, Closure *c, const uint64_t *mi, const uint64_t *ma, const uint64_t *fills)
{
    const Reach *R = S->v.reach;
    for (int x = 0; x < R->words; x++) c->cand[x] |= mi[x] | (ma[x] & ~S->rn.false_now[x]);
    for (int x = 0; x < R->gwords; x++) {
        c->sat[x] |= fills[x] & ~R->numeric[x];
        c->nsat[x] |= fills[x] & R->numeric[x];
    }
}

/* ---- how far a number can go in one event ----
 *
 * A guard that asks a floor of a number (score>100) is filled only if some
 * object can hold a number that high during the event.  Let top be the
 * largest the attribute has been: no more than the largest here, a
 * literal a rule reached sets, or the move's own; a change c+%s, where the
 * if found %s as the attribute of some object, raises top by c at most.
 * So the event leaves top below the largest here plus, for each such
 * change of a rule reached, c times how often the rule can fire.  A rule
 * with a token fires at most once for each object that matches its token
 * here or comes to match it during the event (made, given its type or a
 * key): the move itself, or a change of a rule reached, itself counted.  A
 * rule without one, a change counted in a forEach, or a cycle of tokens
 * bounds nothing. */

static bool gives_keys(const FpRead *p, const Consts *c, bool exact);

/* How many objects change x of rule i can bring into token t in one
 * firing: 0, 1, or UNBOUNDED. */
static long gives_token(const RuleWrites *rw, int x, const FpRead *t)
{
    const FpRead *w = &rw->w[x];
    if (w->flags & W_GONE) return 0;
    if (w->type != SYM_EMPTY && w->type != t->type) return 0;
    bool gives;
    if (w->attr != SYM_EMPTY) {
        gives = false;
        for (int k = 0; k < t->c.n && !gives; k++)
            gives = t->c.a[k].name == w->attr && (rw->value[x] == SYM_EMPTY || rw->value[x] == t->c.a[k].value);
    } else
        gives = gives_keys(w, &t->c, false);
    if (!gives) return 0;
    return w->flags & (W_MANY | W_LOOSE) ? UNBOUNDED : 1;
}

/* How often rule i can fire in the event, at most (UNBOUNDED: no bound
 * known); N->fire holds what is known, -1 unknown, -2 being counted. */
static long firings(Search *S, const Closure *c, int i)
{
    ReachNow *N = &S->rn;
    const Reach *R = S->v.reach;
    const RuleWrites *rw = &R->rw[i];
    if (!rw->has_token || N->fire[i] == -2) return UNBOUNDED; /* (a cycle) */
    if (N->fire[i] >= 0) return N->fire[i];
    N->fire[i] = -2;
    long n = N->tokens_now[i];
    for (int m = 0; m < c->nmade && n != UNBOUNDED; m++) /* the move: its keys as made, the rest unknown */
        if (c->made[m].type == rw->token.type) {
            bool clash = false;
            for (int a = 0; a < c->made[m].c.n; a++)
                for (int k = 0; k < rw->token.c.n; k++)
                    clash |= c->made[m].c.a[a].name == rw->token.c.a[k].name && c->made[m].c.a[a].value != rw->token.c.a[k].value;
            if (!clash) n += !c->st ? 2 : m == 0 ? c->st->copies : 1; /* (any move: a message holds two at most) */
        }
    for (int r = 0; r < S->v.nfp && n != UNBOUNDED; r++) {
        if (!(c->active[r / 64] >> (r % 64) & 1)) continue;
        for (int x = 0; x < R->rw[r].n && n != UNBOUNDED; x++) {
            long g = gives_token(&R->rw[r], x, &rw->token);
            long f = g ? firings(S, c, r) : 0;
            n = g == UNBOUNDED || f == UNBOUNDED || f > LONG_MAX / 8 - n ? UNBOUNDED : n + g * f;
        }
    }
    N->fire[i] = n;
    return n;
}

/* The largest whole number among step st's own values of `name`, into
 * *top; false when one is not a whole number (it may pass any floor). */
static bool step_top(const ScamStep *st, Sym name, long *top)
{
    for (int m = 0; m < 2; m++) {
        const Attr *at = m ? st->attrs2 : st->attrs;
        for (int k = 0; k < (m ? st->nattrs2 : st->nattrs); k++) {
            long x;
            if (at[k].name != name || at[k].value == SYM_EMPTY) continue;
            if (!sym_to_long(at[k].value, &x) || x >= LONG_MAX / 4) return false;
            if (x > *top) *top = x;
        }
    }
    return true;
}

/* The highest whole number an object can hold under attribute a (of
 * N->num_attrs) during the event, as far as the closure's active rules
 * can take it: NO_NUMBER when none can hold one, UNBOUNDED when nothing
 * bounds it. */
static long num_level(Search *S, const Closure *c, int a)
{
    ReachNow *N = &S->rn;
    const Reach *R = S->v.reach;
    Sym name = N->num_attrs[a];
    long top = N->num_top[a], raise = 0;
    if (top == UNBOUNDED) return UNBOUNDED;
    if (!c->st) { /* any move of the state */
        if (N->moves_top[a] == UNBOUNDED) return UNBOUNDED;
        if (N->moves_top[a] > top) top = N->moves_top[a];
    } else if (!step_top(c->st, name, &top))
        return UNBOUNDED;
    for (int i = 0; i < S->v.nfp; i++) N->fire[i] = -1;
    for (int i = 0; i < S->v.nfp; i++) {
        if (!(c->active[i / 64] >> (i % 64) & 1)) continue;
        const RuleWrites *rw = &R->rw[i];
        for (int k = 0; k < rw->nnum; k++) {
            const NumWrite *nw = &rw->num[k];
            if (nw->attr != name) continue;
            if (nw->kind == NW_ANY) return UNBOUNDED;
            if (nw->kind == NW_LIT) {
                if (nw->c > top) top = nw->c;
                continue;
            }
            if (nw->c <= 0) continue; /* it lowers */
            long f = firings(S, c, i);
            if (f == UNBOUNDED || (f && nw->c > (LONG_MAX / 4 - raise) / f)) return UNBOUNDED;
            raise += nw->c * f;
        }
    }
    return top == NO_NUMBER ? NO_NUMBER : top + raise; /* (both under LONG_MAX / 4) */
}

/* Whether an object can hold a whole number >= floor under `name` during
 * the event; num_level is read again only once another rule is active. */
static bool num_reachable(Search *S, Closure *c, Sym name, long floor)
{
    const ReachNow *N = &S->rn;
    int a = 0;
    while (a < N->nnum && N->num_attrs[a] != name) a++;
    if (a == N->nnum) return true; /* past NUM_ATTRS */
    if (c->level_gen[a] != c->gen) c->level[a] = num_level(S, c, a), c->level_gen[a] = c->gen;
    return c->level[a] != NO_NUMBER && c->level[a] >= floor;
}

/* Whether every guard of rule j may have an object in the event. */
static bool guards_filled(Search *S, Closure *c, int j)
{
    const Guards *gs = &S->v.guards[j];
    for (int k = 0; k < gs->n; k++) {
        int bit = j * MAX_GUARDS + k;
        uint64_t b = 1ULL << (bit % 64);
        if (c->sat[bit / 64] & b) continue;
        if (!(c->nsat[bit / 64] & b) || !num_reachable(S, c, gs->num[k], gs->num_floor[k])) return false;
        c->sat[bit / 64] |= b;
    }
    return true;
}

/* Whether change p may leave an object holding keys c that it did not:
 * it makes one with them (or with values computed), brings one into its
 * type, or sets one of them. */
static bool gives_keys(const FpRead *p, const Consts *c, bool exact)
{
    if (p->flags & W_GONE) return false;
    if (p->attr != SYM_EMPTY) { /* (whatever keys its object had: others may change too) */
        for (int k = 0; k < c->n; k++)
            if (p->attr == c->a[k].name) return true;
        return false;
    }
    for (int i = 0; i < p->c.n; i++) /* made with other values (a later change is a change of its own) */
        for (int k = 0; k < c->n; k++)
            if (p->c.a[i].name == c->a[k].name && p->c.a[i].value != c->a[k].value) return false;
    if (!exact && (p->flags & W_SOME)) return true;
    for (int k = 0; k < c->n; k++) { /* made with each of them */
        bool have = false;
        for (int i = 0; i < p->c.n && !have; i++) have = p->c.a[i].name == c->a[k].name;
        if (!have) return false;
    }
    return true;
}

/* Takes loose change x of rule j on objects of `type`, once.  1: the
 * goal is reached (or too much to tell); 0: taken before; 2: taken. */
static int take_loose(Search *S, Closure *c, int j, int x, Sym type)
{
    for (int i = 0; i < c->ntaken; i++)
        if (c->taken[i].rule == j && c->taken[i].write == x && c->taken[i].type == type) return 0;
    if (c->ntaken == LOOSE_PAIRS) return 1;
    c->taken[c->ntaken].rule = j, c->taken[c->ntaken].write = x, c->taken[c->ntaken++].type = type;
    const LooseRows *L = loose_rows(S, j, x, type);
    if (L->goal) return 1;
    int W = S->v.reach->words;
    closure_add(S, c, L->rows, L->rows + W, L->rows + 2 * W);
    return 2;
}

/* Rule j's loose changes on the objects of each type they may find: those
 * holding their keys here, and those the event may give their keys (the
 * move, and the changes of the rules reached).  1: the goal is reached;
 * 0: nothing new; 2: the closure grew. */
static int closure_loose(Search *S, Closure *c, int j)
{
    const Reach *R = S->v.reach;
    const ReachNow *N = &S->rn;
    const RuleWrites *rw = &R->rw[j];
    int grew = 0;
    for (int x = 0; x < rw->n; x++) {
        const FpRead *w = &rw->w[x];
        if (!(w->flags & W_LOOSE)) continue;
        for (int t = 0; t < N->nloose[j]; t++) {
            int r = take_loose(S, c, j, x, N->loose_types[j][t]);
            if (r == 1) return 1;
            grew |= r;
        }
        for (int m = 0; m < c->nmade; m++)
            if (gives_keys(&c->made[m], &w->c, !(c->made[m].flags & W_SOME))) {
                int r = take_loose(S, c, j, x, c->made[m].type);
                if (r == 1) return 1;
                grew |= r;
            }
        for (int i = 0; i < S->v.nfp; i++) {
            if (!(c->active[i / 64] >> (i % 64) & 1)) continue;
            for (int y = 0; y < R->rw[i].n; y++)
                if (gives_keys(&R->rw[i].w[y], &w->c, false)) {
                    if (R->rw[i].w[y].flags & W_LOOSE) return 1; /* to objects of no known type */
                    int r = take_loose(S, c, j, x, R->rw[i].w[y].type);
                    if (r == 1) return 1;
                    grew |= r;
                }
        }
    }
    return grew;
}

/* Whether the event of move st, played now as a last move, can change
 * anything the goal reads: the move's object (or two), then the rules
 * they concern whose guards are filled, to a fixed point.  st NULL: any
 * move of the state (a move of no known keys, that may hold any; its
 * numbers as large as the state's moves' largest). */
static bool closure_reaches(Search *S, const ScamStep *st)
{
    const Reach *R = S->v.reach;
    const ReachNow *N = &S->rn;
    int W = R->words, G = R->gwords;
    FpRead made[2] = {{.type = SYM_move}, {.type = SYM_move}};
    int nmade = 1;
    if (!st) made[0].flags = W_SOME;
    else step_consts(st->attrs, st->nattrs, &made[0].c);
    if (st && st->nattrs2) step_consts(st->attrs2, st->nattrs2, &made[nmade++].c);
    if (writes_meet(made, nmade, &S->goal_fp)) return true;
    Closure c = {.cand = N->tmp, .active = N->tmp + W, .sat = N->tmp + 2 * W, .nsat = N->tmp + 2 * W + G,
                 .made = made, .nmade = nmade, .st = st, .gen = 1};
    memset(c.cand, 0, (size_t)(2 * W) * sizeof *c.cand);
    memset(c.nsat, 0, (size_t)G * sizeof *c.nsat);
    memcpy(c.sat, N->present, (size_t)G * sizeof *c.sat);
    for (int j = 0; j < S->v.nfp; j++) {
        const RuleFp *f = N->false_now[j / 64] >> (j % 64) & 1 ? &S->v.fp_if[j] : &S->v.fp[j];
        if (fp_names(f, SYM_move) && writes_meet(made, nmade, f)) c.cand[j / 64] |= 1ULL << (j % 64);
        for (int k = 0; k < S->v.guards[j].n; k++) {
            int bit = j * MAX_GUARDS + k;
            if (S->v.guards[j].g[k].type == SYM_move &&
                (write_fills(&made[0], SYM_EMPTY, &S->v.guards[j], k) ||
                 (nmade > 1 && write_fills(&made[1], SYM_EMPTY, &S->v.guards[j], k))))
                (R->numeric[bit / 64] >> (bit % 64) & 1 ? c.nsat : c.sat)[bit / 64] |= 1ULL << (bit % 64);
        }
    }
    for (bool more = true; more;) {
        more = false;
        for (int w = 0; w < W; w++)
            for (uint64_t b = c.cand[w] & ~c.active[w]; b; b &= b - 1) {
                int j = w * 64 + __builtin_ctzll(b);
                if (!guards_filled(S, &c, j)) continue;
                if ((N->wild_now[w] | N->goal_hit[w]) >> (j % 64) & 1) return true;
                c.active[w] |= 1ULL << (j % 64);
                c.gen++;
                closure_add(S, &c, R->meets_if + (size_t)j * W, R->meets + (size_t)j * W, R->fills + (size_t)j * G);
                more = true;
            }
        for (int j = 0; j < S->v.nfp; j++) { /* the loose changes of the rules reached, on every type known so far */
            if (!(c.active[j / 64] >> (j % 64) & 1) || !R->rw[j].loose) continue;
            int r = closure_loose(S, &c, j);
            if (r == 1) return true;
            if (r == 2) more = true;
        }
    }
    return false;
}

/* closure_reaches, remembered by (what reach_ready found, the move: h its
 * step_hash): the same move at another state alike has the same answer. */
static bool reaches_goal(Search *S, const ScamStep *st, uint64_t h)
{
    ReachNow *N = &S->rn;
    if (N->nknown * 2 >= N->known_cap) {
        if (!N->known_cap) N->known_cap = 1 << 16, N->known = xcalloc(N->known_cap, sizeof *N->known);
        else memset(N->known, 0, N->known_cap * sizeof *N->known);
        N->nknown = 0;
    }
    uint64_t key = hash_mix(N->here ^ h) | 2; /* never 0 */
    size_t mask = N->known_cap - 1, j = key & mask;
    for (; N->known[j]; j = (j + 1) & mask)
        if ((N->known[j] | 1) == (key | 1)) return N->known[j] & 1;
    bool r = closure_reaches(S, st);
    N->known[j] = r ? key | 1 : key & ~1ULL;
    N->nknown++;
    return r;
}

/* Whether some move of ms, played now as a last move, may reach the goal:
 * closure_reaches of any move, remembered as reaches_goal's answers are.
 * When none can, the state's last moves are not looked at one by one. */
static bool any_reaches(Search *S, const Moves *ms)
{
    ReachNow *N = &S->rn;
    uint64_t h = 0x616e79ULL;
    for (int a = 0; a < N->nnum; a++) {
        long top = NO_NUMBER;
        for (int i = 0; i < ms->n && top != UNBOUNDED; i++)
            if (!step_top(&ms->m[i], N->num_attrs[a], &top)) top = UNBOUNDED;
        N->moves_top[a] = top;
        h = hash_mix(h ^ (uint64_t)top);
    }
    return reaches_goal(S, NULL, h);
}

static bool claim(Search *S, long t)
{
    if (S->only_task != NO_TASK) return t == S->only_task;
    Jobs *J = S->jobs;
    if (!J) return true;
    if (2 * t + 1 > atomic_load(&J->found)) return false;
    if (t < (long)JOB_CLAIMS) {
        unsigned char none = 0;
        return atomic_compare_exchange_strong(&J->claims[t], &none, (unsigned char)(worker_of(S) + 1));
    }
    return t % J->n == worker_of(S);
}

static bool budget_spent(const Search *S)
{
    if (S->unbounded) return false;
    if (S->jobs) {
        long ev = atomic_load(&S->jobs->events);
        uint64_t wk = atomic_load(&S->jobs->work);
        return ev >= S->q->budget || (S->q->work_budget && wk >= S->q->work_budget);
    }
    return S->events >= S->q->budget || (S->q->work_budget && S->work >= S->q->work_budget);
}

/* Step k at this state: move k of ms, sent now, or, past the moves, the
 * wait for the next timer.  False when there is no such wait. */
static bool step_at(const Search *S, const Moves *ms, int k, ScamStep *st)
{
    if (k < ms->n) {
        *st = ms->m[k];
        st->time = S->now;
        return true;
    }
    memset(st, 0, sizeof *st);
    st->wait = true;
    st->time = S->next_timer;
    return S->have_timer && !S->halted;
}

#ifndef NDEBUG
/* Builds with asserts play every last move found out of the goal's reach,
 * uncounted, and check that none of its event's changes concerns what the
 * goal reads. */
static void check_out_of_reach(Search *S, const Moves *ms, int i, Frame *f)
{
    ScamStep st;
    long events = S->events;
    uint64_t work = S->work;
    if (step_at(S, ms, i, &st) && run_step(S, &st, NULL)) {
        touches_all(S, f->mark, &S->tmp);
        assert(!S->tmp.rules && !rule_touched(&S->goal_fp, &S->tmp));
    }
    S->events = events, S->work = work;
    frame_restore(S, f);
}
#endif

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
    Noops *mine = &S->noops[depth];
    uint64_t here = state_key(S, depth);
    bool last = depth + 1 == S->limit && S->reach_on && !S->no_skip; /* last moves out of the goal's reach are not played */
    if (last) reach_ready(S);
    if (last && !S->q->wait && !any_reaches(S, ms)) {
#ifndef NDEBUG
        for (int i = 0; i < ms->n && !S->jobs; i++) check_out_of_reach(S, ms, i, f);
#endif
        S->r->skipped_reach += ms->n;
        return false;
    }
    int nm = ms->n + (S->q->wait ? 1 : 0);
    for (int k = 0; k < nm && !S->stop; k++) {
        int i = again < 0 ? k : k == 0 ? again : k <= again ? k - 1 : k;
        if (S->jobs && search_place(S) > atomic_load(&S->jobs->found)) {
            S->stop = true; /* another process found one earlier in the order */
            return false;
        }
        if (budget_spent(S)) {
            S->stop = true;
            S->r->budget_spent = true;
            return false;
        }
        ScamStep st;
        uint64_t h = 0;
        if (i < ms->n) {
            h = step_hash(&ms->m[i]);
            const Noop *e = S->no_skip || S->q->play_all ? NULL : noop_known(mine, &ms->m[i], h);
            if (e && !e->effect) {
                S->r->skipped++; /* a no-op above, and nothing it reads has changed since */
                continue;
            }
            if (e && depth + 1 == S->limit) {
                S->r->skipped_last++; /* as above, and it changes nothing the goal reads */
                continue;
            }
            if (last && !reaches_goal(S, &ms->m[i], h)) {
#ifndef NDEBUG
                if (!S->jobs) check_out_of_reach(S, ms, i, f);
#endif
                S->r->skipped_reach++;
                continue;
            }
        }
        if (!step_at(S, ms, i, &st)) continue;
        S->at = depth;
        memset(S->fired, 0, (size_t)rule_words(S) * sizeof *S->fired);
        bool changed = run_step(S, &st, NULL);
        progress(S);
        uint64_t key = changed ? state_key(S, depth + 1) : 0;
        if (changed && !st.wait && !S->no_skip && !S->halted && depth + 1 < S->limit)
            noop_add(S, mine, &ms->m[i], h, f->mark, f->next_id, key != here);
        bool fresh = changed && seen_visit(&S->seen, key, depth + 1);
        if (changed && !fresh && key != here) S->r->revisits++;
        if (fresh) {
            S->explored++;
            S->path[depth] = st;
            bool no_skip = S->no_skip;
            if (depth + 1 < S->limit) {
                if (st.wait) { /* the clock moved: every rule may see it */
                    noops_clear(&S->noops[depth + 1]);
                    touches_net(S, f->mark, &S->tmp);
                } else {
                    noops_inherit(S, mine, &S->noops[depth + 1], f->mark, f->next_id);
                }
                if (S->tmp.rules) S->no_skip = true; /* the rules changed: their reads are not known */
            }
            bool won = goal_holds(S, depth + 1);
            if (won && S->jobs) {
                long at = search_place(S), was = atomic_load(&S->jobs->found);
                while (at < was && !atomic_compare_exchange_weak(&S->jobs->found, &was, at)) {}
            } else if (!won && depth + 1 == S->split) {
                long t = S->task++;
                if (claim(S, t)) {
                    S->cur_task = t;
                    won = dfs(S, stack, depth + 1);
                    S->cur_task = -1;
                }
            } else if (!won) {
                won = dfs(S, stack, depth + 1);
            }
            S->no_skip = no_skip;
            if (won) {
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

/* One round of the deepening, to S->limit, in this process. */
static bool round_alone(Search *S, Moves *stack)
{
    seen_clear(&S->seen);
    noops_clear(&S->noops[0]);
    seen_visit(&S->seen, state_key(S, 0), 0);
    S->explored = 0;
    S->task = 0;
    S->cur_task = -1;
    return dfs(S, stack, 0);
}

static JobCounts job_counts(const Search *S)
{
    JobCounts c = {S->explored, S->r->skipped, S->r->skipped_last, S->r->skipped_reach, S->r->revisits, {0}, S->r->budget_spent};
    memcpy(c.cut, S->r->cut, sizeof c.cut);
    return c;
}

/* The round shared between njobs processes: this one and njobs - 1
 * forked copies of it, which write their counts and exit.  False with
 * *failed when a copy could not be made or did not end well. */
static bool round_jobs(Search *S, Moves *stack, int njobs, bool *failed)
{
    Jobs *J = mmap(NULL, sizeof *J, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (J == MAP_FAILED) return *failed = true, false;
    J->n = njobs;
    atomic_store(&J->events, S->events);
    atomic_store(&J->work, S->work);
    atomic_store(&J->found, LONG_MAX);
    S->split = S->limit >= 4 ? 2 : 1;
    JobCounts base = job_counts(S);
    fflush(stdout);
    fflush(stderr);
    pid_t pid[MAX_JOBS];
    int started = 0;
    for (int i = 1; i < njobs; i++) {
        pid_t p = fork();
        if (p < 0) break;
        if (p == 0) {
            S->worker = i, S->jobs = J;
            round_alone(S, stack);
            JobCounts c = job_counts(S);
            c.skipped -= base.skipped, c.skipped_last -= base.skipped_last, c.revisits -= base.revisits;
            c.skipped_reach -= base.skipped_reach;
            for (int k = 0; k < NCUTS; k++) c.cut[k] -= base.cut[k];
            J->w[i] = c;
            _exit(0);
        }
        pid[started++] = p;
    }
    *failed = started < njobs - 1;
    S->worker = 0, S->jobs = J;
    bool won = round_alone(S, stack);
    S->jobs = NULL;
    for (int i = 0; i < started; i++) {
        int status;
        while (waitpid(pid[i], &status, 0) < 0)
            if (errno != EINTR) { status = -1; break; }
        if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) *failed = true;
        const JobCounts *c = &J->w[i + 1];
        S->explored += c->explored;
        S->r->skipped += c->skipped, S->r->skipped_last += c->skipped_last, S->r->revisits += c->revisits;
        S->r->skipped_reach += c->skipped_reach;
        for (int k = 0; k < NCUTS; k++) S->r->cut[k] += c->cut[k];
        if (c->budget_spent) S->r->budget_spent = S->stop = true;
    }
    S->events = atomic_load(&J->events);
    S->work = atomic_load(&J->work);
    long found = atomic_load(&J->found);
    munmap(J, sizeof *J);
    if (*failed || found == LONG_MAX) {
        S->split = 0;
        return false;
    }
    /* the steps of the first answer: its task again, alone */
    (void)won;
    long explored = S->explored;
    S->stop = false;
    S->r->nsteps = 0;
    S->only_task = found % 2 ? found / 2 : -1;
    S->unbounded = true;
    won = round_alone(S, stack);
    S->unbounded = false;
    S->only_task = NO_TASK;
    S->split = 0;
    S->explored = explored;
    return won;
}

/* One round: shared between the processes --jobs asks for when it is
 * deep enough to be worth it, else (or should that fail) alone. */
static bool round_play(Search *S, Moves *stack)
{
    int njobs = S->q->jobs < MAX_JOBS ? S->q->jobs : MAX_JOBS;
    if (njobs > 1 && S->limit >= 3) {
        long events = S->events;
        bool failed = false;
        bool won = round_jobs(S, stack, njobs, &failed);
        if (!failed) return won;
        S->events = events; /* a copy did not end well: the round again, alone */
        S->stop = false;
    }
    return round_alone(S, stack);
}

/* ---- best-first and random walks: depths iterative deepening cannot reach ----
 *
 * Both keep a tree of the states they reached (a node: its parent and the
 * step from it) and go back to a node by playing its path again from the
 * start, so that no state is kept but the one in the pool. */

typedef struct TNode {
    int parent;         /* -1: the start */
    int depth;
    double h;           /* the goal's distance there (best-first) */
    ScamStep st;
} TNode;

struct Tree {
    TNode *n;
    int len, cap;
    int *heap;          /* best-first: the open nodes, least h first */
    int hlen, hcap;
};

static void tree_mark(const Tree *t)
{
    for (int i = 0; i < t->len; i++) step_mark(&t->n[i].st);
}

#define TREE_MAX 2000000 /* nodes at most: past it the search stops, as if its budget were spent */

static int tree_add(Tree *t, int parent, const ScamStep *st, double h)
{
    GROW(t->n, t->len, t->cap);
    t->n[t->len] = (TNode){parent, parent < 0 ? 0 : t->n[parent].depth + 1, h, {0}};
    if (st) t->n[t->len].st = *st;
    return t->len++;
}

/* Plays node i's path from the start (the frame `root`): S->path holds it. */
static void tree_go(Search *S, const Tree *t, int i, Frame *root)
{
    frame_restore(S, root);
    int d = t->n[i].depth;
    for (int k = i; k > 0 && t->n[k].parent >= 0; k = t->n[k].parent) S->path[t->n[k].depth - 1] = t->n[k].st;
    for (int k = 0; k < d; k++) {
        S->at = k;
        ScamStep st = S->path[k];
        run_step(S, &st, NULL);
    }
}

static bool heap_less(const Tree *t, int a, int b)
{
    const TNode *x = &t->n[a], *y = &t->n[b];
    if (x->h != y->h) return x->h < y->h;
    if (x->depth != y->depth) return x->depth < y->depth;
    return a < b;
}

static void heap_push(Tree *t, int i)
{
    GROW(t->heap, t->hlen, t->hcap);
    int k = t->hlen++;
    t->heap[k] = i;
    while (k > 0 && heap_less(t, t->heap[k], t->heap[(k - 1) / 2])) {
        int p = (k - 1) / 2, x = t->heap[p];
        t->heap[p] = t->heap[k], t->heap[k] = x, k = p;
    }
}

static int heap_pop(Tree *t)
{
    int top = t->heap[0];
    t->heap[0] = t->heap[--t->hlen];
    for (int k = 0;;) {
        int l = 2 * k + 1, r = l + 1, m = k;
        if (l < t->hlen && heap_less(t, t->heap[l], t->heap[m])) m = l;
        if (r < t->hlen && heap_less(t, t->heap[r], t->heap[m])) m = r;
        if (m == k) break;
        int x = t->heap[m];
        t->heap[m] = t->heap[k], t->heap[k] = x, k = m;
    }
    return top;
}

static double num_of(Sym s, bool *ok)
{
    char *end;
    double d = strtod(sym_text(s), &end);
    *ok = sym_is_number(s) && end != sym_text(s);
    return d;
}

/* How far the comparisons of a conjunct are from holding: for each
 * `attr OP number` in a match with a literal type, the least distance
 * over the objects of that type that have the match's literal keys. */
static double gap_of(Search *S, const Node *n, Sym type, const Consts *c)
{
    double gap = 0;
    if (n->kind == N_CALL) {
        const Builtin *b = &builtins[n->bi];
        for (int i = 0; i < n->n; i++) {
            if (builtin_argkind(b, i) == ARG_MATCH) {
                Consts mc;
                match_consts(n->kid[i], &mc);
                gap += gap_of(S, n->kid[i], match_type(n->kid[i]), &mc);
            } else gap += gap_of(S, n->kid[i], type, c);
        }
        return gap;
    }
    if (n->kind == N_CMP && n->n == 2 && type != SYM_EMPTY && c)
        for (int s = 0; s < 2; s++) {
            const Node *a = n->kid[s], *l = n->kid[1 - s];
            if (a->kind != N_ATTR || l->kind != N_NUM) continue;
            bool ok;
            double bound = num_of(l->sym, &ok), best = -1;
            const IdSet *set = pool_lookup(S->g->pool, SYM_type, type);
            for (uint32_t k = 0; set && k < set->len; k++) {
                const Obj *o = pool_get(S->g->pool, set->ids[k]);
                if (!o || !keys_hold(c, o)) continue;
                double v = num_of(obj_get(o, a->sym), &ok);
                if (!ok) continue;
                double d = v > bound ? v - bound : bound - v;
                if (best < 0 || d < best) best = d;
            }
            if (best > 0) gap += best;
        }
    for (int i = 0; i < n->n; i++) gap += gap_of(S, n->kid[i], type, c);
    return gap;
}

static bool cond_holds(Search *S, const Node *cond);

/* The goal's distance at this state: how many of its conjuncts fail,
 * then how far the numbers they compare are from their bounds. */
static double goal_distance(Search *S)
{
    const Node **conj = NULL;
    int n = 0, cap = 0;
    node_conjuncts(S->goal->cond, &conj, &n, &cap);
    double fails = 0, gap = 0;
    for (int i = 0; i < n; i++)
        if (!cond_holds(S, conj[i])) {
            fails++;
            gap += gap_of(S, conj[i], SYM_EMPTY, NULL);
        }
    free(conj);
    return fails * 100 + log2(1 + gap);
}

static bool goal_nodes(Search *S, Tree *t, int at, Frame *root, Frame *here, Moves *ms, bool best);

/* Best-first: the open state nearest the goal is expanded first (every
 * move played from it), ties to the shallower. */
static bool search_best(Search *S, Frame *root, Moves *ms)
{
    Tree t = {0};
    Frame *here = &S->frames[1];
    int start = tree_add(&t, -1, NULL, goal_distance(S));
    heap_push(&t, start);
    seen_visit(&S->seen, state_key(S, 0), 0);
    bool found = false;
    while (t.hlen && !found && !S->stop) {
        int i = heap_pop(&t);
        if (t.n[i].depth >= S->q->depth) continue;
        tree_go(S, &t, i, root);
        found = goal_nodes(S, &t, i, root, here, ms, true);
    }
    frame_restore(S, root);
    free(t.n);
    free(t.heap);
    return found;
}

/* Every move from node `at` (the state in the pool): the new states are
 * added to the tree (and, best-first, to the open list); true when one
 * holds the goal (S->path, S->r->nsteps say the way). */
static bool goal_nodes(Search *S, Tree *t, int at, Frame *root, Frame *here, Moves *ms, bool best)
{
    int d = t->n[at].depth;
    all_moves(S, ms);
    frame_save(S, here);
    int nm = ms->n + (S->q->wait ? 1 : 0);
    for (int k = 0; k < nm; k++) {
        if (budget_spent(S) || t->len >= TREE_MAX) {
            S->stop = true;
            S->r->budget_spent = true;
            break;
        }
        ScamStep st;
        if (!step_at(S, ms, k, &st)) continue;
        S->at = d;
        bool changed = run_step(S, &st, NULL);
        progress(S);
        if (changed && seen_visit(&S->seen, state_key(S, d + 1), 1)) {
            S->explored++;
            S->path[d] = st;
            if (goal_holds(S, d + 1)) {
                S->r->nsteps = d + 1;
                S->stop = true;
                frame_restore(S, here);
                return true;
            }
            int c = tree_add(t, at, &st, best ? goal_distance(S) : 0);
            if (best) heap_push(t, c);
        }
        frame_restore(S, here);
        if ((S->events & 1023) == 0) collect_all(S, NULL, 0, t, ms);
    }
    return false;
}

/* ---- random walks guided by coverage ---- */

static uint64_t walk_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

typedef struct Cover {
    ObjId *fired;       /* the rules that have fired with a change, sorted */
    int n, cap;
    bool grew;          /* since the walker last looked */
} Cover;

static void cover_hook(void *ud, ObjId rule, const Prog *p, const Sym *vars, bool changed)
{
    Cover *c = ud;
    if (!changed) return;
    int lo = 0, hi = c->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (c->fired[mid] < rule) lo = mid + 1;
        else hi = mid;
    }
    if (lo < c->n && c->fired[lo] == rule) return;
    GROW(c->fired, c->n, c->cap);
    memmove(&c->fired[lo + 1], &c->fired[lo], (size_t)(c->n - lo) * sizeof *c->fired);
    c->fired[lo] = rule;
    c->n++;
    c->grew = true;
}

/* Walks from the start, or from a path kept because it made a rule fire
 * that none had made fire before (the corpus, as fuzzers keep theirs):
 * each step a move drawn at random among those of the state, until the
 * depth; the same seed, the same walks. */
static bool search_walk(Search *S, Frame *root, Moves *ms)
{
    Tree t = {0};
    int *corpus = NULL, ncorpus = 0, ccap = 0;
    Cover cov = {0};
    Engine *e = S->g->eng;
    FireHook was_hook = e->hook;
    void *was_ud = e->hook_ud;
    e->hook = cover_hook, e->hook_ud = &cov;
    uint64_t rng = S->q->seed * 0x2545f4914f6cdd1dULL + 1;
    int start = tree_add(&t, -1, NULL, 0);
    GROW(corpus, ncorpus, ccap);
    corpus[ncorpus++] = start;
    seen_visit(&S->seen, state_key(S, 0), 0);
    bool found = false;
    while (!found && !S->stop) {
        /* half the walks from a recent find, the rest from anywhere in the corpus */
        int pick = walk_next(&rng) & 1 ? ncorpus - 1 - (int)(walk_next(&rng) % (uint64_t)(ncorpus < 4 ? ncorpus : 4))
                                       : (int)(walk_next(&rng) % (uint64_t)ncorpus);
        int at = corpus[pick];
        long before = S->events;
        tree_go(S, &t, at, root);
        while (t.n[at].depth < S->q->depth && !found && !S->stop) {
            int d = t.n[at].depth;
            all_moves(S, ms);
            int nm = ms->n + (S->q->wait && S->have_timer && !S->halted ? 1 : 0);
            if (!nm) break;
            bool moved = false;
            Frame *f = &S->frames[2];
            frame_save(S, f);
            uint64_t here = state_key(S, d);
            for (int tries = 0; tries < 8 && !moved; tries++) {
                if (budget_spent(S) || t.len >= TREE_MAX) {
                    S->stop = true;
                    S->r->budget_spent = true;
                    break;
                }
                int k = (int)(walk_next(&rng) % (uint64_t)nm);
                ScamStep st;
                if (k < ms->n) {
                    st = ms->m[k];
                    st.time = S->now;
                } else {
                    memset(&st, 0, sizeof st);
                    st.wait = true;
                    st.time = S->next_timer;
                }
                S->at = d;
                cov.grew = false;
                bool changed = run_step(S, &st, NULL);
                progress(S);
                if (!changed || state_key(S, d + 1) == here) {
                    frame_restore(S, f);
                    continue;
                }
                moved = true;
                S->path[d] = st;
                if (seen_visit(&S->seen, state_key(S, d + 1), 1)) S->explored++;
                int c = tree_add(&t, at, &st, 0);
                if (goal_holds(S, d + 1)) {
                    S->r->nsteps = d + 1;
                    found = true;
                    break;
                }
                if (cov.grew) {
                    GROW(corpus, ncorpus, ccap);
                    corpus[ncorpus++] = c;
                }
                at = c;
            }
            if (!moved) break;
            if ((S->events & 1023) == 0) collect_all(S, NULL, 0, &t, ms);
        }
        if (S->events == before + t.n[corpus[pick]].depth && ncorpus == 1 && t.len == 1) break; /* nothing ever moves */
    }
    S->stop = true;
    frame_restore(S, root);
    e->hook = was_hook, e->hook_ud = was_ud;
    free(cov.fired);
    free(corpus);
    free(t.n);
    free(t.heap);
    return found;
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
    S->g->eng->mute_texts = false;
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
                .r = r, .cur_task = -1, .only_task = NO_TASK};
    if (!(S.goal = parse_goal(q->goal, err))) return false;
    S.goal_vars = xcalloc((size_t)S.goal->nvars + 1, sizeof *S.goal_vars);
    S.senders = xcalloc((size_t)q->nsenders, sizeof *S.senders);
    for (int i = 0; i < q->nsenders; i++) S.senders[i] = sym_cstr(q->senders[i]);
    bool was_logging = g->pool->logging;
    g->pool->logging = true;
    bool had_memo = pool_hash_memo(g->pool, true); /* each step is undone, and played again */
    size_t view_mark = pool_mark(g->pool);
    MsgList queue = view_of(&S);
    vocab_build(&S.v, g);
    goal_literals(&S.v, S.goal->cond);
    r->cut[CUT_RULES] = S.v.cut_rules;
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
    S.noops = xcalloc(SCAM_MAX_DEPTH + 1, sizeof *S.noops);
    for (int i = 0; i <= SCAM_MAX_DEPTH; i++) S.frames[i].memo = engine_memo_new();
    warm_up(&S);
    Moves stack[SCAM_MAX_DEPTH] = {{0}};
    S.see_messages = strstr(q->goal, "scamMessage") != NULL;
    rule_footprint(&S.goal_fp, NULL, S.goal);
    S.goal_blind = S.goal_fp.all || S.see_messages;
    S.reach_on = S.v.reach && !S.goal_blind && !q->play_all;
    if (S.reach_on) reach_now_init(&S);
    S.fired = xcalloc((size_t)rule_words(&S), sizeof *S.fired);
    g->eng->mute_texts = !S.see_messages; /* texts nobody reads are not composed (not in the answer's replay) */
    if (goal_holds(&S, 0)) {
        r->found = true; /* no step needed */
    } else {
        int top = q->depth < SCAM_MAX_DEPTH ? q->depth : SCAM_MAX_DEPTH;
        if (q->mode != SCAM_EXHAUSTIVE) {
            Frame *root = &S.frames[0];
            frame_save(&S, root);
            S.limit = top;
            r->found = q->mode == SCAM_BEST ? search_best(&S, root, &stack[0]) : search_walk(&S, root, &stack[0]);
            frame_restore(&S, root);
            top = 0; /* no deepening */
        }
        Engine *e = g->eng;
        FireHook was_hook = e->hook;
        void *was_ud = e->hook_ud;
        e->hook = fired_hook, e->hook_ud = &S; /* what each event's firings met (noop_add) */
        for (S.limit = 1; S.limit <= top && !S.stop; S.limit++) {
            r->found = round_play(&S, stack);
            if (!S.stop) r->depth_done = S.limit;
        }
        e->hook = was_hook, e->hook_ud = was_ud;
        if (r->found) replay_answer(&S);
    }
    if (q->progress) fprintf(stderr, "\r\033[K");
    r->explored = S.explored;
    r->events = S.events;
    r->work = S.work;
    for (int i = 0; i < SCAM_MAX_DEPTH; i++) free(stack[i].m), msg_free(&S.sent[i]);
    for (int i = 0; i <= SCAM_MAX_DEPTH; i++) {
        engine_memo_free(S.frames[i].memo);
        msg_free(&S.frames[i].queue);
    }
    free(S.frames);
    for (int i = 0; i <= SCAM_MAX_DEPTH; i++) {
        noops_clear(&S.noops[i]);
        free(S.noops[i].n);
        free(S.noops[i].tab);
    }
    free(S.noops);
    free(S.tmp.t);
    pool_undo_to(g->pool, view_mark); /* the private values back */
    msg_free(&g->eng->queue);
    g->eng->queue = queue;
    pool_forget_undo(g->pool);
    g->pool->logging = was_logging;
    pool_hash_memo(g->pool, had_memo);
    memcpy(g->eng->rng, saved_rng, sizeof saved_rng);
    engine_invalidate(g->eng);
    g->eng->trace_on = true;
    g->eng->mute_texts = false;
    vocab_free(&S.v);
    free(S.seen.h);
    free(S.seen.depth);
    free(S.goal_vars);
    free(S.senders);
    free(S.goal_fp.r);
    free(S.fired);
    reach_now_free(&S.rn);
    prog_free(S.goal);
    return true;
}

void scam_result_free(ScamResult *r) { buf_free(&r->trace); }

const char *const scam_cut_names[NCUTS] = {
    [CUT_VALUES] = "values", [CUT_JOINS] = "joins", [CUT_COMBOS] = "combinations", [CUT_EXTRAS] = "extras",
    [CUT_RULES] = "rules",
};

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
    bool cut = false;
    for (int i = 0; i < NCUTS; i++)
        if (r->cut[i]) {
            buf_printf(b, "%s\"%s\": %ld", cut ? ", " : ", \"cut\": {", scam_cut_names[i], r->cut[i]);
            cut = true;
        }
    if (cut) buf_putc(b, '}');
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
            for (int c = 0; c < st->copies + (st->nattrs2 > 0); c++) {
                const Attr *at = c < st->copies ? st->attrs : st->attrs2;
                int na = c < st->copies ? st->nattrs : st->nattrs2;
                buf_puts(b, c ? ", {" : "{");
                for (int k = 0; k < na; k++) {
                    if (k) buf_puts(b, ", ");
                    json_string(b, sym_text(at[k].name), sym_len(at[k].name));
                    buf_puts(b, ": ");
                    json_string(b, sym_text(at[k].value), sym_len(at[k].value));
                }
                buf_putc(b, '}');
            }
            buf_puts(b, "]}");
        }
        buf_putc(b, ']');
    }
    buf_putc(b, '}');
}
