/*
 * mailin.h - a received mail (RFC 5322, MIME) read into what the Mechanics
 * need: the sender's bare address, the date, the text that holds the
 * moves, and a `token:` line.  The MIME work (multipart, quoted-printable,
 * base64, charsets) is GMime's.
 *
 * The text is the first text/plain part that is not an attachment, with
 * line ends made \n, quoted reply lines (`>`) and the "... wrote:" line
 * that introduces them left out, and everything from a signature
 * separator (`-- `, or `--` alone) on left out.  A line `token: T` is taken out of the
 * text and kept apart.
 */
#ifndef NOMIC_MAILIN_H
#define NOMIC_MAILIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct MailIn {
    char *sender;     /* bare address, never NULL on success */
    bool have_time;
    int64_t time;     /* from Date */
    char *text;       /* the moves' text (may be empty) */
    char *token;      /* or NULL */
    bool automatic;   /* Auto-Submitted (not "no"), a bounce or a list's mail */
    char *message_id; /* without the angle brackets, or NULL */
} MailIn;

/* false with a message in err when the mail has no usable sender. */
bool mail_read(const char *raw, size_t n, MailIn *m, Buf *err);
void mail_free(MailIn *m);
/* What the journal keeps of a mail refused unread: its header (at most
 * SUMMARY_HEAD bytes) and a line giving the size and SHA-256 of the
 * whole, so that a stranger's mail cannot fill the disk.  malloc'd. */
#define SUMMARY_HEAD 4096
char *mail_summary(const char *raw, size_t n);
/* The same, when only the first n of `total` bytes were read and
 * `sha256` (hex) is the digest of all of them. */
char *mail_summary_of(const char *head, size_t n, size_t total, const char *sha256);
/* GMime's set-up, once per process (before any thread starts). */
void mime_init_once(void);

#endif
