/*
 * move_phrase.c - phrases of a sugar table: the tokens of a line, a pattern
 * compiled to a small program, and its matching (move_phrase.h).
 */
#include "move_phrase.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_INSTRUCTIONS 512 /* a pattern's program: a longer pattern is refused */
#define MAX_NESTING 8        /* [ ( [ ... ] ) ]: deeper is refused, not recursed into */
#define MAX_WINDOW 4096      /* tokens a phrase may span */

/* ---- tokens ---- */

/* The mark that starts at s (n bytes left): its length, 0 if none.  The
 * curly quotes and guillemets are marks as their straight cousins. */
static int mark_len(const char *s, int n)
{
    if (strchr(",;:!?.()[]{}\"'#*~", *s) && *s) return 1;
    if (n >= 3 && (unsigned char)s[0] == 0xe2 && (unsigned char)s[1] == 0x80 &&
        ((unsigned char)s[2] == 0x9c || (unsigned char)s[2] == 0x9d || (unsigned char)s[2] == 0x98 ||
         (unsigned char)s[2] == 0x99))
        return 3;
    if (n >= 2 && (unsigned char)s[0] == 0xc2 && ((unsigned char)s[1] == 0xab || (unsigned char)s[1] == 0xbb)) return 2;
    return 0;
}

/* The mark that ends at s+n (n bytes long): its length, 0 if none. */
static int mark_len_back(const char *s, int n)
{
    if (n >= 3 && mark_len(s + n - 3, 3) == 3) return 3;
    if (n >= 2 && mark_len(s + n - 2, 2) == 2) return 2;
    return n >= 1 && mark_len(s + n - 1, 1) == 1 ? 1 : 0;
}

static void push(Toks *ts, int s, int e, bool word)
{
    GROW(ts->t, ts->n, ts->cap);
    ts->t[ts->n++] = (Tok){s, e, word, false};
}

/* "V.J." and "J." keep their dot: initials, not the end of a sentence. */
static bool is_initials(const char *s, int n)
{
    if (n == 1) return isalpha((unsigned char)s[0]) != 0;
    return memchr(s, '.', (size_t)n) != NULL;
}

static bool is_quote_mark(const char *s, int n)
{
    return (n == 1 && *s == '"') || (n == 3 && (unsigned char)s[0] == 0xe2 && ((unsigned char)s[2] == 0x9c || (unsigned char)s[2] == 0x9d));
}

void toks_split(const char *line, int len, Toks *ts)
{
    ts->n = 0;
    for (int i = 0; i < len;) {
        while (i < len && isspace((unsigned char)line[i])) i++;
        if (i >= len) break;
        int s = i;
        while (i < len && !isspace((unsigned char)line[i])) i++;
        int e = i, m;
        while (s < e && (m = mark_len(line + s, e - s)) > 0) { /* leading marks */
            push(ts, s, s + m, false);
            s += m;
        }
        int tail = e; /* trailing marks, kept in order after the word */
        while (tail > s && (m = mark_len_back(line + s, tail - s)) > 0) {
            if (line[tail - 1] == '.' && m == 1 && tail - 1 > s && is_initials(line + s, tail - 1 - s)) break;
            tail -= m;
        }
        if (tail > s) push(ts, s, tail, true);
        while (tail < e) {
            m = mark_len(line + tail, e - tail);
            if (!m) m = 1;
            push(ts, tail, tail + m, false);
            tail += m;
        }
    }
    /* the marks that end a sentence: . ! ? outside quotes */
    bool in_quote = false;
    for (int k = 0; k < ts->n; k++) {
        Tok *t = &ts->t[k];
        if (t->word) continue;
        if (is_quote_mark(line + t->start, t->end - t->start)) in_quote = !in_quote;
        else if (!in_quote && t->end - t->start == 1 && strchr(".!?", line[t->start])) t->stop = true;
    }
}

/* ---- the program ---- */

typedef enum { OP_LIT, OP_WORD, OP_CHOICE, OP_NUM, OP_REST, OP_LIST, OP_QUOTE, OP_SPLIT, OP_JMP, OP_MATCH } Op;

typedef struct Ins {
    Op op;
    char *text;   /* OP_LIT: the word; a capture: its name */
    char **alts;  /* OP_CHOICE, and a list of such words */
    int nalts;
    int slot;     /* a capture's */
    int x, y;     /* OP_SPLIT: first x, then y; OP_JMP: x */
    char item;    /* OP_LIST: 'w' a word, '#' a number, 'c' one of alts */
} Ins;

struct Phrase {
    Ins *ins;
    int n, cap;
    int nslots;
    char *names[PHRASE_MAX_CAPTURES];
};

void phrase_free(Phrase *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) {
        free(p->ins[i].text);
        for (int k = 0; k < p->ins[i].nalts; k++) free(p->ins[i].alts[k]);
        free(p->ins[i].alts);
    }
    free(p->ins);
    for (int i = 0; i < p->nslots; i++) free(p->names[i]);
    free(p);
}

int phrase_names(const Phrase *p, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < p->nslots && n < max; i++) names[n++] = p->names[i];
    return n;
}

/* The compiler reads the pattern's source left to right. */
typedef struct Comp {
    Phrase *p;
    const char *s;
    int i, len;
    Buf *err;
    bool failed;
} Comp;

static int emit(Comp *c, Ins in)
{
    if (c->p->n >= MAX_INSTRUCTIONS) {
        if (!c->failed) buf_printf(c->err, "column %d: a pattern compiles to at most %d steps", c->i + 1, MAX_INSTRUCTIONS);
        c->failed = true;
        free(in.text);
        for (int k = 0; k < in.nalts; k++) free(in.alts[k]);
        free(in.alts);
        return 0;
    }
    GROW(c->p->ins, c->p->n, c->p->cap);
    c->p->ins[c->p->n] = in;
    return c->p->n++;
}

static bool fail(Comp *c, int col, const char *why)
{
    if (!c->failed) buf_printf(c->err, "column %d: %s", col + 1, why);
    c->failed = true;
    return false;
}

static bool is_name_text(const char *s, int n)
{
    if (n <= 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (int i = 1; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_') return false;
    return true;
}

static int new_slot(Comp *c, const char *name, int n, int col)
{
    for (int i = 0; i < c->p->nslots; i++)
        if ((int)strlen(c->p->names[i]) == n && strncmp(c->p->names[i], name, (size_t)n) == 0)
            return i; /* in another alternative: ( <x> | <x> and <y> ) */
    if (c->p->nslots >= PHRASE_MAX_CAPTURES) return fail(c, col, "a pattern takes at most 16 names"), -1;
    c->p->names[c->p->nslots] = xstrndup(name, (size_t)n);
    return c->p->nslots++;
}

/* Splits "A|B|C" into words. */
static bool split_alts(Comp *c, const char *a, int n, Ins *in, int col)
{
    for (const char *p = a, *end = a + n; p <= end;) {
        const char *bar = memchr(p, '|', (size_t)(end - p));
        const char *e = bar ? bar : end;
        if (e == p) return fail(c, col, "an empty alternative in <name:A|B>");
        in->alts = xrealloc(in->alts, (size_t)(in->nalts + 1) * sizeof *in->alts);
        in->alts[in->nalts++] = xstrndup(p, (size_t)(e - p));
        p = e + 1;
    }
    return true;
}

static void free_alts(Ins *in)
{
    for (int k = 0; k < in->nalts; k++) free(in->alts[k]);
    free(in->alts);
}

/* <name>, <name:A|B>, <name:#>, <name...>, <name,...>, <"name">: s..e inside the brackets. */
static bool compile_capture(Comp *c, const char *s, int n, int col)
{
    Ins in = {0};
    bool list = n > 4 && strncmp(s + n - 4, ",...", 4) == 0;
    bool rest = !list && n > 3 && strncmp(s + n - 3, "...", 3) == 0;
    if (list) n -= 4;
    if (rest) n -= 3;
    if (!list && !rest && n > 2 && s[0] == '"' && s[n - 1] == '"') {
        in.op = OP_QUOTE;
        s++, n -= 2;
    }
    const char *colon = memchr(s, ':', (size_t)n);
    int nn = colon ? (int)(colon - s) : n;
    if (!is_name_text(s, nn)) return fail(c, col, "what a pattern takes is named: <name>, <name:A|B>, <name...>, <name,...>");
    if (colon && (rest || in.op == OP_QUOTE)) return fail(c, col, "<name...> and <\"name\"> take no alternatives");
    if (colon) {
        const char *a = colon + 1;
        int an = n - nn - 1;
        if (an == 1 && *a == '#') in.item = '#';
        else if (split_alts(c, a, an, &in, col)) in.item = 'c';
        else return free_alts(&in), false; /* the alternatives before the empty one */
    } else {
        in.item = 'w';
    }
    if (in.op != OP_QUOTE) in.op = list ? OP_LIST : rest ? OP_REST : in.item == '#' ? OP_NUM : in.item == 'c' ? OP_CHOICE : OP_WORD;
    in.slot = new_slot(c, s, nn, col);
    in.text = xstrndup(s, (size_t)nn);
    if (in.slot < 0) {
        free(in.text);
        free_alts(&in);
        return false;
    }
    emit(c, in);
    return !c->failed;
}

static bool compile_alts(Comp *c, int depth, char close);

/* A sequence, up to | or the closing bracket (or the end). */
static bool compile_seq(Comp *c, int depth, char close)
{
    while (!c->failed) {
        while (c->i < c->len && isspace((unsigned char)c->s[c->i])) c->i++;
        if (c->i >= c->len) return close == 0 || fail(c, c->i, close == ']' ? "a [ is not closed" : "a ( is not closed");
        char ch = c->s[c->i];
        if (ch == '|' || ch == ']' || ch == ')') {
            if (ch == '|' && close) return true;
            if (ch == close) return true;
            return fail(c, c->i, ch == '|' ? "| belongs inside ( ... )" : "a closing bracket with no opening one");
        }
        int col = c->i;
        if (ch == '[' || ch == '(') {
            if (depth >= MAX_NESTING) return fail(c, col, "brackets nest at most 8 deep");
            c->i++;
            if (ch == '[') {
                int split = emit(c, (Ins){.op = OP_SPLIT});
                c->p->ins[split].x = split + 1;
                if (!compile_alts(c, depth + 1, ']')) return false;
                c->p->ins[split].y = c->p->n;
            } else if (!compile_alts(c, depth + 1, ')')) {
                return false;
            }
            c->i++; /* the closing bracket */
        } else if (ch == '<') {
            const char *gt = memchr(c->s + c->i, '>', (size_t)(c->len - c->i));
            if (!gt) return fail(c, col, "a < is not closed with >");
            if (!compile_capture(c, c->s + c->i + 1, (int)(gt - c->s - c->i - 1), col)) return false;
            c->i = (int)(gt - c->s) + 1;
        } else { /* literal tokens, up to a blank or a construct */
            int e = c->i;
            while (e < c->len && !isspace((unsigned char)c->s[e]) && !strchr("[]()<|", c->s[e])) e++;
            Toks ts = {0};
            toks_split(c->s + c->i, e - c->i, &ts);
            for (int k = 0; k < ts.n; k++)
                emit(c, (Ins){.op = OP_LIT, .text = xstrndup(c->s + c->i + ts.t[k].start, (size_t)(ts.t[k].end - ts.t[k].start))});
            free(ts.t);
            c->i = e;
        }
    }
    return false;
}

/* seq | seq | ...: each tried in turn, the first that leads to a match
 * wins.  Each alternative sits behind a split to the next one; the last
 * one's split is turned into a step to itself (a no-op). */
static bool compile_alts(Comp *c, int depth, char close)
{
    int jumps[64], nj = 0;
    for (;;) {
        int split = emit(c, (Ins){.op = OP_SPLIT});
        if (c->failed) return false;
        c->p->ins[split].x = split + 1;
        if (!compile_seq(c, depth, close)) return false;
        if (c->i < c->len && c->s[c->i] == '|') {
            c->i++;
            if (nj >= 64) return fail(c, c->i, "at most 64 alternatives in one ( ... )");
            jumps[nj++] = emit(c, (Ins){.op = OP_JMP});
            if (c->failed) return false;
            c->p->ins[split].y = c->p->n;
        } else {
            c->p->ins[split].op = OP_JMP;
            for (int k = 0; k < nj; k++) c->p->ins[jumps[k]].x = c->p->n;
            return true;
        }
    }
}

Phrase *phrase_compile(const char *src, int len, Buf *err)
{
    Phrase *p = xcalloc(1, sizeof *p);
    Comp c = {p, src, 0, len, err, false};
    if (compile_alts(&c, 0, 0) && c.i < len) fail(&c, c.i, "a closing bracket with no opening one");
    if (!c.failed && p->n == 0) fail(&c, 0, "an empty pattern");
    emit(&c, (Ins){.op = OP_MATCH});
    if (c.failed) {
        phrase_free(p);
        return NULL;
    }
    return p;
}

/* ---- matching ---- */

static bool tok_is(const char *line, const Tok *t, const char *w)
{
    size_t n = (size_t)(t->end - t->start);
    return strlen(w) == n && strncasecmp(line + t->start, w, n) == 0;
}

static bool is_number(const char *s, int n)
{
    int i = 0, digits = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    while (i < n && isdigit((unsigned char)s[i])) i++, digits++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && isdigit((unsigned char)s[i])) i++, digits++;
    }
    return digits && i == n;
}

/* Can the instruction at pc start a match at token t?  Follows splits
 * and jumps (they go forward only). */
static bool may_start_at(const Phrase *p, int pc, const char *line, const Tok *t, int depth)
{
    if (depth > MAX_INSTRUCTIONS) return false;
    const Ins *in = &p->ins[pc];
    switch (in->op) {
    case OP_LIT: return tok_is(line, t, in->text);
    case OP_CHOICE:
        for (int k = 0; k < in->nalts; k++)
            if (tok_is(line, t, in->alts[k])) return true;
        return false;
    case OP_SPLIT: return may_start_at(p, in->x, line, t, depth + 1) || may_start_at(p, in->y, line, t, depth + 1);
    case OP_JMP: return may_start_at(p, in->x, line, t, depth + 1);
    default: return false; /* a phrase does not start with a free word */
    }
}

bool phrase_may_start(const Phrase *p, const char *line, const Tok *t) { return may_start_at(p, 0, line, t, 0); }

static bool starts_written_out(const Phrase *p, int pc, int depth)
{
    const Ins *in = &p->ins[pc];
    if (depth > MAX_INSTRUCTIONS) return false;
    if (in->op == OP_LIT || in->op == OP_CHOICE) return true;
    if (in->op == OP_SPLIT) return starts_written_out(p, in->x, depth + 1) && starts_written_out(p, in->y, depth + 1);
    if (in->op == OP_JMP) return starts_written_out(p, in->x, depth + 1);
    return false;
}

bool phrase_may_start_any(const Phrase *p) { return starts_written_out(p, 0, 0); }

typedef struct Run {
    const Phrase *p;
    const char *line;
    const Toks *ts;
    int at, limit;
    bool whole;
    unsigned char *failed; /* (pc, pos - at): tried and failed */
    Capture *caps;
    long *budget;
} Run;

static bool item_ok(const Run *r, const Ins *in, int k)
{
    const Tok *t = &r->ts->t[k];
    if (!t->word) return false;
    if (in->item == '#') return is_number(r->line + t->start, t->end - t->start);
    if (in->item == 'c') {
        for (int a = 0; a < in->nalts; a++)
            if (tok_is(r->line, t, in->alts[a])) return true;
        return false;
    }
    return true;
}

static void take(Run *r, const Ins *in, int from, int to, const char *alt)
{
    Capture *c = &r->caps[in->slot];
    c->from = from;
    c->to = to;
    c->alt = alt;
    c->list = in->op == OP_LIST;
    c->number = in->item == '#';
    c->quoted = in->op == OP_QUOTE;
}

static int run(Run *r, int pc, int pos);

/* What is left after a whole match: only the marks that end a sentence. */
static bool only_stops_left(const Run *r, int pos)
{
    for (int k = pos; k < r->limit; k++)
        if (r->ts->t[k].word || !strchr(".!?", r->line[r->ts->t[k].start])) return false;
    return true;
}

/* The end of a <name...> that ends the pattern: the sentence's end, the
 * marks before it (",", ":") left out. */
static int rest_end(const Run *r, int pos)
{
    int e = r->limit;
    while (e > pos + 1 && !r->ts->t[e - 1].word && !is_quote_mark(r->line + r->ts->t[e - 1].start, r->ts->t[e - 1].end - r->ts->t[e - 1].start))
        e--;
    return e;
}

static int step(Run *r, int pc, int pos)
{
    const Ins *in = &r->p->ins[pc];
    const Tok *t = pos < r->limit ? &r->ts->t[pos] : NULL;
    switch (in->op) {
    case OP_LIT: return t && tok_is(r->line, t, in->text) ? run(r, pc + 1, pos + 1) : -1;
    case OP_WORD:
        if (!t || !t->word) return -1;
        take(r, in, pos, pos + 1, NULL);
        return run(r, pc + 1, pos + 1);
    case OP_CHOICE:
        for (int k = 0; t && k < in->nalts; k++)
            if (tok_is(r->line, t, in->alts[k])) {
                take(r, in, pos, pos + 1, in->alts[k]);
                return run(r, pc + 1, pos + 1);
            }
        return -1;
    case OP_NUM:
        if (t && !t->word && r->line[t->start] == '#' && pos + 1 < r->limit) t = &r->ts->t[++pos]; /* #8123 */
        if (!t || !t->word || !is_number(r->line + t->start, t->end - t->start)) return -1;
        take(r, in, pos, pos + 1, NULL);
        return run(r, pc + 1, pos + 1);
    case OP_QUOTE: {
        if (!t || t->word || !is_quote_mark(r->line + t->start, t->end - t->start)) return -1;
        int k = pos + 1;
        while (k < r->limit && (r->ts->t[k].word || !is_quote_mark(r->line + r->ts->t[k].start, r->ts->t[k].end - r->ts->t[k].start)))
            k++;
        if (k >= r->limit) return -1;
        take(r, in, pos + 1, k, NULL);
        return run(r, pc + 1, k + 1);
    }
    case OP_REST:
        if (!t) return -1;
        if (r->p->ins[pc + 1].op == OP_MATCH) {
            take(r, in, pos, rest_end(r, pos), NULL);
            return r->limit;
        }
        for (int e = pos + 1; e <= r->limit; e++) {
            take(r, in, pos, e, NULL);
            int got = run(r, pc + 1, e);
            if (got >= 0) return got;
            if (*r->budget <= 0) return -1;
        }
        return -1;
    case OP_LIST: {
        if (!t || !item_ok(r, in, pos)) return -1;
        int e = pos + 1;
        for (;;) { /* , ; and & or between items */
            int k = e;
            if (k < r->limit && !r->ts->t[k].word && strchr(",;", r->line[r->ts->t[k].start])) k++;
            if (k < r->limit && (tok_is(r->line, &r->ts->t[k], "and") || tok_is(r->line, &r->ts->t[k], "&") || tok_is(r->line, &r->ts->t[k], "or")))
                k++;
            if (k == e || k >= r->limit || !item_ok(r, in, k)) break;
            e = k + 1;
        }
        take(r, in, pos, e, NULL);
        return run(r, pc + 1, e);
    }
    case OP_SPLIT: {
        Capture saved[PHRASE_MAX_CAPTURES];
        memcpy(saved, r->caps, sizeof saved);
        int got = run(r, in->x, pos);
        if (got >= 0) return got;
        memcpy(r->caps, saved, sizeof saved);
        return run(r, in->y, pos);
    }
    case OP_JMP: return run(r, in->x, pos);
    case OP_MATCH:
        if (!r->whole) return pos;
        return only_stops_left(r, pos) ? r->limit : -1;
    }
    return -1;
}

static int run(Run *r, int pc, int pos)
{
    if (--*r->budget <= 0) return -1;
    size_t cell = (size_t)pc * (size_t)(r->limit - r->at + 1) + (size_t)(pos - r->at);
    if (r->failed[cell]) return -1;
    int got = step(r, pc, pos);
    if (got < 0) r->failed[cell] = 1;
    return got;
}

int phrase_match(const Phrase *p, const char *line, const Toks *ts, int at, bool whole, Capture *caps, int *ncaps,
                 long *budget)
{
    int limit = ts->n;
    if (!whole)
        for (limit = at; limit < ts->n && !ts->t[limit].stop && limit - at < MAX_WINDOW; limit++) {}
    else if (ts->n - at > MAX_WINDOW)
        return -1; /* a whole line that long is no form a table writes */
    size_t cells = (size_t)p->n * (size_t)(limit - at + 1);
    *budget -= (long)(cells / 64) + 1; /* clearing the table is work too */
    if (*budget <= 0) return -1;
    for (int i = 0; i < p->nslots; i++) caps[i] = (Capture){p->names[i], -1, -1, NULL, false, false, false};
    Run r = {p, line, ts, at, limit, whole, xcalloc(cells, 1), caps, budget};
    int got = run(&r, 0, at);
    free(r.failed);
    *ncaps = p->nslots;
    return got;
}

void capture_text(const Capture *c, const char *line, const Toks *ts, Buf *out)
{
    if (c->alt) {
        buf_puts(out, c->alt);
        return;
    }
    if (c->from < 0 || c->to <= c->from) return;
    int s = ts->t[c->from].start, e = ts->t[c->to - 1].end;
    buf_add(out, line + s, (size_t)(e - s));
}

bool capture_item(const Capture *c, const char *line, const Toks *ts, int *k, Buf *out)
{
    while (*k < c->to && (!ts->t[*k].word || tok_is(line, &ts->t[*k], "and") || tok_is(line, &ts->t[*k], "or")))
        (*k)++;
    if (*k >= c->to) return false;
    buf_add(out, line + ts->t[*k].start, (size_t)(ts->t[*k].end - ts->t[*k].start));
    (*k)++;
    return true;
}
