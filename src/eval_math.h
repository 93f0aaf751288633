/*
 * eval_math.h - MathFlag's arithmetic (seed 003): the value of a Secret
 * Expression, a text of 1 to 8 characters from 0-9 + - * / ( ) i v, for a
 * given input i and variable v.  The rule language's eval(text, i, v) is
 * this module; docs/mathflag.md describes the grammar for players.
 *
 * Grammar (usual precedence, binary operators left-associative):
 *   expr    -> term { ('+' | '-') term }
 *   term    -> unary { ('*' | '/') unary }
 *   unary   -> '-' unary | primary
 *   primary -> NUMERAL | 'i' | 'v' | '(' expr ')'
 *   NUMERAL -> digit { digit }          (leading zeros allowed: 007 is 7)
 * There is no unary plus (the seed gives '+' only as "the addition
 * operator") and no implicit multiplication (2i is not an expression).
 *
 * Ownership: the functions read their arguments and write only `out`,
 * which the caller has initialised; they keep nothing.  Returned Syms are
 * interned (value.h): the caller never frees them.
 */
#ifndef NOMIC_EVAL_MATH_H
#define NOMIC_EVAL_MATH_H

#include <gmp.h>
#include <stdbool.h>
#include <stddef.h>

#include "value.h"

#define MATHEXPR_MAX_LEN 8 /* the seed's longest Secret Expression */
#define MATHEXPR_ALPHABET "0123456789+-/*()iv" /* the seed's characters */

/* True iff s[0..n) is in the seed's Range of Secret Expressions: 1 to 8
 * characters, each one of 0-9 + - * / ( ) i v.  Well-formedness is not
 * part of the Range: "((i" is in it, and its value is undefined. */
bool mathexpr_in_range(const char *s, size_t n);

/* The value of s[0..n) with the given i and v, into out.  Returns false,
 * leaving out unspecified, when the value is not a defined real number:
 * the text is not in the Range or not a well-formed expression, or a
 * division by zero happens anywhere in it.  Any n is safe: texts longer
 * than 8 characters are refused before they are parsed. */
bool mathexpr_eval(const char *s, size_t n, mpq_srcptr i, mpq_srcptr v, mpq_t out);

/* eval(text, i, v) of the rule language on values: the result as a number
 * in canonical form, or "" (SYM_EMPTY) when undefined.  i and v that are
 * "" read as 0 (a MathNaut without a Variable); any other text that is not
 * a number makes the result undefined. */
Sym mathexpr_eval_sym(Sym text, Sym i, Sym v);

#endif
