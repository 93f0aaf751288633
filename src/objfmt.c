/*
 * objfmt.c - reader and printer of the object text format (objfmt.h).
 */
#include "objfmt.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ASCII letters, digits and _, as isalpha and isalnum in the C locale the
 * program keeps, without their table lookups (every line of every move
 * passes here) */
static bool is_ident_start(int c) { return ((unsigned)c | 32) - 'a' < 26 || c == '_'; }
static bool is_ident_char(int c) { return is_ident_start(c) || (unsigned)c - '0' < 10; }

/* Undoes the quoting of s[0..n) if it is exactly one quoted string. */
static bool unquote(const char *s, size_t n, Buf *out)
{
    if (n < 2 || s[0] != '"' || s[n - 1] != '"') return false;
    buf_reset(out);
    for (size_t i = 1; i < n - 1; i++) {
        char c = s[i];
        if (c == '"') return false;
        if (c == '\\') {
            if (++i >= n - 1) return false;
            switch (s[i]) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            default: return false;
            }
        }
        buf_putc(out, c);
    }
    return true;
}

typedef struct Reader {
    const char *fname;
    FmtDoc *doc;
    FmtObj *cur;     /* block being read, or NULL */
    int base_indent; /* indentation of the block's first line */
    Buf raw;         /* raw text of the attribute being read */
    int raw_line;    /* line of that attribute, 0 when none */
    Sym raw_name;
    SrcPos pos0;     /* the value's first line's position */
    SrcPos *pos;     /* a value of several lines: every line's, else NULL */
    int npos, poscap;
    long last_id;
    Buf *err;
} Reader;

static bool fail(Reader *r, int line, int col, const char *fmt, const char *arg)
{
    buf_printf(r->err, "%s:%d:%d: ", r->fname, line, col);
    buf_printf(r->err, fmt, arg);
    return false;
}

static bool finish_attr(Reader *r)
{
    if (!r->raw_line) return true;
    FmtObj *o = r->cur;
    const char *s = buf_str(&r->raw);
    size_t n = r->raw.len;
    Buf q = {0};
    bool quoted = unquote(s, n, &q);
    Sym v = quoted ? sym_intern(buf_str(&q), q.len) : sym_intern(s, n);
    buf_free(&q);
    if (r->raw_name == SYM_objectId) {
        long id;
        if (!sym_to_long(v, &id) || id <= 0 || id >= (long)IDSET_DEAD)
            return fail(r, r->raw_line, r->pos0.col, "objectId must be a positive integer, not \"%s\"", sym_text(v));
        if (id <= r->last_id)
            return fail(r, r->raw_line, r->pos0.col, "objectId %s is not above the previous object's", sym_text(v));
        o->objectId = r->last_id = id;
    } else {
        GROW(o->attrs, o->n, o->cap);
        FmtAttr *a = &o->attrs[o->n++];
        a->name = r->raw_name;
        a->value = v;
        a->quoted = quoted;
        a->npos = r->npos;
        a->pos0 = r->pos0;
        a->more = r->pos;
        r->pos = NULL;
        r->poscap = 0;
    }
    free(r->pos);
    r->pos = NULL;
    r->npos = r->poscap = 0;
    r->raw_line = 0;
    buf_reset(&r->raw);
    return true;
}

static bool end_block(Reader *r)
{
    if (!finish_attr(r)) return false;
    r->cur = NULL;
    return true;
}

/* The position of a value's next line: most values have one line, and
 * take no array (a move's three attributes, three mallocs, at every
 * move). */
static void add_pos(Reader *r, int line, int col)
{
    SrcPos at = {line, col};
    if (r->npos == 0) {
        r->pos0 = at;
        r->npos = 1;
        return;
    }
    if (r->npos == 1) {
        GROW(r->pos, r->npos - 1, r->poscap);
        r->pos[0] = r->pos0;
    }
    GROW(r->pos, r->npos, r->poscap);
    r->pos[r->npos++] = at;
}

static bool read_line(Reader *r, const char *s, size_t n, int lineno)
{
    size_t ind = 0;
    while (ind < n && (s[ind] == ' ' || s[ind] == '\t')) ind++;
    size_t end = n;
    while (end > ind && isspace((unsigned char)s[end - 1])) end--;
    if (ind == end) return end_block(r);               /* blank line */
    if (s[ind] == '#') return true;                    /* comment */
    if (end - ind == 3 && memcmp(s + ind, "---", 3) == 0) return end_block(r);
    if (r->cur && (int)ind > r->base_indent) {          /* continuation */
        if (!r->raw_line) return fail(r, lineno, (int)ind + 1, "%s", "continuation line without a value to continue");
        buf_putc(&r->raw, '\n');
        buf_add(&r->raw, s + ind, end - ind);
        add_pos(r, lineno, (int)ind + 1);
        return true;
    }
    size_t i = ind;
    if (!is_ident_start((unsigned char)s[i])) {
        char near[24];
        snprintf(near, sizeof near, "%.*s", (int)(end - i < 20 ? end - i : 20), s + i);
        return fail(r, lineno, (int)i + 1, "expected an attribute name, found \"%s\"", near);
    }
    while (i < end && is_ident_char((unsigned char)s[i])) i++;
    size_t name_end = i;
    if (i >= end || s[i] != ':') {
        if (i < end && s[i] == '=')
            return fail(r, lineno, (int)i + 1, "%s", "expected ':' after the attribute name (the format is name: value)");
        return fail(r, lineno, (int)i + 1, "%s", "expected ':' after the attribute name");
    }
    i++;
    while (i < end && (s[i] == ' ' || s[i] == '\t')) i++;
    if (!finish_attr(r)) return false;
    if (!r->cur) {
        GROW(r->doc->objs, r->doc->n, r->doc->cap);
        r->cur = &r->doc->objs[r->doc->n++];
        memset(r->cur, 0, sizeof *r->cur);
        r->cur->line = lineno;
        r->base_indent = (int)ind;
    }
    Sym name = sym_intern(s + ind, name_end - ind);
    if (fmt_attr(r->cur, name) || (name == SYM_objectId && r->cur->objectId))
        return fail(r, lineno, (int)ind + 1, "attribute \"%s\" given twice in one object", sym_text(name));
    r->raw_name = name;
    r->raw_line = lineno;
    buf_add(&r->raw, s + i, end - i);
    add_pos(r, lineno, (int)i + 1);
    return true;
}

bool fmt_read(const char *text, size_t len, const char *fname, FmtDoc *doc, Buf *err)
{
    Reader r = {.fname = fname ? fname : "<input>", .doc = doc, .err = err};
    int lineno = 0;
    bool ok = true;
    size_t i = 0;
    while (ok && i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t j = nl ? (size_t)(nl - text) : len;
        lineno++;
        if (memchr(text + i, 0, j - i)) ok = fail(&r, lineno, 1, "%s", "NUL byte in the text");
        else ok = read_line(&r, text + i, j - i, lineno);
        i = j + 1;
    }
    if (ok) ok = end_block(&r);
    buf_free(&r.raw);
    free(r.pos);
    /* drop a block left empty by an objectId-only error */
    return ok;
}

void fmt_doc_free(FmtDoc *doc)
{
    for (int i = 0; i < doc->n; i++) {
        for (int j = 0; j < doc->objs[i].n; j++) free(doc->objs[i].attrs[j].more);
        free(doc->objs[i].attrs);
    }
    free(doc->objs);
    doc->objs = NULL;
    doc->n = doc->cap = 0;
}

const FmtAttr *fmt_attr(const FmtObj *o, Sym name)
{
    for (int i = 0; i < o->n; i++)
        if (o->attrs[i].name == name) return &o->attrs[i];
    return NULL;
}

SrcPos fmt_map(const FmtAttr *a, int vline, int vcol)
{
    if (a->npos == 0) return (SrcPos){0, 0};
    if (a->quoted || vline < 1 || vline > a->npos) return a->pos0;
    SrcPos p = vline == 1 ? a->pos0 : a->more[vline - 1];
    p.col += vcol - 1;
    return p;
}

/* ---- printing ---- */

/* Whether any byte is a control character, line ends included, eight
 * bytes a step (a byte under 0x20, or 0x7f): long texts (the players'
 * list, rewritten at each registration) are mostly plain. */
static bool has_control(const char *s, size_t n)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, del;
        memcpy(&x, s + i, 8);
        del = x ^ (0x7f * ones);
        if ((((x - 0x20 * ones) & ~x) | ((del - ones) & ~del)) & highs) return true;
    }
    for (; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return true;
    return false;
}

static bool needs_quotes(Sym v)
{
    const char *s = sym_text(v);
    size_t n = sym_len(v);
    if (n == 0) return true;
    if (s[0] == '"' || isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1])) return true;
    if (!has_control(s, n)) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            /* a continuation line must be non-blank, trimmed, not a comment,
             * not "---" */
            size_t j = i + 1, k = j;
            while (k < n && s[k] != '\n') k++;
            if (k == j || isspace((unsigned char)s[j]) || isspace((unsigned char)s[k - 1]) || s[j] == '#') return true;
            if (k - j == 3 && memcmp(s + j, "---", 3) == 0) return true;
            if (isspace((unsigned char)s[i - 1])) return true;
        } else if (c < 0x20 || c == 0x7f) {
            return true;
        }
    }
    return false;
}

/* Values are copied a run of plain bytes at a time: the store prints every
 * object an event changed, and a byte at a time cost most of it. */
void fmt_print_value(Buf *b, Sym v)
{
    const char *s = sym_text(v);
    size_t n = sym_len(v), run = 0;
    if (!needs_quotes(v)) {
        for (const char *nl; (nl = memchr(s + run, '\n', n - run)) != NULL; run = (size_t)(nl - s) + 1) {
            buf_add(b, s + run, (size_t)(nl - s) - run);
            buf_puts(b, "\n    ");
        }
        buf_add(b, s + run, n - run);
        return;
    }
    buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t" : NULL;
        if (!esc) continue;
        buf_add(b, s + run, i - run);
        buf_add(b, esc, 2);
        run = i + 1;
    }
    buf_add(b, s + run, n - run);
    buf_putc(b, '"');
}

static int rank(Sym name)
{
    switch (name) {
    case SYM_type: return 0;
    case SYM_ruleOrder: return 1;
    case SYM_if: return 2;
    case SYM_then: return 3;
    default: return 4;
    }
}

static int cmp_attr_of(const Obj *o, uint32_t x, uint32_t y)
{
    Sym a = obj_name(o, x), b = obj_name(o, y);
    int ra = rank(a), rb = rank(b);
    if (ra != rb) return ra - rb;
    return strcmp(sym_text(a), sym_text(b));
}

/* qsort's comparison finds the object here: one per thread, as the
 * server's threads print objects at the same time */
static _Thread_local const Obj *sorting;

static int cmp_attr(const void *x, const void *y)
{
    return cmp_attr_of(sorting, *(const uint32_t *)x, *(const uint32_t *)y);
}

/* Most objects have a dozen attributes or fewer: they are sorted in place,
 * without qsort's calls. */
static void order_into(const Obj *o, uint32_t *ix)
{
    uint32_t n = obj_n(o);
    for (uint32_t i = 0; i < n; i++) ix[i] = i;
    if (n > 16) {
        sorting = o;
        qsort(ix, n, sizeof *ix, cmp_attr);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = ix[i], j = i;
        for (; j > 0 && cmp_attr_of(o, ix[j - 1], x) > 0; j--) ix[j] = ix[j - 1];
        ix[j] = x;
    }
}

uint32_t *fmt_order(const Obj *o)
{
    uint32_t *ix = xmalloc((obj_n(o) ? obj_n(o) : 1) * sizeof *ix);
    order_into(o, ix);
    return ix;
}

/* The store prints every object an event changed: the order of a small
 * one is kept on the stack, and names are copied by their known length. */
void fmt_print_obj(Buf *b, const Obj *o, FmtHide hide, void *ud)
{
    buf_puts(b, "objectId: ");
    buf_put_int(b, o->id);
    buf_putc(b, '\n');
    uint32_t n = obj_n(o), small[32], *ix = n <= 32 ? small : xmalloc(n * sizeof *ix);
    order_into(o, ix);
    for (uint32_t k = 0; k < n; k++) {
        Sym name = obj_name(o, ix[k]);
        if (hide && hide(o, name, ud)) continue;
        buf_add(b, sym_text(name), sym_len(name));
        buf_add(b, ": ", 2);
        fmt_print_value(b, obj_value(o, ix[k]));
        buf_putc(b, '\n');
    }
    if (ix != small) free(ix);
}

void json_string(Buf *b, const char *s, size_t n)
{
    buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': buf_puts(b, "\\\""); break;
        case '\\': buf_puts(b, "\\\\"); break;
        case '\n': buf_puts(b, "\\n"); break;
        case '\r': buf_puts(b, "\\r"); break;
        case '\t': buf_puts(b, "\\t"); break;
        default:
            if (c < 0x20) buf_printf(b, "\\u%04x", c);
            else if (c < 0x80) buf_putc(b, (char)c);
            else {
                /* JSON is UTF-8: a byte that is not becomes U+FFFD */
                int k = utf8_seq(s + i, n - i);
                if (k) buf_add(b, s + i, (size_t)k), i += (size_t)k - 1;
                else buf_puts(b, "\xEF\xBF\xBD");
            }
        }
    }
    buf_putc(b, '"');
}

void fmt_json_obj(Buf *b, const Obj *o, FmtHide hide, void *ud)
{
    buf_printf(b, "{\"objectId\":\"%u\"", o->id);
    uint32_t *ix = fmt_order(o);
    for (uint32_t k = 0; k < obj_n(o); k++) {
        Sym name = obj_name(o, ix[k]), value = obj_value(o, ix[k]);
        if (hide && hide(o, name, ud)) continue;
        buf_putc(b, ',');
        json_string(b, sym_text(name), sym_len(name));
        buf_putc(b, ':');
        json_string(b, sym_text(value), sym_len(value));
    }
    free(ix);
    buf_putc(b, '}');
}
