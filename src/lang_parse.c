/*
 * lang_parse.c - recursive-descent parser of conditions and verb lists.
 *
 * Each parsing function opens with the production it parses: read in
 * order, those comments are the grammar of the language.
 * Errors stop the parse at the first one and say where and near what.
 *
 * Every tree the parser builds is bounded (lang_parse.h): at most
 * PARSE_MAX_DEPTH levels of nesting and PARSE_MAX_NODES nodes per rule.
 * The parser, the checker, the dependency analysis and the evaluator all
 * recurse over the tree (the evaluator once per goal of a chain of `&`),
 * so these two numbers are what keep every one of them inside the stack,
 * whatever a player writes.
 */
#include "lang_parse.h"

#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_builtins.h"
#include "lang_lex.h"
#include "util.h"

/* ---- arena: every node of a Prog, freed at once ---- */

struct Arena {
    struct Arena *next;
    size_t used, cap;
    _Alignas(max_align_t) char data[];
};

static void *arena_alloc(Arena **a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!*a || (*a)->used + n > (*a)->cap) {
        size_t cap = n > 8192 ? n : 8192;
        Arena *c = xmalloc(sizeof *c + cap);
        c->next = *a;
        c->used = 0;
        c->cap = cap;
        *a = c;
    }
    void *p = (*a)->data + (*a)->used;
    (*a)->used += n;
    memset(p, 0, n);
    return p;
}

static void arena_free(Arena *a)
{
    while (a) {
        Arena *n = a->next;
        free(a);
        a = n;
    }
}

/* ---- parser state ---- */

typedef struct Parser {
    Lexer lx;
    Prog *prog;
    ParseError *err;
    jmp_buf fail;
    int vcap;
    int depth;  /* nesting of the construct being parsed */
    int nodes;  /* nodes built so far for this Prog */
} Parser;

static void syntax_error(Parser *ps, const Token *t, const char *fmt, const char *arg)
{
    char msg[160];
    snprintf(msg, sizeof msg, fmt, arg);
    ps->err->line = t->line;
    ps->err->col = t->col;
    if (t->kind == TK_EOF)
        snprintf(ps->err->msg, sizeof ps->err->msg, "%s at the end of the text", msg);
    else
        snprintf(ps->err->msg, sizeof ps->err->msg, "%s near \"%.*s\"", msg,
                 (int)(t->len > 30 ? 30 : t->len), t->start);
    longjmp(ps->fail, 1);
}

static Token *cur(Parser *ps)
{
    if (ps->lx.tok.kind == TK_ERROR) syntax_error(ps, &ps->lx.tok, "%s", ps->lx.tok.error);
    return &ps->lx.tok;
}

static void advance(Parser *ps) { lex_next(&ps->lx); }

static bool accept(Parser *ps, TokKind k)
{
    if (cur(ps)->kind != k) return false;
    advance(ps);
    return true;
}

static void expect(Parser *ps, TokKind k, const char *what)
{
    if (!accept(ps, k)) syntax_error(ps, cur(ps), "expected %s", what);
}

/* Counts a node against PARSE_MAX_NODES; line and col say where to report
 * the rule too long (the resolve pass adds nodes too, and may report). */
static void count_node(Parser *ps, int line, int col)
{
    if (++ps->nodes <= PARSE_MAX_NODES) return;
    ps->err->line = line;
    ps->err->col = col;
    snprintf(ps->err->msg, sizeof ps->err->msg,
             "more than %d values, names and operators in one rule; split it into several rules", PARSE_MAX_NODES);
    longjmp(ps->fail, 1);
}

/* Enters one level of nesting at t: '(', '!', a unary '-' or the
 * arguments of a call.  The caller calls leave() when the level is done. */
static void enter(Parser *ps, const Token *t)
{
    if (++ps->depth > PARSE_MAX_DEPTH) {
        char msg[64];
        snprintf(msg, sizeof msg, "nested more than %d deep", PARSE_MAX_DEPTH);
        syntax_error(ps, t, "%s", msg);
    }
}

static void leave(Parser *ps) { ps->depth--; }

static Node *node(Parser *ps, NodeKind kind, const Token *at)
{
    count_node(ps, at->line, at->col);
    Node *n = arena_alloc(&ps->prog->arena, sizeof *n);
    n->kind = kind;
    n->line = at->line;
    n->col = at->col;
    return n;
}

static Node *binary(Parser *ps, NodeKind kind, int op, Node *a, Node *b)
{
    count_node(ps, b->line, b->col);
    Node *n = arena_alloc(&ps->prog->arena, sizeof *n);
    n->kind = kind;
    n->op = op;
    n->line = a->line;
    n->col = a->col;
    n->n = 2;
    n->kid = arena_alloc(&ps->prog->arena, 2 * sizeof *n->kid);
    n->kid[0] = a;
    n->kid[1] = b;
    return n;
}

static int var_slot(Parser *ps, Sym name)
{
    Prog *p = ps->prog;
    for (int i = 0; i < p->nvars; i++)
        if (p->varnames[i] == name) return i;
    GROW(p->varnames, p->nvars, ps->vcap);
    p->varnames[p->nvars] = name;
    return p->nvars++;
}

static Node *parse_or(Parser *ps);

/* Appends to a node array kept in the arena, so that a syntax error (a
 * longjmp) leaks nothing. */
static void push_node(Parser *ps, Node ***arr, int *len, int *cap, Node *n)
{
    if (*len >= *cap) {
        int ncap = *cap ? 2 * *cap : 4;
        Node **a = arena_alloc(&ps->prog->arena, (size_t)ncap * sizeof *a);
        if (*len) memcpy(a, *arr, (size_t)*len * sizeof *a);
        *arr = a;
        *cap = ncap;
    }
    (*arr)[(*len)++] = n;
}

/* call := IDENT args+      args := '(' [or (',' or)*] ')'
 * ')(' separates arguments like ','. */
static Node *parse_call(Parser *ps, Token name)
{
    int bi = builtin_find(name.start, name.len);
    char nm[64];
    snprintf(nm, sizeof nm, "%.*s", (int)(name.len < 60 ? name.len : 60), name.start);
    if (bi < 0) syntax_error(ps, &name, "unknown verb or function \"%s\"", nm);
    Node *n = node(ps, N_CALL, &name);
    n->bi = bi;
    n->sym = sym_intern(name.start, name.len);
    Node **args = NULL;
    int nargs = 0, cap = 0;
    while (cur(ps)->kind == TK_LPAREN) {
        enter(ps, cur(ps));
        advance(ps);
        if (cur(ps)->kind != TK_RPAREN) {
            do {
                Node *a = parse_or(ps);
                push_node(ps, &args, &nargs, &cap, a);
            } while (accept(ps, TK_COMMA));
        }
        if (cur(ps)->kind != TK_RPAREN)
            syntax_error(ps, cur(ps), "expected ')' or ',' in the arguments of %s", nm);
        advance(ps);
        leave(ps);
    }
    n->n = nargs;
    n->kid = args;
    const Builtin *b = &builtins[bi];
    if (nargs < b->min || (b->max >= 0 && nargs > b->max)) {
        char want[200];
        if (b->min == b->max) snprintf(want, sizeof want, "%s takes %d argument%s (%s)", nm, b->min, b->min == 1 ? "" : "s", b->usage);
        else snprintf(want, sizeof want, "%s takes %d to %d arguments (%s)", nm, b->min, b->max, b->usage);
        syntax_error(ps, &name, "%s", want);
    }
    return n;
}

/* primary := NUMBER | STRING | 'T' | 'F' | VARIABLE | IDENT | call | '(' or ')' */
static Node *parse_primary(Parser *ps)
{
    Token t = *cur(ps);
    Node *n;
    switch (t.kind) {
    case TK_NUMBER:
        n = node(ps, N_NUM, &t);
        n->sym = sym_intern(t.start, t.len);
        advance(ps);
        return n;
    case TK_STRING:
        n = node(ps, N_STR, &t);
        n->sym = sym_intern(t.str, t.strlen);
        advance(ps);
        return n;
    case TK_TRUE:
    case TK_FALSE:
        n = node(ps, N_BOOL, &t);
        n->sym = t.kind == TK_TRUE ? SYM_T : SYM_F;
        advance(ps);
        return n;
    case TK_VAR:
        n = node(ps, N_VAR, &t);
        n->sym = sym_intern(t.start + 1, t.len - 1);
        n->var = var_slot(ps, n->sym);
        advance(ps);
        return n;
    case TK_IDENT:
        t.str = NULL;
        advance(ps);
        if (cur(ps)->kind == TK_LPAREN) return parse_call(ps, t);
        n = node(ps, N_ATTR, &t);
        n->sym = sym_intern(t.start, t.len);
        n->reads_attr = true;
        return n;
    case TK_LPAREN:
        enter(ps, &t);
        advance(ps);
        n = parse_or(ps);
        expect(ps, TK_RPAREN, "')'");
        leave(ps);
        return n;
    default:
        syntax_error(ps, &t, "expected %s", t.kind == TK_EOF || t.kind == TK_AND || t.kind == TK_OR
                                                ? "a condition or a value"
                                                : "a value");
        return NULL;
    }
}

/* neg := '-' neg | primary */
static Node *parse_neg(Parser *ps)
{
    Token t = *cur(ps);
    if (t.kind == TK_MINUS) {
        enter(ps, &t);
        advance(ps);
        Node *n = node(ps, N_NEG, &t);
        n->n = 1;
        n->kid = arena_alloc(&ps->prog->arena, sizeof *n->kid);
        n->kid[0] = parse_neg(ps);
        leave(ps);
        return n;
    }
    return parse_primary(ps);
}

/* product := neg (('*'|'/') neg)* */
static Node *parse_product(Parser *ps)
{
    Node *n = parse_neg(ps);
    for (;;) {
        TokKind k = cur(ps)->kind;
        if (k != TK_STAR && k != TK_SLASH) return n;
        advance(ps);
        n = binary(ps, N_ARITH, k, n, parse_neg(ps));
    }
}

/* sum := product (('+'|'-') product)* */
static Node *parse_sum(Parser *ps)
{
    Node *n = parse_product(ps);
    for (;;) {
        TokKind k = cur(ps)->kind;
        if (k != TK_PLUS && k != TK_MINUS) return n;
        advance(ps);
        n = binary(ps, N_ARITH, k, n, parse_product(ps));
    }
}

static bool starts_primary(TokKind k)
{
    return k == TK_NUMBER || k == TK_STRING || k == TK_VAR || k == TK_IDENT ||
           k == TK_TRUE || k == TK_FALSE || k == TK_LPAREN;
}

/* concat := sum sum*          juxtaposition: "Player" %n "wins" */
static Node *parse_concat(Parser *ps)
{
    Node *first = parse_sum(ps);
    if (!starts_primary(cur(ps)->kind)) return first;
    Node **parts = NULL;
    int n = 0, cap = 0;
    push_node(ps, &parts, &n, &cap, first);
    while (starts_primary(cur(ps)->kind)) push_node(ps, &parts, &n, &cap, parse_sum(ps));
    count_node(ps, first->line, first->col);
    Node *c = arena_alloc(&ps->prog->arena, sizeof *c);
    c->kind = N_CONCAT;
    c->line = first->line;
    c->col = first->col;
    c->n = n;
    c->kid = parts;
    return c;
}

/* compare := concat (('=='|'!='|'<'|'<='|'>'|'>=') concat)? */
static Node *parse_compare(Parser *ps)
{
    Node *a = parse_concat(ps);
    TokKind k = cur(ps)->kind;
    if (k < TK_EQ || k > TK_GE) return a;
    advance(ps);
    Node *n = binary(ps, N_CMP, k, a, parse_concat(ps));
    k = cur(ps)->kind;
    if (k >= TK_EQ && k <= TK_GE) syntax_error(ps, cur(ps), "%s", "comparisons do not chain; use & between them");
    return n;
}

/* unary := '!' unary | compare */
static Node *parse_unary(Parser *ps)
{
    Token t = *cur(ps);
    if (t.kind == TK_NOT) {
        enter(ps, &t);
        advance(ps);
        Node *n = node(ps, N_NOT, &t);
        n->n = 1;
        n->kid = arena_alloc(&ps->prog->arena, sizeof *n->kid);
        n->kid[0] = parse_unary(ps);
        leave(ps);
        return n;
    }
    return parse_compare(ps);
}

/* Accepts a '&' or '|'; one with nothing after it (the paper's rule 5
 * ends in "&") is reported at the operator itself, which is where the
 * reader has to look. */
static bool operator_with_operand(Parser *ps, TokKind k)
{
    Token op = *cur(ps);
    if (!accept(ps, k)) return false;
    TokKind next = cur(ps)->kind;
    if (next == TK_EOF || next == TK_RPAREN || next == TK_COMMA)
        syntax_error(ps, &op, "%s", k == TK_AND ? "dangling '&': nothing follows it" : "dangling '|': nothing follows it");
    return true;
}

/* and := unary ('&' unary)* */
static Node *parse_and(Parser *ps)
{
    Node *n = parse_unary(ps);
    while (operator_with_operand(ps, TK_AND)) n = binary(ps, N_AND, TK_AND, n, parse_unary(ps));
    return n;
}

/* or := and ('|' and)* */
static Node *parse_or(Parser *ps)
{
    Node *n = parse_and(ps);
    while (operator_with_operand(ps, TK_OR)) n = binary(ps, N_OR, TK_OR, n, parse_and(ps));
    return n;
}

/* ---- match analysis ---- */

/* Marks reads_attr from the kids' marks (resolve() goes bottom-up); a
 * nested match's own attributes do not count (they read the inner
 * candidate). */
static void mark_reads(Node *n)
{
    bool r = n->kind == N_ATTR;
    for (int i = 0; i < n->n; i++) {
        bool kr = n->kid[i]->reads_attr;
        if (n->kind == N_CALL) {
            ArgKind k = builtin_argkind(&builtins[n->bi], i);
            if (k == ARG_MATCH || k == ARG_ASSIGN) kr = false;
            /* set(M1)(M2): M2 reads the target, not the enclosing candidate */
        }
        r = r || kr;
    }
    n->reads_attr = r;
}

/* Marks sure (lang_parse.h) from the kids' marks. */
static void mark_sure(Node *n)
{
    bool sure;
    switch (n->kind) {
    case N_NUM: case N_STR: case N_BOOL: case N_VAR: case N_ATTR:
    case N_AND: case N_OR: case N_NOT: case N_CMP: case N_CONCAT:
        sure = true;
        break;
    case N_CALL:
        sure = builtin_has(n->bi, BF_SURE);
        break;
    default:
        sure = false;
    }
    for (int i = 0; sure && i < n->n; i++) sure = n->kid[i]->sure;
    n->sure = sure;
}

void node_conjuncts(const Node *n, const Node ***out, int *len, int *cap)
{
    if (n->kind == N_AND) {
        node_conjuncts(n->kid[0], out, len, cap);
        node_conjuncts(n->kid[1], out, len, cap);
        return;
    }
    GROW(*out, *len, *cap);
    (*out)[(*len)++] = n;
}

static bool is_order(int op) { return op == TK_LT || op == TK_LE || op == TK_GT || op == TK_GE; }

/* a < b is b > a */
static int flip_order(int op)
{
    return op == TK_LT ? TK_GT : op == TK_GT ? TK_LT : op == TK_LE ? TK_GE : TK_LE;
}

/* Keys numbered in the order parsed, in every thread: the pool's memo of
 * lists (pool_lookup_at) gives each its own place, where an address picked
 * one and let one of Engine City's lookups in six find another key's there. */
static uint16_t next_site(void)
{
    static atomic_uint n;
    return (uint16_t)atomic_fetch_add_explicit(&n, 1, memory_order_relaxed);
}

static void analyse_match(Parser *ps, Node *m)
{
    Match *mi = arena_alloc(&ps->prog->arena, sizeof *mi);
    m->match = mi;
    if (m->kind == N_BOOL && m->sym == SYM_T) {
        mi->all = true;
        return;
    }
    const Node **cs = NULL;
    int nc = 0, cap = 0;
    node_conjuncts(m, &cs, &nc, &cap);
    mi->keys = arena_alloc(&ps->prog->arena, (size_t)nc * sizeof *mi->keys);
    mi->ranges = arena_alloc(&ps->prog->arena, (size_t)nc * sizeof *mi->ranges);
    mi->conj = arena_alloc(&ps->prog->arena, (size_t)nc * sizeof *mi->conj);
    mi->key = arena_alloc(&ps->prog->arena, (size_t)nc * sizeof *mi->key);
    mi->nconj = nc;
    memcpy(mi->conj, cs, (size_t)nc * sizeof *cs);
    bool pure = true;
    for (int i = 0; i < nc; i++) {
        const Node *c = cs[i];
        const Node *attr = NULL, *other = NULL;
        if (c->kind == N_CMP && c->op == TK_EQ) {
            if (c->kid[0]->kind == N_ATTR && !c->kid[1]->reads_attr) {
                attr = c->kid[0];
                other = c->kid[1];
            } else if (c->kid[1]->kind == N_ATTR && !c->kid[0]->reads_attr) {
                attr = c->kid[1];
                other = c->kid[0];
            }
        }
        mi->key[i] = -1;
        if (attr) {
            mi->key[i] = mi->nkeys;
            MatchKey *k = &mi->keys[mi->nkeys++];
            *k = (MatchKey){.name = attr->sym, .val = other, .site = next_site()};
            if (node_is_literal(other)) {
                k->kind = KEY_LITERAL;
                k->lit = other->sym;
            } else if (other->kind == N_VAR) {
                k->kind = KEY_VAR;
                k->var = other->var;
            }
            continue;
        }
        pure = false;
        if (c->kind == N_CMP && is_order(c->op)) {
            if (c->kid[0]->kind == N_ATTR && !c->kid[1]->reads_attr)
                mi->ranges[mi->nranges++] = (MatchRange){c->kid[0]->sym, c->op, c->kid[1]};
            else if (c->kid[1]->kind == N_ATTR && !c->kid[0]->reads_attr)
                mi->ranges[mi->nranges++] = (MatchRange){c->kid[1]->sym, flip_order(c->op), c->kid[0]};
        }
    }
    mi->pure = pure;
    free(cs);
}

/* A match argument that is a lone variable or number means objectId==it. */
static Node *objectid_sugar(Parser *ps, Node *m)
{
    if (m->kind != N_VAR && m->kind != N_NUM) return m;
    Token at = {.line = m->line, .col = m->col};
    Node *attr = node(ps, N_ATTR, &at);
    attr->sym = SYM_objectId;
    attr->reads_attr = true;
    return binary(ps, N_CMP, TK_EQ, attr, m);
}

static void resolve(Parser *ps, Node *n)
{
    if (n->kind == N_CALL) {
        const Builtin *b = &builtins[n->bi];
        for (int i = 0; i < n->n; i++) {
            if (builtin_argkind(b, i) == ARG_MATCH) n->kid[i] = objectid_sugar(ps, n->kid[i]);
        }
    }
    for (int i = 0; i < n->n; i++) resolve(ps, n->kid[i]);
    mark_reads(n);
    mark_sure(n);
    if (n->kind == N_CALL) {
        const Builtin *b = &builtins[n->bi];
        for (int i = 0; i < n->n; i++)
            if (builtin_argkind(b, i) == ARG_MATCH) analyse_match(ps, n->kid[i]);
    }
}

static Node *parse_text(Parser *ps, const char *src, size_t len)
{
    lex_free(&ps->lx);
    lex_init(&ps->lx, src, len);
    ps->depth = 0;
    if (cur(ps)->kind == TK_EOF) syntax_error(ps, cur(ps), "%s", "expected a condition or a verb, found nothing");
    Node *n = parse_or(ps);
    if (cur(ps)->kind != TK_EOF) {
        if (cur(ps)->kind == TK_RPAREN) syntax_error(ps, cur(ps), "%s", "unbalanced ')'");
        syntax_error(ps, cur(ps), "%s", "expected '&', '|' or the end of the text");
    }
    resolve(ps, n);
    return n;
}

Prog *parse_rule(const char *cond, size_t clen, const char *then, size_t tlen, ParseError *err)
{
    Parser ps;
    memset(&ps, 0, sizeof ps);
    ps.prog = xcalloc(1, sizeof *ps.prog);
    ps.err = err;
    volatile RulePart part = PART_IF;
    if (setjmp(ps.fail)) {
        lex_free(&ps.lx);
        err->part = part;
        prog_free(ps.prog);
        return NULL;
    }
    if (cond) ps.prog->cond = parse_text(&ps, cond, clen);
    part = PART_THEN;
    if (then) ps.prog->then = parse_text(&ps, then, tlen);
    lex_free(&ps.lx);
    return ps.prog;
}

void prog_free(Prog *p)
{
    if (!p) return;
    arena_free(p->arena);
    free(p->varnames);
    free(p);
}

static void mark_node(const Node *n)
{
    if (!n) return;
    sym_mark(n->sym);
    if (n->match) {
        for (int i = 0; i < n->match->nkeys; i++) sym_mark(n->match->keys[i].name);
        for (int i = 0; i < n->match->nranges; i++) sym_mark(n->match->ranges[i].name);
    }
    for (int i = 0; i < n->n; i++) mark_node(n->kid[i]);
}

void prog_mark_syms(const Prog *p)
{
    if (!p) return;
    mark_node(p->cond);
    mark_node(p->then);
    for (int i = 0; i < p->nvars; i++) sym_mark(p->varnames[i]);
}

Prog *parse_rule_syms(const Sym *cond, const Sym *then, ParseError *err)
{
    char *c = cond ? xstrndup(sym_text(*cond), sym_len(*cond)) : NULL;
    char *t = then ? xstrndup(sym_text(*then), sym_len(*then)) : NULL;
    Prog *p = parse_rule(c, cond ? sym_len(*cond) : 0, t, then ? sym_len(*then) : 0, err);
    free(c);
    free(t);
    return p;
}
