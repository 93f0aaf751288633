/*
 * eval_builtins.h - the evaluator's table of what each builtin does, indexed
 * by BuiltinId (lang_builtins.h).
 */
#ifndef NOMIC_EVAL_BUILTINS_H
#define NOMIC_EVAL_BUILTINS_H

#include "lang_builtins.h"
#include "eval.h"

/* A function returns its value; on a run-time error it calls ctx_error and
 * returns SYM_EMPTY. */
typedef Sym (*FuncFn)(Ctx *cx, const Node *call, const Obj *cand);
/* A verb acts; errors go through ctx_error. */
typedef void (*VerbFn)(Ctx *cx, const Node *call, const Obj *cand);

typedef struct Handler {
    FuncFn func; /* a function's, or NULL */
    VerbFn act;  /* a verb's, or NULL */
} Handler;

extern const Handler handlers[NBUILTINS];

#endif
