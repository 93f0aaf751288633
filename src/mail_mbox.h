/*
 * mail_mbox.h - a mailbox file (mbox: the mails one after another, each after
 * a "From " line) split into its mails, for `nomic deliver --mbox`: a
 * game-keeper hands the game a mailing list's archive, or the mails an
 * MTA kept while the game could not take them.
 *
 * Each mail is read in bounded memory, as `nomic deliver` reads standard
 * input: its first `keep` bytes are kept, the rest only counted and
 * digested, so one huge mail in the box costs no more than a small one.
 * A body line written ">From " (or ">>From "...) is given back one '>'
 * fewer (mboxrd, which mbox writers use to escape "From " in a body), and
 * the blank line that ends each mail before the next "From " line is the
 * box's, not the mail's.
 */
#ifndef NOMIC_MAIL_MBOX_H
#define NOMIC_MAIL_MBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util.h"

typedef struct MboxMail {
    long index;         /* 1, 2, ... in the box */
    long line;          /* the line of its "From " line in the box */
    const char *head;   /* its first `kept` bytes (NUL-terminated) */
    size_t kept, total; /* bytes kept, bytes in the mail */
    const char *sha256; /* hex digest of the whole mail */
} MboxMail;

/* Returns false to stop the reading (mbox_each then returns true). */
typedef bool (*MboxFn)(void *ud, const MboxMail *m);

/* Calls fn for each mail of f, in order.  False, with the reason in err,
 * when f cannot be read or does not begin with a "From " line (it is not
 * a mailbox; an empty file is one with no mail). */
bool mbox_each(FILE *f, size_t keep, MboxFn fn, void *ud, Buf *err);

#endif
