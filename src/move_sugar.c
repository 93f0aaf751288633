/*
 * move_sugar.c - the sugar table: parsing it, and rewriting sugar lines of a
 * message body as moves in the object format (move_sugar.h).
 */
#include "move_sugar.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "objfmt.h"

typedef enum { W_LIT, W_WORD, W_CHOICE, W_REST } WordKind;

typedef struct PWord {
    WordKind kind;
    char *text;   /* the literal, or the name of what is taken */
    char **alts;  /* W_CHOICE */
    int nalts;
} PWord;

typedef struct Tmpl {
    char *name, *value;
} Tmpl;

typedef struct Entry {
    char *pattern; /* as written, for messages */
    PWord *w;
    int nw;
    Tmpl *t;
    int nt, tcap;
} Entry;

struct Sugar {
    Entry *e;
    int n, cap;
};

/* A word of a line: [start, end) in the line. */
typedef struct Span {
    int start, end;
} Span;

/* Words of a line, as many as it has: a line is taken whole. */
typedef struct Words {
    Span *w;
    int n, cap;
} Words;

#define MAX_PATTERN_WORDS 64 /* a pattern longer than this is refused when the table is read */
#define MAX_RESTS 3 /* <name...> per pattern: beyond that, where one ends is guesswork to the player */

static void split_words(const char *line, int len, Words *ws)
{
    ws->n = 0;
    for (int i = 0; i < len;) {
        while (i < len && isspace((unsigned char)line[i])) i++;
        if (i >= len) break;
        int s = i;
        while (i < len && !isspace((unsigned char)line[i])) i++;
        GROW(ws->w, ws->n, ws->cap);
        ws->w[ws->n++] = (Span){s, i};
    }
}

static bool is_name(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (size_t i = 1; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_') return false;
    return true;
}

static void free_entry(Entry *e)
{
    free(e->pattern);
    for (int i = 0; i < e->nw; i++) {
        free(e->w[i].text);
        for (int k = 0; k < e->w[i].nalts; k++) free(e->w[i].alts[k]);
        free(e->w[i].alts);
    }
    free(e->w);
    for (int i = 0; i < e->nt; i++) {
        free(e->t[i].name);
        free(e->t[i].value);
    }
    free(e->t);
}

void sugar_free(Sugar *s)
{
    if (!s) return;
    for (int i = 0; i < s->n; i++) free_entry(&s->e[i]);
    free(s->e);
    free(s);
}

static const PWord *find_var(const Entry *e, const char *name, size_t n)
{
    for (int i = 0; i < e->nw; i++)
        if (e->w[i].kind != W_LIT && strlen(e->w[i].text) == n && strncmp(e->w[i].text, name, n) == 0)
            return &e->w[i];
    return NULL;
}

/* One pattern word: a literal or <name>, <name:A|B>, <name...>. */
static const char *parse_word(const char *s, int n, PWord *w)
{
    memset(w, 0, sizeof *w);
    if (s[0] != '<') {
        w->kind = W_LIT;
        w->text = xstrndup(s, (size_t)n);
        return NULL;
    }
    if (n < 3 || s[n - 1] != '>') return "a word starting with < must end with >";
    s++, n -= 2;
    const char *colon = memchr(s, ':', (size_t)n);
    if (n > 3 && strncmp(s + n - 3, "...", 3) == 0) {
        w->kind = W_REST;
        n -= 3;
    } else if (colon) {
        w->kind = W_CHOICE;
        for (const char *a = colon + 1; a <= s + n;) {
            const char *bar = memchr(a, '|', (size_t)(s + n - a));
            const char *end = bar ? bar : s + n;
            if (end == a) return "an empty alternative in <name:A|B>";
            w->alts = xrealloc(w->alts, (size_t)(w->nalts + 1) * sizeof *w->alts);
            w->alts[w->nalts++] = xstrndup(a, (size_t)(end - a));
            a = end + 1;
        }
        n = (int)(colon - s);
    } else {
        w->kind = W_WORD;
    }
    if (!is_name(s, (size_t)n)) return "what a pattern takes is named <name>, <name:A|B> or <name...>";
    w->text = xstrndup(s, (size_t)n);
    return NULL;
}

static bool parse_pattern(Entry *e, const char *line, int len, const char *name, int lineno, Buf *err)
{
    Words ws = {0};
    split_words(line, len, &ws);
    const Span *w = ws.w;
    int n = ws.n;
    e->pattern = xstrndup(line, (size_t)len);
    if (n > MAX_PATTERN_WORDS) {
        buf_printf(err, "%s:%d:%d: a pattern has at most %d words; this one has %d", name, lineno,
                   w[MAX_PATTERN_WORDS].start + 1, MAX_PATTERN_WORDS, n);
        free(ws.w);
        return false;
    }
    e->w = xcalloc((size_t)n, sizeof *e->w);
    int rests = 0;
    for (int i = 0; i < n; i++) {
        const char *why = parse_word(line + w[i].start, w[i].end - w[i].start, &e->w[i]);
        e->nw = i + 1;
        if (!why && i == 0 && e->w[0].kind != W_LIT) why = "a pattern starts with a literal word (VOTE, REGISTER)";
        if (!why && e->w[i].kind != W_LIT && find_var(e, e->w[i].text, strlen(e->w[i].text)) != &e->w[i])
            why = "the same name is taken twice";
        if (!why && e->w[i].kind == W_REST && ++rests > MAX_RESTS)
            why = "at most 3 <name...> in a pattern";
        if (why) {
            buf_printf(err, "%s:%d:%d: %s", name, lineno, w[i].start + 1, why);
            free(ws.w);
            return false;
        }
    }
    free(ws.w);
    return true;
}

static bool parse_template(Entry *e, const char *line, int len, const char *name, int lineno, Buf *err)
{
    int i = 0;
    while (i < len && isspace((unsigned char)line[i])) i++;
    const char *colon = memchr(line + i, ':', (size_t)(len - i));
    if (!colon || !is_name(line + i, (size_t)(colon - line - i))) {
        buf_printf(err, "%s:%d:%d: expected an attribute line `name: template`", name, lineno, i + 1);
        return false;
    }
    const char *v = colon + 1, *end = line + len;
    while (v < end && isspace((unsigned char)*v)) v++;
    while (end > v && isspace((unsigned char)end[-1])) end--;
    for (const char *p = v; p < end; p++) {
        if (*p != '<') continue;
        const char *q = memchr(p, '>', (size_t)(end - p));
        if (q && is_name(p + 1, (size_t)(q - p - 1)) && !find_var(e, p + 1, (size_t)(q - p - 1))) {
            buf_printf(err, "%s:%d:%d: <%.*s> is not taken by the pattern `%s`", name, lineno, (int)(p - line) + 1,
                       (int)(q - p - 1), p + 1, e->pattern);
            return false;
        }
    }
    GROW(e->t, e->nt, e->tcap);
    e->t[e->nt++] = (Tmpl){xstrndup(line + i, (size_t)(colon - line - i)), xstrndup(v, (size_t)(end - v))};
    return true;
}

Sugar *sugar_parse(const char *text, const char *name, Buf *err)
{
    Sugar *s = xcalloc(1, sizeof *s);
    Entry *cur = NULL;
    int lineno = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        lineno++;
        int i = 0;
        while (i < len && isspace((unsigned char)p[i])) i++;
        bool ok = true;
        if (i == len || p[i] == '#') {
            if (i == len) cur = NULL; /* a blank line ends an entry */
        } else if (i == 0) {
            GROW(s->e, s->n, s->cap);
            cur = &s->e[s->n++];
            memset(cur, 0, sizeof *cur);
            ok = parse_pattern(cur, p, len, name, lineno, err);
        } else if (!cur) {
            buf_printf(err, "%s:%d:%d: an indented line belongs under a pattern", name, lineno, i + 1);
            ok = false;
        } else {
            ok = parse_template(cur, p, len, name, lineno, err);
        }
        if (!ok) {
            sugar_free(s);
            return NULL;
        }
        p = nl ? nl + 1 : p + len;
    }
    for (int k = 0; k < s->n; k++)
        if (s->e[k].nt == 0) {
            buf_printf(err, "%s: the pattern `%s` has no attribute lines", name, s->e[k].pattern);
            sugar_free(s);
            return NULL;
        }
    return s;
}

void sugar_describe(const Sugar *s, Buf *out)
{
    for (int i = 0; i < s->n; i++) buf_printf(out, "  %s\n", s->e[i].pattern);
}

/* ---- matching ---- */

typedef struct Take {
    int start, end;   /* in the line; or */
    const char *alt;  /* the alternative chosen */
} Take;

static bool word_is(const char *line, Span w, const char *lit)
{
    size_t n = (size_t)(w.end - w.start);
    return strlen(lit) == n && strncasecmp(line + w.start, lit, n) == 0;
}

/* The alternative of a <name:A|B> that word w is, or NULL. */
static const char *choice_of(const PWord *p, const char *line, Span w)
{
    for (int k = 0; k < p->nalts; k++)
        if (word_is(line, w, p->alts[k])) return p->alts[k];
    return NULL;
}

/* Can pattern word p stand for the single line word w? */
static bool word_fits(const PWord *p, const char *line, Span w)
{
    if (p->kind == W_LIT) return word_is(line, w, p->text);
    if (p->kind == W_CHOICE) return choice_of(p, line, w) != NULL;
    return true;
}

/* Matches the whole line against e, filling take[] (one per pattern word).
 * ok[pi][wi] says whether pattern words pi.. can take line words wi..; it
 * is filled from the end, so the time and memory are (pattern words) x
 * (line words) however the <name...> fall, and nothing recurses.  A
 * <name...> takes as few words as leave a match for the rest. */
static bool match_line(const Entry *e, const char *line, const Span *w, int nw, Take *take)
{
    size_t cols = (size_t)nw + 1;
    bool *ok = xcalloc((size_t)(e->nw + 1) * cols, sizeof *ok);
    ok[(size_t)e->nw * cols + (size_t)nw] = true;
    for (int pi = e->nw - 1; pi >= 0; pi--) {
        bool *row = ok + (size_t)pi * cols, *next = row + cols;
        const PWord *p = &e->w[pi];
        for (int wi = nw - 1; wi >= 0; wi--)
            row[wi] = p->kind == W_REST ? next[wi + 1] || row[wi + 1] : next[wi + 1] && word_fits(p, line, w[wi]);
    }
    bool found = ok[0];
    for (int pi = 0, wi = 0; found && pi < e->nw; pi++) {
        const PWord *p = &e->w[pi];
        const bool *next = ok + (size_t)(pi + 1) * cols;
        int end = wi + 1;
        if (p->kind == W_REST)
            while (!next[end]) end++; /* there is one: ok[pi][wi] holds */
        take[pi] = (Take){w[wi].start, w[end - 1].end, p->kind == W_CHOICE ? choice_of(p, line, w[wi]) : NULL};
        wi = end;
    }
    free(ok);
    return found;
}

static void fill(const Entry *e, const Take *take, const char *line, const char *tmpl, Buf *v)
{
    for (const char *p = tmpl; *p;) {
        const char *q = *p == '<' ? strchr(p, '>') : NULL;
        const PWord *var = q ? find_var(e, p + 1, (size_t)(q - p - 1)) : NULL;
        if (!var) {
            buf_putc(v, *p++);
            continue;
        }
        const Take *t = &take[var - e->w];
        if (t->alt) buf_puts(v, t->alt);
        else buf_add(v, line + t->start, (size_t)(t->end - t->start));
        p = q + 1;
    }
}

static void emit_move(const Entry *e, const Take *take, const char *line, Buf *out)
{
    Buf v = {0};
    for (int i = 0; i < e->nt; i++) {
        v.len = 0;
        fill(e, take, line, e->t[i].value, &v);
        if (!v.len) continue;
        buf_printf(out, "%s: ", e->t[i].name);
        fmt_print_value(out, sym_intern(v.s, v.len));
        buf_putc(out, '\n');
    }
    buf_free(&v);
    buf_puts(out, "---\n");
}

/* Does the line start with the first word of some pattern? */
static bool looks_like_sugar(const Sugar *s, const char *line, int len)
{
    int i = 0;
    while (i < len && isspace((unsigned char)line[i])) i++;
    int start = i;
    while (i < len && !isspace((unsigned char)line[i])) i++;
    for (int k = 0; i > start && k < s->n; k++)
        if (word_is(line, (Span){start, i}, s->e[k].w[0].text)) return true;
    return false;
}

static bool expand_line(const Sugar *s, const char *line, int len, int lineno, Buf *out, Buf *err)
{
    Words ws = {0};
    split_words(line, len, &ws);
    const Span *w = ws.w;
    int nw = ws.n;
    for (int i = 0; i < s->n; i++) {
        const Entry *e = &s->e[i];
        if (!nw || !word_is(line, w[0], e->w[0].text)) continue; /* a pattern starts with a literal */
        Take *take = xcalloc((size_t)e->nw, sizeof *take);
        bool matched = match_line(e, line, w, nw, take);
        if (matched) emit_move(e, take, line, out);
        free(take);
        if (matched) {
            free(ws.w);
            return true;
        }
    }
    /* the line is quoted up to 200 bytes (never inside a character): enough to recognise it */
    int shown = len;
    if (shown > 200)
        for (shown = 200; shown > 0 && ((unsigned char)line[shown] & 0xc0) == 0x80;) shown--;
    buf_printf(err, "line %d: `%.*s%s` is not a move; the forms are:\n", lineno, shown, line, shown < len ? "..." : "");
    for (int i = 0; i < s->n; i++)
        if (!nw || word_is(line, w[0], s->e[i].w[0].text)) buf_printf(err, "  %s\n", s->e[i].pattern);
    if (err->len && err->s[err->len - 1] == '\n') err->s[--err->len] = 0;
    free(ws.w);
    return false;
}

SugarLine sugar_read_line(const Sugar *s, const char *line, int len, int lineno, Buf *out, Buf *err)
{
    if (!s) return SUGAR_NONE;
    int i = 0;
    while (i < len && isspace((unsigned char)line[i])) i++;
    int start = i;
    while (i < len && !isspace((unsigned char)line[i])) i++;
    const char *lit = NULL;
    for (int k = 0; i > start && k < s->n && !lit; k++)
        if (word_is(line, (Span){start, i}, s->e[k].w[0].text)) lit = s->e[k].w[0].text;
    if (!lit) return SUGAR_NONE;
    Buf e = {0};
    if (expand_line(s, line, len, lineno, out, &e)) {
        buf_free(&e);
        return SUGAR_MOVE;
    }
    /* "Vote for me" is a sentence; "VOTE 44 yes", written as the table
     * writes its word, is a move gone wrong */
    bool as_table = strncmp(line + start, lit, (size_t)(i - start)) == 0;
    if (as_table) buf_add(err, e.s, e.len);
    buf_free(&e);
    return as_table ? SUGAR_ERROR : SUGAR_NONE;
}

static bool is_separator(const char *p, int len)
{
    int i = 0;
    while (i < len && isspace((unsigned char)p[i])) i++;
    if (i == len) return true;
    return len - i >= 3 && strncmp(p + i, "---", 3) == 0;
}

bool sugar_expand(const Sugar *s, const char *body, Buf *out, Buf *err)
{
    bool in_block = false, sugar_block = false, any_sugar = false;
    Buf res = {0};
    int lineno = 0;
    for (const char *p = body; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        lineno++;
        const char *next = nl ? nl + 1 : p + len;
        int i = 0;
        while (i < len && isspace((unsigned char)p[i])) i++;
        if (is_separator(p, len)) {
            in_block = false;
            if (!sugar_block) buf_add(&res, p, (size_t)(next - p));
            sugar_block = false;
        } else if (p[i] == '#') {
            if (!sugar_block) buf_add(&res, p, (size_t)(next - p));
        } else {
            if (!in_block) {
                sugar_block = s && looks_like_sugar(s, p, len);
                if (!sugar_block && res.len && res.s[res.len - 1] != '\n') buf_putc(&res, '\n');
                in_block = true;
            }
            if (sugar_block) {
                any_sugar = true;
                if (!expand_line(s, p, len, lineno, &res, err)) {
                    buf_free(&res);
                    return false;
                }
            } else {
                buf_add(&res, p, (size_t)(next - p));
            }
        }
        p = next;
    }
    if (any_sugar) buf_add(out, res.s, res.len);
    else buf_puts(out, body);
    buf_free(&res);
    return true;
}

/* ---- for move builders ---- */

int sugar_count(const Sugar *s) { return s ? s->n : 0; }

int sugar_attrs(const Sugar *s, int i, SugarAttr *out, int max)
{
    const Entry *e = &s->e[i];
    int n = 0;
    for (int k = 0; k < e->nt && n < max; k++) {
        const char *v = e->t[k].value;
        SugarAttr a = {e->t[k].name, NULL, NULL, 0};
        const char *q = v[0] == '<' ? strchr(v, '>') : NULL;
        const PWord *w = q && q[1] == 0 ? find_var(e, v + 1, (size_t)(q - v - 1)) : NULL;
        if (!strchr(v, '<')) a.literal = v;
        else if (w && w->kind == W_CHOICE) {
            a.alts = w->alts;
            a.nalts = w->nalts;
        }
        out[n++] = a;
    }
    return n;
}
