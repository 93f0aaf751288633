/*
 * builtins.h - the one table of the rule language's verbs and functions.
 *
 * Each entry gives the name, whether it is a verb (a `then` step) or a
 * function, its arity, the kind of each argument, its handler, and the
 * one-line documentation from which docs/language.md and `nomic help` are
 * produced.  Argument kinds (one letter each, the last one repeating):
 *   e  an expression, evaluated to a value
 *   m  a match: a condition tested against each candidate object
 *   v  a list of verbs joined by &
 *   a  assignments: attr==expr joined by &
 */
#ifndef NOMIC_BUILTINS_H
#define NOMIC_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>

#include "parse.h"
#include "pool.h"

typedef struct Ctx Ctx;

/* A function returns its value; on a run-time error it calls ctx_error and
 * returns SYM_EMPTY. */
typedef Sym (*FuncFn)(Ctx *cx, const Node *call, const Obj *cand);
/* A verb acts; errors go through ctx_error. */
typedef void (*VerbFn)(Ctx *cx, const Node *call, const Obj *cand);

typedef struct Builtin {
    const char *name;
    bool verb;
    int min, max;        /* number of arguments; max -1 = any */
    const char *args;    /* argument kinds, see above */
    FuncFn func;
    VerbFn act;
    const char *usage;   /* as written in a rule */
    const char *doc;     /* what it does, one line */
    char impure;         /* reads more than the pool: 'c' the clock (a
                            condition calling it is tested again when the
                            time changes), 'g' the generator (on every
                            pass), 'p' objects and attributes named by
                            values (on every pass); 0 for none.  See
                            deps.h. */
} Builtin;

extern const Builtin builtins[];
extern const int nbuiltins;

int builtin_find(const char *name, size_t len); /* index or -1 */
char builtin_argkind(const Builtin *b, int i);

#endif
