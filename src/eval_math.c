/*
 * eval_math.c - MathFlag's arithmetic: a recursive-descent parser that
 * computes as it parses, with exact rationals (GMP mpq) so that no input,
 * however large, loses precision.  The grammar is in eval_math.h.
 *
 * Robustness: the text is checked against the Range (at most 8 characters)
 * before parsing, so the recursion is at most a few levels deep whatever
 * the caller passes in; every mpq initialised here is cleared on every
 * path; a zero divisor is refused before GMP would see it (mpq_div by zero
 * aborts the process).
 */
#include "eval_math.h"

#include <string.h>

typedef struct MathParser {
    const char *s;  /* the expression, not NUL-terminated */
    size_t n, pos;  /* its length; the next character to read */
    mpq_srcptr i, v;
} MathParser;

static bool parse_expr(MathParser *p, mpq_t out);

bool mathexpr_in_range(const char *s, size_t n)
{
    if (n < 1 || n > MATHEXPR_MAX_LEN) return false;
    for (size_t k = 0; k < n; k++)
        if (!s[k] || !strchr(MATHEXPR_ALPHABET, s[k])) return false;
    return true;
}

static int peek(const MathParser *p) { return p->pos < p->n ? (unsigned char)p->s[p->pos] : -1; }

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/* NUMERAL -> digit { digit } */
static bool parse_numeral(MathParser *p, mpq_t out)
{
    char digits[MATHEXPR_MAX_LEN + 1];
    size_t k = 0;
    while (is_digit(peek(p)) && k < MATHEXPR_MAX_LEN) digits[k++] = p->s[p->pos++];
    digits[k] = 0;
    /* mpz_set_str takes the leading zeros of "007" as plain digits in base 10 */
    if (mpz_set_str(mpq_numref(out), digits, 10) != 0) return false;
    mpz_set_ui(mpq_denref(out), 1);
    return true;
}

/* primary -> NUMERAL | 'i' | 'v' | '(' expr ')' */
static bool parse_primary(MathParser *p, mpq_t out)
{
    int c = peek(p);
    if (is_digit(c)) return parse_numeral(p, out);
    if (c == 'i' || c == 'v') {
        p->pos++;
        mpq_set(out, c == 'i' ? p->i : p->v);
        return true;
    }
    if (c != '(') return false;
    p->pos++;
    if (!parse_expr(p, out) || peek(p) != ')') return false;
    p->pos++;
    return true;
}

/* unary -> '-' unary | primary */
static bool parse_unary(MathParser *p, mpq_t out)
{
    if (peek(p) != '-') return parse_primary(p, out);
    p->pos++;
    if (!parse_unary(p, out)) return false;
    mpq_neg(out, out);
    return true;
}

/* Applies a binary operator; false on division by zero. */
static bool apply(int op, mpq_t acc, mpq_srcptr rhs)
{
    switch (op) {
    case '+': mpq_add(acc, acc, rhs); return true;
    case '-': mpq_sub(acc, acc, rhs); return true;
    case '*': mpq_mul(acc, acc, rhs); return true;
    default:
        if (mpq_sgn(rhs) == 0) return false;
        mpq_div(acc, acc, rhs);
        return true;
    }
}

/* One left-associative level: operand { op operand }, op one of ops. */
static bool parse_level(MathParser *p, mpq_t out, const char *ops, bool (*operand)(MathParser *, mpq_t))
{
    if (!operand(p, out)) return false;
    for (int op = peek(p); op > 0 && strchr(ops, op); op = peek(p)) {
        p->pos++;
        mpq_t rhs;
        mpq_init(rhs);
        bool ok = operand(p, rhs) && apply(op, out, rhs);
        mpq_clear(rhs);
        if (!ok) return false;
    }
    return true;
}

/* term -> unary { ('*' | '/') unary } */
static bool parse_term(MathParser *p, mpq_t out) { return parse_level(p, out, "*/", parse_unary); }

/* expr -> term { ('+' | '-') term } */
static bool parse_expr(MathParser *p, mpq_t out) { return parse_level(p, out, "+-", parse_term); }

bool mathexpr_eval(const char *s, size_t n, mpq_srcptr i, mpq_srcptr v, mpq_t out)
{
    if (!mathexpr_in_range(s, n)) return false;
    MathParser p = {s, n, 0, i, v};
    /* the whole text must be one expression: "i)" or "i v" is not */
    return parse_expr(&p, out) && p.pos == n;
}

/* An operand of eval: "" reads as 0, another number as itself; false for
 * any other text. */
static bool operand_value(Sym s, mpq_t out)
{
    if (s == SYM_EMPTY) {
        mpq_set_ui(out, 0, 1);
        return true;
    }
    if (!sym_is_number(s)) return false;
    mpq_set(out, sym_num(s));
    return true;
}

Sym mathexpr_eval_sym(Sym text, Sym i, Sym v)
{
    mpq_t qi, qv, r;
    mpq_inits(qi, qv, r, NULL);
    Sym out = SYM_EMPTY;
    if (operand_value(i, qi) && operand_value(v, qv) && mathexpr_eval(sym_text(text), sym_len(text), qi, qv, r))
        out = sym_from_mpq(r);
    mpq_clears(qi, qv, r, NULL);
    return out;
}
