/*
 * test_phrase.c - the phrase grammar of sugar tables (move_phrase.h,
 * move_sentences.c): each construct, read from a mail's lines as
 * prose_read reads them; tables refused where they fail; and hostile
 * input (a 1 MB line, a deep list, a pattern built to backtrack) read in
 * bounded work.
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "move_phrase.h"
#include "move_prose.h"
#include "move_sugar.h"

static const char *table =
    "+subject\n"
    "quoted: <decision:#> [*] <author...> <ai:#> <title...>\n"
    "\n"
    "phrase: I [hereby] vote <vote:FOR|AGAINST> <rest...> if <cond...>\n"
    "    +aside: conditional votes are not supported\n"
    "\n"
    "phrase: (I|I hereby|hereby I) register [as <nickname...>]\n"
    "    subtype: register\n"
    "    nickname: <nickname>\n"
    "\n"
    "phrase: (I|I hereby) deregister\n"
    "    subtype: deregister\n"
    "\n"
    "phrase: I [hereby] (submit|create) [and <pend:pend>] the following proposal [:]\n"
    "    +name: proposal\n"
    "    +block: text\n"
    "    +until: ---\n"
    "    +head: Title : <title...>\n"
    "    subtype: propose\n"
    "    title: <title>\n"
    "    text: <text>\n"
    "    ---\n"
    "    +if: pend\n"
    "    subtype: pend\n"
    "    proposal: this\n"
    "\n"
    "phrase: Amend Rule <rule:#> by replacing <\"old\"> with <\"new\">\n"
    "    +inside: proposal\n"
    "    subtype: change\n"
    "    rule: <rule>\n"
    "    old: <old>\n"
    "    text: <new>\n"
    "\n"
    "phrase: I vote as follows [:]\n"
    "    +lines: <decision:#> [:] <vote:FOR|AGAINST>\n"
    "    subtype: ballot\n"
    "    decision: <decision>\n"
    "    vote: <vote>\n"
    "\n"
    "phrase: I [hereby] vote <vote:FOR|AGAINST> on <decision:#,...>\n"
    "    +more: [,] and <vote:FOR|AGAINST> on <decision:#,...>\n"
    "    subtype: ballot\n"
    "    decision: <decision>\n"
    "    vote: <vote>\n"
    "\n"
    "line: <vote:FOR|AGAINST>\n"
    "    subtype: ballot\n"
    "    decision: <decision>\n"
    "    vote: <vote>\n";

/* The moves read from text (its lines numbered from 1), quotes given as
 * "N:text\n" lines, and the subject. */
static const char *read_mail(const char *text, const char *quotes, const char *subject, ProseRead *r)
{
    Buf err = {0};
    Sugar *s = sugar_parse(table, "t.sugar", &err);
    assert_non_null(s);
    int lines[64], nl = 0, qlines[64], nq = 0;
    for (const char *p = text; *p && nl < 64; p++)
        if (p == text || p[-1] == '\n') lines[nl] = nl + 1, nl++;
    Buf qt = {0};
    for (const char *p = quotes; p && *p;) {
        char *colon;
        qlines[nq++] = (int)strtol(p, &colon, 10);
        const char *nlp = strchr(colon, '\n');
        buf_add(&qt, colon + 1, (size_t)(nlp - colon));
        p = nlp + 1;
    }
    MailText m = {text, lines, nl, qt.s, qlines, nq, subject};
    assert_true(prose_read(s, &m, r, &err));
    sugar_free(s);
    buf_free(&qt);
    buf_free(&err);
    return r->moves.s ? r->moves.s : "";
}

static void performatives_anywhere_in_any_case(void **state)
{
    ProseRead r;
    const char *got = read_mail("Hi all. i HEREBY register as V.J. Rada. Cheers\n", NULL, NULL, &r);
    assert_string_equal(got, "subtype: register\nnickname: V.J. Rada\n---\n");
    prose_free(&r);
    got = read_mail("Hereby I register.\n", NULL, NULL, &r);
    assert_string_equal(got, "subtype: register\n---\n"); /* the optional name left out: absent */
    prose_free(&r);
    got = read_mail("I DEREGISTER!\n", NULL, NULL, &r);
    assert_string_equal(got, "subtype: deregister\n---\n");
    prose_free(&r);
    /* "Vote for me" is prose: no phrase starts there */
    read_mail("Vote for me, I said.\n", NULL, NULL, &r);
    assert_int_equal(r.nmoves, 0);
    assert_int_equal(r.naside, 1);
    prose_free(&r);
}

static void lists_and_more(void **state)
{
    ProseRead r;
    const char *got = read_mail("I vote FOR on 8123, 8124 and AGAINST on 8125.\n", NULL, NULL, &r);
    assert_string_equal(got, "subtype: ballot\ndecision: 8123\nvote: FOR\n---\n"
                             "subtype: ballot\ndecision: 8124\nvote: FOR\n---\n"
                             "subtype: ballot\ndecision: 8125\nvote: AGAINST\n---\n");
    assert_int_equal(r.nmoves, 3);
    prose_free(&r);
    got = read_mail("I vote as follows:\n8123 FOR\n8124: AGAINST\n\nThanks\n", NULL, NULL, &r);
    assert_string_equal(got, "subtype: ballot\ndecision: 8123\nvote: FOR\n---\n"
                             "subtype: ballot\ndecision: 8124\nvote: AGAINST\n---\n");
    assert_int_equal(r.naside, 1); /* Thanks */
    prose_free(&r);
}

static void quoted_lines_give_context(void **state)
{
    ProseRead r;
    /* "> 8180  Trigon  1.0  Paying our Assessor" (line 1), FOR under it */
    const char *got = read_mail("\nFOR\n\nAGAINST\n", "1:8180*  Trigon  1.0  Paying our Assessor\n"
                                                      "3:8181  Murphy  2.0  Another\n", NULL, &r);
    assert_string_equal(got, "subtype: ballot\ndecision: 8180\nvote: FOR\n---\n"
                             "subtype: ballot\ndecision: 8181\nvote: AGAINST\n---\n");
    prose_free(&r);
    /* with no quoted line above it, FOR is no move */
    read_mail("FOR\n", NULL, NULL, &r);
    assert_int_equal(r.nmoves, 0);
    prose_free(&r);
}

static void a_block_is_not_moves(void **state)
{
    ProseRead r;
    const char *got = read_mail("I hereby create and pend the following proposal:\n"
                                "Title: Paying our Assessor\n"
                                "\n"
                                "Amend Rule 2496 by replacing \"five\" with \"seven\".\n"
                                "I deregister (this is the proposal's text, not a move)\n"
                                "---\n"
                                "I deregister\n",
                                NULL, NULL, &r);
    assert_string_equal(got, "subtype: propose\ntitle: Paying our Assessor\n"
                             "text: Amend Rule 2496 by replacing \"five\" with \"seven\".\n"
                             "    I deregister (this is the proposal's text, not a move)\n---\n"
                             "subtype: pend\nproposal: this\n---\n"
                             "subtype: change\nrule: 2496\nold: five\ntext: seven\n---\n"
                             "subtype: deregister\n---\n");
    assert_int_equal(r.nmoves, 4);
    assert_int_equal(r.naside, 0);
    prose_free(&r);
}

static void asides_say_why_and_subject_is_read(void **state)
{
    ProseRead r;
    read_mail("I vote FOR on 8123 if Murphy votes AGAINST.\n", NULL, "BUS: I deregister", &r);
    assert_int_equal(r.nmoves, 0); /* the line was not counted, nor the Subject read after it */
    assert_string_equal(r.aside.s, "line 1: I vote FOR on 8123 if Murphy votes AGAINST.\tconditional votes are not supported\n");
    prose_free(&r);
    const char *got = read_mail("\n", NULL, "BUS: I deregister", &r);
    assert_string_equal(got, "subtype: deregister\n---\n");
    prose_free(&r);
}

static void bad_tables_are_refused(void **state)
{
    static const struct {
        const char *table, *why;
    } bad[] = {
        {"phrase: <x> register\n    subtype: r\n", "t:1:8: a phrase starts with a word written out"},
        {"phrase: I [register\n    subtype: r\n", "a [ is not closed"},
        {"phrase: I register)\n    subtype: r\n", "a closing bracket with no opening one"},
        {"phrase: I register\n    subtype: r\n    x: <y>\n", "<y> is taken neither by the entry nor by a quoted: entry"},
        {"phrase: I register\n    +bogus: 1\n    subtype: r\n", "no option +bogus"},
        {"quoted: <x:#>\n    subtype: r\n", "a quoted: entry gives context, not moves"},
        {"phrase: I ((((((((((x))))))))))\n    subtype: r\n", "brackets nest at most 8 deep"},
        {"VOTE <p>\n    subtype: v\n    ---\n", "a command makes one move"},
        /* the alternatives before the empty one are freed (the sanitizer build's leak check) */
        {"phrase: I vote <v:FOR||AGAINST>\n    subtype: v\n    vote: <v>\n", "an empty alternative in <name:A|B>"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Buf err = {0};
        Sugar *s = sugar_parse(bad[i].table, "t", &err);
        if (s || !strstr(buf_str(&err), bad[i].why)) fail_msg("table %zu: got \"%s\", expected \"%s\"", i, buf_str(&err), bad[i].why);
        sugar_free(s);
        buf_free(&err);
    }
}

static void hostile_input_is_read_in_bounded_work(void **state)
{
    /* a 1 MB line of "I I I ...", with a pattern that backtracks over a rest */
    size_t n = 1 << 20;
    char *line = malloc(n + 2);
    for (size_t i = 0; i < n; i += 2) line[i] = 'I', line[i + 1] = ' ';
    line[n] = '\n';
    line[n + 1] = 0;
    Buf err = {0};
    Sugar *s = sugar_parse("phrase: I <a...> I <b...> register\n    subtype: r\n", "t", &err);
    assert_non_null(s);
    int one = 1;
    ProseRead r;
    MailText m = {line, &one, 1, NULL, NULL, 0, NULL};
    assert_true(prose_read(s, &m, &r, &err));
    assert_int_equal(r.nmoves, 0);
    prose_free(&r);
    sugar_free(s);
    /* a list of 100,000 items: one move each, as far as a phrase reads
     * (4096 tokens: docs/limits.md) */
    Buf b = {0};
    buf_puts(&b, "I vote FOR on 1");
    for (int i = 2; i <= 100000; i++) buf_printf(&b, ", %d", i);
    buf_puts(&b, "\n");
    read_mail(b.s, NULL, NULL, &r);
    assert_int_equal(r.nmoves, 2046);
    prose_free(&r);
    buf_free(&b);
    /* a pattern at the limits: 16 names, nesting 8 deep */
    s = sugar_parse("phrase: I [a [b [c [d [e [f [g <x>]]]]]]]\n    subtype: r\n    x: <x>\n", "t", &err);
    assert_non_null(s);
    sugar_free(s);
    buf_free(&err);
    free(line);
}

int run_phrase_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(performatives_anywhere_in_any_case),
        cmocka_unit_test(lists_and_more),
        cmocka_unit_test(quoted_lines_give_context),
        cmocka_unit_test(a_block_is_not_moves),
        cmocka_unit_test(asides_say_why_and_subject_is_read),
        cmocka_unit_test(bad_tables_are_refused),
        cmocka_unit_test(hostile_input_is_read_in_bounded_work),
    };
    return cmocka_run_group_tests_name("phrase", tests, NULL, NULL);
}
