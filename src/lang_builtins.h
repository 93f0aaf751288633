/*
 * lang_builtins.h - what the language knows about each of its verbs and
 * functions, as data: name, arity, argument kinds, what a call reads or
 * does beyond its arguments, and what the metering charges it for.  The
 * lines are in lang_builtins_list.h; this table is what the parser, the checker,
 * the dependency analysis and `nomic help` read.  What a call does when it
 * runs is the evaluator's (eval_builtins.c), indexed by the same BuiltinId.
 *
 * This file depends on nothing else of the engine: the language's layers
 * (lex, parse, check, deps, eval) all stand above it.
 */
#ifndef NOMIC_LANG_BUILTINS_H
#define NOMIC_LANG_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum BuiltinId {
#define VERB(name, ...) BI_##name,
#define FUNC(name, ...) BI_##name,
#include "lang_builtins_list.h"
#undef VERB
#undef FUNC
    NBUILTINS
} BuiltinId;

/* What an argument is. */
typedef enum ArgKind {
    ARG_NONE,   /* the builtin takes no argument */
    ARG_EXPR,   /* an expression, evaluated to a value */
    ARG_MATCH,  /* a match: a condition tested against each candidate object */
    ARG_VERBS,  /* a list of verbs joined by & */
    ARG_ASSIGN, /* assignments attr==expr joined by & */
} ArgKind;

/* What a call reads or does beyond its arguments (lang_deps.h says what the
 * skipping engine makes of each). */
typedef enum BuiltinFlag {
    BF_BINDS = 1 << 0,   /* binds variables: exists in a condition, forEach, create's objectId==%v */
    BF_CLOCK = 1 << 1,   /* reads the clock: a condition calling it is tested again when the time changes */
    BF_RANDOM = 1 << 2,  /* draws from the game's generator: tested on every pass */
    BF_BY_NAME = 1 << 3, /* reads objects and attributes named by values: tested on every pass */
    BF_SENDS = 1 << 4,   /* queues a message whose text and recipients are its arguments, the recipients (addresses) first */
    BF_SURE = 1 << 5,    /* fails only by the meter: no arithmetic, no draw, no timer set (a text the
                            scam search need not compose: Node.sure) */
} BuiltinFlag;

/* What the metering of docs/limits.md charges a call for, beyond one unit
 * of work for the call itself. */
typedef enum CostClass {
    COST_STEP,       /* nothing more: bounded by its arguments' evaluation */
    COST_MATCHES,    /* each candidate object its match visits, each object changed */
    COST_OBJECTS,    /* the memory of the object and attributes it makes */
    COST_TEXT,       /* the bytes of text it reads through or builds */
    COST_DIGITS,     /* the digits of the numbers it computes with (maxNumberDigits) */
    COST_DELIVERIES, /* each recipient of each message (maxDeliveries) */
    NCOSTS
} CostClass;

#define BUILTIN_MAX_KINDS 3

typedef struct Builtin {
    const char *name;
    bool verb;
    int min, max;                      /* number of arguments; max -1 = any */
    ArgKind kinds[BUILTIN_MAX_KINDS];  /* of each argument, the last repeating */
    unsigned flags;                    /* BuiltinFlag */
    CostClass cost;
    const char *usage;                 /* as written in a rule */
    const char *doc;                   /* what it does, one line */
} Builtin;

extern const Builtin builtins[NBUILTINS];

int builtin_find(const char *name, size_t len); /* a BuiltinId, or -1 */
ArgKind builtin_argkind(const Builtin *b, int i);
static inline bool builtin_has(int bi, BuiltinFlag f) { return (builtins[bi].flags & f) != 0; }
const char *cost_class_name(CostClass c);

#endif
