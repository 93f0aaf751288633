/*
 * test_mathexpr.c - MathFlag's arithmetic (eval_math.c) and the eval()
 * function of the rule language, on hand-checked cases: precedence,
 * unary minus, exactness, big numbers, division by zero and malformed
 * expressions.  tests/eval_property.py compares it with a second
 * evaluator on many random expressions.
 */
#include <stdlib.h>
#include <string.h>

#include "eval_math.h"
#include "unit.h"

/* eval(text, i, v) on texts, as the rule language calls it; "" is undefined. */
static const char *ev(const char *text, const char *i, const char *v)
{
    return sym_text(mathexpr_eval_sym(sym_cstr(text), sym_cstr(i), sym_cstr(v)));
}

#define EV(want, text, i, v)                                                                 \
    do {                                                                                     \
        const char *got_ = ev(text, i, v);                                                   \
        if (strcmp(got_, want) != 0)                                                         \
            fail_msg("eval(\"%s\", %s, %s) = \"%s\", expected \"%s\"", text, i, v, got_, want); \
    } while (0)

static void precedence_and_associativity(void **state)
{
    EV("7", "1+2*3", "", "");
    EV("9", "(1+2)*3", "", "");
    EV("-4", "1-2-3", "", "");      /* (1-2)-3, not 1-(2-3) */
    EV("0.5", "8/4/4", "", "");     /* (8/4)/4 */
    EV("1/12", "1/3/4", "", "");
    EV("2", "1-2+3", "", "");
    EV("10", "i*v+4", "2", "3");
    EV("14", "i+v*4", "2", "3");
    EV("2/3", "i/v", "2", "3");
    EV("7", "007", "", "");           /* leading zeros: one numeral */
    EV("12345678", "12345678", "", "");
    EV("5", "(((i)))", "5", "");
    EV("", "((((i))))", "5", "");      /* 9 characters */
}

static void unary_minus(void **state)
{
    EV("-5", "-i", "5", "");
    EV("5", "-(-i)", "5", "");
    EV("5", "--i", "5", "");          /* unary minus repeats, like -(-i) */
    EV("-6", "2*-i", "3", "");
    EV("5", "2--i", "3", "");         /* 2 - (-3) */
    EV("-1", "-2+1", "", "");         /* (-2)+1 */
    EV("-2/3", "-i/v", "2", "3");
    EV("0", "-0", "", "");
    EV("", "+i", "5", "");            /* no unary plus */
    EV("", "i+", "5", "");
    EV("", "-", "", "");
}

static void exact_rationals(void **state)
{
    EV("1", "1/3+2/3", "", "");
    EV("", "1/3+1/3+1/3", "", "");   /* 11 characters: beyond the seed's 8 */
    EV("1", "i+i+i", "1/3", "");
    EV("1/3", "1/3", "", "");
    EV("0.3", "i+v", "0.1", "0.2");
    EV("-2.25", "-9/4", "", "");
    EV("3", "i*3", "1", "");
    EV("1", "i/v", "0.4", "2/5");     /* 0.4 and 2/5 are the same number */
    EV("9999999800000001", "v*v", "", "99999999");
    EV("99999999999999999999999999999999999999980000000000000000000000000000000000000001", "v*v", "",
       "9999999999999999999999999999999999999999");
    EV("0.00000000000000000000000000001", "1/v", "", "100000000000000000000000000000");
    EV("1/300000000000000000000", "1/v", "", "300000000000000000000");
}

static void undefined_values(void **state)
{
    EV("", "i/0", "1", "");
    EV("", "1/(i-i)", "7", "");
    EV("", "0*(1/0)", "", "");        /* division by zero anywhere */
    EV("", "1/v", "3", "");           /* v "" reads as 0 */
    EV("", "1/i", "0", "5");
    EV("", "1/i", "0.0", "5");
    const char *bad[] = {"2i", "i2", "iv", "((i", "i))", "()", "(i)(v)", "2(i)", "i++", "+", "i**2", "*i",
                         "i//2", "", "123456789", "i+v+i+v+i", "a", "i+x", "2.5", "i v", "I", "i\n"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) EV("", bad[k], "1", "2");
}

static void operands(void **state)
{
    EV("0", "i+v", "", "");           /* no Variable: v reads as 0 */
    EV("", "i+v", "1", "abc");        /* a Variable that is not a number */
    EV("", "i", "T", "");
    EV("", "1", "x", "");             /* even when the text does not use it */
    EV("1", "i", "1.0", "");          /* numbers come out in canonical form */
    EV("-0.5", "i", "-2/4", "");
}

/* mathexpr_eval with lengths: a text is not read past n, and the length
 * check comes before anything else (for callers such as the fuzzer). */
static void lengths_and_range(void **state)
{
    mpq_t i, v, out;
    mpq_inits(i, v, out, NULL);
    mpq_set_ui(i, 4, 1);
    assert_true(mathexpr_eval("i+1garbage", 3, i, v, out));
    assert_int_equal(mpz_get_si(mpq_numref(out)), 5);
    assert_false(mathexpr_eval("i", 0, i, v, out));
    assert_false(mathexpr_eval("i\0", 2, i, v, out));
    size_t n = 1 << 20;
    char *deep = malloc(n);
    memset(deep, '(', n);
    assert_false(mathexpr_eval(deep, n, i, v, out));
    memset(deep, '-', n);
    assert_false(mathexpr_eval(deep, n, i, v, out));
    free(deep);
    mpq_clears(i, v, out, NULL);
    assert_true(mathexpr_in_range("((i", 3));
    assert_true(mathexpr_in_range("0123456v", 8));
    assert_false(mathexpr_in_range("i+i+i+i+i", 9));
    assert_false(mathexpr_in_range("i x", 3));
}

int run_mathexpr_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(precedence_and_associativity),
        cmocka_unit_test(unary_minus),
        cmocka_unit_test(exact_rationals),
        cmocka_unit_test(undefined_values),
        cmocka_unit_test(operands),
        cmocka_unit_test(lengths_and_range),
    };
    return cmocka_run_group_tests_name("mathexpr and eval()", tests, NULL, NULL);
}
