/*
 * move_sentences.c - moves among sentences: a message read with the phrases
 * of its game's sugar table (move_sugar.h, move_phrase.h).  What a phrase
 * takes becomes the attributes of its moves; a quoted line gives context
 * (the proposal a reply's "FOR" is about); "as follows:" reads the lines
 * after it; a block (a proposal's text) runs to its end and is read only
 * by the entries declared inside it, never as moves of the message.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "move_sugar_int.h"

#define LINE_BUDGET 2000000L /* steps of matching one line may take (a 1 MB line of "I I I ...") */
#define MAX_CONTEXT 64       /* names a message's quoted lines may give */
#define MAX_BLOCK (1 << 20)  /* bytes of a block's text kept: a mail is at most 1 MiB */

/* What a match took, as texts: name -> value, or a list's items. */
typedef struct Bind {
    char *name;
    char *value;
    char **items;
    int nitems;
} Bind;

typedef struct Binds {
    Bind b[PHRASE_MAX_CAPTURES * 4];
    int n;
} Binds;

struct Reading {
    const Sugar *s;
    Binds context;        /* from quoted lines: the last value of each name */
    const Entry *follow;  /* +lines being read */
    Binds follow_binds;
    const Entry *block;   /* +block being read */
    Binds block_binds;
    bool heads_done;
    Buf text, inner;      /* the block's text; the moves of the entries inside it */
    Toks ts;
};

static void binds_clear(Binds *b)
{
    for (int i = 0; i < b->n; i++) {
        free(b->b[i].name);
        free(b->b[i].value);
        for (int k = 0; k < b->b[i].nitems; k++) free(b->b[i].items[k]);
        free(b->b[i].items);
    }
    b->n = 0;
}

static Bind *bind_find(Binds *b, const char *name, size_t n)
{
    for (int i = 0; i < b->n; i++)
        if (strlen(b->b[i].name) == n && strncmp(b->b[i].name, name, n) == 0) return &b->b[i];
    return NULL;
}

/* The binding of name, emptied (its value and items freed), or NULL when
 * the table of bindings is full. */
static Bind *bind_slot(Binds *b, const char *name)
{
    Bind *x = bind_find(b, name, strlen(name));
    if (!x) {
        if (b->n >= (int)(sizeof b->b / sizeof b->b[0])) return NULL;
        x = &b->b[b->n++];
        memset(x, 0, sizeof *x);
        x->name = xstrdup(name);
        return x;
    }
    free(x->value);
    for (int k = 0; k < x->nitems; k++) free(x->items[k]);
    free(x->items);
    x->value = NULL;
    x->items = NULL;
    x->nitems = 0;
    return x;
}

/* Sets name to what c took (a list's items, when it is one). */
static void bind_set(Binds *b, const char *name, const Capture *c, const char *line, const Toks *ts)
{
    Bind *x = bind_slot(b, name);
    if (!x) return;
    Buf v = {0};
    capture_text(c, line, ts, &v);
    x->value = buf_take(&v);
    if (!x->value) x->value = xstrdup("");
    if (c->list)
        for (int k = c->from;;) {
            Buf item = {0};
            if (!capture_item(c, line, ts, &k, &item)) {
                buf_free(&item);
                break;
            }
            x->items = xrealloc(x->items, (size_t)(x->nitems + 1) * sizeof *x->items);
            x->items[x->nitems++] = buf_take(&item);
        }
}

static void bind_text(Binds *b, const char *name, const char *text)
{
    Bind *x = bind_slot(b, name);
    if (x) x->value = xstrdup(text);
}

/* What a match took that was taken (an optional part left out is not). */
static void bind_caps(Binds *b, const Capture *caps, int n, const char *line, const Toks *ts)
{
    for (int i = 0; i < n; i++)
        if (caps[i].from >= 0 || caps[i].alt) bind_set(b, caps[i].name, &caps[i], line, ts);
}

bool sugar_has_phrases(const Sugar *s) { return s && s->phrases; }
bool sugar_reads_subject(const Sugar *s) { return s && s->subject; }

Reading *reading_new(const Sugar *s)
{
    Reading *r = xcalloc(1, sizeof *r);
    r->s = s;
    return r;
}

void reading_free(Reading *r)
{
    if (!r) return;
    binds_clear(&r->context);
    binds_clear(&r->follow_binds);
    binds_clear(&r->block_binds);
    buf_free(&r->text);
    buf_free(&r->inner);
    free(r->ts.t);
    free(r);
}

bool reading_in_block(const Reading *r) { return r && r->block; }

/* ---- the moves of a match ---- */

/* Where a template's <name> is looked up: the match, the entry that
 * opened the block or the "as follows:", then the quoted context; the
 * item of the list being made. */
typedef struct Lookup {
    Binds *layers[3];
    const char *list_name;
    const char *item;
} Lookup;

static const char *look(void *ud, const char *name, size_t n)
{
    Lookup *l = ud;
    if (l->list_name && strlen(l->list_name) == n && strncmp(l->list_name, name, n) == 0) return l->item;
    for (int i = 0; i < 3; i++) {
        Bind *b = l->layers[i] ? bind_find(l->layers[i], name, n) : NULL;
        if (b) return b->value;
    }
    return NULL;
}

/* Every move of the entry; one set for each item of a list it took. */
static int emit(const Entry *e, Lookup *l, Buf *out)
{
    Bind *list = NULL;
    for (int i = 0; i < 3 && !list; i++)
        for (int k = 0; l->layers[i] && k < l->layers[i]->n && !list; k++)
            if (l->layers[i]->b[k].nitems) list = &l->layers[i]->b[k];
    size_t before = out->len;
    for (int item = 0; item < (list ? list->nitems : 1); item++) {
        l->list_name = list ? list->name : NULL;
        l->item = list ? list->items[item] : NULL;
        for (int m = 0; m < e->nmoves; m++) sugar_emit_move(e, m, look, l, out);
    }
    l->list_name = NULL;
    return out->len > before;
}

/* ---- lines ---- */

static bool all_blank(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (!isspace((unsigned char)s[i])) return false;
    return true;
}

static bool whole(const Phrase *p, const char *line, const Toks *ts, Capture *caps, int *ncaps, long *budget)
{
    return ts->n && phrase_match(p, line, ts, 0, true, caps, ncaps, budget) >= 0;
}

void reading_quoted(Reading *r, const char *line, int len)
{
    toks_split(line, len, &r->ts);
    long budget = LINE_BUDGET;
    for (int k = 0; k < r->s->n; k++) {
        const Entry *e = &r->s->e[k];
        Capture caps[PHRASE_MAX_CAPTURES];
        int n;
        if (e->kind != E_QUOTED || !whole(e->ph, line, &r->ts, caps, &n, &budget)) continue;
        if (r->context.n < MAX_CONTEXT) bind_caps(&r->context, caps, n, line, &r->ts);
        return;
    }
}

/* Does the entry read here: inside the block of `inside`, or outside any? */
static bool reads_in(const Entry *e, const char *inside)
{
    if (!inside) return !e->inside;
    return e->inside && strcmp(e->inside, inside) == 0;
}

/* A template names a context value the message has not given: no move. */
static bool context_ready(const Reading *r, const Entry *e)
{
    for (int i = 0; i < e->nt; i++)
        for (const char *p = e->t[i].value; (p = strchr(p, '<'));) {
            const char *q = strchr(p, '>');
            if (!q) break;
            size_t n = (size_t)(q - p - 1);
            if (!phrase_takes(e, p + 1, n) && !bind_find((Binds *)&r->context, p + 1, n)) return false;
            p = q + 1;
        }
    return true;
}

/* The phrases and whole-line entries of the table on one line, read
 * where `inside` says; their moves to out.  *aside: an +aside entry's
 * reason when one matched (the line's moves are then dropped). */
static int read_phrases(Reading *r, const char *line, int len, const char *inside, Buf *out, const char **aside,
                        const Entry **last, Binds *last_binds)
{
    Toks *ts = &r->ts;
    toks_split(line, len, ts);
    long budget = LINE_BUDGET;
    size_t start = out->len;
    int made = 0;
    Binds b = {0};
    Capture caps[PHRASE_MAX_CAPTURES];
    int n;
    for (int k = 0; k < r->s->n; k++) { /* whole lines first */
        const Entry *e = &r->s->e[k];
        if (e->kind != E_LINE || !reads_in(e, inside) || !whole(e->ph, line, ts, caps, &n, &budget)) continue;
        bind_caps(&b, caps, n, line, ts);
        if (!context_ready(r, e)) {
            binds_clear(&b);
            continue;
        }
        if (e->aside) {
            *aside = e->aside;
            binds_clear(&b);
            return 0;
        }
        Lookup l = {{&b, r->block ? &r->block_binds : NULL, &r->context}, NULL, NULL};
        if (!e->lines && !e->block) made += emit(e, &l, out); /* those make theirs from the lines after */
        *last = e;
        binds_clear(last_binds);
        *last_binds = b;
        return made;
    }
    for (int at = 0; at < ts->n && budget > 0; at++) {
        for (int k = 0; k < r->s->n; k++) {
            const Entry *e = &r->s->e[k];
            if (e->kind != E_PHRASE || !reads_in(e, inside) || !phrase_may_start(e->ph, line, &ts->t[at])) continue;
            int end = phrase_match(e->ph, line, ts, at, false, caps, &n, &budget);
            if (end < 0) continue;
            bind_caps(&b, caps, n, line, ts);
            if (!context_ready(r, e)) {
                binds_clear(&b);
                continue;
            }
            if (e->aside) {
                *aside = e->aside;
                out->len = start;
                if (out->s) out->s[start] = 0;
                binds_clear(&b);
                return 0;
            }
            Lookup l = {{&b, r->block ? &r->block_binds : NULL, &r->context}, NULL, NULL};
            if (!e->lines && !e->block) made += emit(e, &l, out);
            while (e->more && end < ts->n) { /* "... and AGAINST on 8125" */
                int next = phrase_match(e->more, line, ts, end, false, caps, &n, &budget);
                if (next <= end) break;
                bind_caps(&b, caps, n, line, ts);
                made += emit(e, &l, out);
                end = next;
            }
            *last = e;
            binds_clear(last_binds);
            *last_binds = b;
            memset(&b, 0, sizeof b);
            at = end - 1;
            break;
        }
    }
    binds_clear(&b);
    return made;
}

/* The block's end: its entry's moves (with its text), then those of the lines inside it. */
static bool close_block(Reading *r, Buf *out)
{
    const Entry *e = r->block;
    while (r->text.len && r->text.s[r->text.len - 1] == '\n') r->text.s[--r->text.len] = 0;
    bind_text(&r->block_binds, e->block, buf_str(&r->text));
    Lookup l = {{&r->block_binds, NULL, &r->context}, NULL, NULL};
    bool made = emit(e, &l, out);
    buf_add(out, r->inner.s, r->inner.len);
    made = made || r->inner.len;
    r->block = NULL;
    binds_clear(&r->block_binds);
    buf_reset(&r->text);
    buf_reset(&r->inner);
    return made;
}

static ReadLine block_line(Reading *r, const char *line, int len, Buf *out)
{
    const Entry *e = r->block;
    Capture caps[PHRASE_MAX_CAPTURES];
    int n;
    long budget = LINE_BUDGET;
    toks_split(line, len, &r->ts);
    for (int k = 0; k < e->nuntil; k++)
        if (whole(e->until[k], line, &r->ts, caps, &n, &budget)) return close_block(r, out) ? READ_MOVES : READ_TAKEN;
    if (!r->heads_done) {
        if (all_blank(line, len)) return READ_TAKEN;
        for (int k = 0; k < e->nhead; k++)
            if (whole(e->head[k], line, &r->ts, caps, &n, &budget)) {
                bind_caps(&r->block_binds, caps, n, line, &r->ts);
                return READ_TAKEN;
            }
        r->heads_done = true;
    }
    if (r->text.len + (size_t)len < MAX_BLOCK) {
        buf_add(&r->text, line, (size_t)len);
        buf_putc(&r->text, '\n');
    }
    if (e->name) {
        const char *aside = NULL;
        const Entry *last = NULL;
        Binds lb = {0};
        read_phrases(r, line, len, e->name, &r->inner, &aside, &last, &lb);
        binds_clear(&lb);
    }
    return READ_TAKEN;
}

ReadLine reading_line(Reading *r, const char *line, int len, Buf *out, const char **why)
{
    *why = NULL;
    if (r->block) return block_line(r, line, len, out);
    if (r->follow) {
        Capture caps[PHRASE_MAX_CAPTURES];
        int n;
        long budget = LINE_BUDGET;
        toks_split(line, len, &r->ts);
        if (!all_blank(line, len) && whole(r->follow->lines, line, &r->ts, caps, &n, &budget)) {
            Binds b = {0};
            bind_caps(&b, caps, n, line, &r->ts);
            Lookup l = {{&b, &r->follow_binds, &r->context}, NULL, NULL};
            bool made = emit(r->follow, &l, out);
            binds_clear(&b);
            return made ? READ_MOVES : READ_NONE;
        }
        r->follow = NULL;
        binds_clear(&r->follow_binds);
    }
    if (all_blank(line, len)) return READ_NONE;
    const Entry *last = NULL;
    Binds lb = {0};
    int made = read_phrases(r, line, len, NULL, out, why, &last, &lb);
    if (*why) {
        binds_clear(&lb);
        return READ_ASIDE;
    }
    if (last && last->lines) {
        r->follow = last;
        r->follow_binds = lb;
    } else if (last && last->block) {
        r->block = last;
        r->block_binds = lb;
        r->heads_done = false;
    } else {
        binds_clear(&lb);
    }
    if (made) return READ_MOVES;
    return last ? READ_TAKEN : READ_NONE;
}

bool reading_end(Reading *r, Buf *out)
{
    bool made = r->block && close_block(r, out);
    r->follow = NULL;
    return made;
}
