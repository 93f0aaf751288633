/*
 * engine.c - the engine cycle (engine.h): the rules in their order, what a
 * change concerns, the seen states of one event, the two evaluations.
 * The traces of firings are engine_trace.c's.
 *
 * Two evaluations: immediate (the default; a change restarts the run from
 * the first rule) and `evaluation: shadow` on engineSettings (each pass
 * works on the pool as it stood at its start; see run_shadow).
 *
 * A rule found false is not tested again until a change could have made it
 * true: the pool records its changes, the engine drains them before each
 * test and, through an index from attribute names and types to the reads of
 * the rules (lang_deps.h), marks the rules they concern.  So a pass over thirty
 * rules after a vote tests only the few that read votes or scores, and
 * those only on the objects that changed.
 */
#include "engine.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_builtins.h"
#include "lang_deps.h"
#include "pool_privacy.h"
#include "engine_trace.h"

struct RuleEntry {
    /* What every pass and every change reads first, together in the
     * entry's first 64 bytes: the skipping loop of run_immediate and the
     * marking of drain visit each rule's flags, and a rule's fields spread
     * over its 250 bytes cost a cache line each (measured: mark_span made
     * 14% of Engine City's first-level cache misses). */
    bool known_false;/* false when last tested (never for deps->always) */
    bool stale;      /* ... but a change since concerns one of its filters */
    bool first_empty;/* ... and its first conjunct had no solution */
    bool resume;     /* it held, in this event, with the solution path[];
                        no change since can have made a solution before
                        it: its next test starts there (test_rule) */
    bool have_timer; /* the timer its last test set (timed rules) */
    bool norestart;
    int at;          /* its place in e->rules (rebuild) */
    int nseeds;      /* (seeds: a change since gives a positive conjunct new candidates) */
    Deps *deps;      /* what its condition reads */
    CondGoals *goals;/* its condition's goals (eval.h), made with deps */
    Seed *seeds;
    unsigned long met; /* the last event (e->events) that met it */
    /* the read and the object a drain last looked at for it: within one
     * drain the object's state is the same for each of its changes */
    unsigned long looked_drain;
    int looked_read;
    ObjId looked_id;
    int64_t timer;
    ObjId id;
    Sym order;
    Sym cond, then;  /* the texts the Prog was made from */
    Prog *prog;      /* NULL when the rule cannot fire */
    char *error;     /* why it cannot */
    int seedcap;
    int npath;
    uint32_t path[MAX_CHOICES];
};

/* A rule's positive conjunct and an object that changed in a way it reads. */
struct Seed {
    int conj;
    ObjId id;
};

/* An entry of the index from a change to the reads it may concern. */
struct Interest {
    uint64_t key;    /* by_attr: an attribute name and the read's type
                        (attr_key); by_type: a type */
    int rule, read;  /* e->rules[rule].deps->reads[read] */
    /* what mark asks of the read and its rule's Deps, kept here so that
     * most marks end without reading either (a cache miss each) */
    int conj;        /* the read's conjunct (Read.conj) */
    bool seeds;      /* a change may seed the rule through this read: the
                        rule does not read the clock, and the read serves
                        a positive conjunct that may be proved first */
};

#define MAX_SEEDS 32 /* past this, testing the rule in full is cheaper */

/* The first look at the rules in an event may cost this many times the
 * event's own budget (first_meeting). */
#define FIRST_LOOK 4

/* The budget of one event.  The defaults fit every shipped set and the
 * benchmark with room to spare; the ceilings keep one event of a game
 * whose rules raised them within what a small host can give. */
const Limit limits[NLIMITS] = {
    [LIMIT_STEPS] = {"maxSteps", 1000000, 10000000, "rule firings"},
    [LIMIT_WORK] = {"maxWork", 50000000, 500000000, "units of work"},
    [LIMIT_MEMORY] = {"maxMemory", 64L << 20, 512L << 20, "bytes of memory"},
    [LIMIT_DELIVERIES] = {"maxDeliveries", 100000000, 1000000000, "message deliveries"},
    [LIMIT_DIGITS] = {"maxNumberDigits", 100000, 1000000, "digits in one number"},
    [LIMIT_OBJECTS] = {"maxObjects", 4000000, 40000000, "objects in the state"},
    [LIMIT_STATE_BYTES] = {"maxStateBytes", 512L << 20, 4L << 30, "bytes of text in the state"},
    [LIMIT_VALUE_BYTES] = {"maxValueBytes", 1L << 20, 16L << 20, "bytes of one value"},
};


Prog *rule_compile(Sym cond, Sym then, Diags *d, ParseError *perr)
{
    Prog *p = parse_rule_syms(&cond, &then, perr);
    if (!p) return NULL;
    check_prog(p, d);
    return p;
}

Engine *engine_new(Pool *pool)
{
    Engine *e = xcalloc(1, sizeof *e);
    e->pool = pool;
    e->dirty = true;
    e->trace_on = true;
    e->rng[0] = 0x9e3779b97f4a7c15ULL;
    e->rng[1] = 1;
    return e;
}

static void free_entry(RuleEntry *r)
{
    prog_free(r->prog);
    free(r->error);
    deps_free(r->deps);
    cond_goals_free(r->goals);
    free(r->seeds);
}

static void free_rules(Engine *e)
{
    for (int i = 0; i < e->nrules; i++) free_entry(&e->rules[i]);
    e->nrules = 0;
}

void engine_free(Engine *e)
{
    if (!e) return;
    free_rules(e);
    free(e->rules);
    free(e->timed);
    free(e->next_timed);
    free(e->passable);
    free(e->by_attr);
    free(e->by_type);
    free(e->untyped);
    free(e->attr_spans.slot);
    free(e->type_spans.slot);
    msg_free(&e->queue);
    free(e->vars);
    free(e->trail);
    free(e->seen_kept);
    free(e->suspended);
    buf_free(&e->settings_note);
    e->pool->changes.on = false;
    e->pool->changes.len = 0;
    free(e);
}

void engine_invalidate(Engine *e) { e->dirty = true; }

void event_run_free(EventRun *r)
{
    msg_free(&r->sent);
    buf_free(&r->trace);
    buf_free(&r->trace_json);
    trace_tail_free(r->tail);
    r->tail = NULL;
}

/* ---- the run order ---- */

static ObjId first_of_type(const Pool *p, Sym type)
{
    const IdSet *s = pool_lookup(p, SYM_type, type);
    if (!s) return 0;
    uint32_t i = idset_seek(s, 0, 1);
    return i < s->len ? s->ids[i] : 0;
}

static void read_settings(Engine *e)
{
    ObjId sid = first_of_type(e->pool, SYM_engineSettings);
    const Obj *s = sid ? pool_get(e->pool, sid) : NULL;
    e->run_type = s && obj_get(s, SYM_runType) ? obj_get(s, SYM_runType) : SYM_rule;
    buf_reset(&e->settings_note);
    for (int i = 0; i < NLIMITS; i++) {
        const Limit *l = &limits[i];
        Sym v = s ? obj_get(s, sym_cstr(l->setting)) : SYM_EMPTY;
        long n;
        e->limit[i] = l->dflt;
        if (v == SYM_EMPTY) continue;
        if (!sym_to_long(v, &n) || n <= 0) {
            buf_printf(&e->settings_note, "engineSettings: %s \"%.40s\" is not a positive whole number; the default, %ld, applies\n",
                       l->setting, sym_text(v), l->dflt);
            continue;
        }
        if (n > l->ceiling) {
            buf_printf(&e->settings_note, "engineSettings: %s %ld is above the Mechanics' ceiling; %ld applies\n", l->setting, n,
                       l->ceiling);
            n = l->ceiling;
        }
        e->limit[i] = n;
    }
    e->shadow = s && obj_get(s, SYM_evaluation) == SYM_shadow;
    e->private_attrs = privacy_attributes(e->pool);
}

static int cmp_rules(const void *x, const void *y)
{
    const RuleEntry *a = x, *b = y;
    int c = val_cmp(a->order, b->order);
    if (c) return c;
    return a->id < b->id ? -1 : a->id > b->id;
}

static char *describe_parse_error(const char *part, const ParseError *pe)
{
    Buf b = {0};
    buf_printf(&b, "%s %d:%d: %s", part, pe->line, pe->col, pe->msg);
    return buf_take(&b);
}

/* ---- what changed since a rule was last tested ---- */

static int cmp_interest(const void *x, const void *y)
{
    const Interest *a = x, *b = y;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* The key of by_attr: a change of attribute `name` on an object of type
 * `type` concerns the reads of that name limited to that type and those
 * of any type (type SYM_EMPTY), and no others (deps_relevant). */
static uint64_t attr_key(Sym name, Sym type) { return (uint64_t)name << 32 | type; }

/* A name's bit in Engine.untyped_names, a filter of the names some read
 * of any type asks for: each attribute a change sets is looked up there,
 * and most have no such read. */
static uint64_t name_bit(Sym name) { return 1ULL << (name & 63); }

/* The slot of key in t: its own, or the empty one where it would go. */
static InterestSpan *span_slot(const InterestSpans *t, uint64_t key)
{
    uint32_t i = (uint32_t)hash_mix(key) & t->mask;
    while (t->slot[i].key && t->slot[i].key != key) i = (i + 1) & t->mask;
    return &t->slot[i];
}

/* Indexes the keys of a (sorted by key), at most half full. */
static void index_spans(InterestSpans *t, const Interest *a, int n)
{
    free(t->slot);
    uint32_t size = 8;
    while (size < 2 * (uint32_t)n) size *= 2;
    t->slot = xcalloc(size, sizeof *t->slot);
    t->mask = size - 1;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && a[j].key == a[i].key) j++;
        *span_slot(t, a[i].key) = (InterestSpan){a[i].key, i, j - i};
        i = j;
    }
}

static void add_interest(Interest **a, int *n, int *cap, uint64_t key, int rule, int read, const Deps *d)
{
    const Read *r = &d->reads[read];
    GROW(*a, *n, *cap);
    (*a)[(*n)++] = (Interest){key, rule, read, r->conj, !d->timed && r->conj >= 0 && d->seedable[r->conj]};
}

/* Builds the index from attribute names and types to the reads of the
 * rules in their current order. */
static void index_reads(Engine *e)
{
    free(e->by_attr);
    free(e->by_type);
    free(e->untyped);
    e->by_attr = e->by_type = e->untyped = NULL;
    e->nby_attr = e->nby_type = e->nuntyped = 0;
    e->untyped_names = 0;
    int attr_cap = 0, type_cap = 0, untyped_cap = 0;
    for (int i = 0; i < e->nrules; i++) {
        const Deps *d = e->rules[i].deps;
        for (int k = 0; d && !d->always && k < d->nreads; k++) {
            const Read *r = &d->reads[k];
            /* a typed read hears of a change of type through by_type only
             * (drain looks up the old type and the new): under the name
             * `type` in by_attr it would be visited on every create */
            for (int a = 0; a < r->nattrs; a++)
                if (r->type == SYM_EMPTY || r->attrs[a] != SYM_type)
                    add_interest(&e->by_attr, &e->nby_attr, &attr_cap, attr_key(r->attrs[a], r->type), i, k, d);
            for (int a = 0; r->type == SYM_EMPTY && a < r->nattrs; a++) e->untyped_names |= name_bit(r->attrs[a]);
            if (r->type != SYM_EMPTY) {
                add_interest(&e->by_type, &e->nby_type, &type_cap, r->type, i, k, d);
            } else {
                add_interest(&e->untyped, &e->nuntyped, &untyped_cap, SYM_EMPTY, i, k, d);
            }
        }
    }
    if (e->nby_attr) qsort(e->by_attr, (size_t)e->nby_attr, sizeof *e->by_attr, cmp_interest);
    if (e->nby_type) qsort(e->by_type, (size_t)e->nby_type, sizeof *e->by_type, cmp_interest);
    index_spans(&e->attr_spans, e->by_attr, e->nby_attr);
    index_spans(&e->type_spans, e->by_type, e->nby_type);
}

/* The rules that read the clock, for new_time: every event moves it, and
 * most rules do not read it. */
static void list_timed(Engine *e)
{
    e->timed = xrealloc(e->timed, (size_t)(e->nrules ? e->nrules : 1) * sizeof *e->timed);
    e->next_timed = xrealloc(e->next_timed, (size_t)(e->nrules + 1) * sizeof *e->next_timed);
    e->ntimed = 0;
    for (int i = 0; i < e->nrules; i++)
        if (e->rules[i].deps && e->rules[i].deps->timed) e->timed[e->ntimed++] = i;
    e->next_timed[e->nrules] = e->nrules;
    for (int i = e->nrules - 1; i >= 0; i--)
        e->next_timed[i] = e->rules[i].deps && e->rules[i].deps->timed ? i : e->next_timed[i + 1];
}

/* Can the pass loop pass over the rule without looking at it (run_immediate)?
 * Kept beside the rules, a byte each, wherever one of these three flags
 * changes, so that the loop finds the next rule to look at eight at a time. */
static bool passable(const RuleEntry *re) { return re->known_false && !re->stale && !re->nseeds; }

static void note_passable(Engine *e, const RuleEntry *re) { e->passable[re->at] = passable(re); }

/* rebuild's end: the rules have their places */
static void place_rules(Engine *e)
{
    e->passable = xrealloc(e->passable, (size_t)e->nrules + 8);
    memset(e->passable + e->nrules, 0, 8);
    for (int i = 0; i < e->nrules; i++) {
        e->rules[i].at = i;
        note_passable(e, &e->rules[i]);
    }
}

static void forget(Engine *e, RuleEntry *r)
{
    r->known_false = r->stale = r->first_empty = r->resume = false;
    r->nseeds = 0;
    note_passable(e, r);
}

static void forget_all(Engine *e)
{
    for (int i = 0; i < e->nrules; i++) forget(e, &e->rules[i]);
}

/* The clock moved: what was known of the rules that read it is void,
 * but for a rule found false that reads it through timeGE alone, before
 * the earliest timeGE(t) its test found false (lang_deps.h). */
static void new_time(Engine *e, int64_t now)
{
    if (e->have_now && e->now == now) return;
    bool forward = e->have_now && now > e->now;
    for (int k = 0; k < e->ntimed; k++) {
        RuleEntry *r = &e->rules[e->timed[k]];
        if (forward && r->known_false && !r->deps->timed_other && (!r->have_timer || now < r->timer)) continue;
        forget(e, r);
    }
    e->have_now = true;
    e->now = now;
}

static void merge_timer(Ctx *cx, bool have, int64_t when)
{
    if (have && (!cx->have_timer || when < cx->next_timer)) {
        cx->have_timer = true;
        cx->next_timer = when;
    }
}

/* Tests the rule's condition and records what the test showed.  The
 * search finds the first solution in its order (ids ascending, an or's
 * branches in turn); a rule that held earlier in this event, and that
 * no change since can have given an earlier solution (unresume), is
 * searched from the choices of the solution it found then: the same
 * first solution, without trying again the choices before it.  When
 * it now fails, it is known false as if tested in full. */
static bool test_rule(Engine *e, RuleEntry *re, Ctx *cx)
{
    bool have = cx->have_timer, first_held = true;
    int64_t when = cx->next_timer;
    cx->have_timer = false;
    Choices ch;
    bool resumed = e->resuming && re->resume;
    if (e->resuming) {
        ch.from = resumed ? re->path : NULL;
        ch.nfrom = resumed ? re->npath : 0;
        cx->choices = &ch;
    }
    bool held = eval_cond_goals(cx, re->goals, &first_held);
    cx->choices = NULL;
    re->resume = e->resuming && held && !cx->failed && ch.nfound >= 0 && !re->deps->timed && !re->deps->always;
    if (re->resume) {
        re->npath = ch.nfound;
        memcpy(re->path, ch.found, (size_t)ch.nfound * sizeof *ch.found);
    }
    /* the first conjunct's choices before the path were not tried: does
     * it have a solution?  (first_empty must be what a full test says) */
    if (resumed && !held && !cx->failed && re->deps->seedable[0]) {
        cx->choices = NULL;
        first_held = eval_conjunction(cx, re->deps->conj, 1, &first_held);
    }
    re->have_timer = cx->have_timer;
    assert(!re->have_timer || re->deps->timed); /* (run_immediate merges timers through next_timed) */
    re->timer = cx->next_timer;
    merge_timer(cx, have, when);
    re->known_false = !held && !cx->failed && !re->deps->always;
    re->first_empty = re->known_false && !first_held && re->deps->seedable[0];
    re->stale = false;
    re->nseeds = 0;
    note_passable(e, re);
    return held;
}

/* The change c concerns read r of a rule that held: can it have given
 * the rule a solution before the one it found?  Not when it is the
 * deletion of a candidate of a plain positive conjunct, or leaves the
 * object no candidate of it: those only take solutions away. */
static void unresume(const Engine *e, RuleEntry *re, const Interest *in, const Change *c)
{
    assert(!re->deps->timed); /* (test_rule: so in->seeds is all of the test) */
    if (in->seeds &&
        (c->kind == CHANGE_DELETE || !deps_may_match(&re->deps->reads[in->read], pool_get(e->pool, c->id))))
        return;
    re->resume = false;
}

/* mark's end: the object c changed is a seed of read r (at index `read`)
 * if it has the read's keys. */
static void mark_seed(Engine *e, RuleEntry *re, const Read *r, int read, const Change *c)
{
    re->looked_drain = e->drains;
    re->looked_read = read;
    re->looked_id = c->id;
    if (!deps_may_match(r, pool_get(e->pool, c->id))) return;
    if (re->nseeds && re->seeds[re->nseeds - 1].conj == r->conj && re->seeds[re->nseeds - 1].id == c->id) return;
    GROW(re->seeds, re->nseeds, re->seedcap);
    re->seeds[re->nseeds++] = (Seed){r->conj, c->id};
    e->passable[re->at] = false;
}

/* The change c concerns read `read` of rule `rule`: note it.  Only drain
 * calls it, through the index (index_reads), whose keys already say that
 * the change is relevant to the read (deps_relevant): an attribute the
 * read asks for, on an object of its type or of any type for an untyped
 * read; a type the object had or has; any create or delete for an
 * untyped read.  (Inlined in its loops: a change concerns a few reads
 * each, a vote's move about sixty in all, and most of them end in the
 * tests here.) */
static inline __attribute__((always_inline)) void mark(Engine *e, const Interest *in, const Change *c)
{
    RuleEntry *re = &e->rules[in->rule];
    assert(deps_relevant(&re->deps->reads[in->read], c));
    if (re->resume) unresume(e, re, in, c);
    if (!re->known_false || re->stale) return;
    if (re->first_empty && in->conj != 0) return; /* nothing passes the first conjunct */
    if (!in->seeds || re->nseeds == MAX_SEEDS) {
        re->stale = true;
        e->passable[in->rule] = false;
        return;
    }
    /* a deleted object is nobody's candidate, nor one without the keys */
    if (c->kind == CHANGE_DELETE) return;
    if (re->looked_drain == e->drains && re->looked_read == in->read && re->looked_id == c->id) return;
    mark_seed(e, re, &re->deps->reads[in->read], in->read, c);
}

/* A change can tell a rule nothing: it is not resuming a solution, and
 * it is to be tested anyway (not known false, or stale).  mark would
 * return at once; many of the reads a change concerns are such rules'
 * (those that held, or wait for a full test), so the loops pass them
 * over on these three flags. */
static inline bool mark_moot(const RuleEntry *re) { return !re->resume && (!re->known_false || re->stale); }

static void mark_span(Engine *e, const Interest *a, const InterestSpan *sp, const Change *c)
{
    for (int i = sp->lo, end = sp->lo + sp->n; i < end; i++)
        if (!mark_moot(&e->rules[a[i].rule])) mark(e, &a[i], c);
}

/* (Inlined in drain: a change concerns no read under many of its keys,
 * and then the lookup is all there is to do.) */
static inline __attribute__((always_inline)) void mark_all(Engine *e, const Interest *a, const InterestSpans *t,
                                                           uint64_t key, const Change *c)
{
    if (!t->slot) return; /* no rules indexed yet */
    const InterestSpan *sp = span_slot(t, key);
    if (sp->n) mark_span(e, a, sp, c);
}

/* Untyped reads see creates as well as deletes. */
static void mark_untyped(Engine *e, const Change *c)
{
    for (int k = 0; k < e->nuntyped; k++)
        if (!mark_moot(&e->rules[e->untyped[k].rule])) mark(e, &e->untyped[k], c);
}

/* A change of type concerns the typed reads of the type it had and of
 * the type it has now (deps_relevant), and no others. */
static void mark_type_change(Engine *e, const Change *c)
{
    Sym now = sym_canon(c->type), before = sym_canon(c->old);
    mark_all(e, e->by_type, &e->type_spans, now, c);
    if (before != now && c->old != SYM_EMPTY) mark_all(e, e->by_type, &e->type_spans, before, c);
}

/* Takes the pool's changes since the last drain and marks the rules they
 * may concern.  If the pool did not record them all, nothing is known. */
static void drain(Engine *e)
{
    ChangeList *l = &e->pool->changes;
    if (!l->on || l->lost) {
        forget_all(e);
        l->on = true;
        l->lost = false;
        l->len = 0;
        return;
    }
    if (l->len) e->drains++;
    for (size_t i = 0; i < l->len; i++) {
        const Change *c = &l->c[i];
        switch (c->kind) {
        case CHANGE_SET:
            if (e->untyped_names & name_bit(c->name)) /* (most names have no untyped read) */
                mark_all(e, e->by_attr, &e->attr_spans, attr_key(c->name, SYM_EMPTY), c);
            if (sym_canon(c->type) != SYM_EMPTY)
                mark_all(e, e->by_attr, &e->attr_spans, attr_key(c->name, sym_canon(c->type)), c);
            if (c->name == SYM_type) mark_type_change(e, c);
            break;
        case CHANGE_DELETE:
            mark_all(e, e->by_type, &e->type_spans, sym_canon(c->type), c);
            mark_untyped(e, c);
            break;
        case CHANGE_CREATE:
            mark_untyped(e, c);
            break;
        }
    }
    l->len = 0;
}

static int cmp_seed(const void *x, const void *y)
{
    const Seed *a = x, *b = y;
    if (a->conj != b->conj) return a->conj < b->conj ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Can the rule's condition hold now?  No only when it was false when last
 * tested and no change since can have made it true (lang_deps.h). */
static bool may_hold(Engine *e, RuleEntry *re, Ctx *cx)
{
    if (!re->known_false || re->stale || e->exhaustive) return true;
    if (!re->nseeds) return false;
    qsort(re->seeds, (size_t)re->nseeds, sizeof *re->seeds, cmp_seed);
    ObjId ids[MAX_SEEDS];
    bool held = false;
    for (int i = 0; i < re->nseeds && !held && !cx->failed;) {
        int conj = re->seeds[i].conj, n = 0;
        for (; i < re->nseeds && re->seeds[i].conj == conj; i++)
            if (!n || ids[n - 1] != re->seeds[i].id) ids[n++] = re->seeds[i].id;
        held = eval_condition_seeded(cx, re->deps->conj, re->deps->nconj, conj, ids, n);
    }
    re->nseeds = 0;
    note_passable(e, re);
    re->first_empty = false; /* a seed may have given it a solution */
    if (cx->failed) {
        /* let the full test meet the error and report it (unless the
         * meter tripped: then the event stops here) */
        if (!cx->meter.tripped) cx->failed = false;
        return true;
    }
    return held;
}

static int cmp_entry_id(const void *x, const void *y)
{
    const RuleEntry *a = *(RuleEntry *const *)x, *b = *(RuleEntry *const *)y;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The entry of rule `id` among the old ones sorted by id, or NULL. */
static RuleEntry *old_entry(RuleEntry **by_id, int n, ObjId id)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (by_id[mid]->id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && by_id[lo]->id == id ? by_id[lo] : NULL;
}

/* Rebuilds the run order, reusing the compiled form of unchanged rules.
 * Unless keep_knowledge, what was known about the rules is dropped: the
 * pool may have been replaced or rolled back.  Returns the bytes of rule
 * text it had to compile. */
static size_t rebuild(Engine *e, bool keep_knowledge)
{
    size_t compiled = 0;
    if (keep_knowledge) {
        drain(e);
    } else {
        ChangeList *l = &e->pool->changes;
        l->len = 0;
        l->on = true;
        l->lost = false;
    }
    read_settings(e);
    /* the places change: what reach says is written into the rules */
    for (int i = 0; i < e->reach && i < e->nrules; i++) e->rules[i].met = e->events;
    e->reach = 0;
    RuleEntry *old = e->rules;
    int nold = e->nrules;
    e->rules = NULL;
    e->nrules = e->rulecap = 0;
    RuleEntry **by_id = xmalloc((size_t)(nold ? nold : 1) * sizeof *by_id);
    for (int k = 0; k < nold; k++) by_id[k] = &old[k];
    if (nold) qsort(by_id, (size_t)nold, sizeof *by_id, cmp_entry_id);
    const IdSet *s = pool_lookup(e->pool, SYM_type, e->run_type);
    IDSET_FOREACH (s, oid) {
        if (engine_is_suspended(e, oid)) continue; /* set aside: as if it were not a rule */
        const Obj *o = pool_get(e->pool, oid);
        RuleEntry r = {.id = o->id, .order = obj_get(o, SYM_ruleOrder), .cond = obj_get(o, SYM_if),
                       .then = obj_get(o, SYM_then), .norestart = obj_get(o, SYM_noRestart) == SYM_T};
        RuleEntry *was = old_entry(by_id, nold, r.id);
        if (was && was->cond == r.cond && was->then == r.then && (was->prog || was->error)) {
            /* the same rule: keep its compiled form and what is known */
            r.prog = was->prog;
            r.error = was->error;
            r.deps = was->deps;
            r.goals = was->goals;
            r.seeds = was->seeds;
            r.nseeds = was->nseeds;
            r.seedcap = was->seedcap;
            r.known_false = keep_knowledge && was->known_false;
            r.stale = was->stale;
            r.first_empty = was->first_empty;
            r.have_timer = was->have_timer;
            r.timer = was->timer;
            r.met = was->met;
            *was = (RuleEntry){0};
        }
        if (!r.prog && !r.error) {
            compiled += sym_len(r.cond) + sym_len(r.then);
            Diags d = {0};
            ParseError pe;
            if (r.cond == SYM_EMPTY) r.error = xstrdup("it has no if");
            else if (r.then == SYM_EMPTY) r.error = xstrdup("it has no then");
            else if (!(r.prog = rule_compile(r.cond, r.then, &d, &pe)))
                r.error = describe_parse_error(pe.part == PART_THEN ? "then" : "if", &pe);
            else if (d.nerrors) {
                for (int k = 0; k < d.n; k++)
                    if (d.d[k].error) {
                        Buf b = {0};
                        buf_printf(&b, "%s %d:%d: %s", d.d[k].part == PART_THEN ? "then" : "if", d.d[k].line, d.d[k].col, d.d[k].msg);
                        r.error = buf_take(&b);
                        break;
                    }
                prog_free(r.prog);
                r.prog = NULL;
            }
            diags_free(&d);
        }
        if (!sym_is_number(r.order) && !r.error) {
            Buf b = {0};
            buf_printf(&b, "its ruleOrder \"%s\" is not a number", sym_text(r.order));
            r.error = buf_take(&b);
        }
        if (r.prog && !r.deps) {
            r.deps = deps_analyse(r.prog);
            r.goals = cond_goals_new(r.deps->conj, r.deps->nconj);
        }
        if (r.prog && r.prog->nvars > e->nvars_cap) {
            e->nvars_cap = r.prog->nvars * 2;
            e->vars = xrealloc(e->vars, (size_t)e->nvars_cap * sizeof *e->vars);
        }
        GROW(e->rules, e->nrules, e->rulecap);
        e->rules[e->nrules++] = r;
    }
    for (int k = 0; k < nold; k++) free_entry(&old[k]);
    free(old);
    free(by_id);
    /* rules whose order is not a number sort last; they never fire */
    if (e->nrules) qsort(e->rules, (size_t)e->nrules, sizeof *e->rules, cmp_rules);
    index_reads(e);
    list_timed(e);
    place_rules(e);
    e->dirty = false;
    return compiled;
}

int engine_rules(Engine *e, RuleInfo **out)
{
    if (e->dirty) rebuild(e, false);
    *out = xcalloc((size_t)(e->nrules + e->nsuspended + 1), sizeof **out);
    for (int i = 0; i < e->nrules; i++)
        (*out)[i] = (RuleInfo){e->rules[i].id, e->rules[i].order, e->rules[i].error, e->rules[i].cond, e->rules[i].prog,
                               e->rules[i].deps};
    int n = e->nrules;
    for (int i = 0; i < e->nsuspended; i++) {
        const Obj *o = pool_get(e->pool, e->suspended[i]);
        if (!o || obj_get(o, SYM_type) != e->run_type) continue; /* deleted (or no longer a rule) meanwhile */
        (*out)[n++] = (RuleInfo){.id = o->id, .order = obj_get(o, SYM_ruleOrder), .cond = obj_get(o, SYM_if),
                                 .suspended = true};
    }
    return n;
}

int engine_false_rules(const Engine *e, int64_t now, ObjId *out)
{
    const ChangeList *l = &e->pool->changes;
    if (e->dirty || !e->have_now || e->now != now || l->len || l->lost)
        return 0; /* nothing known, the clock moved, or changes not yet marked */
    int n = 0;
    for (int i = 0; i < e->nrules; i++) {
        const RuleEntry *re = &e->rules[i];
        if (re->prog && re->known_false && !re->stale && !re->nseeds) out[n++] = re->id;
    }
    return n;
}

static int cmp_ids(const void *x, const void *y)
{
    ObjId a = *(const ObjId *)x, b = *(const ObjId *)y;
    return a < b ? -1 : a > b;
}

void engine_set_suspended(Engine *e, const ObjId *ids, int n)
{
    free(e->suspended);
    e->suspended = n ? xmalloc((size_t)n * sizeof *ids) : NULL;
    if (n) memcpy(e->suspended, ids, (size_t)n * sizeof *ids);
    e->nsuspended = n;
    if (n) qsort(e->suspended, (size_t)n, sizeof *ids, cmp_ids);
    e->dirty = true; /* the run order changes */
}

bool engine_is_suspended(const Engine *e, ObjId id)
{
    return e->nsuspended && bsearch(&id, e->suspended, (size_t)e->nsuspended, sizeof id, cmp_ids);
}

/* obj_get(o, SYM_type): attributes sort by Sym, and type's is one of the
 * first texts interned, so it is almost always the first attribute. */
static Sym obj_type(const Obj *o)
{
    return obj_n(o) && obj_name(o, 0) == SYM_type ? obj_value(o, 0) : obj_get(o, SYM_type);
}

/* Did the changes in undo[from, to) touch a rule or the settings? */
static bool touches_rules(Engine *e, size_t from, size_t to)
{
    const Pool *p = e->pool;
    for (size_t i = from; i < to; i++) {
        const Undo *u = &p->undo[i];
        if (u->kind == UNDO_DELETE) {
            Sym t = obj_type(u->saved);
            if (t == e->run_type || t == SYM_engineSettings) return true;
        } else if (u->kind == UNDO_SET) {
            if (u->name == SYM_type &&
                (u->old == e->run_type || u->new == e->run_type || u->old == SYM_engineSettings ||
                 u->new == SYM_engineSettings))
                return true;
            const Obj *o = pool_get(p, u->id);
            Sym t = o ? obj_type(o) : SYM_EMPTY;
            if (t == SYM_engineSettings) return true;
            if (t == e->run_type && (u->name == SYM_ruleOrder || u->name == SYM_if || u->name == SYM_then ||
                                     u->name == SYM_noRestart))
                return true;
        }
    }
    return false;
}

void engine_mark_syms(const Engine *e)
{
    for (int i = 0; i < e->nrules; i++) {
        const RuleEntry *r = &e->rules[i];
        sym_mark(r->order);
        sym_mark(r->cond);
        sym_mark(r->then);
        prog_mark_syms(r->prog);
        for (int k = 0; r->deps && k < r->deps->nreads; k++) {
            sym_mark(r->deps->reads[k].type);
            for (int a = 0; a < r->deps->reads[k].nattrs; a++) sym_mark(r->deps->reads[k].attrs[a]);
        }
    }
    for (int i = 0; i < e->nby_attr; i++) sym_mark((Sym)(e->by_attr[i].key >> 32)), sym_mark((Sym)e->by_attr[i].key);
    for (int i = 0; i < e->nby_type; i++) sym_mark((Sym)e->by_type[i].key);
    sym_mark(e->run_type);
    sym_mark(e->private_attrs);
    for (size_t i = 0; i < e->queue.len; i++) {
        sym_mark(e->queue.m[i].to);
        sym_mark(e->queue.m[i].text);
    }
}

/* ---- seen states ---- */

/* The states seen during one event: their hashes, each with the undo mark
 * at which the pool was in that state.  A hash is only a candidate: two
 * entries may share one (a collision), and a repeat is confirmed from the
 * undo records since the mark (state_repeated). */
typedef struct SeenState {
    uint64_t h; /* 0: empty slot */
    size_t mark;
} SeenState;

#define SEEN_FIRST 16
#define SEEN_KEPT_MAX (1u << 16) /* the largest table an engine keeps: 1 MiB */

typedef struct Seen {
    SeenState *s; /* `first` while the event has seen few states, then allocated */
    size_t cap, len;
    SeenState first[SEEN_FIRST];
    Engine *e; /* whose kept table (Engine.seen_kept) a large event takes */
} Seen;

/* Small at first and on the stack: most events see a few states, and a
 * zeroed table of 256 cost 3% of a short event (and its malloc, once the
 * table was small, 0.3% of Engine City's). */
static void seen_init(Seen *s, Engine *e)
{
    memset(s->first, 0, sizeof s->first);
    s->s = s->first;
    s->cap = SEEN_FIRST;
    s->len = 0;
    s->e = e;
}

/* A large event's table is kept for the next one, up to SEEN_KEPT_MAX
 * slots: an event that fires a rule a thousand times (a tally deleting
 * the votes) saw its table made nine times over, each time zeroed and
 * filled again (0.45% of Engine City's instructions). */
static void seen_free(Seen *s)
{
    if (s->s == s->first || s->s == s->e->seen_kept) return;
    if (s->cap > SEEN_KEPT_MAX) {
        free(s->s);
        return;
    }
    free(s->e->seen_kept);
    s->e->seen_kept = s->s;
    s->e->seen_kept_cap = s->cap;
}

/* A table of at least `cap` slots, zeroed: the kept one when it is large
 * enough and not in use, else a new one. */
static SeenState *seen_table(Seen *s, size_t *cap)
{
    Engine *e = s->e;
    if (e->seen_kept && e->seen_kept_cap >= *cap && s->s != e->seen_kept) {
        *cap = e->seen_kept_cap;
        return memset(e->seen_kept, 0, *cap * sizeof *e->seen_kept);
    }
    return xcalloc(*cap, sizeof(SeenState));
}

static void seen_insert(Seen *s, uint64_t h, size_t mark);

static void seen_grow(Seen *s)
{
    SeenState *old = s->s;
    size_t oldcap = s->cap;
    s->cap *= 2;
    s->s = seen_table(s, &s->cap);
    s->len = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].h) seen_insert(s, old[i].h, old[i].mark);
    if (old == s->first) return;
    if (old == s->e->seen_kept) s->e->seen_kept = NULL; /* outgrown: the larger one is kept */
    free(old);
}

static void seen_insert(Seen *s, uint64_t h, size_t mark)
{
    if ((s->len + 1) * 2 > s->cap) seen_grow(s);
    size_t m = s->cap - 1;
    size_t i = h & m;
    while (s->s[i].h) i = (i + 1) & m;
    s->s[i] = (SeenState){h, mark};
    s->len++;
}

/* Whether the pool is in a state seen before; if not, remembers it.  Only
 * on a hash match does it look at the states themselves. */
static bool seen_add(Seen *s, Pool *p)
{
    uint64_t h = p->state_hash ? p->state_hash : 1;
    for (size_t m = s->cap - 1, i = h & m; s->s[i].h; i = (i + 1) & m)
        if (s->s[i].h == h && pool_unchanged_since(p, s->s[i].mark)) return true;
    seen_insert(s, h, pool_mark(p));
    return false;
}

/* ---- the cycle ---- */

typedef enum { HELD_NOT, FIRED_SAME, FIRED_CHANGED, RAN_AWAY } Fired;

/* The event went over its budget in a rule: the run stops, and the
 * caller rolls the whole event back. */
static Fired ran_away(Engine *e, ObjId rule, Sym order, Ctx *cx, EventRun *r)
{
    r->status = RUN_RUNAWAY;
    if (!cx->meter.tripped) {
        snprintf(r->message, sizeof r->message,
                 "the rules did not settle within maxSteps (%ld firings) and no state repeated; "
                 "the whole event was undone",
                 e->limit[LIMIT_STEPS]);
        return RAN_AWAY;
    }
    const Limit *l = &limits[0];
    while (strcmp(l->setting, cx->meter.tripped) != 0) l++;
    if (cx->meter.first_tripped) {
        snprintf(r->message, sizeof r->message,
                 "rule %u (ruleOrder %s) took the event's first look at the rules past %d times %s (%ld %s, "
                 "engineSettings); the whole event was undone",
                 rule, sym_text(order), FIRST_LOOK, l->setting, e->limit[l - limits], l->what);
        return RAN_AWAY;
    }
    snprintf(r->message, sizeof r->message,
             "rule %u (ruleOrder %s) took the event past %s (%ld %s, engineSettings); the whole event was undone",
             rule, sym_text(order), l->setting, e->limit[l - limits], l->what);
    return RAN_AWAY;
}

/* Tests one rule and, if it holds, runs its then; the changes it made are
 * the pool's undo records from *umark on. */
/* Budgets replay.  A process that ran the events before this one knows
 * which rules were false and skips them; a fresh one (the command line)
 * knows nothing and tests each rule in full the first time the event
 * meets it.  Were those first tests charged to the event, its verdict at
 * a budget on the edge would depend on what the process ran before (a
 * server, a replay, a search, a report).  So the first meeting of each
 * rule in an event is either skipped (known false, nothing it reads
 * changed since its last full test) or tested in full, and a full test
 * then is charged apart, to the event's allowance for its first look at
 * the rules (Meter.first_work).  Every later test and every firing is
 * charged to the event, and there a fresh and a warm process do the same
 * work.  The first look has an allowance of its own, FIRST_LOOK times
 * the event's maxWork and maxMemory (within their ceilings): a fresh
 * process looks at more than a warm one, so an allowance as tight as the
 * event's would make the verdict of an event at its budget's edge depend
 * on the process again.  Only a first look past that allowance, which a
 * warm process may not have made whole, can still part them
 * (docs/limits.md).  Returns whether this is
 * the first meeting; *skip: it is, and the rule is known false. */
static bool first_meeting(Engine *e, RuleEntry *re, bool *skip)
{
    *skip = false;
    if (re->met == e->events || re->at < e->reach) return false;
    re->met = e->events;
    if (re->at == e->reach) e->reach = re->at + 1;
    *skip = passable(re) && !e->exhaustive;
    return true;
}

static uint64_t first_look_max(uint64_t event_max, int limit)
{
    uint64_t ceiling = (uint64_t)limits[limit].ceiling;
    return event_max >= ceiling / FIRST_LOOK ? ceiling : FIRST_LOOK * event_max;
}

/* The full test of a rule's first meeting, on the first look's allowance. */
static bool test_first(Engine *e, RuleEntry *re, Ctx *cx)
{
    Meter *m = &cx->meter;
    Meter event = *m;
    m->work = m->first_work;
    m->memory = m->first_memory;
    m->work_max = first_look_max(m->work_max, LIMIT_WORK);
    m->memory_max = first_look_max(m->memory_max, LIMIT_MEMORY);
    bool held = test_rule(e, re, cx);
    event.first_work = m->work;
    event.first_memory = m->memory;
    event.tripped = m->tripped;
    event.first_tripped = m->tripped != NULL;
    *m = event;
    return held;
}

static Fired try_rule(Engine *e, RuleEntry *re, Ctx *cx, EventRun *r, size_t *umark)
{
    Pool *p = e->pool;
    cx->prog = re->prog;
    cx->vars = e->vars;
    cx->private_attrs = e->private_attrs;
    cx->failed = false;
    const ChangeList *l = &p->changes;
    if (l->len || !l->on || l->lost) drain(e); /* else it has nothing to do */
    bool skip, first = first_meeting(e, re, &skip);
    if (first && !skip) {
        re->nseeds = 0; /* tested in full below */
        note_passable(e, re);
    }
    bool may = !skip && (first || may_hold(e, re, cx));
    if (!cx->meter.tripped && !may) {
        merge_timer(cx, re->have_timer, re->timer); /* as its test would */
        return HELD_NOT;
    }
    if (cx->meter.tripped || !(first ? test_first(e, re, cx) : test_rule(e, re, cx))) {
        if (cx->meter.tripped) {
            size_t m = pool_mark(p);
            trace_firing(e, r, re->id, re->order, re->prog, m, m, r->sent.len, e->queue.len, false, cx->error);
            return ran_away(e, re->id, re->order, cx, r);
        }
        if (cx->failed && e->trace_on && r->trace.len <= TRACE_MAX)
            buf_printf(&r->trace, "rule %u: its if stopped: %s\n", re->id, cx->error);
        return HELD_NOT;
    }
    *umark = pool_mark(p);
    size_t qmark = e->queue.len, smark = r->sent.len;
    bool halt_before = cx->halt;
    eval_then(cx);
    r->firings++;
    if (cx->meter.tripped) {
        trace_firing(e, r, re->id, re->order, re->prog, *umark, *umark, smark, qmark, false, cx->error);
        return ran_away(e, re->id, re->order, cx, r);
    }
    if (cx->failed) {
        /* a run-time error undoes whatever this then had done */
        pool_undo_to(p, *umark);
        msg_truncate(&e->queue, qmark);
        msg_truncate(&r->sent, smark);
        cx->halt = halt_before;
        char err[360];
        snprintf(err, sizeof err, "run-time error: %s", cx->error);
        trace_firing(e, r, re->id, re->order, re->prog, *umark, *umark, smark, qmark, false, err);
        return FIRED_SAME;
    }
    size_t uend = pool_mark(p);
    bool changed = uend > *umark;
    trace_firing(e, r, re->id, re->order, re->prog, *umark, uend, smark, qmark, changed, NULL);
    if (e->hook) e->hook(e->hook_ud, re->id, re->prog, e->vars, changed);
    if (changed) r->changing_firings++;
    /* a changed state is remembered for the loop check */
    if (r->firings > e->limit[LIMIT_STEPS] || (changed && !meter_memory(cx, 32))) return ran_away(e, re->id, re->order, cx, r);
    return changed ? FIRED_CHANGED : FIRED_SAME;
}

/* A firing changed rules or the settings: the order is rebuilt and the
 * new rules compiled, at the event's expense, so that a rule creating
 * rules pays for what each creation costs the engine.  False when that
 * trips the meter (the run is then over). */
static bool rebuild_metered(Engine *e, Ctx *cx, EventRun *r, ObjId fired)
{
    Sym order = SYM_EMPTY;
    for (int i = 0; i < e->nrules; i++)
        if (e->rules[i].id == fired) order = e->rules[i].order;
    size_t compiled = rebuild(e, true);
    if (meter_work(cx, 4 * (uint64_t)e->nrules + compiled) && meter_memory(cx, 64 * (uint64_t)compiled)) return true;
    ran_away(e, fired, order, cx, r);
    return false;
}

static bool state_repeated(Seen *seen, Pool *p, EventRun *r, ObjId last)
{
    if (!seen_add(seen, p)) return false;
    r->status = RUN_LOOP;
    snprintf(r->message, sizeof r->message,
             "the game state repeated within one event (rule %u fired last): a verifiable loop", last);
    return true;
}

static void report_broken_rules(const Engine *e, EventRun *r)
{
    if (e->trace_on) buf_add(&r->trace, e->settings_note.s ? e->settings_note.s : "", e->settings_note.len);
    for (int i = 0; i < e->nrules && e->trace_on; i++)
        if (e->rules[i].error) buf_printf(&r->trace, "rule %u cannot fire: %s\n", e->rules[i].id, e->rules[i].error);
}

/* try_rule's answer, without its work, for the rule most passes meet:
 * known false, and nothing changed since.  Met for the first time in
 * the event, it is skipped (first_meeting) as much as met already: the
 * caller notes the meeting. */
static bool known_still_false(const Engine *e, int at, const Ctx *cx)
{
    assert(e->passable[at] == passable(&e->rules[at]));
    return e->passable[at] && !e->pool->changes.len && e->pool->changes.on && !e->exhaustive && !cx->meter.tripped;
}

/* The first place from `at` on (at <= nrules) of a rule the pass loop
 * must look at, or nrules: eight places a step, on the bytes of
 * passable (a 0 after the last rule stops it). */
static int next_to_look_at(const Engine *e, int at)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL;
    for (;; at += 8) {
        uint64_t w;
        memcpy(&w, e->passable + at, sizeof w);
        uint64_t zero = ~w & ones; /* a bit at each place not passable */
        if (zero) return at + __builtin_ctzll(zero) / 8;
    }
#else
    while (e->passable[at]) at++;
    return at;
#endif
}

/* The pass loop passes over the rules at [from, to), all known still
 * false: each is met (first_meeting) and its timer counts, as if tested.
 * A pass begins at 0 and goes up, so the rules met in the event are
 * mostly those before e->reach, which then says it for them. */
static void pass_over(Engine *e, Ctx *cx, int from, int to)
{
    for (int i = from; i < to; i++) assert(passable(&e->rules[i]) && e->passable[i]);
    if (from <= e->reach) {
        if (to > e->reach) e->reach = to;
    } else {
        for (int i = from; i < to; i++) e->rules[i].met = e->events;
    }
    for (int t = e->next_timed[from]; t < to; t = e->next_timed[t + 1])
        merge_timer(cx, e->rules[t].have_timer, e->rules[t].timer);
}

/* Immediate evaluation: after a firing that changed the pool, start again
 * from the first rule (noRestart: re-test the same rule and go on); stop
 * after a pass that changes nothing. */
static void run_immediate(Engine *e, Ctx *cx, EventRun *r, Seen *seen)
{
    Pool *p = e->pool;
    cx->have_timer = false;
    for (int i = 0; i < e->nrules;) {
        RuleEntry *re = &e->rules[i];
        if (known_still_false(e, i, cx)) {
            /* and so are the rules after it whose own state says so: the
             * rest of known_still_false does not change while they are
             * passed over, so it is not read again */
            int to = next_to_look_at(e, i + 1);
            pass_over(e, cx, i, to);
            i = to;
            continue;
        }
        size_t umark;
        Fired f = re->prog ? try_rule(e, re, cx, r, &umark) : HELD_NOT;
        if (f == RAN_AWAY) return;
        if (f != FIRED_CHANGED) {
            i++;
            continue;
        }
        ObjId fired = re->id;
        bool norestart = re->norestart;
        if (state_repeated(seen, p, r, fired)) return;
        if (touches_rules(e, umark, pool_mark(p)) && !rebuild_metered(e, cx, r, fired)) return;
        if (norestart) {
            /* re-test the same rule (found again: the order may be new) */
            for (i = 0; i < e->nrules && e->rules[i].id != fired; i++) continue;
        } else {
            /* a restart begins a new pass, with its own timers */
            i = 0;
            cx->have_timer = false;
        }
    }
}

/* One change a firing made, kept to be applied at the end of a shadow pass. */
typedef struct Op {
    UndoKind kind;
    ObjId id;
    Sym name, value;
} Op;

/* evaluation: shadow.  Each pass tests and fires every rule against the pool
 * as it stood when the pass began: a firing's changes are recorded and
 * undone at once (the ids it created stay reserved), and all of them are
 * applied in rule order when the pass ends; passes repeat until one changes
 * nothing.  Two firings setting one attribute: the later rule's value
 * stays. */
static void run_shadow(Engine *e, Ctx *cx, EventRun *r, Seen *seen)
{
    Pool *p = e->pool;
    Op *ops = NULL;
    size_t nops = 0, cap = 0;
    for (;;) {
        cx->have_timer = false;
        nops = 0;
        ObjId last = 0;
        for (int i = 0; i < e->nrules; i++) {
            RuleEntry *re = &e->rules[i];
            size_t umark;
            Fired f = re->prog ? try_rule(e, re, cx, r, &umark) : HELD_NOT;
            if (f == RAN_AWAY) goto out;
            if (f != FIRED_CHANGED) continue;
            last = re->id;
            for (size_t k = umark; k < p->undo_len; k++) {
                const Undo *u = &p->undo[k];
                GROW(ops, nops, cap);
                ops[nops++] = (Op){u->kind, u->id, u->name, u->new};
            }
            ObjId reserved = p->next_id;
            pool_undo_to(p, umark);
            p->next_id = reserved;
        }
        size_t amark = pool_mark(p);
        for (size_t k = 0; k < nops; k++) {
            const Op *o = &ops[k];
            if (o->kind == UNDO_CREATE) pool_create_reserved(p, o->id);
            else if (o->kind == UNDO_DELETE) pool_delete(p, o->id);
            else pool_set(p, o->id, o->name, o->value);
        }
        if (pool_mark(p) == amark) break;
        if (state_repeated(seen, p, r, last)) break;
        if (touches_rules(e, amark, pool_mark(p)) && !rebuild_metered(e, cx, r, last)) break;
    }
out:
    free(ops);
}

void engine_meter_start(const Engine *e, Meter *m)
{
    *m = (Meter){.work_max = (uint64_t)e->limit[LIMIT_WORK],
                 .memory_max = (uint64_t)e->limit[LIMIT_MEMORY],
                 .deliveries_max = (uint64_t)e->limit[LIMIT_DELIVERIES],
                 .number_digits = e->limit[LIMIT_DIGITS],
                 /* log2(10) < 10/3: a number of d digits has fewer bits */
                 .number_bits = (uint64_t)e->limit[LIMIT_DIGITS] * 10 / 3 + 1};
}

/* The caps on the state an event leaves.  An event may leave the state
 * over a cap only if it did not make it grow there, so a game already over
 * one (a cap lowered by the rules) can still shrink.  The counts are the
 * pool's, kept per change; a value is checked among the event's own
 * assignments (the undo log), that are still in the state.  The caps are
 * those in force when the event began, as for the meter: an event that
 * changes them applies to the next. */
static void over_cap(Engine *e, EventRun *r)
{
    r->status = RUN_RUNAWAY;
    msg_truncate(&r->sent, 0); /* an event undone whole answers with its refusal only */
    if (e->trace_on) buf_printf(&r->trace, "%s\n", r->message);
}

static void count_over_cap(Engine *e, EventRun *r, const long *cap, size_t now, size_t before, int limit)
{
    snprintf(r->message, sizeof r->message,
             "the event would leave %zu %s (it began with %zu), above %s (%ld, engineSettings); the whole event was undone",
             now, limits[limit].what, before, limits[limit].setting, cap[limit]);
    over_cap(e, r);
}

static bool value_over_cap(Engine *e, EventRun *r, const long *caps)
{
    const Pool *p = e->pool;
    size_t cap = (size_t)caps[LIMIT_VALUE_BYTES];
    for (size_t k = 0; k < p->undo_len; k++) {
        const Undo *u = &p->undo[k];
        if (u->kind != UNDO_SET || sym_len(u->new) <= cap) continue;
        const Obj *o = pool_get(p, u->id);
        if (!o || obj_get(o, u->name) != u->new) continue;
        snprintf(r->message, sizeof r->message,
                 "the event would leave a value of %zu bytes in attribute %.100s of object %u, above %s (%ld %s, "
                 "engineSettings); the whole event was undone",
                 sym_len(u->new), sym_text(u->name), u->id, limits[LIMIT_VALUE_BYTES].setting,
                 caps[LIMIT_VALUE_BYTES], limits[LIMIT_VALUE_BYTES].what);
        over_cap(e, r);
        return true;
    }
    return false;
}

static void check_state_caps(Engine *e, EventRun *r, const long *cap)
{
    const Pool *p = e->pool;
    if (!p->logging || !p->undo_len) return; /* nothing changed, or nothing could be undone */
    PoolCounts now = pool_counts(p), before = pool_counts_base(p);
    if (now.objects > (size_t)cap[LIMIT_OBJECTS] && now.objects > before.objects)
        count_over_cap(e, r, cap, now.objects, before.objects, LIMIT_OBJECTS);
    else if (now.text_bytes > (size_t)cap[LIMIT_STATE_BYTES] && now.text_bytes > before.text_bytes)
        count_over_cap(e, r, cap, now.text_bytes, before.text_bytes, LIMIT_STATE_BYTES);
    else
        value_over_cap(e, r, cap);
}

void engine_run(Engine *e, int64_t now, EventRun *r)
{
    Pool *p = e->pool;
    memset(r, 0, sizeof *r);
    buf_putc(&r->trace_json, '[');
    if (e->dirty) rebuild(e, false);
    new_time(e, now);
    report_broken_rules(e, r);
    e->events++;
    e->reach = 0;
    /* what a rule's search may resume from is this event's alone: the
     * meter then charges a fresh process and a warm one alike */
    e->resuming = !e->shadow && !e->exhaustive;
    for (int i = 0; i < e->nrules; i++) e->rules[i].resume = false;
    Seen seen;
    seen_init(&seen, e);
    seen_add(&seen, p);
    Ctx cx = {.pool = p, .now = now, .created = e->created, .rng = e->rng, .queue = &e->queue, .sent = &r->sent,
              .mute_texts = e->mute_texts, .trail = e->trail, .trail_cap = e->trail_cap};
    e->trail = NULL; /* the run's while it runs */
    engine_meter_start(e, &cx.meter);
    long caps[NLIMITS]; /* the state's caps as the event began (a firing may change them) */
    memcpy(caps, e->limit, sizeof caps);
    if (e->shadow) run_shadow(e, &cx, r, &seen);
    else run_immediate(e, &cx, r, &seen);
    if (r->status == RUN_QUIET) check_state_caps(e, r, caps);
    r->used = cx.meter;
    if (r->status == RUN_RUNAWAY && e->trace_on) trace_shorten(r);
    if (r->trace_omitted && e->trace_on) {
        buf_printf(&r->trace, "... and %ld more firings, not shown: the trace keeps its first %u bytes\n", r->trace_omitted,
                   TRACE_MAX);
        if (r->trace_json.len > 1) buf_putc(&r->trace_json, ',');
        buf_printf(&r->trace_json, "{\"omitted\":%ld}", r->trace_omitted);
    }
    r->halt = cx.halt;
    r->have_timer = cx.have_timer;
    r->next_timer = cx.next_timer;
    buf_putc(&r->trace_json, ']');
    seen_free(&seen);
    e->trail = cx.trail;
    e->trail_cap = cx.trail_cap;
}

/* ---- what is known, kept across a rollback (engine.h) ---- */

typedef struct MemoRule {
    ObjId id;
    Sym cond, then;
    bool known_false, stale, first_empty, have_timer;
    int64_t timer;
    int seed0, nseeds; /* in the memo's seeds */
} MemoRule;

struct EngineMemo {
    bool dirty;
    MemoRule *r;
    int n, cap;
    Seed *seeds;
    int nseeds, seedcap;
    Change *changes;   /* the pool's changes not yet drained */
    size_t nchanges, changecap;
    bool changes_on, changes_lost;
    bool have_now;
    int64_t now;
    long limit[NLIMITS];
    bool shadow;
    Sym run_type, private_attrs;
};

EngineMemo *engine_memo_new(void) { return xcalloc(1, sizeof(EngineMemo)); }

void engine_memo_free(EngineMemo *m)
{
    if (!m) return;
    free(m->r);
    free(m->seeds);
    free(m->changes);
    free(m);
}

void engine_memo_save(const Engine *e, EngineMemo *m)
{
    m->dirty = e->dirty;
    m->n = m->nseeds = 0;
    m->nchanges = 0;
    if (e->dirty) return;
    for (int i = 0; i < e->nrules; i++) {
        const RuleEntry *re = &e->rules[i];
        GROW(m->r, m->n, m->cap);
        m->r[m->n++] = (MemoRule){re->id, re->cond, re->then, re->known_false, re->stale, re->first_empty,
                                  re->have_timer, re->timer, m->nseeds, re->nseeds};
        for (int k = 0; k < re->nseeds; k++) {
            GROW(m->seeds, m->nseeds, m->seedcap);
            m->seeds[m->nseeds++] = re->seeds[k];
        }
    }
    const ChangeList *l = &e->pool->changes;
    if (l->len > m->changecap) {
        m->changecap = l->len;
        m->changes = xrealloc(m->changes, m->changecap * sizeof *m->changes);
    }
    if (l->len) memcpy(m->changes, l->c, l->len * sizeof *l->c);
    m->nchanges = l->len;
    m->changes_on = l->on;
    m->changes_lost = l->lost;
    m->have_now = e->have_now;
    m->now = e->now;
    memcpy(m->limit, e->limit, sizeof m->limit);
    m->shadow = e->shadow;
    m->run_type = e->run_type;
    m->private_attrs = e->private_attrs;
}

static bool memo_matches(const Engine *e, const EngineMemo *m)
{
    if (e->dirty || e->nrules != m->n) return false;
    for (int i = 0; i < m->n; i++)
        if (e->rules[i].id != m->r[i].id || e->rules[i].cond != m->r[i].cond || e->rules[i].then != m->r[i].then)
            return false;
    return true;
}

void engine_memo_restore(Engine *e, const EngineMemo *m)
{
    if (m->dirty) {
        e->dirty = true;
        return;
    }
    /* the event changed the rules: compile them as they were again */
    if (!memo_matches(e, m)) rebuild(e, false);
    if (!memo_matches(e, m)) {
        e->dirty = true;
        return;
    }
    for (int i = 0; i < m->n; i++) {
        RuleEntry *re = &e->rules[i];
        const MemoRule *r = &m->r[i];
        re->known_false = r->known_false;
        re->stale = r->stale;
        re->first_empty = r->first_empty;
        re->have_timer = r->have_timer;
        re->timer = r->timer;
        re->nseeds = 0;
        for (int k = 0; k < r->nseeds; k++) {
            GROW(re->seeds, re->nseeds, re->seedcap);
            re->seeds[re->nseeds++] = m->seeds[r->seed0 + k];
        }
        note_passable(e, re);
    }
    ChangeList *l = &e->pool->changes;
    if (m->nchanges > l->cap) {
        l->cap = m->nchanges;
        l->c = xrealloc(l->c, l->cap * sizeof *l->c);
    }
    if (m->nchanges) memcpy(l->c, m->changes, m->nchanges * sizeof *l->c);
    l->len = m->nchanges;
    l->on = m->changes_on;
    l->lost = m->changes_lost;
    e->have_now = m->have_now;
    e->now = m->now;
    memcpy(e->limit, m->limit, sizeof e->limit);
    e->shadow = m->shadow;
    e->run_type = m->run_type;
    e->private_attrs = m->private_attrs;
}

void engine_memo_mark_syms(const EngineMemo *m)
{
    for (int i = 0; i < m->n; i++) sym_mark(m->r[i].cond), sym_mark(m->r[i].then);
    for (size_t i = 0; i < m->nchanges; i++) {
        sym_mark(m->changes[i].name);
        sym_mark(m->changes[i].old);
        sym_mark(m->changes[i].type);
    }
    sym_mark(m->run_type);
    sym_mark(m->private_attrs);
}
