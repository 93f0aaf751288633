/*
 * lang_check.h - the static checker of rules: what `nomic check` reports and
 * what keeps a broken rule from ever firing.
 *
 * Errors: a variable read before anything can bind it, an attribute read
 * outside a match, a verb used as a condition or a function as a verb, an
 * assignment that is not attr==expr.  (Syntax errors, unknown names and
 * wrong arity are found by the parser.)  Warnings: a variable bound but
 * never used; a variable that only objectId==%v binds (an object's id)
 * given as the recipients of a verb that sends (addresses).  Diagnostics
 * are collected, not stopped at the first.
 */
#ifndef NOMIC_LANG_CHECK_H
#define NOMIC_LANG_CHECK_H

#include <stdbool.h>

#include "lang_parse.h"

typedef struct Diag {
    bool error;    /* false: a warning */
    RulePart part; /* the text it is in */
    int line, col; /* in that text */
    char msg[240];
} Diag;

typedef struct Diags {
    Diag *d;
    int n, cap;
    int nerrors;
} Diags;

void check_prog(const Prog *p, Diags *out);
void diags_free(Diags *d);

#endif
