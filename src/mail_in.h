/*
 * mail_in.h - a received mail (RFC 5322, MIME) read into what the Mechanics
 * need: the sender's bare address, the date, the text that holds the
 * moves, and a `token:` line.  The MIME work (multipart, quoted-printable,
 * base64, charsets) is GMime's.
 *
 * The text is the first text/plain part that is not an attachment
 * (format=flowed lines joined, RFC 3676), or, in a mail with none, its
 * first text/html part read as text by libxml2's HTML parser (a
 * <blockquote> is a quote and left out).  Its lines are numbered as the
 * player wrote them (a flowed paragraph is one line), and these are left
 * out: quoted lines (`>`); a quote header ("On ... wrote:", "Am ...
 * schrieb ...:", "Le ... a écrit :", "El ... escribió:", "Il ... ha
 * scritto:", "Op ... schreef ...:", "Em ... escreveu:"), also when the
 * client wrapped it; everything from a signature separator (`-- `, or
 * `--` alone), from a quoted or forwarded mail without `>` (Outlook's
 * rule of underscores or "-----Original Message-----" in any language
 * followed by From:, or a From: line followed by Sent:/Date: and their
 * translations; "Begin forwarded message:"), and a phone's or webmail's
 * one-line signature ("Sent from my iPhone").  A line `token: T` is
 * taken out and kept apart; a line `TOKEN` asks for the sender's token.
 * The rest (moves and prose) is `text`, each of its lines with its
 * number in `lines`: which lines are moves is the game's sugar's to say
 * (move_prose.h).
 */
#ifndef NOMIC_MAIL_IN_H
#define NOMIC_MAIL_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct MailIn {
    char *sender;     /* bare address, never NULL on success */
    bool have_time;
    int64_t time;     /* from Date */
    char *text;       /* the lines that may hold moves, each ending in \n (may be empty) */
    int *lines;       /* the number in the mail of each line of text */
    int nlines;
    int left_out;     /* lines (or HTML quotes) left out: quotes, quote headers, signatures */
    char *quotes;     /* the quoted lines' text after their > marks, each ending in \n (NULL: none) */
    int *qlines;      /* the number in the mail of each */
    int nquotes;
    char *subject;    /* the Subject, decoded, or NULL */
    bool html;        /* the text was read from an HTML part */
    bool no_text;     /* the mail has no text/plain nor text/html part */
    char *token;      /* or NULL */
    bool wants_token; /* a line `TOKEN`: mail me my token */
    bool automatic;   /* Auto-Submitted (not "no"), a bounce or a list's mail */
    char *message_id; /* without the angle brackets, or NULL */
    char *references; /* the References header as received, or NULL */
    char *delivered_to; /* the recipient an MTA wrote in: the first Delivered-To, else the first
                         * X-Original-To, bare; or NULL (nomic deliver DIR routes by it) */
} MailIn;

/* false with a message in err when the mail has no usable sender. */
bool mail_read(const char *raw, size_t n, MailIn *m, Buf *err);
void mail_free(MailIn *m);
/* The steps of mail_read, for the tests: format=flowed unwrapped; HTML
 * as text (*blockquotes: the quotes left out); a body's lines sorted
 * into m->text / m->lines / m->left_out / m->token / m->wants_token.
 * The strings are malloc'd. */
char *mail_unflow(const char *text, bool delsp);
char *mail_html_text(const char *html, size_t n, int *blockquotes);
void mail_clean(const char *text, MailIn *m);
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
