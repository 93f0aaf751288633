/*
 * fuzz_eval.c - libFuzzer target for eval(text, i, v), MathFlag's
 * arithmetic: the input is the text, then i and v, separated by bytes 0x01.
 * Any input gives a number or "" without crashing or leaking, and the
 * answers hang together: a defined value is a number in canonical form, a
 * text outside the seed's Range has no value, and wrapping a text in
 * parentheses or negating it changes the value as arithmetic says.  A
 * crash here is an input for tests/unit/test_mathexpr.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eval_math.h"

/* The next field of data, up to a byte 0x01 or the end. */
static const char *field(const char **p, const char *end, size_t *n)
{
    const char *s = *p;
    const char *cut = memchr(s, 1, (size_t)(end - s));
    *n = (size_t)((cut ? cut : end) - s);
    *p = cut ? cut + 1 : end;
    return s;
}

#define TOO_LONG ((Sym)-1) /* no Sym has this value */

/* eval of prefix + text + suffix, or TOO_LONG when it would not fit in 8
 * characters. */
static Sym wrapped(const char *pre, const char *text, size_t n, const char *post, Sym i, Sym v)
{
    char buf[MATHEXPR_MAX_LEN + 1];
    size_t a = strlen(pre), b = strlen(post);
    if (a + n + b > MATHEXPR_MAX_LEN) return TOO_LONG;
    memcpy(buf, pre, a);
    memcpy(buf + a, text, n);
    memcpy(buf + a + n, post, b);
    return mathexpr_eval_sym(sym_intern(buf, a + n + b), i, v);
}

/* libFuzzer's entry point, which no header of ours declares */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    size_t nt, ni, nv;
    const char *t = field(&p, end, &nt), *ti = field(&p, end, &ni), *tv = field(&p, end, &nv);
    Sym text = sym_intern(t, nt), i = sym_intern(ti, ni), v = sym_intern(tv, nv);
    Sym r = mathexpr_eval_sym(text, i, v);
    if (r != SYM_EMPTY && (!sym_is_number(r) || sym_canon(r) != r)) abort();
    if (r != SYM_EMPTY && !mathexpr_in_range(t, nt)) abort();
    /* the raw bytes, at any length, through the mpq interface */
    mpq_t zero, out;
    mpq_inits(zero, out, NULL);
    bool raw = mathexpr_eval((const char *)data, size, zero, zero, out);
    if (raw && !mathexpr_in_range((const char *)data, size)) abort();
    mpq_clears(zero, out, NULL);
    if (mathexpr_in_range(t, nt)) {
        /* (t) may be defined when t is not ("2)-(i" is malformed, "(2)-(i)"
         * is not), but a defined t keeps its value in parentheses, and -(t)
         * is defined exactly when (t) is, and is 0-(t) */
        Sym paren = wrapped("(", t, nt, ")", i, v);
        if (paren != TOO_LONG && r != SYM_EMPTY && paren != r) abort();
        Sym neg = wrapped("-(", t, nt, ")", i, v), sub = wrapped("0-(", t, nt, ")", i, v);
        if (neg != TOO_LONG && sub != TOO_LONG && neg != sub) abort();
        if (neg != TOO_LONG && (neg == SYM_EMPTY) != (paren == SYM_EMPTY)) abort();
    }
    /* nothing here keeps a Sym between runs: free the texts interned,
     * often, since fuzzed operands can be kilobytes each */
    if (sym_count() > 4096) {
        sym_gc_begin();
        sym_gc_end();
    }
    return 0;
}
