/*
 * move_sugar.c - the sugar table: parsing it, and rewriting sugar lines of a
 * message body as moves in the object format (move_sugar.h).
 */
#include "move_sugar.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "move_sugar_int.h"
#include "objfmt.h"

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

static void free_phrases(Phrase **p, int n)
{
    for (int i = 0; i < n; i++) phrase_free(p[i]);
    free(p);
}

static void free_entry(Entry *e)
{
    free(e->pattern);
    phrase_free(e->ph);
    phrase_free(e->more);
    phrase_free(e->lines);
    free_phrases(e->until, e->nuntil);
    free_phrases(e->head, e->nhead);
    free(e->block);
    free(e->name);
    free(e->inside);
    free(e->aside);
    for (int i = 0; i < e->nmoves; i++) free(e->cond[i]);
    free(e->cond);
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

static bool names_has(const Phrase *p, const char *name, size_t n)
{
    const char *names[PHRASE_MAX_CAPTURES];
    int k = p ? phrase_names(p, names, PHRASE_MAX_CAPTURES) : 0;
    for (int i = 0; i < k; i++)
        if (strlen(names[i]) == n && strncmp(names[i], name, n) == 0) return true;
    return false;
}

/* Does a phrase entry take this name (its pattern, +more, +lines, +head, +block)? */
bool phrase_takes(const Entry *e, const char *name, size_t n)
{
    if (names_has(e->ph, name, n) || names_has(e->more, name, n) || names_has(e->lines, name, n)) return true;
    for (int i = 0; i < e->nhead; i++)
        if (names_has(e->head[i], name, n)) return true;
    return e->block && strlen(e->block) == n && strncmp(e->block, name, n) == 0;
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

/* A pattern of a phrase entry (phrase:, line:, quoted:, or an option's). */
static Phrase *compile_at(const char *src, int len, int offset, const char *name, int lineno, Buf *err)
{
    Buf e = {0};
    Phrase *ph = phrase_compile(src, len, &e);
    int col = 0, off = 0;
    if (!ph && sscanf(buf_str(&e), "column %d: %n", &col, &off) >= 1 && off)
        buf_printf(err, "%s:%d:%d: %s", name, lineno, offset + col, buf_str(&e) + off);
    else if (!ph)
        buf_printf(err, "%s:%d: %s", name, lineno, buf_str(&e));
    buf_free(&e);
    return ph;
}

static const char *const kind_words[] = {"phrase:", "line:", "quoted:"};

/* The entry's first line: a command's pattern, or `phrase: ...`, `line: ...`, `quoted: ...`. */
static bool parse_head(Sugar *s, Entry *e, const char *line, int len, const char *name, int lineno, Buf *err)
{
    for (int k = 0; k < 3; k++) {
        int n = (int)strlen(kind_words[k]);
        if (len < n || strncmp(line, kind_words[k], (size_t)n) != 0) continue;
        e->kind = (EntryKind)(k + 1);
        e->pattern = xstrndup(line, (size_t)len);
        e->ph = compile_at(line + n, len - n, n, name, lineno, err);
        s->phrases = true;
        if (e->ph && e->kind == E_PHRASE && !phrase_may_start_any(e->ph)) {
            buf_printf(err, "%s:%d:%d: a phrase starts with a word written out (I, VOTE), not with what it takes", name,
                       lineno, n + 1);
            return false;
        }
        return e->ph != NULL;
    }
    return parse_pattern(e, line, len, name, lineno, err);
}

static void add_phrase(Phrase ***arr, int *n, Phrase *p)
{
    *arr = xrealloc(*arr, (size_t)(*n + 1) * sizeof **arr);
    (*arr)[(*n)++] = p;
}

/* An option line of a phrase entry: `+name: value`. */
static bool parse_option(Entry *e, const char *line, int len, int i, const char *name, int lineno, Buf *err)
{
    const char *colon = memchr(line + i, ':', (size_t)(len - i));
    int on = colon ? (int)(colon - line - i - 1) : len - i - 1;
    const char *opt = line + i + 1, *v = colon ? colon + 1 : line + len, *end = line + len;
    while (v < end && isspace((unsigned char)*v)) v++;
    while (end > v && isspace((unsigned char)end[-1])) end--;
    int vn = (int)(end - v), col = (int)(v - line);
#define IS(w) (on == (int)strlen(w) && strncmp(opt, w, (size_t)on) == 0)
    if (e->kind == E_COMMAND || e->kind == E_QUOTED) {
        buf_printf(err, "%s:%d:%d: options belong to phrase: and line: entries", name, lineno, i + 1);
        return false;
    }
    if (!colon || !vn) {
        buf_printf(err, "%s:%d:%d: an option is `+name: value`", name, lineno, i + 1);
        return false;
    }
    Phrase *ph = NULL;
    if (IS("more") || IS("lines") || IS("until") || IS("head")) {
        if (!(ph = compile_at(v, vn, col, name, lineno, err))) return false;
        if (IS("more") && !e->more) e->more = ph;
        else if (IS("lines") && !e->lines) e->lines = ph;
        else if (IS("until")) add_phrase(&e->until, &e->nuntil, ph);
        else if (IS("head")) add_phrase(&e->head, &e->nhead, ph);
        else {
            phrase_free(ph);
            buf_printf(err, "%s:%d:%d: +%.*s is given twice", name, lineno, i + 1, on, opt);
            return false;
        }
        return true;
    }
    char **slot = IS("block") ? &e->block : IS("name") ? &e->name : IS("inside") ? &e->inside : IS("aside") ? &e->aside : NULL;
    if (IS("if")) {
        if (e->nmoves == 0) e->nmoves = 1;
        slot = &e->cond[e->nmoves - 1];
    }
    if (!slot) {
        buf_printf(err, "%s:%d:%d: no option +%.*s (+more, +lines, +block, +until, +head, +name, +inside, +aside, +if)",
                   name, lineno, i + 1, on, opt);
        return false;
    }
    if (*slot) {
        buf_printf(err, "%s:%d:%d: +%.*s is given twice", name, lineno, i + 1, on, opt);
        return false;
    }
    *slot = xstrndup(v, (size_t)vn);
#undef IS
    return true;
}

static void new_move(Entry *e)
{
    e->cond = xrealloc(e->cond, (size_t)(e->nmoves + 1) * sizeof *e->cond);
    e->cond[e->nmoves++] = NULL;
}

static bool parse_template(Entry *e, const char *line, int len, const char *name, int lineno, Buf *err)
{
    int i = 0;
    while (i < len && isspace((unsigned char)line[i])) i++;
    if (!e->nmoves) new_move(e);
    if (line[i] == '+') return parse_option(e, line, len, i, name, lineno, err);
    if (len - i >= 3 && strspn(line + i, "-") >= (size_t)(len - i)) { /* --- : the entry's next move */
        if (e->kind == E_COMMAND) {
            buf_printf(err, "%s:%d:%d: a command makes one move", name, lineno, i + 1);
            return false;
        }
        new_move(e);
        return true;
    }
    const char *colon = memchr(line + i, ':', (size_t)(len - i));
    if (!colon || !is_name(line + i, (size_t)(colon - line - i))) {
        buf_printf(err, "%s:%d:%d: expected an attribute line `name: template`", name, lineno, i + 1);
        return false;
    }
    const char *v = colon + 1, *end = line + len;
    while (v < end && isspace((unsigned char)*v)) v++;
    while (end > v && isspace((unsigned char)end[-1])) end--;
    for (const char *p = v; e->kind == E_COMMAND && p < end; p++) { /* a phrase's are checked with the whole table */
        if (*p != '<') continue;
        const char *q = memchr(p, '>', (size_t)(end - p));
        if (q && is_name(p + 1, (size_t)(q - p - 1)) && !find_var(e, p + 1, (size_t)(q - p - 1))) {
            buf_printf(err, "%s:%d:%d: <%.*s> is not taken by the pattern `%s`", name, lineno, (int)(p - line) + 1,
                       (int)(q - p - 1), p + 1, e->pattern);
            return false;
        }
    }
    GROW(e->t, e->nt, e->tcap);
    e->t[e->nt++] = (Tmpl){xstrndup(line + i, (size_t)(colon - line - i)), xstrndup(v, (size_t)(end - v)), e->nmoves - 1};
    return true;
}

/* Is the name taken by some quoted: entry (the context a reply's line reads)? */
static bool context_takes(const Sugar *s, const char *name, size_t n)
{
    for (int k = 0; k < s->n; k++)
        if (s->e[k].kind == E_QUOTED && names_has(s->e[k].ph, name, n)) return true;
    return false;
}

/* A phrase entry, once the table is read: what its templates name is
 * taken by it or by a quoted: entry; it makes a move or sets lines aside. */
static bool check_phrase_entry(const Sugar *s, const Entry *e, const char *name, Buf *err)
{
    if (e->kind == E_QUOTED) {
        if (e->nt) buf_printf(err, "%s: `%s`: a quoted: entry gives context, not moves", name, e->pattern);
        return e->nt == 0;
    }
    if (!e->nt && !e->aside) {
        buf_printf(err, "%s: the pattern `%s` has no attribute lines (nor +aside)", name, e->pattern);
        return false;
    }
    if ((e->nuntil || e->nhead) && !e->block) {
        buf_printf(err, "%s: `%s`: +until and +head belong with +block", name, e->pattern);
        return false;
    }
    for (int i = 0; i < e->nt; i++)
        for (const char *p = e->t[i].value; *p; p++) {
            const char *q = *p == '<' ? strchr(p, '>') : NULL;
            if (!q || !is_name(p + 1, (size_t)(q - p - 1))) continue;
            size_t n = (size_t)(q - p - 1);
            if (!phrase_takes(e, p + 1, n) && !context_takes(s, p + 1, n)) {
                buf_printf(err, "%s: `%s`: <%.*s> is taken neither by the entry nor by a quoted: entry", name, e->pattern,
                           (int)n, p + 1);
                return false;
            }
        }
    for (int i = 0; i < e->nmoves; i++)
        if (e->cond[i] && !phrase_takes(e, e->cond[i], strlen(e->cond[i])) && !context_takes(s, e->cond[i], strlen(e->cond[i]))) {
            buf_printf(err, "%s: `%s`: +if %s names nothing the entry takes", name, e->pattern, e->cond[i]);
            return false;
        }
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
        } else if (i == 0 && len >= 8 && strncmp(p, "+subject", 8) == 0 && (len == 8 || isspace((unsigned char)p[8]))) {
            s->subject = true;
        } else if (i == 0) {
            GROW(s->e, s->n, s->cap);
            cur = &s->e[s->n++];
            memset(cur, 0, sizeof *cur);
            ok = parse_head(s, cur, p, len, name, lineno, err);
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
    for (int k = 0; k < s->n; k++) {
        const Entry *e = &s->e[k];
        bool ok = e->kind == E_COMMAND ? e->nt > 0 : check_phrase_entry(s, e, name, err);
        if (!ok && e->kind == E_COMMAND) buf_printf(err, "%s: the pattern `%s` has no attribute lines", name, e->pattern);
        if (!ok) {
            sugar_free(s);
            return NULL;
        }
    }
    return s;
}

void sugar_describe(const Sugar *s, Buf *out)
{
    for (int i = 0; i < s->n; i++)
        if (s->e[i].kind != E_QUOTED && !s->e[i].aside && !s->e[i].inside) buf_printf(out, "  %s\n", s->e[i].pattern);
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

void sugar_emit_move(const Entry *e, int move, ValueFn value, void *ud, Buf *out)
{
    if (e->cond[move] && !value(ud, e->cond[move], strlen(e->cond[move]))) return;
    Buf v = {0};
    bool any = false;
    for (int i = 0; i < e->nt; i++) {
        if (e->t[i].move != move) continue;
        v.len = 0;
        for (const char *p = e->t[i].value; *p;) {
            const char *q = *p == '<' ? strchr(p, '>') : NULL;
            if (!q || !is_name(p + 1, (size_t)(q - p - 1))) {
                buf_putc(&v, *p++);
                continue;
            }
            const char *got = value(ud, p + 1, (size_t)(q - p - 1));
            if (got) buf_puts(&v, got);
            p = q + 1;
        }
        if (!v.len) continue;
        buf_printf(out, "%s: ", e->t[i].name);
        fmt_print_value(out, sym_intern(v.s, v.len));
        buf_putc(out, '\n');
        any = true;
    }
    buf_free(&v);
    if (any) buf_puts(out, "---\n");
}

/* Does the line start with the first word of some pattern? */
static bool looks_like_sugar(const Sugar *s, const char *line, int len)
{
    int i = 0;
    while (i < len && isspace((unsigned char)line[i])) i++;
    int start = i;
    while (i < len && !isspace((unsigned char)line[i])) i++;
    for (int k = 0; i > start && k < s->n; k++)
        if (s->e[k].kind == E_COMMAND && word_is(line, (Span){start, i}, s->e[k].w[0].text)) return true;
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
        if (e->kind != E_COMMAND || !nw || !word_is(line, w[0], e->w[0].text)) continue; /* a pattern starts with a literal */
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
        if (s->e[i].kind == E_COMMAND && (!nw || word_is(line, w[0], s->e[i].w[0].text)))
            buf_printf(err, "  %s\n", s->e[i].pattern);
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
        if (s->e[k].kind == E_COMMAND && word_is(line, (Span){start, i}, s->e[k].w[0].text)) lit = s->e[k].w[0].text;
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
    if (e->kind != E_COMMAND) return 0; /* a phrase's moves are also a command's, in the shipped tables */
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
