/*
 * fuzz_sugar.c - libFuzzer target for sugar tables: any input parses or is
 * refused with a message; a table that parses rewrites a body built from
 * its own patterns without crashing, or says which line is wrong; and
 * reads the body as a mail's lines (move_prose.h: phrases, blocks, the
 * lines that start with > as quoted context, the first line as the
 * Subject).  Up to a byte 0x01 the input is the table; what follows is a
 * body of its own, so that lines of any length meet a table.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "move_prose.h"
#include "move_sugar.h"

/* libFuzzer's entry point, which no header of ours declares */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The body as a mail reader hands it on: quoted lines apart, each line numbered. */
static void read_as_mail(const Sugar *s, const char *body)
{
    Buf text = {0}, quotes = {0}, err = {0};
    int *lines = NULL, *qlines = NULL, n = 0, nq = 0, cap = 0, qcap = 0, lineno = 0;
    for (const char *p = body; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        if (*p == '>') {
            if (nq == qcap) qlines = realloc(qlines, (size_t)(qcap = qcap ? 2 * qcap : 8) * sizeof *qlines);
            qlines[nq++] = lineno;
            buf_add(&quotes, p + 1, len - (len > 0));
            buf_putc(&quotes, '\n');
        } else {
            if (n == cap) lines = realloc(lines, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *lines);
            lines[n++] = lineno;
            buf_add(&text, p, len);
            buf_putc(&text, '\n');
        }
        p = nl ? nl + 1 : p + len;
    }
    char subject[64];
    snprintf(subject, sizeof subject, "%.63s", body);
    MailText m = {text.s ? text.s : "", lines, n, quotes.s, qlines, nq, subject};
    ProseRead r;
    if (!prose_read(s, &m, &r, &err) && err.len == 0) abort(); /* a refusal says why */
    if (r.nmoves < 0 || r.naside < 0) abort();
    prose_free(&r);
    buf_free(&text);
    buf_free(&quotes);
    buf_free(&err);
    free(lines);
    free(qlines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    char *cut = memchr(text, 1, size), *lines = cut ? cut + 1 : text;
    if (cut) *cut = 0;
    Buf err = {0};
    Sugar *s = sugar_parse(text, "fuzz", &err);
    if (!s) {
        if (err.len == 0) abort(); /* a refusal must say why */
    } else {
        /* the table's own pattern lines, read as a body */
        Buf body = {0}, out = {0}, e2 = {0};
        sugar_describe(s, &body);
        if (!sugar_expand(s, buf_str(&body), &out, &e2) && e2.len == 0) abort();
        if (!sugar_expand(s, lines, &out, &e2) && e2.len == 0) abort();
        read_as_mail(s, lines);
        buf_free(&body);
        buf_free(&out);
        buf_free(&e2);
        sugar_free(s);
    }
    buf_free(&err);
    free(text);
    return 0;
}
