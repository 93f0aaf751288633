/*
 * move_prose.c - telling moves from prose in a mail's lines (move_prose.h).
 */
#include "move_prose.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objfmt.h"

#define MAX_QUOTED 200 /* bytes of a line quoted in a message: enough to recognise it */

void prose_free(ProseRead *r)
{
    buf_free(&r->moves);
    buf_free(&r->aside);
    memset(r, 0, sizeof *r);
}

/* Appends the line, at most MAX_QUOTED bytes of it (never cut inside a
 * UTF-8 character). */
static void quote_line(Buf *b, const char *s, int n)
{
    int shown = n;
    if (shown > MAX_QUOTED)
        for (shown = MAX_QUOTED; shown > 0 && ((unsigned char)s[shown] & 0xc0) == 0x80;) shown--;
    buf_printf(b, "%.*s%s", shown, s, shown < n ? "..." : "");
}

/* `name:` then a blank or the end; *lower: the name starts in lower case. */
static bool is_attr_line(const char *s, int n, bool *lower)
{
    int i = 0;
    if (i >= n || !(isalpha((unsigned char)s[i]) || s[i] == '_')) return false;
    *lower = islower((unsigned char)s[i]) != 0;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_')) i++;
    return i < n && s[i] == ':' && (i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\t');
}

/* The moves in the object format from s on: each ends with a line ---. */
static int count_moves(const char *s)
{
    int n = 0;
    for (const char *p = s; p && (p = strstr(p, "---\n"));) {
        if (p == s || p[-1] == '\n') n++;
        p += 4;
    }
    return n;
}

static bool is_blank_or_separator(const char *s, int n)
{
    int i = 0;
    while (i < n && isspace((unsigned char)s[i])) i++;
    return i == n || (n - i >= 3 && strncmp(s + i, "---", 3) == 0 && strspn(s + i, "-") >= (size_t)(n - i));
}

/* An object block being read: its text and the mail line of each of its lines. */
typedef struct Block {
    Buf text;
    int *lines;
    int n, cap;
    const char **starts; /* each line as in the mail, for messages */
    int *lens;
} Block;

static void block_add(Block *b, const char *s, int n, int lineno)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 8;
        b->lines = xrealloc(b->lines, (size_t)b->cap * sizeof *b->lines);
        b->starts = xrealloc(b->starts, (size_t)b->cap * sizeof *b->starts);
        b->lens = xrealloc(b->lens, (size_t)b->cap * sizeof *b->lens);
    }
    b->lines[b->n] = lineno;
    b->starts[b->n] = s;
    b->lens[b->n] = n;
    b->n++;
    buf_add(&b->text, s, (size_t)n);
    buf_putc(&b->text, '\n');
}

/* Parses the block as the object format and appends its move; false with
 * a message that names the mail's line. */
static bool block_close(Block *b, ProseRead *r, Buf *err)
{
    if (!b->n) return true;
    FmtDoc doc = {0};
    Buf e = {0};
    bool ok = fmt_read(buf_str(&b->text), b->text.len, "b", &doc, &e);
    if (ok) {
        buf_add(&r->moves, b->text.s, b->text.len);
        buf_puts(&r->moves, "---\n");
        r->nmoves += doc.n;
    } else {
        int line = 0, col = 0, off = 0;
        /* fmt_read says "b:LINE:COL: why": the line is the block's */
        if (sscanf(buf_str(&e), "b:%d:%d: %n", &line, &col, &off) >= 2 && off && line >= 1 && line <= b->n) {
            buf_printf(err, "line %d: `", b->lines[line - 1]);
            quote_line(err, b->starts[line - 1], b->lens[line - 1]);
            buf_printf(err, "` (column %d): %s (a move in the object format is `name: value` lines)", col,
                       buf_str(&e) + off);
        } else {
            buf_printf(err, "line %d: the move starting here does not read: %s", b->lines[0], buf_str(&e));
        }
    }
    fmt_doc_free(&doc);
    buf_free(&e);
    buf_free(&b->text);
    b->n = 0;
    return ok;
}

static void set_aside(ProseRead *r, const char *p, int n, int lineno, const char *why)
{
    buf_printf(&r->aside, "line %d: ", lineno);
    quote_line(&r->aside, p, n);
    if (why) buf_printf(&r->aside, "\t%s", why), r->nreasons++;
    buf_putc(&r->aside, '\n');
    r->naside++;
}

/* One line the reader kept, outside any block: a command, phrases, an
 * object block's line, or prose. */
static bool read_line(const Sugar *s, Reading *rd, Block *blk, const char *p, int n, int lineno, ProseRead *r, Buf *err)
{
    bool lower = false;
    const char *why = NULL;
    if (is_blank_or_separator(p, n)) {
        if (rd) reading_line(rd, p, n, &r->moves, &why); /* ends an "as follows:" */
        return block_close(blk, r, err);
    }
    SugarLine k = sugar_read_line(s, p, n, lineno, &r->moves, err);
    if (k == SUGAR_ERROR) return false;
    if (k == SUGAR_MOVE) {
        r->nmoves++;
        return block_close(blk, r, err);
    }
    if (blk->n && (isspace((unsigned char)*p) || *p == '#')) {
        block_add(blk, p, n, lineno); /* a value's next line, a comment */
        return true;
    }
    if (is_attr_line(p, n, &lower) && lower) {
        block_add(blk, p, n, lineno);
        return true;
    }
    if (!block_close(blk, r, err)) return false;
    size_t before = r->moves.len;
    ReadLine got = rd ? reading_line(rd, p, n, &r->moves, &why) : READ_NONE;
    if (got == READ_MOVES) r->nmoves += count_moves(r->moves.s + before);
    else if (got != READ_TAKEN) set_aside(r, p, n, lineno, why);
    return true;
}

bool prose_read(const Sugar *s, const MailText *m, ProseRead *r, Buf *err)
{
    memset(r, 0, sizeof *r);
    Block blk = {{0}, NULL, 0, 0, NULL, NULL};
    Reading *rd = sugar_has_phrases(s) ? reading_new(s) : NULL;
    bool ok = true;
    int i = 0, q = 0;
    const char *qp = m->quotes;
    for (const char *p = m->text; ok && *p && i < m->nlines; i++) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        const char *next = nl ? nl + 1 : p + n;
        int lineno = m->lines[i];
        /* the quoted lines above this one give its context */
        for (; rd && qp && *qp && q < m->nquotes && m->qlines[q] < lineno; q++) {
            const char *qnl = strchr(qp, '\n');
            int qn = qnl ? (int)(qnl - qp) : (int)strlen(qp);
            reading_quoted(rd, qp, qn);
            qp = qnl ? qnl + 1 : qp + qn;
        }
        if (reading_in_block(rd)) {
            const char *why;
            size_t before = r->moves.len;
            if (reading_line(rd, p, n, &r->moves, &why) == READ_MOVES) r->nmoves += count_moves(r->moves.s + before);
        } else {
            ok = read_line(s, rd, &blk, p, n, lineno, r, err);
        }
        p = next;
    }
    if (ok) ok = block_close(&blk, r, err);
    if (ok && rd) {
        size_t before = r->moves.len;
        if (reading_end(rd, &r->moves)) r->nmoves += count_moves(r->moves.s + before);
    }
    /* "BUS: I deregister" with no move in the body (nor an act it does not support) */
    if (ok && !r->nmoves && !r->nreasons && rd && sugar_reads_subject(s) && m->subject && *m->subject) {
        const char *why;
        size_t before = r->moves.len;
        if (reading_line(rd, m->subject, (int)strlen(m->subject), &r->moves, &why) == READ_MOVES)
            r->nmoves += count_moves(r->moves.s + before);
        reading_end(rd, &r->moves);
    }
    reading_free(rd);
    buf_free(&blk.text);
    free(blk.lines);
    free(blk.starts);
    free(blk.lens);
    return ok;
}
