/*
 * test_mailin.c - reading mail as people write it: which lines are the
 * player's (quotes, quote headers in several languages and clients,
 * Outlook's quoted block, signatures left out), format=flowed joined,
 * HTML read as text, and which of the player's lines are moves, which
 * prose, and which errors, with the mail's line numbers.
 */
#include <stdlib.h>
#include <string.h>

#include "mail_in.h"
#include "move_prose.h"
#include "unit.h"
#include "mail_addrs.h"

static const char *SUGAR = "REGISTER <nickname>\n"
                           "    subtype: register\n"
                           "    nickname: <nickname>\n"
                           "\n"
                           "VOTE <propId> <vote:FOR|AGAINST>\n"
                           "    subtype: vote\n"
                           "    propId: <propId>\n"
                           "    vote: <vote>\n";

/* The kept lines of a body, as "N:text|" each. */
static char *kept(const char *body)
{
    MailIn m = {0};
    mail_clean(body, &m);
    Buf b = {0};
    const char *p = m.text;
    for (int i = 0; i < m.nlines; i++) {
        const char *nl = strchr(p, '\n');
        buf_printf(&b, "%d:%.*s|", m.lines[i], (int)(nl - p), p);
        p = nl + 1;
    }
    mail_free(&m);
    char *s = buf_take(&b);
    return s ? s : strdup("");
}

static void check_kept(const char *body, const char *want)
{
    char *got = kept(body);
    if (strcmp(got, want) != 0) fail_msg("kept\n  %s\nwanted\n  %s", got, want);
    free(got);
}

static void quote_headers_of_clients_and_languages(void **state)
{
    /* Thunderbird, German */
    check_kept("REGISTER hans\n\nViele Grüße\nHans\n\nAm 01.01.2026 um 09:00 schrieb Game:\n> REGISTER evil\n",
               "1:REGISTER hans|2:|3:Viele Grüße|4:Hans|5:|");
    /* Gmail, Spanish, French, Italian, Dutch, Portuguese */
    check_kept("VOTE 1 FOR\nEl jue, 1 ene 2026 a las 9:00, Game (<g@x.org>) escribió:\n> x\n", "1:VOTE 1 FOR|");
    check_kept("VOTE 1 FOR\nLe jeu. 1 janv. 2026 à 09:00, Game <g@x.org> a écrit\xc2\xa0:\n", "1:VOTE 1 FOR|");
    check_kept("VOTE 1 FOR\nIl giorno gio 1 gen 2026 alle ore 09:00 Game <g@x.org> ha scritto:\n", "1:VOTE 1 FOR|");
    check_kept("VOTE 1 FOR\nOp do 1 jan. 2026 om 09:00 schreef Game <g@x.org>:\n", "1:VOTE 1 FOR|");
    check_kept("VOTE 1 FOR\nEm qui., 1 de jan. de 2026 às 09:00, Game <g@x.org> escreveu:\n", "1:VOTE 1 FOR|");
    /* Gmail, English, wrapped over two lines */
    check_kept("VOTE 1 FOR\n\nOn Thu, Jan 1, 2026 at 9:00 AM Game <game@example.org>\nwrote:\n\n> VOTE 1 AGAINST\n",
               "1:VOTE 1 FOR|2:|5:|");
    /* Apple Mail */
    check_kept("VOTE 1 FOR\n\nOn 1 Jan 2026, at 09:00, Game <g@x.org> wrote:\n\n", "1:VOTE 1 FOR|2:|4:|");
    /* a quote without a header it knows: the `>` lines still go */
    check_kept("VOTE 1 FOR\nZitat von Game:\n> VOTE 1 AGAINST\n  > REGISTER x\n", "1:VOTE 1 FOR|2:Zitat von Game:|");
}

static void outlook_blocks_are_not_the_players(void **state)
{
    check_kept("VOTE 1 FOR\n\n________________________________\nFrom: Game <g@x.org>\nSent: Thursday, January 1, "
               "2026 9:00 AM\nTo: Paul\nSubject: vote\n\nVOTE 1 AGAINST\n",
               "1:VOTE 1 FOR|2:|");
    check_kept("VOTE 1 FOR\n-----Original Message-----\nFrom: Game\nSent: x\nREGISTER evil\n", "1:VOTE 1 FOR|");
    check_kept("VOTE 1 FOR\n\nVon: Game <g@x.org>\nGesendet: Donnerstag, 1. Januar 2026 09:00\nAn: Hans\nBetreff: x\n"
               "REGISTER evil\n",
               "1:VOTE 1 FOR|2:|");
    check_kept("VOTE 1 FOR\nDe\xc2\xa0: Game\nEnvoyé\xc2\xa0: jeudi\nREGISTER evil\n", "1:VOTE 1 FOR|");
    /* a player's own rule of dashes or underscores is not a quote */
    check_kept("----------\nVOTE 1 FOR\n__________\nREGISTER ann\n", "1:----------|2:VOTE 1 FOR|3:__________|4:REGISTER ann|");
}

static void signatures(void **state)
{
    check_kept("VOTE 1 FOR\n\nSent from my iPhone\n", "1:VOTE 1 FOR|2:|");
    check_kept("VOTE 1 FOR\nSent from Yahoo Mail on Android\n", "1:VOTE 1 FOR|");
    check_kept("VOTE 1 FOR\nVon meinem iPhone gesendet\n", "1:VOTE 1 FOR|");
    check_kept("VOTE 1 FOR\n-- \nPaul\nVOTE 2 FOR\n", "1:VOTE 1 FOR|");
    check_kept("VOTE 1 FOR\nCheers, Paul\n", "1:VOTE 1 FOR|2:Cheers, Paul|"); /* prose: the reader of moves sets it aside */
}

static void tokens(void **state)
{
    MailIn m = {0};
    mail_clean("token: abc123\nTOKEN\nVOTE 1 FOR\n", &m);
    assert_string_equal(m.token, "abc123");
    assert_true(m.wants_token);
    assert_int_equal(m.nlines, 1);
    assert_int_equal(m.lines[0], 3);
    mail_free(&m);
}

static void format_flowed(void **state)
{
    char *s = mail_unflow("AMEND 3 IF exists(type==\"move\") \nTHEN halt()\nnext\n> quoted \n> more\n-- \nsig\n", false);
    assert_string_equal(s, "AMEND 3 IF exists(type==\"move\") THEN halt()\nnext\n> quoted more\n-- \nsig\n");
    free(s);
    /* DelSp=yes: the space that marks the wrap is not the text's */
    s = mail_unflow("REGISTER verylong\n CREATE 5 IF a=\n=b \nTHEN c\n", true);
    assert_string_equal(s, "REGISTER verylong\nCREATE 5 IF a=\n=bTHEN c\n");
    free(s);
}

static void html_as_text(void **state)
{
    int quotes = -1;
    const char *html = "<html><head><style>p{}</style><title>t</title></head><body><div dir=\"ltr\">Hi all,"
                             "<br>REGISTER&nbsp;hans<br><p>Viele <b>Gr&uuml;&szlig;e</b></p><script>VOTE 1 FOR</script>"
                       "<div class=\"gmail_quote\">On Thu Game wrote:<br><blockquote>REGISTER evil</blockquote>"
                             "</div></div></body></html>";
    char *s = mail_html_text(html, strlen(html), &quotes);
    assert_non_null(strstr(s, "Hi all,\nREGISTER\xc2\xa0hans\n"));
    assert_non_null(strstr(s, "Viele Grüße\n"));
    assert_null(strstr(s, "evil"));
    assert_null(strstr(s, "VOTE"));
    assert_int_equal(quotes, 1);
    MailIn m = {0};
    mail_clean(s, &m);
    assert_string_equal(m.text, "Hi all,\nREGISTER hans\nViele Grüße\n"); /* the quote header left out, nbsp a space */
    mail_free(&m);
    free(s);
}

static const char *MAIL = "From: Paul <paul@example.org>\r\nTo: game@x.org\r\nSubject: Re: join\r\n"
                          "Date: Thu, 01 Jan 2026 09:05:00 +0000\r\nMessage-ID: <p1@example.org>\r\n"
                          "References: <nomic.1.1@x.org>\r\nMIME-Version: 1.0\r\n"
                          "Content-Type: multipart/alternative; boundary=b\r\n\r\n"
                          "--b\r\nContent-Type: text/plain; charset=iso-8859-1; format=flowed; delsp=yes\r\n"
                          "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
                          "Hi all, I would like to join =\r\n"
                          "=E0 la fran=E7aise\r\n\r\nREGISTER paul\r\n\r\nCheers, Paul\r\n"
                          "--b\r\nContent-Type: text/html\r\n\r\n<p>REGISTER other</p>\r\n--b--\r\n";

static void a_whole_mail(void **state)
{
    MailIn m = {0};
    Buf err = {0};
    assert_true(mail_read(MAIL, strlen(MAIL), &m, &err));
    assert_string_equal(m.sender, "paul@example.org");
    assert_string_equal(m.message_id, "p1@example.org");
    assert_non_null(strstr(m.references, "nomic.1.1@x.org"));
    assert_false(m.html);
    assert_string_equal(m.text, "Hi all, I would like to join à la française\n\nREGISTER paul\n\nCheers, Paul\n");
    assert_int_equal(m.lines[2], 3);
    mail_free(&m);
    buf_free(&err);
}

static void moves_among_prose(void **state)
{
    Buf err = {0};
    Sugar *s = sugar_parse(SUGAR, "t.sugar", &err);
    assert_non_null(s);
    const char *text = "Hi all, I would like to join\nREGISTER hans\nvote 4 for\nVote for me, please\n"
                       "subtype: vote\npropId: 5\nvote: AGAINST\nPS: see you\nCheers, Paul\n";
    int lines[] = {1, 3, 4, 5, 7, 8, 9, 10, 12};
    ProseRead r;
    assert_true(prose_read(s, &(MailText){text, lines, 9, NULL, NULL, 0, NULL}, &r, &err));
    assert_int_equal(r.nmoves, 3);
    assert_non_null(strstr(buf_str(&r.moves), "nickname: hans"));
    assert_non_null(strstr(buf_str(&r.moves), "propId: 4"));
    assert_non_null(strstr(buf_str(&r.moves), "subtype: vote\npropId: 5\nvote: AGAINST\n---\n"));
    assert_int_equal(r.naside, 4);
    assert_string_equal(buf_str(&r.aside), "line 1: Hi all, I would like to join\nline 5: Vote for me, please\n"
                                           "line 10: PS: see you\nline 12: Cheers, Paul\n");
    prose_free(&r);

    /* written as the table writes it, but not a move: the mail's line number, the line, the form */
    int l2[] = {2, 6};
    assert_false(prose_read(s, &(MailText){"Hallo\nVOTE 44 yes\n", l2, 2, NULL, NULL, 0, NULL}, &r, &err));
    assert_non_null(strstr(buf_str(&err), "line 6: `VOTE 44 yes` is not a move"));
    assert_non_null(strstr(buf_str(&err), "VOTE <propId> <vote:FOR|AGAINST>"));
    prose_free(&r);
    buf_reset(&err);

    /* an object block that does not read: the mail's line */
    int l3[] = {4, 5};
    assert_false(prose_read(s, &(MailText){"subtype: vote\nsubtype: register\n", l3, 2, NULL, NULL, 0, NULL}, &r, &err));
    assert_non_null(strstr(buf_str(&err), "line 5: `subtype: register` (column 1): attribute \"subtype\" given twice"));
    prose_free(&r);
    buf_free(&err);
    sugar_free(s);
}

/* An address's one form (mail_addrs.h): the spellings that reach one mailbox
 * are one address. */
static void one_form_per_address(void **state)
{
    (void)state;
    const struct { const char *in, *fold, *keep; } cases[] = {
        {"alice@example.org", "alice@example.org", "alice@example.org"},
        {"alice@EXAMPLE.org", "alice@example.org", "alice@example.org"},
        {"Alice@Example.ORG", "alice@example.org", "Alice@example.org"},
        {"jörg@bücher.example", "jörg@xn--bcher-kva.example", "jörg@xn--bcher-kva.example"},
        {"Jörg@BÜCHER.example", "jörg@xn--bcher-kva.example", "Jörg@xn--bcher-kva.example"},
        {"ÉMILE@xn--BCHER-kva.example", "émile@xn--bcher-kva.example", "ÉMILE@xn--bcher-kva.example"},
        {"a\"@b@Example.org", "a\"@b@example.org", "a\"@b@example.org"}, /* the domain is after the last @ */
        {"report", "report", "report"},                                    /* no @: a local part alone */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *why;
        char *f = addr_canonical(cases[i].in, false, &why), *k = addr_canonical(cases[i].in, true, &why);
        assert_non_null(f);
        assert_non_null(k);
        assert_string_equal(f, cases[i].fold);
        assert_string_equal(k, cases[i].keep);
        free(f);
        free(k);
        /* a one form is its own, and one in ASCII without capitals is
         * known for one at a glance (the shortcut most senders take) */
        f = addr_canonical(cases[i].fold, false, &why);
        assert_string_equal(f, cases[i].fold);
        free(f);
        bool plain = true;
        for (const char *c = cases[i].in; *c; c++) plain &= (unsigned char)*c < 0x80 && !(*c >= 'A' && *c <= 'Z');
        assert_int_equal(addr_is_canonical(cases[i].in), plain);
    }
    assert_true(addr_is_canonical("bob+x@mail.example.org"));
    assert_false(addr_is_canonical("bob@mail.Example.org"));
    assert_false(addr_is_canonical("b\xc3\xb6" "b@example.org"));
    const char *why = NULL;
    assert_null(addr_canonical("x@\xcc\x81" "b.example", false, &why)); /* a label IDNA refuses: it starts with a combining mark */
    assert_non_null(why);
}

int run_mailin_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quote_headers_of_clients_and_languages),
        cmocka_unit_test(outlook_blocks_are_not_the_players),
        cmocka_unit_test(signatures),
        cmocka_unit_test(tokens),
        cmocka_unit_test(format_flowed),
        cmocka_unit_test(html_as_text),
        cmocka_unit_test(a_whole_mail),
        cmocka_unit_test(moves_among_prose),
        cmocka_unit_test(one_form_per_address),
    };
    return cmocka_run_group_tests_name("mailin", tests, NULL, NULL);
}
