/*
 * fuzz_mail.c - libFuzzer target for the mail intake: any input is read as
 * a mail or refused with a message; what is read has a sender and a text,
 * and favor's sugar either rewrites that text into moves that the object
 * format reads (or refuses with a message) or says which line is wrong;
 * its lines read among prose give moves the object format reads, or an
 * error that names a line of the mail; and what the journal keeps of a
 * mail refused unread is at most its header's first SUMMARY_HEAD bytes
 * and a line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mail_in.h"
#include "objfmt.h"
#include "move_prose.h"
#include "rulesets.h"
#include "move_sugar.h"

/* A shipped set's sugar table, parsed once. */
static Sugar *shipped_sugar(const char *name, Sugar **s)
{
    if (!*s) {
        for (const ShippedSet *set = shipped_sets; set->name; set++)
            if (strcmp(set->name, name) == 0) {
                Buf err = {0};
                *s = sugar_parse(set->sugar, name, &err);
                buf_free(&err);
            }
        if (!*s) abort();
    }
    return *s;
}

static Sugar *favor_sugar(void)
{
    static Sugar *s;
    return shipped_sugar("favor", &s);
}

/* agora's has phrases: sentences, quoted context, blocks, the Subject */
static Sugar *agora_sugar(void)
{
    static Sugar *s;
    return shipped_sugar("agora", &s);
}

/* libFuzzer's entry point, which no header of ours declares */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    MailIn m;
    Buf err = {0};
    /* what the journal keeps of a mail refused unread stays small */
    char *summary = mail_summary((const char *)data, size);
    if (strlen(summary) > SUMMARY_HEAD + 200) abort();
    free(summary);
    if (!mail_read((const char *)data, size, &m, &err)) {
        if (err.len == 0) abort(); /* a refusal must say why */
        buf_free(&err);
        return 0;
    }
    if (!m.sender || !m.text || !strchr(m.sender, '@')) abort();
    Buf moves = {0};
    if (sugar_expand(favor_sugar(), m.text, &moves, &err)) {
        FmtDoc doc = {0};
        Buf ferr = {0};
        if (!fmt_read(buf_str(&moves), moves.len, "mail", &doc, &ferr) && ferr.len == 0) abort();
        fmt_doc_free(&doc);
        buf_free(&ferr);
    } else if (err.len == 0) {
        abort();
    }
    buf_free(&moves);
    buf_reset(&err);
    /* the mail's lines, moves among prose */
    for (int i = 0; i < m.nlines; i++)
        if (m.lines[i] < 1 || (i && m.lines[i] <= m.lines[i - 1])) abort(); /* numbered as in the mail, in order */
    MailText mt = {m.text, m.lines, m.nlines, m.quotes, m.qlines, m.nquotes, m.subject};
    for (int k = 0; k < 2; k++) {
        ProseRead pr;
        buf_reset(&err);
        if (prose_read(k ? agora_sugar() : favor_sugar(), &mt, &pr, &err)) {
            FmtDoc doc = {0};
            Buf ferr = {0};
            if (!fmt_read(buf_str(&pr.moves), pr.moves.len, "mail", &doc, &ferr) && ferr.len == 0) abort();
            fmt_doc_free(&doc);
            buf_free(&ferr);
        } else if (strncmp(buf_str(&err), "line ", 5) != 0) {
            abort(); /* an error says which line */
        }
        prose_free(&pr);
    }
    buf_free(&err);
    mail_free(&m);
    return 0;
}
