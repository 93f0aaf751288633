/*
 * fuzz_mbox.c - libFuzzer target for the mailbox split (mail_mbox.h): any input
 * is split into mails or refused with a message; the mails are numbered
 * 1, 2, ... at rising lines, each keeps at most `keep` bytes of its
 * total, and the bytes of the mails (less the "From " lines, the blank
 * line before each, and one '>' of each escaped ">From ") never exceed
 * the input's.  A small `keep` makes the long mails of the corpus cut.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mail_mbox.h"

#define KEEP 100

typedef struct Seen {
    long mails, last_line;
    size_t bytes;
} Seen;

static bool check_mail(void *ud, const MboxMail *m)
{
    Seen *s = ud;
    if (m->index != s->mails + 1 || m->line <= s->last_line) abort();
    if (m->kept > KEEP || m->kept > m->total || strlen(m->sha256) != 64) abort();
    if (m->head[m->kept] != 0) abort(); /* NUL-terminated */
    s->mails++;
    s->last_line = m->line;
    s->bytes += m->total;
    return true;
}

/* libFuzzer's entry point, which no header of ours declares */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fmemopen((void *)data, size ? size : 1, "rb");
    if (!f) return 0;
    if (!size) {
        fclose(f);
        return 0;
    }
    Seen s = {0};
    Buf err = {0};
    bool ok = mbox_each(f, KEEP, check_mail, &s, &err);
    if (!ok && err.len == 0) abort(); /* a refusal says why */
    if (s.bytes > size) abort();
    buf_free(&err);
    fclose(f);
    return 0;
}
