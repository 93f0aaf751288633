/*
 * test_objfmt.c - the object text format: reading, errors with positions,
 * printing and the round trip.
 */
#include <string.h>

#include "objfmt.h"
#include "unit.h"

static FmtDoc read_ok(const char *text)
{
    FmtDoc d = {0};
    Buf err = {0};
    if (!fmt_read(text, strlen(text), "t", &d, &err)) fail_msg("did not read: %s", buf_str(&err));
    buf_free(&err);
    return d;
}

static const char *val(const FmtDoc *d, int obj, const char *name)
{
    const FmtAttr *a = fmt_attr(&d->objs[obj], sym_cstr(name));
    return a ? sym_text(a->value) : NULL;
}

static void blocks_comments_and_continuations(void **state)
{
    FmtDoc d = read_ok("# a comment\n"
                       "type: rule\n"
                       "if: exists(a==1 &\n"
                       "        b==2)\n"
                       "   # not a comment inside a value? no: a comment line\n"
                       "\n"
                       "type: player\n"
                       "---\n"
                       "type: third\n");
    assert_int_equal(d.n, 3);
    assert_string_equal(val(&d, 0, "type"), "rule");
    assert_string_equal(val(&d, 0, "if"), "exists(a==1 &\nb==2)");
    assert_string_equal(val(&d, 1, "type"), "player");
    assert_string_equal(val(&d, 2, "type"), "third");
    fmt_doc_free(&d);
}

static void quoting(void **state)
{
    FmtDoc d = read_ok("a: \"  spaced \\\"q\\\" \\\\ \\n end\"\nb: \"\"\nc: plain # not a comment\n");
    assert_string_equal(val(&d, 0, "a"), "  spaced \"q\" \\ \n end");
    assert_string_equal(val(&d, 0, "b"), "");
    assert_string_equal(val(&d, 0, "c"), "plain # not a comment");
    fmt_doc_free(&d);
}

static void object_ids(void **state)
{
    FmtDoc d = read_ok("objectId: 3\ntype: a\n\ntype: b\n\nobjectId: 10\ntype: c\n");
    assert_int_equal(d.objs[0].objectId, 3);
    assert_int_equal(d.objs[1].objectId, 0);
    assert_int_equal(d.objs[2].objectId, 10);
    fmt_doc_free(&d);
    FmtDoc e = {0};
    Buf err = {0};
    assert_false(fmt_read("objectId: 5\ntype: a\n\nobjectId: 4\ntype: b\n", 40, "f.nomic", &e, &err));
    assert_non_null(strstr(buf_str(&err), "f.nomic:4:"));
    fmt_doc_free(&e);
    buf_free(&err);
}

static void errors_say_where(void **state)
{
    const char *bad[] = {"type rule\n", "type: a\n9x: b\n", "a: 1\na: 2\n"};
    const char *where[] = {"t:1:5: expected ':'", "t:2:1: expected an attribute name", "t:2:1: attribute \"a\" given twice"};
    for (int i = 0; i < 3; i++) {
        FmtDoc d = {0};
        Buf err = {0};
        assert_false(fmt_read(bad[i], strlen(bad[i]), "t", &d, &err));
        if (!strstr(buf_str(&err), where[i])) fail_msg("%s: got \"%s\", expected %s", bad[i], buf_str(&err), where[i]);
        fmt_doc_free(&d);
        buf_free(&err);
    }
}

/* A value that is not one whole quoted string is plain text. */
static void unterminated_quote_is_text(void **state)
{
    FmtDoc d = read_ok("a: \"unterminated\nb: \"x\" y\n");
    assert_string_equal(val(&d, 0, "a"), "\"unterminated");
    assert_string_equal(val(&d, 0, "b"), "\"x\" y");
    fmt_doc_free(&d);
}

static void round_trip(void **state)
{
    const char *values[] = {"plain", "  leading and trailing  ", "two\nlines", "#hash first", "\"quoted\"",
                            "tab\there", "back\\slash", "line\n\nwith blank", "x: y", "ünïcödé", "-2.25", "T"};
    Pool *p = pool_new();
    ObjId id = pool_create(p);
    char name[8];
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        snprintf(name, sizeof name, "a%zu", i);
        pool_set(p, id, sym_cstr(name), sym_cstr(values[i]));
    }
    pool_set(p, id, SYM_type, sym_cstr("thing"));
    Buf b = {0};
    fmt_print_obj(&b, pool_get(p, id), NULL, NULL);
    assert_true(strncmp(buf_str(&b), "objectId: 1\ntype: thing\n", 24) == 0);
    FmtDoc d = read_ok(buf_str(&b));
    assert_int_equal(d.n, 1);
    assert_int_equal(d.objs[0].n, (int)obj_n(pool_get(p, id)));
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        snprintf(name, sizeof name, "a%zu", i);
        assert_string_equal(val(&d, 0, name), values[i]);
    }
    fmt_doc_free(&d);
    buf_free(&b);
    pool_free(p);
}

int run_objfmt_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks_comments_and_continuations),
        cmocka_unit_test(quoting),
        cmocka_unit_test(object_ids),
        cmocka_unit_test(errors_say_where),
        cmocka_unit_test(unterminated_quote_is_text),
        cmocka_unit_test(round_trip),
    };
    return cmocka_run_group_tests_name("objfmt", tests, NULL, NULL);
}
