/*
 * lang_parse.h - the syntax tree of the rule language and its recursive-descent
 * parser.
 *
 * A rule's `if` and `then` are parsed together into a Prog so that they
 * share one table of variables (%name -> slot).  Every node lives in the
 * Prog's arena and is freed with prog_free.  Matches (the arguments of
 * exists, count, set, ...) are analysed once here: the `attr == value`
 * conjuncts at their top level become the index keys that evaluation uses
 * to find candidates without scanning the pool.
 */
#ifndef NOMIC_LANG_PARSE_H
#define NOMIC_LANG_PARSE_H

#include <stdbool.h>

#include "lang_lex.h"
#include "value.h"

typedef enum {
    N_NUM, N_STR, N_BOOL, /* literals: sym holds the text */
    N_VAR,                /* %name: var is the slot */
    N_ATTR,               /* a bare name: an attribute of the candidate */
    N_CALL,               /* bi is a BuiltinId (lang_builtins.h); kids are the arguments */
    N_AND, N_OR, N_NOT,
    N_CMP,                /* op is a TokKind: TK_EQ .. TK_GE */
    N_CONCAT,             /* juxtaposition */
    N_ARITH,              /* op is TK_PLUS, TK_MINUS, TK_STAR or TK_SLASH */
    N_NEG,
} NodeKind;

typedef struct Node Node;

typedef enum { KEY_OTHER, KEY_LITERAL, KEY_VAR } MatchKeyKind;

typedef struct MatchKey {
    Sym name;        /* attribute compared, SYM_objectId included */
    uint16_t site;   /* numbered as parsed: where the pool keeps this key's
                        last list at hand (pool_lookup_at) */
    uint8_t kind;    /* MatchKeyKind of val, so that finding candidates reads */
    union {          /* no node for the usual keys: a literal's text, a */
        Sym lit;     /* variable's slot */
        int var;
    };
    const Node *val; /* the other side: reads no attribute of the candidate */
} MatchKey;

/* attr < val, <=, >, >= (attr always on the left: "5 < score" is
 * stored as score > 5); a candidate generator when the pool's range index
 * can answer it; the conjunct itself is still tested. */
typedef struct MatchRange {
    Sym name;
    int op;          /* TK_LT, TK_LE, TK_GT, TK_GE */
    const Node *val; /* reads no attribute of the candidate */
} MatchRange;

typedef struct Match {
    int nkeys;
    MatchKey *keys;
    int nranges;
    MatchRange *ranges;
    bool all;       /* the match is the lone T: every object */
    bool pure;      /* every top-level conjunct is a key: counting can use
                       the posting lists alone */
    int nconj;      /* the top-level conjuncts, in order ... */
    const Node **conj;
    int *key;       /* ... and the key each is (an index in keys), or -1 */
} Match;

struct Node {
    NodeKind kind;
    int op;
    Sym sym;        /* literal text, attribute name or variable name */
    int var;        /* N_VAR slot */
    int bi;         /* N_CALL: its BuiltinId */
    int n;          /* number of kids */
    Node **kid;
    Match *match;   /* set on a node that is the root of a match argument */
    bool reads_attr;/* reads an attribute of the enclosing candidate */
    bool sure;      /* its evaluation fails only by the meter: no arithmetic,
                       no draw, no timer set (BF_SURE calls, literals,
                       attributes, comparisons, & | ! and juxtaposition) */
    int line, col;  /* position in the source text (1-based) */
};

/* A literal: a text, a number or T/F. */
static inline bool node_is_literal(const Node *n) { return n->kind == N_STR || n->kind == N_NUM || n->kind == N_BOOL; }

typedef struct Arena Arena;

typedef struct Prog {
    Node *cond;     /* NULL when only a then was parsed */
    Node *then;     /* NULL when only a condition was parsed */
    int nvars;
    Sym *varnames;  /* slot -> name (without %) */
    Arena *arena;
} Prog;

/* Hard limits of the Mechanics on one rule (docs/limits.md), checked as
 * it is parsed: a rule beyond them is a syntax error.  Every recursion
 * over a tree (parsing, checking, the dependency analysis, evaluation) is
 * bounded by them; PARSE_MAX_NODES also bounds the evaluator's chain of
 * goals, which grows by one frame per conjunct of an `&`. */
#define PARSE_MAX_DEPTH 256   /* '(', '!', unary '-' and call arguments, nested */
#define PARSE_MAX_NODES 4096  /* nodes of the if and the then together */

/* The two texts of a rule. */
typedef enum RulePart { PART_IF, PART_THEN } RulePart;

typedef struct ParseError {
    RulePart part;  /* the text that failed */
    int line, col;  /* in it */
    char msg[240];
} ParseError;

/* Parses a condition and/or a verb list (either may be NULL).  On a syntax
 * error returns NULL and fills err. */
Prog *parse_rule(const char *cond, size_t clen, const char *then, size_t tlen, ParseError *err);
/* parse_rule on interned texts, absent: NULL.  The texts are copied first:
 * the parser interns names, and interning may move the text of a short
 * Sym (kept inline in the table of atoms) while the parser reads it. */
Prog *parse_rule_syms(const Sym *cond, const Sym *then, ParseError *err);
void prog_free(Prog *p);
/* Appends the conjuncts of n (n itself unless it is an &) to *out. */
void node_conjuncts(const Node *n, const Node ***out, int *len, int *cap);
void prog_mark_syms(const Prog *p); /* for the collector (value.h) */

#endif
