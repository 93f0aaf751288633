/*
 * mail_mbox.c - a mailbox split into its mails (mail_mbox.h).  The file is read in
 * pieces of at most a buffer's size, never a whole line or a whole mail at
 * once: GMime's own mbox parser builds each message whole, and a mail of
 * a gigabyte must not make one of the game-keeper's commands take a
 * gigabyte.
 */
#include "mail_mbox.h"

#include <errno.h>
#include <glib.h>
#include <string.h>

#define PIECE 65536

typedef struct Reader {
    FILE *f;
    char buf[PIECE];
    size_t pos, len;
    bool eof;
} Reader;

/* The next piece of a line: up to its end ('\n' included, *eol) or as much
 * of it as the buffer holds.  0 at the end of the file. */
static size_t next_piece(Reader *r, const char **p, bool *eol)
{
    char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
    if (!nl && !r->eof && !(r->pos == 0 && r->len == sizeof r->buf)) {
        /* the line goes on past what was read: read on, keeping the
         * piece whole up to the buffer's size ("From " is never split) */
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
        size_t k = fread(r->buf + r->len, 1, sizeof r->buf - r->len, r->f); /* room for one byte at least */
        r->len += k;
        if (k == 0) r->eof = true;
        nl = memchr(r->buf, '\n', r->len);
    }
    size_t n = nl ? (size_t)(nl - (r->buf + r->pos)) + 1 : r->len - r->pos;
    *p = r->buf + r->pos;
    *eol = nl != NULL;
    r->pos += n;
    return n;
}

typedef struct Mail {
    MboxMail m;
    Buf kept;
    size_t keep;
    GChecksum *sum;
    char pending[2]; /* a blank line held back: the box's separator if a "From " line follows */
    size_t npending;
} Mail;

static void mail_add(Mail *a, const char *s, size_t n)
{
    if (a->kept.len < a->keep) buf_add(&a->kept, s, n < a->keep - a->kept.len ? n : a->keep - a->kept.len);
    g_checksum_update(a->sum, (const guchar *)s, (gssize)n);
    a->m.total += n;
}

static void mail_start(Mail *a, long index, long line)
{
    buf_reset(&a->kept);
    g_checksum_reset(a->sum);
    a->m = (MboxMail){.index = index, .line = line};
    a->npending = 0;
}

static bool mail_end(Mail *a, MboxFn fn, void *ud)
{
    a->m.head = buf_str(&a->kept);
    a->m.kept = a->kept.len;
    a->m.sha256 = g_checksum_get_string(a->sum);
    return fn(ud, &a->m);
}

static bool is_blank(const char *s, size_t n, bool eol)
{
    return eol && (n == 1 || (n == 2 && s[0] == '\r'));
}

/* ">From ", ">>From "...: a body line an mboxrd writer escaped. */
static bool escaped_from(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] == '>') i++;
    return i > 0 && n - i >= 5 && memcmp(s + i, "From ", 5) == 0;
}

bool mbox_each(FILE *f, size_t keep, MboxFn fn, void *ud, Buf *err)
{
    Reader *r = xcalloc(1, sizeof *r);
    r->f = f;
    Mail a = {.keep = keep, .sum = g_checksum_new(G_CHECKSUM_SHA256)};
    bool ok = true, open = false, go = true, bol = true, in_marker = false, blank_before = true;
    long line = 0, index = 0;
    const char *p;
    bool eol;
    size_t n;
    while (go && (n = next_piece(r, &p, &eol)) > 0) {
        if (bol) line++;
        if (bol && blank_before && n >= 5 && memcmp(p, "From ", 5) == 0) {
            if (open) go = mail_end(&a, fn, ud);
            mail_start(&a, ++index, line);
            open = in_marker = true;
        } else if (!open) {
            buf_printf(err, "line %ld does not begin with \"From \": not a mailbox (mbox)", line);
            ok = false;
            break;
        } else if (!in_marker) {
            if (a.npending) mail_add(&a, a.pending, a.npending);
            a.npending = 0;
            if (bol && is_blank(p, n, eol)) {
                memcpy(a.pending, p, n);
                a.npending = n;
            } else if (bol && escaped_from(p, n)) {
                mail_add(&a, p + 1, n - 1);
            } else {
                mail_add(&a, p, n);
            }
        }
        if (eol) {
            blank_before = bol && is_blank(p, n, eol);
            in_marker = false;
        }
        bol = eol;
    }
    if (ok && ferror(f)) {
        buf_printf(err, "reading it at line %ld: %s", line, strerror(errno));
        ok = false;
    }
    if (ok && go && open) mail_end(&a, fn, ud);
    buf_free(&a.kept);
    g_checksum_free(a.sum);
    free(r);
    return ok;
}
