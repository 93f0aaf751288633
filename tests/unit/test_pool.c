/*
 * test_pool.c - the object pool against a plain model: random creations,
 * deletions and settings (numbers written several ways, texts, removals),
 * objects made whole with their attributes,
 * then every invariant of pool.h checked from the outside: the posting
 * lists hold exactly the live objects with that value, "5" and "5.0"
 * share one, the range index knows every number, the running state hash is
 * the one computed afresh, the counts of objects and bytes the engine's
 * state caps read are the model's, and an undo to any mark gives back the
 * pool as it was, ids and counts included.  And privacy_blank, the viewer-scoped view that dry
 * runs play on, undone by the same log.
 */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool_privacy.h"

#define IDS 400     /* ids the model tracks */
#define NAMES 4
#define VALUES 8

static const char *names[NAMES] = {"type", "score", "owner", "note"};
/* "3" and "3.0" and "6/2" are one number; "x" and "" are texts ("" removes) */
static const char *values[VALUES] = {"3", "3.0", "6/2", "-1", "x", "10", "", "player"};

typedef struct Model {
    bool live[IDS];
    int val[IDS][NAMES]; /* index in values[], -1 when absent */
    ObjId next_id;
} Model;

static unsigned rng = 12345;
static unsigned roll(unsigned n)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 16) % n;
}

static void model_clear(Model *m, ObjId id)
{
    for (int a = 0; a < NAMES; a++) m->val[id][a] = -1;
}

/* Does value index v of the model equal `text` as the language compares? */
static bool same_value(int v, const char *text)
{
    return v >= 0 && val_eq(sym_cstr(values[v]), sym_cstr(text));
}

static void check_against(const Pool *p, const Model *m)
{
    size_t live = 0, bytes = 0;
    for (ObjId id = 1; id < IDS; id++) {
        const Obj *o = pool_get(p, id);
        assert_int_equal(o != NULL, m->live[id]);
        if (!o) continue;
        live++;
        for (int a = 0; a < NAMES; a++) {
            Sym got = obj_get(o, sym_cstr(names[a]));
            int v = m->val[id][a];
            if (v < 0 || !*values[v]) assert_string_equal(sym_text(got), "");
            else assert_string_equal(sym_text(got), values[v]);
            if (v >= 0 && *values[v]) bytes += strlen(names[a]) + strlen(values[v]);
        }
    }
    assert_int_equal(pool_size(p), live);
    assert_int_equal(pool_counts(p).objects, live);
    assert_int_equal(pool_counts(p).text_bytes, bytes);
    assert_int_equal(p->next_id, m->next_id);
    /* every (name, value) lookup holds exactly the model's objects */
    for (int a = 0; a < NAMES; a++)
        for (int v = 0; v < VALUES; v++) {
            if (!*values[v]) continue;
            const IdSet *s = pool_lookup(p, sym_cstr(names[a]), sym_cstr(values[v]));
            for (ObjId id = 1; id < IDS; id++) {
                bool want = m->live[id] && same_value(m->val[id][a], values[v]);
                assert_int_equal(s != NULL && idset_has(s, id), want);
            }
            /* a number held now is in the range index of its name */
            if (s && s->live && sym_is_number(sym_cstr(values[v]))) {
                const RangeIndex *r = pool_range_index(p, sym_cstr(names[a]));
                assert_non_null(r);
                bool found = false;
                for (uint32_t i = 0; i < r->n; i++)
                    found |= num_cmp(r->nums[i], sym_cstr(values[v])) == 0;
                assert_true(found);
            }
        }
    /* an object's names are its shape's, sorted, and objects with the
     * same names share one shape (those with others do not) */
    for (ObjId id = 1; id < IDS; id++) {
        const Obj *o = pool_get(p, id);
        if (!o) continue;
        uint32_t n = 0;
        for (int a = 0; a < NAMES; a++) n += m->val[id][a] >= 0 && *values[m->val[id][a]];
        assert_int_equal(obj_n(o), n);
        for (uint32_t k = 1; k < n; k++) assert_true(obj_name(o, k - 1) < obj_name(o, k));
        for (ObjId other = 1; other < id; other++) {
            const Obj *x = pool_get(p, other);
            if (!x) continue;
            bool same_names = true;
            for (int a = 0; a < NAMES; a++)
                same_names &= (m->val[id][a] >= 0 && *values[m->val[id][a]]) ==
                              (m->val[other][a] >= 0 && *values[m->val[other][a]]);
            assert_int_equal(o->shape == x->shape, same_names);
        }
    }
    /* the running hash is the hash computed afresh (setting the same key
     * again recomputes it from the objects) */
    Pool *q = (Pool *)p;
    uint64_t running = q->state_hash;
    pool_set_hash_key(q, q->hash_key, q->hash_version);
    assert_true(running == q->state_hash);
}

static void random_change(Pool *p, Model *m)
{
    unsigned what = roll(10);
    if (what == 0 && m->next_id < IDS) {
        ObjId id = pool_create(p);
        assert_int_equal(id, m->next_id);
        m->next_id++;
        m->live[id] = true;
        model_clear(m, id);
        return;
    }
    if (what == 2 && m->next_id < IDS) {
        /* made whole (a move): names given twice, "" and objectId among
         * them, as the pool_set of each in turn would leave them */
        Attr a[8];
        uint32_t n = roll(9);
        ObjId id = m->next_id;
        m->live[id] = true;
        model_clear(m, id);
        for (uint32_t k = 0; k < n; k++) {
            if (roll(8) == 0) {
                a[k] = (Attr){SYM_objectId, sym_cstr("7")};
                continue;
            }
            int at = (int)roll(NAMES), v = (int)roll(VALUES);
            a[k] = (Attr){sym_cstr(names[at]), sym_cstr(values[v])};
            m->val[id][at] = *values[v] ? v : -1;
        }
        assert_int_equal(pool_create_with(p, a, n), id);
        m->next_id++;
        return;
    }
    ObjId id = 1 + roll(m->next_id > 1 ? m->next_id - 1 : 1);
    if (what == 1) {
        assert_int_equal(pool_delete(p, id), m->live[id]);
        m->live[id] = false;
        return;
    }
    if (!m->live[id]) return;
    int a = (int)roll(NAMES), v = (int)roll(VALUES);
    int old = m->val[id][a];
    bool changes = (old < 0 || !*values[old]) ? *values[v] != 0 : strcmp(values[old], values[v]) != 0;
    assert_int_equal(pool_set(p, id, sym_cstr(names[a]), sym_cstr(values[v])), changes);
    m->val[id][a] = *values[v] ? v : -1;
}

static void random_changes_keep_the_invariants(void **state)
{
    Pool *p = pool_new();
    static Model m;
    memset(&m, 0, sizeof m);
    m.next_id = 1;
    for (int round = 0; round < 20000; round++) {
        random_change(p, &m);
        if (round % 1000 == 999) {
            check_against(p, &m);
            pool_compact(p); /* emptied lists go; nothing live may */
            check_against(p, &m);
        }
    }
    check_against(p, &m);
    pool_free(p);
}

/* Undo to a mark restores the pool exactly, and pool_unchanged_since sees
 * a real return to a state (and only that) whatever the hash says. */
static void undo_restores_exactly(void **state)
{
    Pool *p = pool_new();
    static Model m, before;
    memset(&m, 0, sizeof m);
    m.next_id = 1;
    for (int i = 0; i < 3000; i++) random_change(p, &m);
    uint64_t key[2] = {1, 2};
    pool_set_hash_key(p, key, POOL_HASH_VERSION);
    for (int trial = 0; trial < 20; trial++) {
        before = m;
        uint64_t hash = p->state_hash;
        p->logging = true;
        size_t mark = pool_mark(p);
        assert_true(pool_unchanged_since(p, mark));
        PoolCounts start = pool_counts(p);
        for (int i = 0; i < 200; i++) random_change(p, &m);
        check_against(p, &m);
        /* the counts the event began with, for the caps' "did it grow" */
        assert_int_equal(pool_counts_base(p).objects, start.objects);
        assert_int_equal(pool_counts_base(p).text_bytes, start.text_bytes);
        pool_undo_to(p, mark);
        assert_int_equal(pool_counts(p).text_bytes, start.text_bytes);
        assert_true(pool_unchanged_since(p, mark));
        assert_true(p->state_hash == hash);
        check_against(p, &before);
        m = before;
        pool_forget_undo(p);
        p->logging = false;
    }
    pool_free(p);
}

/* Setting a value and setting it back is a return to the same state, and
 * so is an object made and deleted again; any real difference is seen. */
static void unchanged_since_sees_a_real_difference(void **state)
{
    Pool *p = pool_new();
    ObjId id = pool_create(p);
    pool_set(p, id, SYM_type, sym_cstr("light"));
    p->logging = true;
    size_t mark = pool_mark(p);
    pool_set(p, id, sym_cstr("on"), SYM_T);
    assert_false(pool_unchanged_since(p, mark));
    pool_set(p, id, sym_cstr("on"), sym_cstr(""));
    assert_true(pool_unchanged_since(p, mark));
    ObjId made = pool_create(p);
    assert_false(pool_unchanged_since(p, mark));
    pool_delete(p, made);
    /* the object is gone again, but the ids moved on: the pool's objects
     * are as they were */
    assert_true(pool_unchanged_since(p, mark));
    pool_delete(p, id);
    assert_false(pool_unchanged_since(p, mark));
    pool_undo_to(p, mark);
    assert_string_equal(sym_text(obj_get(pool_get(p, id), SYM_type)), "light");
    pool_free(p);
}

/* Thousands of lists of one id each (a time per move, as a game has):
 * every one found while the index grows past its first sizes, after
 * the emptied ones are dropped, and after an undo puts them back. */
/* A long list made whole (sorted by qsort, past the insertion sort's
 * length) gives the object, index and state hash that pool_create and a
 * pool_set of each attribute in turn give: names given many times, in
 * an order their Syms do not follow, "" and objectId among them. */
static void long_lists_made_whole_are_their_sets(void **state)
{
    enum { LEN = 600, NNAMES = 150 };
    uint64_t key[2] = {3, 4};
    Pool *whole = pool_new(), *sets = pool_new();
    pool_set_hash_key(whole, key, POOL_HASH_VERSION);
    pool_set_hash_key(sets, key, POOL_HASH_VERSION);
    char text[32];
    Sym name[NNAMES];
    for (int k = NNAMES - 1; k >= 0; k--) { /* interned backwards */
        snprintf(text, sizeof text, "long%d", k);
        name[k] = sym_cstr(text);
    }
    static Attr a[LEN];
    for (int trial = 0; trial < 8; trial++) {
        uint32_t n = trial == 0 ? 0 : LEN - 50 * (uint32_t)trial;
        for (uint32_t k = 0; k < n; k++) {
            unsigned r = roll(20);
            snprintf(text, sizeof text, "%u", roll(5));
            a[k] = (Attr){r == 0 ? SYM_objectId : name[roll(NNAMES)], r == 1 ? SYM_EMPTY : sym_cstr(text)};
        }
        ObjId w = pool_create_with(whole, a, n), s = pool_create(sets);
        assert_int_equal(w, s);
        for (uint32_t k = 0; k < n; k++) pool_set(sets, s, a[k].name, a[k].value);
        const Obj *ow = pool_get(whole, w), *os = pool_get(sets, s);
        assert_int_equal(obj_n(ow), obj_n(os));
        for (uint32_t k = 0; k < obj_n(ow); k++) {
            assert_int_equal(obj_name(ow, k), obj_name(os, k));
            assert_int_equal(ow->vals[k], os->vals[k]);
        }
        assert_true(whole->state_hash == sets->state_hash);
        for (int k = 0; k < NNAMES; k += 7) {
            const IdSet *x = pool_lookup(whole, name[k], sym_cstr("3")), *y = pool_lookup(sets, name[k], sym_cstr("3"));
            assert_int_equal(x && idset_has(x, w), y && idset_has(y, s));
        }
    }
    pool_free(whole);
    pool_free(sets);
}

static void many_lists_of_one_id(void **state)
{
    enum { MANY = 5000 };
    Pool *p = pool_new();
    Sym at = sym_cstr("at"), kind = sym_cstr("kind");
    for (int i = 0; i < MANY; i++) {
        ObjId id = pool_create(p);
        pool_set(p, id, at, sym_from_long(100000 + i));
        pool_set(p, id, kind, sym_cstr(i % 2 ? "odd" : "even"));
    }
    for (int i = 0; i < MANY; i++) {
        const IdSet *s = pool_lookup(p, at, sym_from_long(100000 + i));
        assert_non_null(s);
        assert_int_equal(s->live, 1);
        assert_int_equal(s->ids[idset_seek(s, 0, 1)], i + 1);
    }
    assert_int_equal(pool_lookup(p, kind, sym_cstr("odd"))->live, MANY / 2);
    p->logging = true;
    size_t mark = pool_mark(p);
    for (ObjId id = 1; id <= MANY; id += 2) pool_delete(p, id);
    pool_compact(p);
    for (int i = 0; i < MANY; i++) {
        const IdSet *s = pool_lookup(p, at, sym_from_long(100000 + i));
        assert_int_equal(s != NULL && s->live == 1, i % 2 == 1);
    }
    assert_null(pool_lookup(p, kind, sym_cstr("even")));
    pool_undo_to(p, mark);
    for (int i = 0; i < MANY; i++) {
        const IdSet *s = pool_lookup(p, at, sym_from_long(100000 + i));
        assert_non_null(s);
        assert_int_equal(s->ids[idset_seek(s, 0, 1)], i + 1);
    }
    assert_int_equal(pool_lookup(p, kind, sym_cstr("even"))->live, MANY / 2);
    pool_forget_undo(p);
    pool_free(p);
}

static ObjId make_obj(Pool *p, const char *const *kv)
{
    ObjId id = pool_create(p);
    for (; kv[0]; kv += 2) pool_set(p, id, sym_cstr(kv[0]), sym_cstr(kv[1]));
    return id;
}

static const char *get(const Pool *p, ObjId id, const char *name) { return sym_text(obj_get(pool_get(p, id), sym_cstr(name))); }

static bool found(const Pool *p, const char *name, const char *value)
{
    const IdSet *s = pool_lookup(p, sym_cstr(name), sym_cstr(value));
    return s && s->live > 0;
}

/* A name no lookup asked for costs the index no key; its first lookup
 * finds every object holding it, after deletions, an undo and a
 * compaction alike, and from then on its keys follow every change. */
static void names_are_indexed_from_their_first_lookup(void **state)
{
    Pool *p = pool_new();
    Sym at = sym_cstr("at"), kind = sym_cstr("kind"), score = sym_cstr("score");
    p->logging = true;
    size_t mark = pool_mark(p);
    for (int i = 0; i < 300; i++) {
        ObjId id = pool_create(p);
        pool_set(p, id, at, sym_from_long(1000 + i));
        pool_set(p, id, kind, sym_cstr(i % 3 ? "plain" : "third"));
        pool_set(p, id, score, i % 2 ? sym_from_long(i) : sym_cstr("none"));
    }
    assert_int_equal(pool_index_keys(p), 0);
    assert_int_equal(pool_lookup(p, kind, sym_cstr("third"))->live, 100);
    size_t keys = pool_index_keys(p);
    assert_int_equal(keys, 2); /* kind's two values; neither at nor score */
    for (ObjId id = 1; id <= 300; id += 3) pool_delete(p, id);
    assert_false(found(p, "kind", "third"));
    assert_int_equal(pool_index_keys(p), keys);
    /* the range of a name indexed late knows its numbers and its texts */
    const RangeIndex *r = pool_range_index(p, score);
    assert_int_equal(r->text_live, 100);
    assert_int_equal(r->n, 100);
    pool_set(p, 2, score, sym_cstr("ten"));
    assert_int_equal(pool_range_index(p, score)->text_live, 101);
    pool_undo_to(p, mark);
    assert_int_equal(pool_size(p), 0);
    assert_int_equal(pool_range_index(p, score)->text_live, 0);
    assert_false(found(p, "kind", "plain"));
    for (int i = 0; i < 30; i++) {
        ObjId id = pool_create(p);
        pool_set(p, id, at, sym_from_long(2000 + i));
    }
    pool_compact(p);
    assert_int_equal(pool_index_keys(p), 0); /* at: still never asked for */
    for (int i = 0; i < 30; i++) assert_int_equal(pool_lookup(p, at, sym_from_long(2000 + i))->live, 1);
    assert_int_equal(pool_index_keys(p), 30);
    pool_set(p, 1, at, sym_from_long(7));
    assert_false(found(p, "at", "2000"));
    assert_true(idset_has(pool_lookup(p, at, sym_from_long(7)), 1));
    pool_forget_undo(p);
    pool_free(p);
}

/* A rule may name thousands of attributes: past 256 names indexed by a
 * walk over the pool, the next indexes every name at once, and no walk
 * is made again (pool.c, NAMES_LISTED_MAX); lookups stay exact. */
static void many_names_looked_up_index_every_name(void **state)
{
    Pool *p = pool_new();
    Sym never = sym_cstr("never");
    for (int i = 0; i < 10; i++) pool_set(p, pool_create(p), never, sym_from_long(i));
    char name[16];
    for (int i = 0; i < 256; i++) {
        snprintf(name, sizeof name, "n%d", i);
        assert_null(pool_lookup(p, sym_cstr(name), sym_cstr("1")));
    }
    assert_false(p->index_every_name);
    assert_int_equal(pool_index_keys(p), 0); /* "never" is still not indexed */
    assert_null(pool_lookup(p, sym_cstr("n256"), sym_cstr("1")));
    assert_true(p->index_every_name);
    assert_int_equal(pool_index_keys(p), 10); /* listed with every other name */
    /* from then on, a name nobody holds costs a lookup no entry */
    size_t entries = p->ranges_len;
    assert_null(pool_lookup(p, sym_cstr("n9999"), sym_cstr("1")));
    assert_null(pool_range_index(p, sym_cstr("n9999")));
    assert_int_equal(p->ranges_len, entries);
    pool_set(p, 1, sym_cstr("fresh"), sym_cstr("x"));
    assert_int_equal(pool_index_keys(p), 11); /* a new name is indexed as it is set */
    assert_true(idset_has(pool_lookup(p, never, sym_from_long(3)), 4));
    assert_true(idset_has(pool_lookup(p, sym_cstr("fresh"), sym_cstr("x")), 1));
    pool_delete(p, 4);
    assert_false(found(p, "never", "3"));
    pool_free(p);
}

/* A shared shape keeps the places of its names' index entries (pool.c,
 * indexed_at); the table of entries grows and is filled again as names
 * come (here past 256 looked up: every name is then indexed), and the
 * objects of a shape whose places were kept before are changed and
 * deleted after, exactly. */
static void shapes_keep_their_names_places(void **state)
{
    Pool *p = pool_new();
    Sym kind = sym_cstr("kind"), score = sym_cstr("score");
    assert_null(pool_lookup(p, kind, sym_cstr("a")));
    assert_null(pool_lookup(p, score, sym_from_long(1)));
    ObjId ids[40];
    for (int i = 0; i < 40; i++) {
        Attr a[] = {{kind, sym_cstr(i % 2 ? "a" : "b")}, {score, sym_from_long(i)}};
        ids[i] = pool_create_with(p, a, 2);
    }
    pool_delete(p, ids[0]); /* the shape's places kept */
    char name[16];
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < 200; k++) {
            snprintf(name, sizeof name, "r%dn%d", round, k);
            assert_null(pool_lookup(p, sym_cstr(name), sym_cstr("1")));
            if (k % 10 == 0) pool_set(p, ids[1], sym_cstr(name), sym_cstr("1")); /* an own name on one object */
        }
        for (int k = 0; round > 0 && k < 600; k++) { /* names set, not looked up: entries all the same */
            snprintf(name, sizeof name, "r%dset%d", round, k);
            pool_set(p, ids[1], sym_cstr(name), sym_cstr("1"));
        }
        for (int i = 2 + round; i < 40; i += 3) pool_delete(p, ids[i]);
        for (int i = 3 + round; i < 40; i += 5)
            if (pool_get(p, ids[i])) pool_set(p, ids[i], score, sym_from_long(100 + i));
    }
    assert_true(p->index_every_name);
    assert_true(p->ranges_cap >= 4096); /* grown since the places were last kept (round 2) */
    for (int i = 0; i < 40; i++) {
        const Obj *o = pool_get(p, ids[i]);
        Sym k = sym_cstr(i % 2 ? "a" : "b"), sc = o ? obj_get(o, score) : sym_from_long(i);
        assert_true(idset_has(pool_lookup(p, kind, k), ids[i]) == (o != NULL));
        const IdSet *s = pool_lookup(p, score, sc);
        assert_true((s && idset_has(s, ids[i])) == (o != NULL));
        if (o && sc != sym_from_long(i)) assert_false(idset_has(pool_lookup(p, score, sym_from_long(i)), ids[i]));
    }
    pool_free(p);
}

/* A name's table of keys, large: thousands of values, numbers in runs (as
 * batches come) and texts, each held by one object or several, set,
 * moved and deleted at random, with compactions and undos between.  Every
 * value finds exactly the objects the model says, the table stays at most
 * half full, it counts its emptied keys, and a compaction leaves fewer
 * than a quarter of them (it walks a table only past that). */
enum { BIG_IDS = 3000, BIG_VALUES = 2400 };

static Sym big_value(int v)
{
    if (v % 3) return sym_from_long(1000000 + v); /* whole numbers, in runs */
    char t[16];
    snprintf(t, sizeof t, "t%d", v);
    return sym_cstr(t);
}

/* compacted: every list emptied since is an emptied key now, counted */
static void check_big(const Pool *p, Sym name, const int *val, const bool *live, ObjId next, bool compacted)
{
    static int holders[BIG_VALUES];
    memset(holders, 0, sizeof holders);
    for (ObjId id = 1; id < next; id++)
        if (live[id] && val[id] >= 0) holders[val[id]]++;
    int distinct = 0;
    for (int v = 0; v < BIG_VALUES; v++) {
        distinct += holders[v] > 0;
        const IdSet *s = pool_lookup(p, name, big_value(v));
        assert_int_equal(s ? (int)s->live : 0, holders[v]);
        for (ObjId id = 1; s && id < next; id++) assert_int_equal(idset_has(s, id), live[id] && val[id] == v);
    }
    const RangeIndex *r = pool_range_index(p, name);
    assert_true(r->keys_n * 2 <= r->keys_cap);
    if (compacted) assert_int_equal(r->keys_n - r->keys_dead, distinct);
}

static void large_tables_of_keys_follow_a_model(void **state)
{
    static int val[BIG_IDS];
    static bool live[BIG_IDS];
    Pool *p = pool_new();
    Sym name = sym_cstr("batch");
    assert_null(pool_lookup(p, name, big_value(1))); /* indexed from now on */
    ObjId next = 1;
    for (int round = 1; round <= 60000; round++) {
        unsigned what = roll(8);
        if (what == 0 && next < BIG_IDS) {
            ObjId id = pool_create(p);
            assert_int_equal(id, next++);
            live[id] = true;
            val[id] = -1;
        } else if (what == 1 && next > 1) {
            ObjId id = 1 + roll(next - 1);
            pool_delete(p, id);
            live[id] = false;
        } else if (next > 1) {
            ObjId id = 1 + roll(next - 1);
            /* a value near the last ones set, as a game's come */
            int v = (int)((unsigned)round / 40 + roll(600)) % BIG_VALUES;
            if (roll(10) == 0) v = -1;
            if (live[id]) {
                pool_set(p, id, name, v < 0 ? SYM_EMPTY : big_value(v));
                val[id] = v;
            }
        }
        if (round % 1500 == 0) { /* often enough that some find too few emptied keys to walk */
            if (round % 6000 == 0) check_big(p, name, val, live, next, false);
            pool_compact(p);
            const RangeIndex *r = pool_range_index(p, name);
            assert_true(r->keys_dead * 4 < r->keys_n || r->keys_dead == 0);
            if (round % 6000 == 0) check_big(p, name, val, live, next, true);
        }
        if (round % 15000 == 0) { /* changes undone give back the very keys */
            static int was_val[BIG_IDS];
            static bool was_live[BIG_IDS];
            memcpy(was_val, val, sizeof val);
            memcpy(was_live, live, sizeof live);
            p->logging = true;
            size_t mark = pool_mark(p);
            for (ObjId id = 1; id < next; id += 3)
                if (live[id]) pool_delete(p, id);
            for (ObjId id = 2; id < next; id += 3)
                if (live[id]) pool_set(p, id, name, big_value((int)id % BIG_VALUES));
            pool_compact(p);
            pool_undo_to(p, mark);
            pool_forget_undo(p);
            p->logging = false;
            check_big(p, name, was_val, was_live, next, false);
        }
    }
    pool_free(p);
}

/* The index's keys are not marked for the collector: a key someone holds
 * has the canonical text of a value some object holds, which the
 * collector keeps with it, and an emptied key whose text is freed, and
 * whose Sym then names another text, is that text's key, held by nobody
 * until someone holds it.  Texts freed and made again, numbers written in
 * other ways than their canonical one: every lookup stays exact. */
static void keys_need_no_marks(void **state)
{
    SymTable *t = sym_table_new();
    sym_use(t);
    Pool *p = pool_new();
    Sym name = sym_cstr("v");
    assert_null(pool_lookup(p, name, sym_cstr("a0"))); /* indexed from now on */
    enum { N = 300 };
    ObjId ids[N], more[N];
    char text[32];
    for (int i = 0; i < N; i++) {
        ids[i] = pool_create(p);
        /* texts, and numbers not written canonically ("5.50" is 11/2) */
        if (i % 3) snprintf(text, sizeof text, "a%d", i);
        else snprintf(text, sizeof text, "%d.50", i);
        pool_set(p, ids[i], name, sym_cstr(text)); /* a single key (no lookup made it a list) */
    }
    for (int i = 0; i < N; i += 2) pool_delete(p, ids[i]); /* their keys emptied */
    pool_forget_undo(p);
    sym_gc_begin();
    pool_mark_syms(p);
    sym_gc_end();
    const RangeIndex *r = pool_range_index(p, name);
    assert_int_equal(r->keys_dead, N / 2);
    for (int i = 0; i < N; i++) { /* new texts, in the Syms the collector freed */
        more[i] = pool_create(p);
        snprintf(text, sizeof text, "b%d", i);
        pool_set(p, more[i], name, sym_cstr(text));
    }
    assert_true(r->keys_dead < N / 2); /* some took emptied keys, by their Syms */
    for (int i = 0; i < N; i++) {
        snprintf(text, sizeof text, "b%d", i);
        const IdSet *s = pool_lookup(p, name, sym_cstr(text));
        assert_true(s && s->live == 1 && idset_has(s, more[i]));
        if (i % 3) snprintf(text, sizeof text, "a%d", i);
        else snprintf(text, sizeof text, "%d.5", i); /* the same number */
        s = pool_lookup(p, name, sym_cstr(text));
        assert_int_equal(s ? (int)s->live : 0, i % 2);
        if (i % 2) assert_true(idset_has(s, ids[i]));
    }
    pool_compact(p);
    assert_int_equal(r->keys_n - r->keys_dead, N + N / 2);
    pool_free(p);
    sym_use(NULL);
    sym_table_free(t);
}

/* privacy_blank: a viewer's dry run sees "" for the private values of what
 * it does not own (moveSender or defaultEmail its address), in the objects
 * and in the indexes, and the undo gives every value back. */
static void privacy_blank_is_a_view_undone_exactly(void **state)
{
    Pool *p = pool_new();
    uint64_t key[2] = {3, 4};
    pool_set_hash_key(p, key, POOL_HASH_VERSION);
    make_obj(p, (const char *const[]){"type", "engineSettings", "privateAttributes", "secret hidden", NULL});
    ObjId mine = make_obj(p, (const char *const[]){"type", "naut", "defaultEmail", "alice@x", "secret", "s1", NULL});
    ObjId move = make_obj(p, (const char *const[]){"type", "move", "moveSender", "alice@x", "hidden", "h1", NULL});
    ObjId bobs = make_obj(p, (const char *const[]){"type", "naut", "defaultEmail", "bob@x", "secret", "42", "hidden", "h2",
                                                   "score", "7", NULL});
    uint64_t hash = p->state_hash;
    p->logging = true;
    size_t mark = pool_mark(p);
    assert_int_equal(privacy_blank(p, "alice@x"), 2);
    assert_string_equal(get(p, mine, "secret"), "s1");
    assert_string_equal(get(p, move, "hidden"), "h1");
    assert_string_equal(get(p, bobs, "secret"), "");
    assert_string_equal(get(p, bobs, "hidden"), "");
    assert_string_equal(get(p, bobs, "score"), "7");
    assert_false(found(p, "secret", "42")); /* an indexed match finds nothing either */
    assert_true(found(p, "secret", "s1"));
    assert_string_equal(get(p, 1, "privateAttributes"), "secret hidden");
    pool_undo_to(p, mark);
    assert_true(p->state_hash == hash);
    assert_string_equal(get(p, bobs, "secret"), "42");
    assert_true(found(p, "secret", "42"));
    /* the public owns nothing */
    assert_int_equal(privacy_blank(p, NULL), 4);
    assert_string_equal(get(p, mine, "secret"), "");
    pool_undo_to(p, mark);
    assert_true(p->state_hash == hash);
    /* no private attributes: nothing to blank */
    pool_set(p, 1, sym_cstr("privateAttributes"), SYM_EMPTY);
    assert_int_equal(privacy_blank(p, NULL), 0);
    pool_forget_undo(p);
    p->logging = false;
    pool_free(p);
}

/* A reader of touched ids sees every object an event created, changed or
 * deleted, and those an undo put back; past TOUCHED_MAX it is told so. */
static void touched_ids_name_every_change(void **state)
{
    Pool *p = pool_new();
    ObjId a = pool_create(p), b = pool_create(p), c = pool_create(p);
    pool_touched_reset(p);
    p->logging = true;
    size_t mark = pool_mark(p);
    pool_set(p, a, SYM_type, sym_cstr("x"));
    pool_delete(p, b);
    ObjId d = pool_create(p);
    bool seen[8] = {0};
    for (size_t i = 0; i < p->touched.len; i++) seen[p->touched.ids[i]] = true;
    assert_true(seen[a] && seen[b] && seen[d] && !seen[c]);
    pool_touched_reset(p);
    pool_undo_to(p, mark);
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < p->touched.len; i++) seen[p->touched.ids[i]] = true;
    assert_true(seen[a] && seen[b] && seen[d] && !seen[c]);
    assert_false(p->touched.lost);
    pool_forget_undo(p);
    p->logging = false;
    for (size_t i = 0; i <= TOUCHED_MAX; i++) pool_set(p, c, SYM_type, sym_from_long((long)(i % 2)));
    assert_true(p->touched.lost);
    pool_free(p);
}

/* Shapes are shared while held and given back once not: a name kept only
 * by a shape outlives a collection of texts, the shapes of deleted objects
 * go at the next one, and setting and removing attributes in every order
 * cannot pile up shapes nobody holds. */
static void shapes_are_shared_and_given_back(void **state)
{
    SymTable *t = sym_table_new();
    sym_use(t);
    Pool *p = pool_new();
    ObjId ids[100];
    for (int i = 0; i < 100; i++) {
        ids[i] = pool_create(p);
        char name[32];
        snprintf(name, sizeof name, "onlyInShapes%d", i % 2);
        pool_set(p, ids[i], SYM_type, sym_cstr("vote"));
        pool_set(p, ids[i], sym_cstr(name), sym_from_long(i));
    }
    assert_true(pool_get(p, ids[0])->shape == pool_get(p, ids[98])->shape);
    assert_true(pool_get(p, ids[1])->shape == pool_get(p, ids[99])->shape);
    assert_true(pool_get(p, ids[0])->shape != pool_get(p, ids[1])->shape);
    pool_forget_undo(p);
    sym_gc_begin();
    pool_mark_syms(p);
    sym_gc_end();
    /* only the shapes held are left (the two, and that of no attributes),
     * and their names are still theirs */
    assert_int_equal(p->nshapes, 3);
    const Obj *o = pool_get(p, ids[1]);
    assert_int_equal(obj_n(o), 2);
    assert_string_equal(sym_text(obj_name(o, obj_name(o, 0) == SYM_type ? 1 : 0)), "onlyInShapes1");
    assert_string_equal(sym_text(obj_get(o, sym_cstr("onlyInShapes1"))), "1");
    for (int i = 0; i < 100; i++) pool_delete(p, ids[i]);
    pool_forget_undo(p);
    sym_gc_begin();
    pool_mark_syms(p);
    sym_gc_end();
    assert_int_equal(p->nshapes, 1);
    /* one object through every set of sixteen names, in random orders */
    ObjId one = pool_create(p);
    Sym many[16];
    for (int k = 0; k < 16; k++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", k);
        many[k] = sym_cstr(name);
    }
    for (int step = 0; step < 200000; step++) {
        Sym name = many[roll(16)];
        pool_set(p, one, name, obj_get(pool_get(p, one), name) == SYM_EMPTY ? SYM_T : SYM_EMPTY);
        if (step % 1000 == 0) pool_forget_undo(p);
        assert_true(p->nshapes - p->shapes_unheld <= 2);
        assert_true(p->shapes_unheld <= 4096 + 2);
    }
    pool_free(p);
    sym_use(NULL);
    sym_table_free(t);
}

/* An object made whole takes the shape its names lead to at once (the
 * last one made is tried first): the same shape as an object given them
 * one by one, whichever order the objects come in; and after every
 * holder is gone and the shape swept, the next object made whole is not
 * given the shape freed. */
static void made_whole_share_shapes(void **state)
{
    SymTable *t = sym_table_new();
    sym_use(t);
    Pool *p = pool_new();
    Sym a = sym_cstr("a"), b = sym_cstr("b"), c = sym_cstr("c");
    Attr ab[] = {{a, SYM_T}, {b, SYM_T}}, abc[] = {{a, SYM_T}, {b, SYM_T}, {c, SYM_T}};
    ObjId by_sets = pool_create(p);
    pool_set(p, by_sets, b, SYM_F);
    pool_set(p, by_sets, a, SYM_F);
    ObjId ids[6];
    for (int i = 0; i < 6; i++) ids[i] = i % 3 == 2 ? pool_create_with(p, abc, 3) : pool_create_with(p, ab, 2);
    const Shape *two = pool_get(p, by_sets)->shape;
    for (int i = 0; i < 6; i++) {
        const Obj *o = pool_get(p, ids[i]);
        assert_int_equal(obj_n(o), i % 3 == 2 ? 3 : 2);
        assert_int_equal(o->shape == two, i % 3 != 2);
        assert_true(o->shape == pool_get(p, ids[i % 3 == 2 ? 2 : 0])->shape);
        assert_int_equal(obj_get(o, b), SYM_T);
    }
    for (int i = 0; i < 6; i++) pool_delete(p, ids[i]);
    pool_delete(p, by_sets);
    pool_forget_undo(p);
    sym_gc_begin();
    pool_mark_syms(p);
    sym_gc_end();
    assert_int_equal(p->nshapes, 1); /* the shapes made whole are swept too */
    /* (their names went with them: made again) */
    a = sym_cstr("a"), b = sym_cstr("b"), c = sym_cstr("c");
    abc[0].name = a, abc[1].name = b, abc[2].name = c;
    ObjId again = pool_create_with(p, abc, 3);
    const Obj *o = pool_get(p, again);
    assert_int_equal(obj_n(o), 3);
    assert_true(obj_get(o, a) == SYM_T && obj_get(o, b) == SYM_T && obj_get(o, c) == SYM_T);
    pool_free(p);
    sym_use(NULL);
    sym_table_free(t);
}

/* An object of many names has a shape of its own, changed in place: a
 * rule setting 200,000 names on one object makes no shared shape past the
 * first SHAPE_SHARED_MAX (before, each name copied the list so far), and
 * the undo log, the repeated-state check and the collector see its names. */
static void many_names_make_one_shape_of_their_own(void **state)
{
    SymTable *t = sym_table_new();
    sym_use(t);
    Pool *p = pool_new();
    p->logging = true;
    ObjId big = pool_create(p), small = pool_create(p);
    pool_set(p, small, SYM_type, sym_cstr("note"));
    pool_forget_undo(p);
    enum { N = 200000 };
    char name[32];
    for (int k = 0; k < N; k++) {
        snprintf(name, sizeof name, "name%d", k);
        pool_set(p, big, sym_cstr(name), SYM_T);
    }
    const Obj *o = pool_get(p, big);
    assert_int_equal(obj_n(o), N);
    assert_true(o->shape->room >= N);
    assert_true(p->nshapes <= SHAPE_SHARED_MAX + 3);
    for (uint32_t k = 1; k < obj_n(o); k++) assert_true(obj_name(o, k - 1) < obj_name(o, k));
    /* a name taken out and put back: the same state, seen as the same */
    size_t mark = pool_mark(p);
    pool_set(p, big, sym_cstr("name7"), SYM_EMPTY);
    pool_set(p, big, sym_cstr("name7"), SYM_T);
    assert_true(pool_unchanged_since(p, mark));
    pool_set(p, big, sym_cstr("another"), SYM_T);
    assert_false(pool_unchanged_since(p, mark));
    pool_undo_to(p, mark);
    assert_int_equal(obj_n(pool_get(p, big)), N);
    assert_int_equal(obj_get(pool_get(p, big), sym_cstr("another")), SYM_EMPTY);
    /* deleted and put back by the undo, with its names */
    mark = pool_mark(p);
    pool_delete(p, big);
    pool_undo_to(p, mark);
    assert_int_equal(obj_get(pool_get(p, big), sym_cstr("name199999")), SYM_T);
    pool_forget_undo(p);
    /* its names are the collector's to keep */
    sym_gc_begin();
    pool_mark_syms(p);
    sym_gc_end();
    o = pool_get(p, big);
    assert_string_equal(sym_text(obj_name(o, obj_n(o) - 1)), "name199999");
    assert_int_equal(obj_get(o, sym_cstr("name123")), SYM_T);
    /* back under the bound, it shares shapes again */
    for (int k = N - 1; k >= SHAPE_SHARED_MAX; k--) {
        snprintf(name, sizeof name, "name%d", k);
        pool_set(p, big, sym_cstr(name), SYM_EMPTY);
    }
    assert_int_equal(pool_get(p, big)->shape->room, 0);
    pool_free(p);
    sym_use(NULL);
    sym_table_free(t);
}

int run_pool_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_changes_keep_the_invariants),
        cmocka_unit_test(undo_restores_exactly),
        cmocka_unit_test(unchanged_since_sees_a_real_difference),
        cmocka_unit_test(long_lists_made_whole_are_their_sets),
        cmocka_unit_test(many_lists_of_one_id),
        cmocka_unit_test(names_are_indexed_from_their_first_lookup),
        cmocka_unit_test(many_names_looked_up_index_every_name),
        cmocka_unit_test(shapes_keep_their_names_places),
        cmocka_unit_test(large_tables_of_keys_follow_a_model),
        cmocka_unit_test(keys_need_no_marks),
        cmocka_unit_test(privacy_blank_is_a_view_undone_exactly),
        cmocka_unit_test(touched_ids_name_every_change),
        cmocka_unit_test(shapes_are_shared_and_given_back),
        cmocka_unit_test(made_whole_share_shapes),
        cmocka_unit_test(many_names_make_one_shape_of_their_own),
    };
    return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
