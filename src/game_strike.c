/*
 * game_strike.c - `nomic replay GAME --strike N` (game.h game_strike): a
 * ruling that event N never happened, settled by the journal.  The game is
 * replayed twice in memory from its initial sets, seed and hash key: as
 * journaled ("before", every hash checked as `nomic replay` checks them),
 * and without event N ("after").  Each event after N is compared in the
 * two runs (its status and its changes, the records its journal row
 * keeps), then the final states; with --into, the "after" run is a new
 * game file, the corrected game, whose journal holds at N a record of the
 * strike (kind "strike") so that it replays.
 *
 * Two rules make the comparison exact (docs/engine.md, "Striking an
 * event"):
 * - the generator: the struck event's draws are skipped, not handed to
 *   the next event.  The journal keeps no generator state per event, but
 *   the two runs are the same up to N, so the "after" run takes, after N,
 *   the generator the "before" run has after N: as if N had drawn what it
 *   drew.  The corrected game's record of the strike says how many draws
 *   (steps of the generator) that was, which replay repeats.
 * - ids: an object made after the struck point may have another id in the
 *   other run.  Ids below F (the next id when N began: the same in both
 *   runs) are themselves; an id from F on is named by the event that made
 *   it and its place among that event's new ids ("#11.2": event 11's
 *   second), in each run.  Two objects are the same object when their
 *   names are the same; two values are the same when they are the same
 *   text, or the same text once each whole number in them that is an id
 *   from F on is replaced by its name.
 */
#include "game_int.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "objfmt.h"
#include "pool_privacy.h"

/* The most generator steps one struck event may have drawn: far above
 * what the budget lets an event draw (docs/limits.md, maxWork). */
#define MAX_DRAWS (1ULL << 32)

/* One run: the game it plays, and the names of the ids made after the
 * struck point. */
typedef struct Side {
    Game *g;
    ObjId first;     /* F: ids from here on have names */
    long *ev;        /* id first+i was made by event ev[i], */
    uint32_t *k;     /* the k[i]-th id that event made */
    size_t n, cap;
    Sym priv;        /* the privateAttributes (left out of comparisons and output) */
} Side;

/* An event of the "after" run that differs: what the two runs made of it. */
typedef struct Changed {
    long event;
    char *kind, *sender;
    int64_t time;
    const char *before_status, *after_status;
    char *before, *after; /* changes, as journal rows keep them (NULL: none) */
} Changed;

typedef struct Strike {
    const StrikeOpts *opt;
    Game *orig;
    Side a, b;            /* before (as journaled), after (N struck) */
    long index_from;      /* moveIndex from this event on */
    long events;
    bool failed;          /* the replay failed or does not match the journal */
    Buf why;              /* what failed */
    JournalRow struck;    /* event N as journaled */
    bool have_struck;
    uint64_t draws;       /* generator steps event N took */
    char *struck_changes; /* what N changed (before) */
    Changed *changed;
    size_t nchanged, capchanged;
} Strike;

/* ---- names of ids ---- */

static void side_note_ids(Side *s, long event, ObjId from, ObjId to)
{
    for (ObjId id = from; id < to; id++) {
        if (id < s->first) continue;
        size_t i = id - s->first;
        while (s->n <= i) {
            if (s->n == s->cap) {
                s->cap = s->cap ? 2 * s->cap : 64;
                s->ev = xrealloc(s->ev, s->cap * sizeof *s->ev);
                s->k = xrealloc(s->k, s->cap * sizeof *s->k);
            }
            s->ev[s->n] = 0;
            s->k[s->n++] = 0;
        }
        s->ev[i] = event;
        s->k[i] = id - from + 1;
    }
}

/* Is id named (made after the struck point)? */
static bool named(const Side *s, uint64_t id)
{
    return s->first && id >= s->first && id - s->first < s->n && s->ev[id - s->first];
}

/* The id's name, or the id itself. */
static void put_name(Buf *b, const Side *s, uint64_t id)
{
    if (named(s, id)) buf_printf(b, "#%ld.%u", s->ev[id - s->first], s->k[id - s->first]);
    else buf_printf(b, "%" PRIu64, id);
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_word(char c) { return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }

/* text with each whole number in it that is a named id replaced by its
 * name: a run of digits that is neither part of a word nor of a larger
 * number (a sign, a decimal point, a fraction's bar). */
static char *masked(const Side *s, const char *text)
{
    Buf b = {0};
    for (const char *p = text; *p;) {
        if (!is_digit(*p)) {
            buf_putc(&b, *p++);
            continue;
        }
        const char *e = p;
        while (is_digit(*e)) e++;
        bool alone = (p == text || (!is_word(p[-1]) && p[-1] != '.' && p[-1] != '/' && p[-1] != '-')) &&
                     !is_word(*e) && !((*e == '.' || *e == '/') && is_digit(e[1]));
        uint64_t v = 0;
        bool small = e - p <= 10;
        for (const char *q = p; small && q < e; q++) v = v * 10 + (uint64_t)(*q - '0');
        if (alone && small && named(s, v)) put_name(&b, s, v);
        else buf_add(&b, p, (size_t)(e - p));
        p = e;
    }
    return buf_take(&b);
}

static bool same_value(const Side *a, const char *va, const Side *b, const char *vb)
{
    if (strcmp(va, vb) == 0) return true;
    char *ma = masked(a, va), *mb = masked(b, vb);
    bool same = strcmp(ma, mb) == 0;
    free(ma);
    free(mb);
    return same;
}

/* ---- records: an object (or its deletion) as one run has it ---- */

typedef struct Rec {
    ObjId id;
    bool deleted;
    const Obj *obj; /* the pool's, or one of a journal's changes (obj_view) */
    char *key;      /* the id's name, for sorting */
} Rec;

static int cmp_rec(const void *x, const void *y) { return strcmp(((const Rec *)x)->key, ((const Rec *)y)->key); }

static char *name_of(const Side *s, ObjId id)
{
    Buf b = {0};
    put_name(&b, s, id);
    return buf_take(&b);
}

/* Do two records say the same, private attributes aside? */
static bool same_rec(const Side *a, const Rec *ra, const Side *b, const Rec *rb)
{
    if (ra->deleted || rb->deleted) return ra->deleted == rb->deleted;
    const Obj *x = ra->obj, *y = rb->obj;
    uint32_t i = 0, j = 0;
    for (;;) {
        while (i < obj_n(x) && publication_hides(NULL, obj_name(x, i), (void *)&a->priv)) i++;
        while (j < obj_n(y) && publication_hides(NULL, obj_name(y, j), (void *)&b->priv)) j++;
        if (i == obj_n(x) || j == obj_n(y)) return i == obj_n(x) && j == obj_n(y);
        if (obj_name(x, i) != obj_name(y, j)) return false;
        if (!same_value(a, sym_text(obj_value(x, i)), b, sym_text(obj_value(y, j)))) return false;
        i++, j++;
    }
}

static int cmp_attr(const void *x, const void *y)
{
    Sym p = ((const Attr *)x)->name, q = ((const Attr *)y)->name;
    return p < q ? -1 : p > q;
}

/* An object of a journal's changes, read as the pool would hold it (its
 * attributes sorted by name), for comparing and printing; not the
 * pool's: its shape is its own.  Freed with obj_view_free. */
static Obj *obj_view(ObjId id, const FmtObj *fo)
{
    uint32_t n = (uint32_t)fo->n;
    Attr *at = xcalloc(n ? n : 1, sizeof *at);
    for (uint32_t k = 0; k < n; k++) at[k] = (Attr){fo->attrs[k].name, fo->attrs[k].value};
    qsort(at, n, sizeof *at, cmp_attr);
    Obj *o = xcalloc(1, sizeof *o);
    Shape *sh = xcalloc(1, sizeof *sh + (size_t)n * sizeof *sh->names);
    o->id = id;
    o->shape = sh;
    o->vals = xcalloc(n ? n : 1, sizeof *o->vals);
    sh->n = n;
    for (uint32_t k = 0; k < n; k++) sh->names[k] = at[k].name, o->vals[k] = at[k].value;
    free(at);
    return o;
}

static void obj_view_free(const Obj *o)
{
    if (!o) return;
    free(o->shape);
    free(o->vals);
    free((void *)o);
}

/* An event's changes (a journal row's text) as records, sorted by name;
 * *n their number.  The caller frees with recs_free. */
static Rec *changes_recs(const Side *s, const char *text, size_t *n)
{
    FmtDoc doc = {0};
    Buf err = {0};
    *n = 0;
    Rec *r = NULL;
    if (text && fmt_read(text, strlen(text), "changes", &doc, &err)) {
        r = xcalloc(doc.n ? (size_t)doc.n : 1, sizeof *r);
        Sym deleted = sym_cstr("deleted");
        for (int i = 0; i < doc.n; i++) {
            const FmtObj *fo = &doc.objs[i];
            Rec *x = &r[(*n)++];
            if (!fo->objectId && fo->n == 1 && fo->attrs[0].name == deleted) {
                x->deleted = true;
                x->id = (ObjId)strtoul(sym_text(fo->attrs[0].value), NULL, 10);
            } else {
                x->id = (ObjId)fo->objectId;
                x->obj = obj_view(x->id, fo);
            }
            x->key = name_of(s, x->id);
        }
        qsort(r, *n, sizeof *r, cmp_rec);
    }
    fmt_doc_free(&doc);
    buf_free(&err);
    return r;
}

static void recs_free(Rec *r, size_t n, bool own_attrs)
{
    for (size_t i = 0; i < n; i++) {
        if (own_attrs) obj_view_free(r[i].obj);
        free(r[i].key);
    }
    free(r);
}

/* Do two events' changes say the same? */
static bool same_changes(const Side *a, const char *ca, const Side *b, const char *cb)
{
    size_t na, nb;
    Rec *ra = changes_recs(a, ca, &na), *rb = changes_recs(b, cb, &nb);
    bool same = na == nb;
    for (size_t i = 0; same && i < na; i++)
        same = strcmp(ra[i].key, rb[i].key) == 0 && same_rec(a, &ra[i], b, &rb[i]);
    recs_free(ra, na, true);
    recs_free(rb, nb, true);
    return same;
}

/* The live objects of a run's pool as records (objects: the pool's). */
static Rec *pool_recs(const Side *s, size_t *n)
{
    const Pool *p = s->g->pool;
    Rec *r = xcalloc(p->all.live ? p->all.live : 1, sizeof *r);
    *n = 0;
    IDSET_FOREACH(&p->all, id)
    {
        const Obj *o = pool_get(p, id);
        if (!o) continue;
        r[*n] = (Rec){.id = id, .obj = o, .key = name_of(s, id)};
        (*n)++;
    }
    qsort(r, *n, sizeof *r, cmp_rec);
    return r;
}

/* ---- the two runs ---- */

static void run_row(Game *g, const JournalRow *row, long index_from, const char *raw, Outcome *o)
{
    EventInput in = {.kind = row->kind,
                     .sender = row->sender ? row->sender : "",
                     .time = row->time,
                     .stamp = row->stamp,
                     .moves = row->input ? row->input : "",
                     .raw = raw};
    g->unindexed = row->n < index_from;
    if (strcmp(row->kind, "suspend") == 0 || strcmp(row->kind, "resume") == 0) game_event_keeper(g, &in, o);
    else if (strcmp(row->kind, "strike") == 0) game_event_strike(g, &in, o);
    else game_event(g, &in, o);
}

/* Does the "before" run's outcome agree with the journal (as replay checks)? */
static bool agrees(const JournalRow *row, const Outcome *o)
{
    if (strcmp(row->status, "received") == 0) return true;
    if (strcmp(verdict_name(o->verdict), row->status) != 0 &&
        !(strcmp(row->status, "applied") == 0 && o->verdict == VERDICT_NO_EFFECT))
        return false;
    return !row->hash || strcmp(row->hash, o->hash) == 0;
}

static void copy_row(JournalRow *to, const JournalRow *r)
{
    *to = (JournalRow){.n = r->n, .time = r->time, .stamp = r->stamp};
    to->kind = xstrdup(r->kind);
    to->sender = r->sender ? xstrdup(r->sender) : NULL;
    to->input = r->input ? xstrdup(r->input) : NULL;
    to->status = xstrdup(r->status);
}

/* How many steps take the generator from `from` to `to` (MAX_DRAWS: more). */
static uint64_t steps_between(const uint64_t from[4], const uint64_t to[4])
{
    uint64_t s[4];
    memcpy(s, from, sizeof s);
    for (uint64_t k = 0; k < MAX_DRAWS; k++) {
        if (memcmp(s, to, sizeof s) == 0) return k;
        eval_rng_next(s);
    }
    return MAX_DRAWS;
}

/* The struck event in the "after" run: the record of the strike when it
 * is a game file, and in any case the generator "before" has after N. */
static bool strike_in_after(Strike *S, const JournalRow *row)
{
    Game *b = S->b.g;
    if (b->st) {
        char input[96];
        snprintf(input, sizeof input, "event: %ld\ndraws: %" PRIu64, row->n, S->draws);
        EventInput in = {.kind = "strike", .time = row->time, .stamp = row->time, .moves = input};
        Outcome o;
        bool ok = game_event_strike(b, &in, &o) && o.event == row->n;
        outcome_free(&o);
        if (!ok) return false;
    }
    memcpy(b->eng->rng, S->a.g->eng->rng, sizeof b->eng->rng);
    return true;
}

static void note_changed(Strike *S, const JournalRow *row, const Outcome *oa, const Outcome *ob)
{
    GROW(S->changed, S->nchanged, S->capchanged);
    Changed *c = &S->changed[S->nchanged++];
    *c = (Changed){.event = row->n, .kind = xstrdup(row->kind), .time = row->time,
                   .sender = row->sender ? xstrdup(row->sender) : NULL,
                   .before_status = verdict_name(oa->verdict), .after_status = verdict_name(ob->verdict),
                   .before = oa->changes ? xstrdup(oa->changes) : NULL,
                   .after = ob->changes ? xstrdup(ob->changes) : NULL};
}

static bool each_event(void *ud, const JournalRow *row)
{
    Strike *S = ud;
    long n = S->opt->strike;
    Game *a = S->a.g, *b = S->b.g;
    char *raw = b->st && strcmp(row->kind, "move") == 0 ? store_event_raw(S->orig->st, row->n) : NULL;
    if (row->n == n) {
        S->a.first = S->b.first = a->pool->next_id;
        copy_row(&S->struck, row);
        S->have_struck = true;
    }
    ObjId a0 = a->pool->next_id, b0 = b->pool->next_id;
    uint64_t rng0[4];
    memcpy(rng0, a->eng->rng, sizeof rng0);
    Outcome oa, ob = {0};
    run_row(a, row, S->index_from, NULL, &oa);
    S->events++;
    bool ok = true;
    if (!agrees(row, &oa)) {
        buf_printf(&S->why, "the game does not replay: at event %ld the journal says %s (hash %s), the replay %s (hash %s); "
                            "nomic replay says more",
                   row->n, row->status, row->hash ? row->hash : "-", verdict_name(oa.verdict), oa.hash);
        ok = false;
    } else if (row->n == n) {
        S->draws = steps_between(rng0, a->eng->rng);
        S->struck_changes = oa.changes ? xstrdup(oa.changes) : NULL;
        if (S->draws == MAX_DRAWS) {
            buf_printf(&S->why, "event %ld drew more than %llu times from the generator", n, (unsigned long long)MAX_DRAWS);
            ok = false;
        } else if (!strike_in_after(S, row)) {
            buf_printf(&S->why, "%s: the record of the strike cannot be written: %s", S->opt->into, store_error(b->st));
            ok = false;
        }
    } else {
        run_row(b, row, S->index_from, raw, &ob);
        if (b->st && ob.event != row->n) {
            buf_printf(&S->why, "%s: event %ld cannot be written: %s", S->opt->into, row->n, store_error(b->st));
            ok = false;
        }
    }
    /* the ids the event made are named before its changes are compared */
    if (row->n >= n) {
        side_note_ids(&S->a, row->n, a0, a->pool->next_id);
        side_note_ids(&S->b, row->n, b0, b->pool->next_id);
    }
    if (ok && row->n > n && (oa.verdict != ob.verdict || !same_changes(&S->a, oa.changes, &S->b, ob.changes)))
        note_changed(S, row, &oa, &ob);
    if (row->n != n) outcome_free(&ob);
    outcome_free(&oa);
    free(raw);
    if (!ok) S->failed = true;
    return ok;
}

/* ---- output ---- */

/* One record: an object (its public attributes) or {"objectId":..,"deleted":true}. */
static void rec_json(Buf *b, const Side *s, const Rec *r)
{
    if (r->deleted) {
        buf_printf(b, "{\"objectId\":\"%u\",\"deleted\":true}", r->id);
        return;
    }
    fmt_json_obj(b, r->obj, publication_hides, (void *)&s->priv);
}

static void rec_text(Buf *b, const Side *s, const Rec *r)
{
    if (r->deleted) {
        buf_printf(b, "deleted: %u\n", r->id);
        return;
    }
    fmt_print_obj(b, r->obj, publication_hides, (void *)&s->priv);
}

/* One object of the final state under its heading, flushing what b holds first. */
static void print_record(Buf *b, const char *heading, const Side *s, const Rec *r)
{
    buf_puts(b, heading);
    Buf t = {0};
    rec_text(&t, s, r);
    fwrite(b->s, 1, b->len, stdout);
    buf_reset(b);
    print_indented(buf_str(&t), "    ");
    buf_free(&t);
}

/* An event's changes, in id order as the journal keeps them. */
static void changes_out(Buf *b, const Side *s, const char *text, bool json, const char *prefix)
{
    size_t n;
    Rec *r = changes_recs(s, text, &n);
    /* back to id order: the names sort "#..." apart from plain ids */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && r[j - 1].id > r[j].id; j--) {
            Rec t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    if (json) buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (json) {
            if (i) buf_putc(b, ',');
            rec_json(b, s, &r[i]);
        } else {
            Buf t = {0};
            rec_text(&t, s, &r[i]);
            if (i) buf_putc(b, '\n');
            for (const char *p = buf_str(&t); *p;) {
                const char *e = strchr(p, '\n');
                size_t len = e ? (size_t)(e - p) : strlen(p);
                buf_printf(b, "%s%.*s\n", prefix, (int)len, p);
                p += len + (e != NULL);
            }
            buf_free(&t);
        }
    }
    if (!n && !json) buf_printf(b, "%s(no change)\n", prefix);
    if (json) buf_putc(b, ']');
    recs_free(r, n, true);
}

static void event_head(Buf *b, long event, const char *kind, int64_t time, const char *sender)
{
    char when[32];
    time_format(time, when);
    buf_printf(b, "event %ld (%s at %s%s%s)", event, kind, when, sender ? " from " : "", sender ? sender : "");
}

/* The final states' differences: only in one run, or in both and not the same. */
typedef struct FinalDiff {
    Rec *ra, *rb;
    size_t na, nb;
    size_t *only_a, *only_b, (*differ)[2];
    size_t nonly_a, nonly_b, ndiffer;
} FinalDiff;

static void final_diff(Strike *S, FinalDiff *d)
{
    memset(d, 0, sizeof *d);
    d->ra = pool_recs(&S->a, &d->na);
    d->rb = pool_recs(&S->b, &d->nb);
    d->only_a = xmalloc((d->na + 1) * sizeof *d->only_a);
    d->only_b = xmalloc((d->nb + 1) * sizeof *d->only_b);
    d->differ = xmalloc((d->na + 1) * sizeof *d->differ);
    size_t i = 0, j = 0;
    while (i < d->na || j < d->nb) {
        int c = i == d->na ? 1 : j == d->nb ? -1 : strcmp(d->ra[i].key, d->rb[j].key);
        if (c < 0) d->only_a[d->nonly_a++] = i++;
        else if (c > 0) d->only_b[d->nonly_b++] = j++;
        else {
            if (!same_rec(&S->a, &d->ra[i], &S->b, &d->rb[j])) {
                d->differ[d->ndiffer][0] = i;
                d->differ[d->ndiffer++][1] = j;
            }
            i++, j++;
        }
    }
}

static void final_free(FinalDiff *d)
{
    recs_free(d->ra, d->na, false);
    recs_free(d->rb, d->nb, false);
    free(d->only_a);
    free(d->only_b);
    free(d->differ);
}

static void print_json(Strike *S, const FinalDiff *d)
{
    Buf b = {0};
    const JournalRow *r = &S->struck;
    buf_printf(&b, "{\"version\":1,\"struck\":%ld,\"kind\":", r->n);
    json_string(&b, r->kind, strlen(r->kind));
    buf_printf(&b, ",\"time\":%" PRId64 ",\"sender\":", r->time);
    if (r->sender) json_string(&b, r->sender, strlen(r->sender));
    else buf_puts(&b, "null");
    buf_puts(&b, ",\"status\":");
    json_string(&b, r->status, strlen(r->status));
    buf_printf(&b, ",\"draws\":%" PRIu64 ",\"events\":%ld,\"changes\":", S->draws, S->events);
    changes_out(&b, &S->a, S->struck_changes, true, "");
    buf_puts(&b, ",\n\"changed\":[");
    for (size_t i = 0; i < S->nchanged; i++) {
        const Changed *c = &S->changed[i];
        buf_printf(&b, "%s\n{\"event\":%ld,\"kind\":", i ? "," : "", c->event);
        json_string(&b, c->kind, strlen(c->kind));
        buf_printf(&b, ",\"time\":%" PRId64 ",\"sender\":", c->time);
        if (c->sender) json_string(&b, c->sender, strlen(c->sender));
        else buf_puts(&b, "null");
        buf_puts(&b, ",\"before\":{\"status\":");
        json_string(&b, c->before_status, strlen(c->before_status));
        buf_puts(&b, ",\"changes\":");
        changes_out(&b, &S->a, c->before, true, "");
        buf_puts(&b, "},\"after\":{\"status\":");
        json_string(&b, c->after_status, strlen(c->after_status));
        buf_puts(&b, ",\"changes\":");
        changes_out(&b, &S->b, c->after, true, "");
        buf_puts(&b, "}}");
    }
    buf_puts(&b, "],\n\"final\":{\"only_before\":[");
    for (size_t i = 0; i < d->nonly_a; i++) {
        if (i) buf_putc(&b, ',');
        rec_json(&b, &S->a, &d->ra[d->only_a[i]]);
    }
    buf_puts(&b, "],\"only_after\":[");
    for (size_t i = 0; i < d->nonly_b; i++) {
        if (i) buf_putc(&b, ',');
        rec_json(&b, &S->b, &d->rb[d->only_b[i]]);
    }
    buf_puts(&b, "],\"differ\":[");
    for (size_t i = 0; i < d->ndiffer; i++) {
        buf_puts(&b, i ? ",{\"before\":" : "{\"before\":");
        rec_json(&b, &S->a, &d->ra[d->differ[i][0]]);
        buf_puts(&b, ",\"after\":");
        rec_json(&b, &S->b, &d->rb[d->differ[i][1]]);
        buf_putc(&b, '}');
    }
    buf_puts(&b, "]},\n\"into\":");
    if (S->opt->into) json_string(&b, S->opt->into, strlen(S->opt->into));
    else buf_puts(&b, "null");
    buf_puts(&b, "}\n");
    fwrite(b.s, 1, b.len, stdout);
    buf_free(&b);
}

static void print_text(Strike *S, const FinalDiff *d)
{
    Buf b = {0};
    const JournalRow *r = &S->struck;
    buf_puts(&b, "struck ");
    event_head(&b, r->n, r->kind, r->time, r->sender);
    buf_printf(&b, ", %s: it never happened in the corrected game\n", r->status);
    buf_printf(&b, "  its %" PRIu64 " draw%s of the generator skipped; it had changed:\n", S->draws,
               S->draws == 1 ? "" : "s");
    changes_out(&b, &S->a, S->struck_changes, false, "    ");
    long later = S->events - r->n;
    buf_printf(&b, "replayed %ld event%s with and without it: %zu of the %ld after it differ%s\n", S->events,
               S->events == 1 ? "" : "s", S->nchanged, later, S->nchanged == 1 ? "s" : "");
    for (size_t i = 0; i < S->nchanged; i++) {
        const Changed *c = &S->changed[i];
        buf_putc(&b, '\n');
        event_head(&b, c->event, c->kind, c->time, c->sender);
        buf_printf(&b, ": %s before, %s after\n  before:\n", c->before_status, c->after_status);
        changes_out(&b, &S->a, c->before, false, "    ");
        buf_puts(&b, "  after:\n");
        changes_out(&b, &S->b, c->after, false, "    ");
    }
    buf_printf(&b, "\nfinal state: %zu object%s only before, %zu only after, %zu differ%s\n", d->nonly_a,
               d->nonly_a == 1 ? "" : "s", d->nonly_b, d->ndiffer, d->ndiffer == 1 ? "s" : "");
    for (size_t i = 0; i < d->nonly_a; i++) print_record(&b, "  only before:\n", &S->a, &d->ra[d->only_a[i]]);
    for (size_t i = 0; i < d->nonly_b; i++) print_record(&b, "  only after:\n", &S->b, &d->rb[d->only_b[i]]);
    for (size_t i = 0; i < d->ndiffer; i++) {
        Buf t = {0}, u = {0};
        rec_text(&t, &S->a, &d->ra[d->differ[i][0]]);
        rec_text(&u, &S->b, &d->rb[d->differ[i][1]]);
        buf_puts(&b, "  differs, before:\n");
        fwrite(b.s, 1, b.len, stdout);
        buf_reset(&b);
        print_indented(buf_str(&t), "    ");
        printf("  after:\n");
        print_indented(buf_str(&u), "    ");
        buf_free(&t);
        buf_free(&u);
    }
    if (S->opt->into)
        buf_printf(&b, "wrote the corrected game to %s (its event %ld records the strike; nomic replay %s checks it)\n",
                   S->opt->into, r->n, S->opt->into);
    fwrite(b.s, 1, b.len, stdout);
    buf_free(&b);
}

/* ---- the command ---- */

/* Is `into` the game's own file (or one of its side files)? */
static bool same_file(const char *p, const char *q)
{
    struct stat a, b;
    if (stat(p, &a) != 0 || stat(q, &b) != 0) return false;
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The event to strike: 0 when it can be, else the exit status (said). */
static int check_event(Game *g, long n)
{
    long last = store_last_event(g->st);
    if (last < 0) {
        fprintf(stderr, "nomic replay: the journal cannot be read: %s\n", store_error(g->st));
        return EXIT_FAILURE;
    }
    if (n < 1 || n > last) {
        if (last) fprintf(stderr, "nomic replay: --strike %ld: there is no event %ld (the journal holds events 1 to %ld)\n", n, n, last);
        else fprintf(stderr, "nomic replay: --strike %ld: the journal holds no event yet\n", n);
        return 2;
    }
    JournalRow r;
    int got = store_event_get(g->st, n, &r);
    if (got <= 0) {
        fprintf(stderr, "nomic replay: event %ld cannot be read: %s\n", n, store_error(g->st));
        return got < 0 ? EXIT_FAILURE : 2;
    }
    int rc = 0;
    if (strcmp(r.kind, "strike") == 0) {
        fprintf(stderr, "nomic replay: --strike %ld: event %ld is itself the record of a strike; nothing happened there\n", n, n);
        rc = 2;
    }
    journal_row_free(&r);
    return rc;
}

/* An initial set of the game, into a memory run. */
static bool load_set(void *ud, const char *label, const char *text)
{
    Buf err = {0};
    bool ok = game_load_set(ud, label, text, &err);
    if (!ok) fprintf(stderr, "nomic replay: initial set %s: %s\n", label, buf_str(&err));
    buf_free(&err);
    return ok;
}

/* A run in memory, as replay makes it: the game's seed, creation time and hash key. */
static Game *memory_run(Game *g)
{
    Game *m = game_memory(g->seed);
    m->eng->created = g->eng->created;
    pool_set_hash_key(m->pool, g->pool->hash_key, g->pool->hash_version);
    if (store_each_initial(g->st, load_set, m)) return m;
    game_close(m);
    return NULL;
}

static void strike_free(Strike *S)
{
    for (size_t i = 0; i < S->nchanged; i++) {
        free(S->changed[i].kind);
        free(S->changed[i].sender);
        free(S->changed[i].before);
        free(S->changed[i].after);
    }
    free(S->changed);
    free(S->struck_changes);
    if (S->have_struck) journal_row_free(&S->struck);
    free(S->a.ev), free(S->a.k), free(S->b.ev), free(S->b.k);
    buf_free(&S->why);
    game_close(S->a.g);
    game_close(S->b.g);
}

int game_strike(Game *g, const StrikeOpts *opt)
{
    int rc = check_event(g, opt->strike);
    if (rc) return rc;
    if (opt->into && opt->game_path && same_file(opt->into, opt->game_path)) {
        fprintf(stderr, "nomic replay: --into %s: that is the game itself, which --strike never changes\n", opt->into);
        return 2;
    }
    struct stat sb;
    if (opt->into && !opt->force && stat(opt->into, &sb) == 0) {
        fprintf(stderr, "nomic replay: --into %s: it exists already (--force replaces it)\n", opt->into);
        return 2;
    }
    Strike S = {.opt = opt, .orig = g};
    S.index_from = g->move_index_from ? g->move_index_from : LONG_MAX;
    Buf err = {0};
    if (!(S.a.g = memory_run(g))) {
        strike_free(&S);
        return EXIT_FAILURE;
    }
    if (opt->into) {
        S.b.g = game_init_copy(opt->into, g, opt->force, &err);
        if (!S.b.g) {
            fprintf(stderr, "nomic replay: --into %s\n", buf_str(&err));
            buf_free(&err);
            strike_free(&S);
            return EXIT_FAILURE;
        }
    } else if (!(S.b.g = memory_run(g))) {
        strike_free(&S);
        return EXIT_FAILURE;
    }
    S.a.g->keep_changes = S.b.g->keep_changes = true;
    S.a.g->eng->trace_on = false; /* (the "before" run's traces are the journal's) */
    if (!opt->into) S.b.g->eng->trace_on = false;
    /* the corrected game's events: one transaction */
    bool grouped = !opt->into || game_group_begin(S.b.g, &err);
    if (!grouped) {
        S.failed = true;
        buf_printf(&S.why, "%s: %s", opt->into, buf_str(&err));
    } else if (!store_each_event(g->st, 1, 0x7fffffffL, each_event, &S) && !S.failed) {
        S.failed = true;
        buf_printf(&S.why, "the journal cannot be read: %s", store_error(g->st));
    }
    buf_reset(&err);
    if (opt->into && grouped && !S.failed) {
        /* the Mechanics' settings, tokens and the mails taken, after the
         * events (a transport copied before would mail the whole history
         * again): the corrected game can take the game's place */
        static const char *const tables[] = {"config", "tokens", "token_offers", "mail_keys"};
        bool ok = store_begin(S.b.g->st);
        for (size_t i = 0; ok && i < sizeof tables / sizeof *tables; i++)
            ok = store_copy_rows(g->st, S.b.g->st, tables[i]);
        ok = ok && store_commit(S.b.g->st);
        if (!ok) {
            store_rollback(S.b.g->st);
            S.failed = true;
            buf_printf(&S.why, "%s: the settings cannot be copied: %s", opt->into, store_error(S.b.g->st));
        }
    }
    if (opt->into && grouped && !game_group_end(S.b.g, &err) && !S.failed) {
        S.failed = true;
        buf_printf(&S.why, "%s: %s", opt->into, buf_str(&err));
    }
    buf_free(&err);
    if (S.failed) {
        fprintf(stderr, "nomic replay: %s\n", buf_str(&S.why));
        if (opt->into) {
            game_close(S.b.g);
            S.b.g = NULL;
            remove(opt->into); /* nothing half written is left */
            char side[4096];
            snprintf(side, sizeof side, "%s-wal", opt->into);
            remove(side);
            snprintf(side, sizeof side, "%s-shm", opt->into);
            remove(side);
        }
        strike_free(&S);
        return EXIT_FAILURE;
    }
    for (int i = 0; i < 2; i++) {
        Side *sd = i ? &S.b : &S.a;
        RuleInfo *ri;
        free((engine_rules(sd->g->eng, &ri), ri)); /* reads the private attributes */
        sd->priv = sd->g->eng->private_attrs;
    }
    FinalDiff d;
    final_diff(&S, &d);
    if (opt->json) print_json(&S, &d);
    else print_text(&S, &d);
    final_free(&d);
    strike_free(&S);
    return 0;
}

/* ---- the record of a strike in a corrected game ---- */

bool game_event_strike(Game *g, const EventInput *in, Outcome *o)
{
    memset(o, 0, sizeof *o);
    o->kind = "strike";
    o->time = in->time;
    long n = 0;
    unsigned long long draws = 0;
    if (!in->moves || sscanf(in->moves, "event: %ld\ndraws: %llu", &n, &draws) != 2 || draws >= MAX_DRAWS) {
        o->verdict = VERDICT_REFUSED;
        o->message = xstrdup("not the record of a strike (event: N, draws: K)");
        return true;
    }
    for (unsigned long long k = 0; k < draws; k++) eval_rng_next(g->eng->rng);
    Buf m = {0};
    buf_printf(&m, "event %ld was struck (nomic replay --strike): it never happened; the generator skips the %llu draw%s it made",
               n, draws, draws == 1 ? "" : "s");
    o->message = buf_take(&m);
    o->verdict = VERDICT_APPLIED;
    hex64(pool_public_hash(g->pool), o->hash);
    if (!g->st) return true;
    Store *st = g->st;
    bool ok = store_begin(st);
    long e = ok ? store_journal_received(st, "strike", in->time, NULL, in->moves, NULL, in->time) : -1;
    o->event = e > 0 ? e : 0;
    ok = e > 0 && game_index_moves_from(g, e) && game_save_state(g, e) &&
         store_event_outcome(st, e, verdict_name(o->verdict), o->message, NULL, NULL, o->hash, NULL, NULL) &&
         store_commit(st);
    if (!ok) {
        store_rollback(st);
        g->reload = true;
        return false;
    }
    g->known_event = e;
    game_state_kept(g, e);
    return true;
}
