/*
 * test_value.c - numbers and text: exact rationals, the printing rule,
 * comparisons, interning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "value.h"

static Sym S(const char *s) { return sym_cstr(s); }

static const char *sum(const char *a, const char *b)
{
    mpq_t q;
    mpq_init(q);
    mpq_add(q, sym_num(S(a)), sym_num(S(b)));
    Sym r = sym_from_mpq(q);
    mpq_clear(q);
    return sym_text(r);
}

static void numbers_are_recognised(void **state)
{
    const char *yes[] = {"0", "-12", "3.75", "2/5", "-0.5", "123456789012345678901234567890", "007"};
    const char *no[] = {"", "T", "1e5", "1.", ".5", "+3", "2/0", "1/2/3", "- 1", "12a", "0x10", "1 "};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) assert_true(sym_is_number(S(yes[i])));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) assert_false(sym_is_number(S(no[i])));
}

static void exact_arithmetic_and_printing(void **state)
{
    assert_string_equal(sum("0.1", "0.2"), "0.3");
    assert_string_equal(sum("1/3", "2/3"), "1");
    assert_string_equal(sum("1/3", "0"), "1/3");
    assert_string_equal(sum("-2", "-0.25"), "-2.25");
    assert_string_equal(sum("3/5", "0"), "0.6");
    assert_string_equal(sum("1/7", "0"), "1/7");
    assert_string_equal(sum("123456789012345678901234567890", "1"), "123456789012345678901234567891");
    assert_string_equal(sym_text(sym_canon(S("2/4"))), "0.5");
    assert_string_equal(sym_text(sym_canon(S("5.0"))), "5");
    assert_string_equal(sym_text(sym_canon(S("-0"))), "0");
}

static void comparisons(void **state)
{
    assert_true(val_eq(S("5"), S("5.0")));
    assert_true(val_eq(S("0.4"), S("2/5")));
    assert_false(val_eq(S("5"), S("5 ")));
    assert_true(val_cmp(S("9"), S("10")) < 0);   /* numbers by value */
    assert_true(val_cmp(S("9"), S("10a")) > 0);  /* text by bytes */
    assert_true(val_cmp(S(""), S("2")) < 0);     /* absent is the least text */
    assert_true(val_cmp(S("zz"), S("35")) > 0);
    assert_int_equal(val_cmp(S("-1/2"), S("-0.5")), 0);
}

static void interning(void **state)
{
    assert_int_equal(S("abc"), sym_intern("abcdef", 3));
    assert_int_equal(S(""), SYM_EMPTY);
    assert_int_equal(S("T"), SYM_T);
    assert_int_equal(S("type"), SYM_type);
    assert_int_equal(sym_len(S("hello")), 5);
    assert_int_equal(sym_hash(S("x")), sym_hash(sym_intern("xy", 1)));
    long v;
    assert_true(sym_to_long(S("42"), &v));
    assert_int_equal(v, 42);
    assert_false(sym_to_long(S("4.5"), &v));
    assert_false(sym_to_long(S("99999999999999999999999"), &v));
}

static void small_and_big_integers(void **state)
{
    /* whole numbers of up to 18 digits are kept without GMP; the two
     * representations must agree everywhere */
    assert_string_equal(sym_text(sym_canon(S("-0"))), "0");
    assert_string_equal(sym_text(sym_canon(S("007"))), "7");
    assert_true(val_eq(S("999999999999999999"), S("999999999999999999.0")));
    assert_true(val_cmp(S("9223372036854775807"), S("999999999999999999")) > 0);
    assert_true(val_cmp(S("-3"), S("2/3")) < 0);
    assert_true(val_cmp(S("5"), S("5.5")) < 0);
    assert_true(num_cmp(S("-12"), S("-11")) < 0);
    assert_string_equal(sum("999999999999999999", "1"), "1000000000000000000");
    long v;
    assert_true(sym_to_long(S("-42"), &v));
    assert_int_equal(v, -42);
    assert_false(sym_to_long(S("1/2"), &v));
}

/* A whole number from 0 to 2^31 - 1 in its printed form is an immediate:
 * one Sym however it was made, equal as a value to its other spellings
 * (which are texts of their own), its digits given by sym_text and kept
 * across other texts' interning, and no atom (the count of texts does
 * not grow). */
static void immediates_are_numbers_without_atoms(void **state)
{
    size_t count = sym_count();
    Sym n42 = S("42");
    assert_true(sym_is_immediate(n42));
    assert_int_equal(sym_from_long(42), n42);
    assert_int_equal(sym_canon(n42), n42);
    assert_true(sym_is_immediate(S("0")));
    assert_true(sym_is_immediate(S("2147483647")));
    assert_int_equal(sym_count(), count);
    /* other spellings, the negatives and the larger are texts */
    const char *texts[] = {"042", "42.0", "84/2", "-42", "2147483648", "+42", "4 2", "00"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) assert_false(sym_is_immediate(S(texts[i])));
    assert_false(sym_is_immediate(sym_from_long(-1)));
    assert_false(sym_is_immediate(sym_from_long(2147483648L)));
    assert_int_equal(sym_canon(S("042")), n42);
    assert_int_equal(sym_canon(S("84/2")), n42);
    assert_int_equal(sym_canon(S("00")), S("0"));
    assert_true(val_eq(S("42.0"), n42));
    assert_true(num_cmp(S("41.5"), n42) < 0 && num_cmp(n42, S("2147483648")) < 0);
    assert_true(val_cmp(S("9"), S("10")) < 0); /* as numbers */
    assert_true(val_cmp(S("10"), S("9a")) < 0); /* as texts */
    assert_string_equal(sym_text(n42), "42");
    assert_int_equal(sym_len(n42), 2);
    assert_int_equal(sym_len(S("2147483647")), 10);
    assert_int_equal(sym_hash(n42), sym_hash(sym_intern("42x", 2)));
    long v;
    int64_t w;
    assert_true(sym_to_long(S("2147483647"), &v) && v == 2147483647L);
    assert_true(sym_small_int(n42, &w) && w == 42);
    char b[12];
    assert_int_equal(sym_digits(S("1234567"), b), 7);
    assert_string_equal(b, "1234567");
    /* lengths and digits either side of every power of ten, as printf
     * writes them (sym_len counts digits from the bit length) */
    for (long p = 1; p <= 1000000000L; p *= 10) {
        for (long x = p - 2; x <= p + 1; x++) {
            if (x < 0) continue;
            char want[24];
            int n = snprintf(want, sizeof want, "%ld", x);
            Sym s = sym_from_long(x);
            assert_true(sym_is_immediate(s));
            assert_int_equal(sym_len(s), n);
            assert_int_equal(sym_digits(s, b), n);
            assert_string_equal(b, want);
            assert_string_equal(sym_text(s), want);
        }
    }
    for (long x = 2147483640L; x <= 2147483647L; x++) {
        assert_int_equal(sym_len(sym_from_long(x)), 10);
        assert_int_equal(sym_digits(sym_from_long(x), b), 10);
    }
    /* numbers printed as texts: negatives and past the immediates */
    const long printed[] = {-1, -9, -10, -99, -100, -2147483648L, 2147483648L, 9999999999L, 10000000000L,
                            -999999999999999999L, 999999999999999999L};
    for (size_t i = 0; i < sizeof printed / sizeof *printed; i++) {
        char want[24];
        snprintf(want, sizeof want, "%ld", printed[i]);
        assert_string_equal(sym_text(sym_from_long(printed[i])), want);
        assert_int_equal(sym_len(sym_from_long(printed[i])), strlen(want));
    }
    /* two rationals at once, each its own */
    mpq_srcptr a = sym_num(S("7")), c = sym_num(S("9"));
    assert_true(mpq_cmp_ui(a, 7, 1) == 0 && mpq_cmp_ui(c, 9, 1) == 0);
    /* no note is kept on an immediate */
    sym_set_memo(n42, 1);
    assert_int_equal(sym_memo(n42), 0);
    /* the digits sym_text gave stay put while thousands of texts are made */
    const char *t = sym_text(S("31337"));
    for (int i = 0; i < 5000; i++) {
        char x[32];
        snprintf(x, sizeof x, "text %d", i);
        S(x);
        sym_text(sym_from_long(1000 + i));
    }
    assert_string_equal(t, "31337");
    /* and a collection has nothing of them to free or keep */
    sym_gc_begin();
    sym_mark(n42);
    sym_gc_end();
    assert_string_equal(sym_text(n42), "42");
    assert_int_equal(S("42"), n42);
    /* the digits written for sym_text count toward the next collection,
     * which drops them */
    SymTable *own = sym_table_new();
    sym_use(own);
    sym_gc_begin();
    sym_gc_end();
    for (long i = 0; i < 10000; i++) sym_text(sym_from_long(i));
    assert_false(sym_gc_due());
    for (long i = 10000; i < 100000; i++) sym_text(sym_from_long(i));
    assert_true(sym_gc_due());
    sym_gc_begin();
    sym_gc_end();
    assert_false(sym_gc_due());
    assert_string_equal(sym_text(sym_from_long(99999)), "99999");
    sym_use(NULL);
    sym_table_free(own);
}

static void collector_frees_only_unmarked_texts(void **state)
{
    Sym keep = S("a text somebody still holds, longer than sixteen");
    Sym num = S("12.50");
    Sym drop = S("a text nobody holds any more");
    size_t before = sym_count();
    sym_gc_begin();
    sym_mark(keep);
    sym_mark(num);
    size_t freed = sym_gc_end();
    assert_true(freed >= 1);
    assert_int_equal(sym_count(), before - freed);
    assert_string_equal(sym_text(keep), "a text somebody still holds, longer than sixteen");
    assert_string_equal(sym_text(num), "12.50");
    assert_string_equal(sym_text(sym_canon(num)), "12.5"); /* kept with it */
    assert_int_equal(S("12.50"), num);
    assert_int_equal(S("a text somebody still holds, longer than sixteen"), keep);
    Sym again = S("a text nobody holds any more");
    assert_string_equal(sym_text(again), "a text nobody holds any more");
    assert_string_equal(sym_text(SYM_type), "type"); /* predefined texts stay */
    (void)drop;
}

/* A caller's memo on a text (parses() keeps its answer there) starts at 0,
 * stays with the text, and is gone with it: a text interned again after
 * the collector freed it, in the same slot or another, has no memo. */
static void memo_goes_with_its_text(void **state)
{
    Sym keep = S("kept text with a memo"), drop = S("dropped text with a memo");
    assert_int_equal(sym_memo(keep), 0);
    sym_set_memo(keep, 1);
    sym_set_memo(drop, 2);
    assert_int_equal(sym_memo(keep), 1);
    assert_int_equal(sym_memo(drop), 2);
    sym_gc_begin();
    sym_mark(keep);
    sym_gc_end();
    assert_int_equal(sym_memo(keep), 1);
    Sym again = S("dropped text with a memo");
    assert_int_equal(sym_memo(again), 0);
    Sym other = S("another text in a freed slot");
    assert_int_equal(sym_memo(other), 0);
}

/* A collection that frees a few texts among many takes each out of the
 * intern table (moving back the entries probed past it); one that frees
 * many makes a new table.  Either way every live text is found again as
 * the same Sym, and every freed one is interned anew with its own text. */
static void collections_keep_the_table_whole(void **state)
{
    enum { N = 6000 };
    static Sym syms[N];
    static bool kept[N];
    char buf[64];
    for (int i = 0; i < N; i++) {
        int n = snprintf(buf, sizeof buf, "text %d, %s", i, i % 3 ? "long enough to be kept apart" : "x");
        syms[i] = sym_intern(buf, (size_t)n);
        kept[i] = true;
    }
    /* one in ten freed (each taken out), then half of the rest (a new table) */
    for (int drop_one_in = 10; drop_one_in >= 2; drop_one_in -= 8) {
        sym_gc_begin();
        for (int i = 0; i < N; i++) {
            kept[i] = kept[i] && (i * 7919) % drop_one_in != 0;
            if (kept[i]) sym_mark(syms[i]);
        }
        size_t freed = sym_gc_end();
        assert_true(freed >= (size_t)(N / drop_one_in / 2));
        for (int i = 0; i < N; i++) {
            int n = snprintf(buf, sizeof buf, "text %d, %s", i, i % 3 ? "long enough to be kept apart" : "x");
            if (!kept[i]) continue;
            assert_int_equal(sym_intern(buf, (size_t)n), syms[i]);
        }
        for (int i = 0; i < N; i++) { /* the freed ones come back as new texts */
            int n = snprintf(buf, sizeof buf, "text %d, %s", i, i % 3 ? "long enough to be kept apart" : "x");
            if (kept[i]) continue;
            syms[i] = sym_intern(buf, (size_t)n);
            assert_string_equal(sym_text(syms[i]), buf);
            assert_int_equal(sym_intern(buf, (size_t)n), syms[i]);
            kept[i] = true;
        }
    }
    /* a text made while marking is in use, in a freed slot or a new one */
    Sym gone = S("a text freed before the collection");
    (void)gone;
    sym_gc_begin();
    sym_gc_end();
    sym_gc_begin();
    Sym made = S("made while marking, in a freed slot"), made2 = S("and another one");
    sym_gc_end();
    assert_string_equal(sym_text(made), "made while marking, in a freed slot");
    assert_int_equal(S("made while marking, in a freed slot"), made);
    assert_int_equal(S("and another one"), made2);
    /* numbers in use keep their canonical texts */
    Sym num = S("0012.500"), canon = sym_canon(num);
    sym_gc_begin();
    sym_mark(num);
    sym_gc_end();
    assert_int_equal(sym_canon(num), canon);
    assert_string_equal(sym_text(canon), "12.5");
    assert_int_equal(S("12.5"), canon);
}

/* The rationals live beside the atoms: those of collected numbers are
 * given to new ones, and no number ever reads another's value. */
static void collected_rationals_are_reused_safely(void **state)
{
    Sym third = S("1/3"), small = S("41");
    mpq_srcptr q = sym_num(small); /* a small whole number asked for its rational */
    assert_int_equal(mpz_get_si(mpq_numref(q)), 41);
    S("2/7");
    mpq_srcptr gone = sym_num(S("77"));
    (void)gone;
    sym_gc_begin();
    sym_mark(third);
    sym_mark(small);
    sym_gc_end();
    Sym five7 = S("5/7"), big = S("123456789012345678901"), seven = S("77");
    assert_int_equal(mpz_get_si(mpq_numref(sym_num(seven))), 77);
    assert_string_equal(sym_text(sym_canon(five7)), "5/7");
    assert_true(val_cmp(big, S("123456789012345678900")) > 0);
    assert_true(val_cmp(third, five7) < 0);
    assert_int_equal(mpz_get_si(mpq_numref(sym_num(small))), 41);
    assert_int_equal(mpz_get_si(mpq_denref(sym_num(third))), 3);
    /* a word-sized number that was asked for its rational compares and
     * reads as before */
    long v;
    assert_true(num_cmp(small, S("40")) > 0 && num_cmp(small, S("-2147483649")) > 0);
    assert_true(sym_to_long(small, &v) && v == 41);
    assert_true(sym_to_long(S("-2147483648"), &v) && v == -2147483648L);
    assert_true(sym_to_long(S("2147483648"), &v) && v == 2147483648L);
    assert_string_equal(sum("1/3", "41"), "124/3");
}

/* Interns n distinct texts of `len` bytes; returns the first. */
static Sym intern_long_texts(int n, size_t len, int from)
{
    char *t = malloc(len);
    assert_non_null(t);
    Sym first = 0;
    for (int i = 0; i < n; i++) {
        memset(t, 'x', len);
        int k = snprintf(t, len, "%d ", from + i);
        t[k] = 'x';
        Sym s = sym_intern(t, len);
        if (i == 0) first = s;
    }
    free(t);
    return first;
}

/* A few long texts (a list of every player, made again by each event)
 * make a collection due long before their number would, and texts still
 * held raise the bar as much as they weigh. */
static void collection_comes_due_by_bytes_too(void **state)
{
    SymTable *t = sym_table_new();
    sym_use(t);
    sym_gc_begin();
    sym_gc_end();
    assert_false(sym_gc_due());
    intern_long_texts(40, 4096, 0); /* 160 KiB: a few texts, little weight */
    assert_false(sym_gc_due());
    intern_long_texts(200, 4096, 40); /* 960 KiB in 240 texts */
    assert_true(sym_gc_due());
    sym_gc_begin();
    sym_gc_end(); /* nobody holds them */
    assert_false(sym_gc_due());
    Sym held = intern_long_texts(1, 1 << 20, 0); /* one text of 1 MiB, held */
    sym_gc_begin();
    sym_mark(held);
    sym_gc_end();
    intern_long_texts(200, 4096, 1000); /* 800 KiB dead beside 1 MiB alive */
    assert_false(sym_gc_due());
    intern_long_texts(200, 4096, 2000); /* 1.6 MiB dead: more than the living and the slack */
    assert_true(sym_gc_due());
    sym_use(NULL);
    sym_table_free(t);
}

int run_value_tests(void)
{
    value_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_are_recognised),
        cmocka_unit_test(exact_arithmetic_and_printing),
        cmocka_unit_test(comparisons),
        cmocka_unit_test(interning),
        cmocka_unit_test(small_and_big_integers),
        cmocka_unit_test(immediates_are_numbers_without_atoms),
        cmocka_unit_test(collector_frees_only_unmarked_texts),
        cmocka_unit_test(memo_goes_with_its_text),
        cmocka_unit_test(collections_keep_the_table_whole),
        cmocka_unit_test(collected_rationals_are_reused_safely),
        cmocka_unit_test(collection_comes_due_by_bytes_too),
    };
    return cmocka_run_group_tests_name("value", tests, NULL, NULL);
}
