/*
 * test_sugar.c - a game's sugar table: how a table is read (and refused,
 * with the line and column of the fault), and how a message's one-line
 * moves become moves in the object format, exactly as the rules see them.
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "move_sugar.h"

static const char *table =
    "# a comment\n"
    "VOTE <propId> <vote:FOR|AGAINST>\n"
    "    subtype: vote\n"
    "    propId: <propId>\n"
    "    vote: <vote>\n"
    "\n"
    "SAY <to> <text...>\n"
    "    subtype: say\n"
    "    to: <to>\n"
    "    text: <text>\n"
    "\n"
    "AMEND <target> IF <newif...> THEN <newthen...>\n"
    "    subtype: ruleChange\n"
    "    target: <target>\n"
    "    newif: <newif>\n"
    "    newthen: <newthen>\n";

/* The expansion of body under the table above, or its error. */
static char *expand(const char *tab, const char *body, bool *ok)
{
    Buf err = {0}, out = {0};
    Sugar *s = sugar_parse(tab, "t", &err);
    if (!s) fail_msg("the table does not parse: %s", buf_str(&err));
    *ok = sugar_expand(s, body, &out, &err);
    sugar_free(s);
    char *r = buf_take(*ok ? &out : &err);
    buf_free(&out);
    buf_free(&err);
    return r;
}

static void expect_expansion(const char *body, const char *want)
{
    bool ok;
    char *got = expand(table, body, &ok);
    if (!ok) fail_msg("%s: refused: %s", body, got);
    assert_string_equal(got, want);
    free(got);
}

/* Each move a sugar line makes is followed by ---, the object format's
 * separator (harmless at the end of the body). */
static void lines_become_moves(void **state)
{
    /* words in any case; an alternative comes out as the table writes it */
    expect_expansion("vote 12 for\n", "subtype: vote\npropId: 12\nvote: FOR\n---\n");
    /* spaces between words do not matter; one move per line */
    expect_expansion("VOTE   7    against\nVOTE 8 FOR\n",
                     "subtype: vote\npropId: 7\nvote: AGAINST\n---\nsubtype: vote\npropId: 8\nvote: FOR\n---\n");
}

static void rest_of_line_words(void **state)
{
    /* <text...> takes the rest of the line, as written */
    expect_expansion("SAY bob Hello there,   Bob!\n", "subtype: say\nto: bob\ntext: Hello there,   Bob!\n---\n");
    /* two of them: each takes up to the word the pattern needs next */
    expect_expansion("AMEND 3 IF a == b & c THEN set(x)(y==1) & halt()\n",
                     "subtype: ruleChange\ntarget: 3\nnewif: a == b & c\nnewthen: set(x)(y==1) & halt()\n---\n");
}

static void object_format_passes_through(void **state)
{
    /* a block that is not sugar is handed on as the object format */
    expect_expansion("VOTE 1 FOR\n---\nsubtype: x\nfoo: bar\n", "subtype: vote\npropId: 1\nvote: FOR\n---\nsubtype: x\nfoo: bar\n");
    expect_expansion("subtype: x\n", "subtype: x\n");
}

static void sugar_errors_name_the_line(void **state)
{
    bool ok;
    char *got = expand(table, "VOTE 1 FOR\nVOTE 12 maybe\n", &ok);
    assert_false(ok);
    assert_non_null(strstr(got, "line 2"));
    assert_non_null(strstr(got, "VOTE 12 maybe"));
    assert_non_null(strstr(got, "VOTE <propId> <vote:FOR|AGAINST>")); /* the form it missed */
    free(got);
}

static void bad_tables_are_refused_where_they_fail(void **state)
{
    static const struct {
        const char *table, *where;
    } bad[] = {
        {"FOO <a>\n  subtype: <b>\n", "t:2:12: <b> is not taken by the pattern"},
        {"FOO <a...> <b...> <c...> <d...>\n    x: <a>\n", "t:1:26: at most 3 <name...>"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Buf err = {0};
        Sugar *s = sugar_parse(bad[i].table, "t", &err);
        assert_null(s);
        if (!strstr(buf_str(&err), bad[i].where)) fail_msg("table %zu: got \"%s\", expected \"%s\"", i, buf_str(&err), bad[i].where);
        buf_free(&err);
    }
}

static void long_lines_are_taken_whole(void **state)
{
    /* a line of 100,000 words is one move, not an error or a crash */
    Buf body = {0}, want = {0};
    buf_puts(&body, "SAY bob");
    buf_puts(&want, "subtype: say\nto: bob\ntext: w");
    for (int i = 0; i < 100000; i++) buf_puts(&body, " w");
    for (int i = 1; i < 100000; i++) buf_puts(&want, " w");
    buf_puts(&body, "\n");
    buf_puts(&want, "\n---\n");
    expect_expansion(buf_str(&body), buf_str(&want));
    buf_free(&body);
    buf_free(&want);
}

int run_sugar_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_become_moves),
        cmocka_unit_test(rest_of_line_words),
        cmocka_unit_test(object_format_passes_through),
        cmocka_unit_test(sugar_errors_name_the_line),
        cmocka_unit_test(bad_tables_are_refused_where_they_fail),
        cmocka_unit_test(long_lines_are_taken_whole),
    };
    return cmocka_run_group_tests_name("sugar", tests, NULL, NULL);
}
