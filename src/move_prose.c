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

bool prose_read(const Sugar *s, const char *text, const int *lines, int nlines, ProseRead *r, Buf *err)
{
    memset(r, 0, sizeof *r);
    Block blk = {{0}, NULL, 0, 0, NULL, NULL};
    bool ok = true;
    int i = 0;
    for (const char *p = text; ok && *p && i < nlines; i++) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        const char *next = nl ? nl + 1 : p + n;
        int lineno = lines[i];
        bool lower = false;
        if (is_blank_or_separator(p, n)) {
            ok = block_close(&blk, r, err);
        } else {
            SugarLine k = sugar_read_line(s, p, n, lineno, &r->moves, err);
            if (k == SUGAR_ERROR) {
                ok = false;
            } else if (k == SUGAR_MOVE) {
                r->nmoves++;
                ok = block_close(&blk, r, err);
            } else if (blk.n && (isspace((unsigned char)*p) || *p == '#')) {
                block_add(&blk, p, n, lineno); /* a value's next line, a comment */
            } else if (is_attr_line(p, n, &lower) && lower) {
                block_add(&blk, p, n, lineno);
            } else {
                ok = block_close(&blk, r, err);
                buf_printf(&r->aside, "line %d: ", lineno);
                quote_line(&r->aside, p, n);
                buf_putc(&r->aside, '\n');
                r->naside++;
            }
        }
        p = next;
    }
    if (ok) ok = block_close(&blk, r, err);
    buf_free(&blk.text);
    free(blk.lines);
    free(blk.starts);
    free(blk.lens);
    return ok;
}
