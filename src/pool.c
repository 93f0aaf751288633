/*
 * pool.c - objects, attribute indexes, state hash and undo log (pool.h).
 */
#include "pool.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "pool_shape.h"
#include "util.h"

/* The index keeps, for each name it keeps, a table of its own (in the
 * name's RangeIndex): open addressing over 8-byte slots, each a value and
 * who holds it.  A key one object holds (a move's batch, a player's
 * nickname) names that object in the slot itself; a key several hold
 * names a list (the key and its IdSet, 40 bytes).  A name's table holds
 * that name's keys alone, so the keys a game looks up most (its players'
 * names, its proposals' ids) lie together in a few cache lines, not
 * scattered among every key of the pool, and a probe reads the slot and
 * nothing else until it has found its key.  Lists live in chunks that
 * never move, so a lookup that turns a single key into a list leaves the
 * lists looked up before in place. */
struct IndexEntry {
    Sym name;  /* never "" */
    Sym value; /* canonical value */
    IdSet set;
};

/* A slot: value 0 ("", which no attribute holds) is an empty slot; ref is
 * the one object holding the key (0: nobody now), or KEY_LIST | 1 + its
 * list's place.  Ids stay below IDSET_DEAD, the flag's bit. */
struct KeySlot {
    Sym value; /* canonical value */
    uint32_t ref;
};

#define KEY_LIST IDSET_DEAD
#define KEYS_MIN 8 /* a name's smallest table: one cache line */
#define LIST_CHUNK 1024

/* A key's first slot: eight values in a row (as ids and batches come, or
 * the texts made one after another) share a block of eight slots, a cache
 * line, so a game's new keys are written where the last ones were; the
 * blocks are placed by a hash seeded for each pool, since a whole number
 * is its own Sym (value.h) and a player could otherwise pick numbers whose
 * keys all fall into one run of a table, and make every probe walk it. */
static uint64_t key_hash(const Pool *p, Sym value)
{
    return hash_mix((uint64_t)(value >> 3) ^ p->slots_seed) << 3 | (value & 7);
}

/* The state hash's terms, in version 1 SipHash under the game's key
 * (pool.h) over unambiguous encodings: eight bytes of head (the id, a tag,
 * and for an attribute the name's length), then the name and the value.
 * The texts themselves are hashed, not their Sym numbers (which differ
 * between runs) nor their FNV hashes (which anyone can make collide).
 * Version 2 hashes each text alone under the key, once (the text keeps
 * it: sym_keyed_hash), and mixes those with the id (term_v2): a SipHash
 * of every new triple was 8% of Engine City's instructions. */
enum { TAG_EXISTS = 1, TAG_ATTR = 2, TAG_LONG_NAME = 3 };

/* Version 2's term of an attribute (docs/formats.md), with hash_mix
 * (murmur3's finalizer, a bijection of 64 bits): without the key the
 * texts' hashes are unknown, and so is every term; the inner mix makes
 * the name and the id one number before the value is added, so that two
 * objects exchanging their values change the sum. */
static uint64_t term_v2(const Pool *p, ObjId id, Sym name, Sym value)
{
    uint64_t a = sym_keyed_hash(name, p->hash_key), b = sym_keyed_hash(value, p->hash_key);
    return hash_mix(hash_mix(a ^ ((uint64_t)id | (uint64_t)TAG_ATTR << 32) * 0x9e3779b97f4a7c15ULL) + b);
}

/* Version 1's terms of the triples set and unset most recently, by (id,
 * name, value): undoing a change, or making it again (as a search does,
 * over and over), needs the terms it computed a moment before (version
 * 2's cost a few multiplications, and skip it).  Only a search
 * keeps it (pool_hash_memo): a game's events make new triples, whose
 * terms it misses nine times in ten, and its 48 KiB cost the engine 5%
 * of its first-level cache misses (bench/README.md).  A Sym names a
 * text only until the collector frees it, so the memo is emptied at
 * every collection (pool_mark_syms) and when the key changes.  (2048
 * entries, 48 KiB, half what it was: objects deleted or put back take
 * the sum their attributes keep, not the memo, and so the memory those
 * sums take is given back here.) */
#define HASH_MEMO 2048
typedef struct HashMemo {
    struct {
        ObjId id;
        Sym name, value; /* name 0: an empty slot (names are never "") */
        uint64_t h;
    } e[HASH_MEMO];
} HashMemo;

static uint64_t triple_hash_computed(const Pool *p, ObjId id, Sym name, Sym value);

static __attribute__((noinline)) uint64_t triple_hash(const Pool *p, ObjId id, Sym name, Sym value)
{
    if (p->hash_version >= 2) return term_v2(p, id, name, value);
    if (!p->hash_memo) return triple_hash_computed(p, id, name, value);
    size_t i = hash_mix((uint64_t)id * 0x9e3779b97f4a7c15ULL ^ (uint64_t)name << 32 ^ value) & (HASH_MEMO - 1);
    if (p->hash_memo->e[i].name == name && p->hash_memo->e[i].id == id && p->hash_memo->e[i].value == value)
        return p->hash_memo->e[i].h;
    uint64_t h = triple_hash_computed(p, id, name, value);
    p->hash_memo->e[i].id = id;
    p->hash_memo->e[i].name = name;
    p->hash_memo->e[i].value = value;
    p->hash_memo->e[i].h = h;
    return h;
}

/* The lists that pool_lookup_at found, by the caller's site.  A list stays
 * its key's until compact_index moves the lists, and its key's Syms stay
 * theirs until the collector runs: the memo is emptied at both.  A key
 * without a list is not kept (a lookup may make one). */
#define LOOKUP_MEMO 1024 /* (the sites of a few hundred rules, each its own) */
typedef struct LookupMemo {
    struct {
        Sym name, value;
        const IdSet *set; /* NULL: empty */
    } e[LOOKUP_MEMO];
} LookupMemo;

static void lookup_memo_clear(const Pool *p)
{
    if (p->lookup_memo) memset(p->lookup_memo, 0, sizeof *p->lookup_memo);
}

/* The terms of the last few long triples (name and value past TERM_SHORT
 * bytes: a player list, a rule's text), which every pool keeps: such a
 * term costs a SipHash of the whole text, and the value an attribute held
 * is hashed again when it changes (Engine City's player list, 8 KB, grows
 * by a name at each registration: 1.1% of its instructions went to
 * hashing it twice).  Emptied as hash_memo is. */
#define LONG_MEMO 8
typedef struct LongMemo {
    struct {
        ObjId id;
        Sym name, value; /* name 0: an empty slot */
        uint64_t h;
    } e[LONG_MEMO];
    unsigned next; /* the slot the next term takes (the oldest) */
} LongMemo;

static void hash_memo_clear(const Pool *p)
{
    if (p->hash_memo) memset(p->hash_memo, 0, sizeof *p->hash_memo);
    memset(p->long_memo, 0, sizeof *p->long_memo);
}

bool pool_hash_memo(Pool *p, bool on)
{
    bool was = p->hash_memo != NULL;
    if (on && !was) p->hash_memo = xcalloc(1, sizeof *p->hash_memo);
    if (!on && was) {
        free(p->hash_memo);
        p->hash_memo = NULL;
    }
    return was;
}

/* Name and value at most this long together are copied after each other
 * into one buffer and hashed a whole block at a time; longer ones are fed
 * in pieces.  Either way the term is SipHash of the same bytes. */
#define TERM_SHORT 64

/* memcpy of n bytes (at most TERM_SHORT) without a call: overlapping
 * words, as a library's memcpy does for short lengths */
static inline void copy_short(unsigned char *d, const char *s, size_t n)
{
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) memcpy(d + i, s + i, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n) {
        d[0] = (unsigned char)s[0];
        d[n / 2] = (unsigned char)s[n / 2];
        d[n - 1] = (unsigned char)s[n - 1];
    }
}

/* s's text and its length; an immediate's digits are written into b (12
 * bytes), not asked of sym_text, which would keep them until the next
 * collection */
static const char *term_text(Sym s, char *b, size_t *n)
{
    if (sym_is_immediate(s)) {
        *n = sym_digits(s, b);
        return b;
    }
    *n = sym_len(s);
    return sym_text(s);
}

/* triple_hash_computed's term of a triple whose name and value are long
 * (nt, vt: their texts), fed in pieces, or kept from a moment before.
 * (Out of line: the short terms' path stays small.) */
static __attribute__((noinline)) uint64_t long_term_hash(const Pool *p, ObjId id, Sym name, Sym value, const char *nt,
                                                         size_t nl, const char *vt, size_t vl)
{
    LongMemo *lm = p->long_memo;
    for (int i = 0; i < LONG_MEMO; i++)
        if (lm->e[i].name == name && lm->e[i].id == id && lm->e[i].value == value) return lm->e[i].h;
    SipHash h;
    sip_init(&h, p->hash_key);
    if (nl < 1u << 24) {
        sip_add_u64(&h, (uint64_t)id | (uint64_t)TAG_ATTR << 32 | (uint64_t)nl << 40);
    } else { /* names this long are rare: their length takes eight more bytes */
        sip_add_u64(&h, (uint64_t)id | (uint64_t)TAG_LONG_NAME << 32);
        sip_add_u64(&h, nl);
    }
    sip_add(&h, nt, nl);
    sip_add(&h, vt, vl);
    uint64_t term = sip_end(&h);
    lm->e[lm->next].id = id;
    lm->e[lm->next].name = name;
    lm->e[lm->next].value = value;
    lm->e[lm->next].h = term;
    lm->next = (lm->next + 1) % LONG_MEMO;
    return term;
}

static uint64_t triple_hash_computed(const Pool *p, ObjId id, Sym name, Sym value)
{
    /* SipHash of: the id, tag and name's length (eight bytes, sixteen for
     * a long name), the name, the value */
    char nb[12], vb[12];
    size_t nl, vl;
    const char *nt = term_text(name, nb, &nl), *vt = term_text(value, vb, &vl);
    if (nl + vl <= TERM_SHORT) { /* and so nl < 1 << 24 */
        SipHash h;
        sip_init(&h, p->hash_key);
        /* the texts after the head, zero-padded to whole blocks */
        uint64_t w[TERM_SHORT / 8 + 1];
        unsigned char *b = (unsigned char *)w;
        size_t n = nl + vl;
        copy_short(b, nt, nl);
        copy_short(b + nl, vt, vl);
        memset(b + n, 0, 8);
        sip_block(&h, (uint64_t)id | (uint64_t)TAG_ATTR << 32 | (uint64_t)nl << 40);
        size_t full = n & ~(size_t)7;
        for (size_t i = 0; i < full; i += 8) sip_block(&h, sip_load8(b + i));
        h.tail = sip_load8(b + full);
        h.len = 8 + n;
        return sip_end(&h);
    }
    return long_term_hash(p, id, name, value, nt, nl, vt, vl);
}

uint64_t pool_term_hash(const Pool *p, ObjId id, Sym name, Sym value)
{
    return p->hash_version >= 2 ? term_v2(p, id, name, value) : triple_hash_computed(p, id, name, value);
}

/* ---- an event's new objects (pool_fresh_open) ----
 *
 * While an event runs, the state hash is read only by the engine's loop
 * check, which wants a function of the state and confirms a repeat from
 * the undo records (engine.c); the keyed hash is wanted once the event is
 * over.  So the objects the event creates are hashed, while it runs, with
 * a cheap seeded mix of their ids and Syms (which name the same texts
 * until the next collection), and given their SipHash terms when the
 * window closes: a vote's move took 17 terms before, four of them for
 * attributes set and changed again within the event (its type, credited);
 * its 12 attributes now take 12, at the end.  Objects older than the
 * event keep their SipHash terms throughout.  The state hash, at any
 * moment, is the sum over the live objects of their terms under the
 * window in force, and every object keeps the sum its own attributes
 * take (kept_terms), so that creating, deleting and undoing stay exact
 * in either regime. */
#define NO_WINDOW ((ObjId)-1)

static uint64_t exist_hash(const Pool *p, ObjId id);

static inline uint64_t cheap_term(const Pool *p, ObjId id, Sym name, Sym value)
{
    return hash_mix((((uint64_t)id << 32 | name) ^ p->slots_seed) * 0x9e3779b97f4a7c15ULL ^ value);
}

/* o's term (its existence: name and value 0) under the window in force.
 * (Inlined: the cheap half is a few instructions, and the call cost as
 * much.) */
static inline __attribute__((always_inline)) uint64_t term(const Pool *p, ObjId id, Sym name, Sym value)
{
    if (id >= p->fresh_from) return cheap_term(p, id, name, value);
    return p->hash_version >= 2 ? term_v2(p, id, name, value) : triple_hash(p, id, name, value);
}

static uint64_t exist_term(const Pool *p, ObjId id)
{
    return id >= p->fresh_from ? cheap_term(p, id, 0, 0) : exist_hash(p, id);
}

/* The sum of o's attributes' terms of state_hash, computed afresh. */
static uint64_t obj_terms(const Pool *p, const Obj *o)
{
    uint64_t sum = 0;
    for (uint32_t k = 0; k < obj_n(o); k++) sum += term(p, o->id, obj_name(o, k), o->vals[k]);
    return sum;
}

/* An object's values live in one block of malloc that begins with eight
 * bytes more: the sum of their terms of state_hash, which every object
 * keeps (a new one has none; raw_set_at keeps it as the attributes
 * change, an object deleted keeps it for the undo that may put it back,
 * and pool_set_hash_key computes it again), so that deleting an object,
 * or putting it back, takes its terms without hashing its attributes
 * again (they were hashed when set, long before: 4% of Engine City's
 * instructions).  In the Obj itself the sum would take an object from a
 * 32-byte block of malloc to a 48-byte one. */
#define VALS_HEAD 2 /* Sym-sized slots of the sum (8 bytes) */

static uint64_t *terms_at(const Obj *o) { return (uint64_t *)(void *)(o->vals - VALS_HEAD); }

/* The kept sum (no values: no block, and the sum is 0). */
static uint64_t kept_terms(const Obj *o) { return o->vals ? *terms_at(o) : 0; }

static void keep_terms(Obj *o, uint64_t sum)
{
    if (o->vals) *terms_at(o) = sum;
}

/* The room a block holds at least, for n values: a multiple of four, as
 * malloc's blocks come in steps of 16 bytes with 8 of them its own (the
 * sum and four values fill 24, eight 40, twelve 56: a vote's eleven take
 * a block of 64 bytes).  The room only grows: a block may hold more. */
static uint32_t vals_room(uint32_t n) { return n <= 4 ? 4 : (n + 3) & ~3u; }

/* Makes o's block hold at least n values (its sum goes along). */
static void vals_resize(Obj *o, uint32_t n)
{
    Sym *base = o->vals ? o->vals - VALS_HEAD : NULL;
    bool fresh = !base;
    base = xrealloc(base, (VALS_HEAD + (size_t)vals_room(n)) * sizeof *base);
    o->vals = base + VALS_HEAD;
    if (fresh) *terms_at(o) = 0; /* no attribute yet */
}

static uint64_t exist_hash(const Pool *p, ObjId id)
{
    uint64_t head = (uint64_t)id | (uint64_t)TAG_EXISTS << 32;
    if (p->hash_version >= 2) return hash_mix(hash_mix(head ^ p->hash_key[0]) + p->hash_key[1]);
    SipHash h; /* siphash24 of the eight bytes, without writing them out */
    sip_init(&h, p->hash_key);
    sip_add_u64(&h, head);
    return sip_end(&h);
}

Pool *pool_new(void)
{
    static _Atomic uint64_t generations;
    value_init();
    Pool *p = xcalloc(1, sizeof *p);
    p->generation = ++generations;
    p->next_id = 1;
    p->ranges_gen = 1; /* (a new shape's slots_gen is 0) */
    p->fresh_from = NO_WINDOW;
    p->hash_version = POOL_HASH_VERSION;
    p->lookup_memo = xcalloc(1, sizeof *p->lookup_memo);
    p->long_memo = xcalloc(1, sizeof *p->long_memo);
    if (!random_bytes(&p->slots_seed, sizeof p->slots_seed)) p->slots_seed = (uint64_t)(uintptr_t)p ^ p->generation;
    return p;
}

static void obj_free(Pool *p, Obj *o)
{
    if (!o) return;
    shape_drop(p, o->shape);
    if (o->vals) free(o->vals - VALS_HEAD);
    free(o);
}

static Obj *obj_clone(Pool *p, const Obj *o)
{
    Obj *c = xmalloc(sizeof *c);
    *c = *o;
    shape_hold(p, c->shape);
    c->vals = NULL;
    vals_resize(c, obj_n(o));
    keep_terms(c, kept_terms(o));
    if (obj_n(o)) memcpy(c->vals, o->vals, obj_n(o) * sizeof *c->vals);
    return c;
}

void pool_free(Pool *p)
{
    if (!p) return;
    for (size_t i = 0; i < p->objlen; i++) obj_free(p, p->objs[i]);
    free(p->objs);
    for (size_t k = 0; k < p->nlists; k++) idset_free(&p->lists[k / LIST_CHUNK][k % LIST_CHUNK].set);
    for (size_t c = 0; c < p->lists_chunks; c++) free(p->lists[c]);
    free(p->lists);
    for (size_t i = 0; i < p->ranges_cap; i++) {
        free(p->ranges[i].nums);
        free(p->ranges[i].keys);
    }
    free(p->ranges);
    free(p->range_names);
    idset_free(&p->all);
    free(p->hash_memo);
    free(p->lookup_memo);
    free(p->long_memo);
    pool_forget_undo(p);
    shapes_free(p);
    free(p->undo);
    free(p->changes.c);
    free(p->touched.ids);
    free(p);
}

/* ---- index ---- */

static RangeIndex *index_name(Pool *p, Sym name);
static RangeIndex *range_find(const Pool *p, Sym name);
static bool keys_kept(const Pool *p, const RangeIndex *r);
static uint32_t attr_pos(const Obj *o, Sym name, bool *found);

static IndexEntry *list_at(const Pool *p, uint32_t k) { return &p->lists[k / LIST_CHUNK][k % LIST_CHUNK]; }

static IndexEntry *list_of(const Pool *p, const KeySlot *k) { return list_at(p, (k->ref & ~KEY_LIST) - 1); }

/* The slot of the key (r's name, value), or NULL. */
static KeySlot *key_find(const Pool *p, const RangeIndex *r, Sym value)
{
    if (!r || !r->keys_cap) return NULL;
    size_t mask = r->keys_cap - 1;
    for (size_t i = key_hash(p, value) & mask; r->keys[i].value; i = (i + 1) & mask)
        if (r->keys[i].value == value) return &r->keys[i];
    return NULL;
}

static void key_insert(const Pool *p, KeySlot *keys, uint32_t cap, KeySlot k)
{
    size_t mask = cap - 1, i = key_hash(p, k.value) & mask;
    while (keys[i].value) i = (i + 1) & mask;
    keys[i] = k;
}

/* The smallest table at most half full with n keys. */
static uint32_t keys_room(uint32_t n)
{
    uint32_t cap = KEYS_MIN;
    while ((size_t)n * 2 > cap) cap *= 2;
    return cap;
}

/* r's table made again with `cap` slots (none: 0), for its keys. */
static void keys_refill(const Pool *p, RangeIndex *r, uint32_t cap)
{
    KeySlot *old = r->keys;
    uint32_t oldcap = r->keys_cap;
    r->keys = cap ? xcalloc_lines(cap * sizeof *r->keys) : NULL;
    r->keys_cap = cap;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].value) key_insert(p, r->keys, cap, old[i]);
    free(old);
}

/* A new key of r's name, held by id (the table grows past half full). */
static void key_new(Pool *p, RangeIndex *r, Sym value, ObjId id)
{
    if ((r->keys_n + 1) * 2 > r->keys_cap) keys_refill(p, r, keys_room(r->keys_n + 1));
    r->keys_n++;
    key_insert(p, r->keys, r->keys_cap, (KeySlot){value, id});
}

/* A new empty list (its slot is the caller's): one freed at a compaction,
 * or one more at the end; its place (1 + its index) goes to *place. */
static IndexEntry *list_new(Pool *p, Sym name, Sym value, uint32_t *place)
{
    if (p->lists_free) {
        *place = p->lists_free;
        IndexEntry *e = list_at(p, *place - 1);
        p->lists_free = e->value;
        *e = (IndexEntry){.name = name, .value = value};
        return e;
    }
    if (p->nlists == p->lists_chunks * LIST_CHUNK) {
        p->lists = xrealloc(p->lists, (p->lists_chunks + 1) * sizeof *p->lists);
        p->lists[p->lists_chunks++] = xmalloc(LIST_CHUNK * sizeof **p->lists);
    }
    IndexEntry *e = list_at(p, (uint32_t)p->nlists++);
    *e = (IndexEntry){.name = name, .value = value};
    *place = (uint32_t)p->nlists;
    return e;
}

/* Turns the single key in k (of the name) into a list holding its object. */
static IndexEntry *promote(Pool *p, Sym name, KeySlot *k)
{
    uint32_t place;
    IndexEntry *e = list_new(p, name, k->value, &place);
    if (k->ref) idset_add(&e->set, k->ref);
    k->ref = KEY_LIST | place;
    return e;
}

/* Adds id under the key (r's name, value); says whether the key is new. */
static bool index_put(Pool *p, RangeIndex *r, Sym value, ObjId id)
{
    KeySlot *k = key_find(p, r, value);
    if (!k) {
        key_new(p, r, value, id);
        return true;
    }
    if (k->ref & KEY_LIST) {
        idset_add(&list_of(p, k)->set, id);
    } else if (k->ref == 0) {
        k->ref = id;
        r->keys_dead--;
    } else if (k->ref != id) {
        idset_add(&promote(p, r->name, k)->set, id);
    }
    return false;
}

/* Keys are not removed one by one: an emptied one stays, ready for reuse,
 * which keeps probing simple; pool_compact drops them all at once. */
static void index_take(Pool *p, RangeIndex *r, Sym value, ObjId id)
{
    KeySlot *k = key_find(p, r, value);
    if (!k) return;
    if (k->ref & KEY_LIST) {
        idset_remove(&list_of(p, k)->set, id);
    } else if (k->ref == id) {
        k->ref = 0;
        r->keys_dead++;
    }
}

/* How many objects hold the key now, without making a list. */
static uint32_t index_live(const Pool *p, const RangeIndex *r, Sym value)
{
    const KeySlot *k = key_find(p, r, value);
    if (!k) return 0;
    return k->ref & KEY_LIST ? list_of(p, k)->set.live : k->ref != 0;
}

/* A single key asked for gets its list: the pool is logically unchanged
 * (the game is one thread's at a time, pool.h's callers included). */
const IdSet *pool_lookup(const Pool *p, Sym name, Sym value)
{
    RangeIndex *r = range_find(p, name);
    if (!keys_kept(p, r)) r = index_name((Pool *)p, name); /* the name is new to the index */
    KeySlot *k = key_find(p, r, sym_canon(value));
    if (!k) return NULL;
    if (k->ref & KEY_LIST) return &list_of(p, k)->set;
    return k->ref ? &promote((Pool *)p, name, k)->set : NULL;
}

const IdSet *pool_lookup_at(const Pool *p, unsigned site, Sym name, Sym value)
{
    size_t i = site & (LOOKUP_MEMO - 1);
    LookupMemo *m = p->lookup_memo;
    if (!m) return pool_lookup(p, name, value);
    if (m->e[i].set && m->e[i].name == name && m->e[i].value == value) return m->e[i].set;
    const IdSet *s = pool_lookup(p, name, value);
    if (s) {
        m->e[i].name = name;
        m->e[i].value = value;
        m->e[i].set = s;
    }
    return s;
}

/* ---- range index ---- */

/* The table is probed by range_names, the names alone, sixteen to a cache
 * line: every attribute written or deleted looks its name up, and the
 * RangeIndex slots (56 bytes) it would otherwise walk past cost 2% of the
 * engine's first-level cache misses. */
static RangeIndex *range_find(const Pool *p, Sym name)
{
    if (!p->ranges_cap) return NULL;
    size_t mask = p->ranges_cap - 1;
    for (size_t i = hash_mix(name) & mask;; i = (i + 1) & mask) {
        if (p->range_names[i] == 0) return NULL;
        if (p->range_names[i] == name) return &p->ranges[i];
    }
}

/* The slot name takes in names, a table of cap (a power of two) slots. */
static size_t range_slot(const Sym *names, size_t cap, Sym name)
{
    size_t i = hash_mix(name) & (cap - 1);
    while (names[i]) i = (i + 1) & (cap - 1);
    return i;
}

static RangeIndex *range_get(Pool *p, Sym name)
{
    RangeIndex *r = range_find(p, name);
    if (r) return r;
    if ((p->ranges_len + 1) * 2 > p->ranges_cap) {
        RangeIndex *old = p->ranges;
        Sym *old_names = p->range_names;
        size_t oldcap = p->ranges_cap;
        p->ranges_cap = oldcap ? oldcap * 2 : 64;
        p->ranges = xcalloc(p->ranges_cap, sizeof *p->ranges);
        p->range_names = xcalloc(p->ranges_cap, sizeof *p->range_names);
        for (size_t i = 0; i < oldcap; i++) {
            if (!old_names[i]) continue;
            size_t j = range_slot(p->range_names, p->ranges_cap, old_names[i]);
            p->ranges[j] = old[i];
            p->range_names[j] = old_names[i];
        }
        free(old);
        free(old_names);
        p->ranges_gen++; /* every entry moved: the shapes' places with them */
    }
    size_t i = range_slot(p->range_names, p->ranges_cap, name);
    p->ranges[i].name = name;
    p->range_names[i] = name;
    p->ranges_len++;
    return &p->ranges[i];
}

const RangeIndex *pool_range_index(const Pool *p, Sym name) { return index_name((Pool *)p, name); }

int pool_number_max(const Pool *p, Sym name, Sym *max)
{
    const RangeIndex *r = range_find(p, name);
    if (!keys_kept(p, r)) return -1;
    *max = SYM_EMPTY;
    if (!r) return 1; /* every name is indexed and nothing holds this one */
    if (r->text_live) return 0;
    for (uint32_t i = r->n; i-- > 0;)
        if (index_live(p, r, r->nums[i])) {
            *max = r->nums[i];
            break;
        }
    return 1;
}

size_t pool_index_keys(const Pool *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->ranges_cap; i++) n += p->ranges[i].keys_n;
    return n;
}

/* A number seen for the first time under `name` joins its sorted list.
 * Values mostly grow (times, ids), so the insertion point is usually the
 * end. */
static void range_insert(RangeIndex *r, Sym num)
{
    uint32_t lo = 0, hi = r->n;
    if (r->n && num_cmp(r->nums[r->n - 1], num) < 0) lo = r->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (num_cmp(r->nums[mid], num) < 0) lo = mid + 1;
        else hi = mid;
    }
    GROW(r->nums, r->n, r->cap);
    memmove(r->nums + lo + 1, r->nums + lo, (r->n - lo) * sizeof *r->nums);
    r->nums[lo] = num;
    r->n++;
}

/* The key of object id's attribute (r's name, canon) joins the index,
 * and its number the range of the name. */
static void key_add(Pool *p, RangeIndex *r, ObjId id, Sym canon)
{
    bool fresh = index_put(p, r, canon, id);
    if (!sym_is_number(canon)) r->text_live++;
    else if (fresh) range_insert(r, canon);
}

/* The names the index keeps are those some lookup asked for: a move's
 * time, which no rule matches on, costs no key, and the tables of keys
 * stay small enough to be read in few cache misses.  A name asked for
 * the first time is indexed from the objects that hold it, once: a walk
 * over the pool.  A rule may name thousands of attributes, so that walk
 * is made for NAMES_LISTED_MAX names at most; the next name asked for
 * indexes every name at once (index_every_name), as the index did before
 * it was lazy, and no walk is made again. */
#define NAMES_LISTED_MAX 256

static void index_every_name(Pool *p)
{
    p->index_every_name = true;
    IDSET_FOREACH (&p->all, id) {
        const Obj *o = p->objs[id];
        for (uint32_t k = 0; k < obj_n(o); k++) {
            RangeIndex *r = range_get(p, obj_name(o, k));
            if (r->indexed == 1) continue; /* kept already */
            r->indexed = 2;                /* being listed */
            key_add(p, r, id, sym_canon(o->vals[k]));
        }
    }
    for (size_t i = 0; i < p->ranges_cap; i++)
        if (p->ranges[i].name) p->ranges[i].indexed = 1;
    p->ranges_gen++;
}

/* Whether the index keeps the keys of the name r is the entry of (NULL:
 * no entry): once every name is indexed, a name without one is held by
 * no object, and a lookup of it makes no entry. */
static bool keys_kept(const Pool *p, const RangeIndex *r) { return p->index_every_name || (r && r->indexed); }

static RangeIndex *index_name(Pool *p, Sym name)
{
    RangeIndex *r = range_find(p, name);
    if (keys_kept(p, r)) return r;
    if (++p->names_listed > NAMES_LISTED_MAX) {
        index_every_name(p);
        return range_find(p, name);
    }
    if (!r) r = range_get(p, name);
    r->indexed = 1;
    p->ranges_gen++;
    IDSET_FOREACH (&p->all, id) {
        const Obj *o = p->objs[id];
        bool found;
        uint32_t i = attr_pos(o, name, &found);
        if (found) key_add(p, r, id, sym_canon(o->vals[i]));
    }
    return r;
}

/* The entry of a name being written, when the index keeps its keys, else
 * NULL. */
static RangeIndex *indexed(Pool *p, Sym name)
{
    if (p->index_every_name) {
        RangeIndex *r = range_get(p, name);
        r->indexed = 1;
        return r;
    }
    RangeIndex *r = range_find(p, name);
    return r && r->indexed ? r : NULL;
}

/* indexed(p, sh->names[k]).  A shared shape keeps, after its names, the
 * places of their entries (1 + the place, 0: none), made again when the
 * pool's ranges_gen has moved: a name indexed (index_name, every name at
 * once) or the table grown.  A new entry alone moves no place a shape
 * keeps: its name had none, and is in no shape whose places were made
 * since every name was indexed (they made its entry).  So a rule that
 * makes a new name at each firing does not make every shape's places
 * again each time.  Every attribute an object is made or deleted with,
 * or has changed, is looked up here, and a vote's eleven took 1.6% of
 * Engine City's instructions in range_find. */
static __attribute__((noinline)) void places_again(Pool *p, Shape *sh)
{
    Sym *places = sh->names + sh->n;
    while (sh->slots_gen != p->ranges_gen) {
        uint32_t gen = p->ranges_gen;
        for (uint32_t j = 0; j < sh->n; j++) {
            RangeIndex *r = indexed(p, sh->names[j]); /* (which may make an entry: then again) */
            places[j] = r ? (Sym)(r - p->ranges) + 1 : 0;
        }
        if (gen == p->ranges_gen) sh->slots_gen = gen;
    }
}

static inline RangeIndex *indexed_at(Pool *p, Shape *sh, uint32_t k)
{
    if (sh->room) return indexed(p, sh->names[k]);
    if (sh->slots_gen != p->ranges_gen) places_again(p, sh);
    Sym place = sh->names[sh->n + k];
    return place ? &p->ranges[place - 1] : NULL;
}

/* The indexes and counts of an attribute (not its term of state_hash,
 * which the callers add or take); r is indexed(p, name). */
static void index_add(Pool *p, RangeIndex *r, ObjId id, Sym name, Sym value)
{
    p->text_bytes += sym_len(name) + sym_len(value);
    if (r) key_add(p, r, id, sym_canon(value));
}

static void index_remove(Pool *p, RangeIndex *r, ObjId id, Sym name, Sym value)
{
    p->text_bytes -= sym_len(name) + sym_len(value);
    if (!r) return;
    Sym canon = sym_canon(value);
    index_take(p, r, canon, id);
    if (!sym_is_number(canon)) r->text_live--;
}

/* ---- objects ---- */

Obj *pool_get(const Pool *p, ObjId id)
{
    return id < p->objlen ? p->objs[id] : NULL;
}

size_t pool_size(const Pool *p) { return p->all.live; }

PoolCounts pool_counts(const Pool *p) { return (PoolCounts){p->all.live, p->text_bytes}; }

PoolCounts pool_counts_base(const Pool *p) { return p->undo_len ? p->base : pool_counts(p); }

void pool_touched_reset(Pool *p)
{
    p->touched.on = true;
    p->touched.lost = false;
    p->touched.len = 0;
}

static void touch(Pool *p, ObjId id)
{
    TouchedIds *t = &p->touched;
    if (!t->on || t->lost) return;
    if (t->len == TOUCHED_MAX) {
        t->lost = true;
        return;
    }
    GROW(t->ids, t->len, t->cap);
    t->ids[t->len++] = id;
}

/* Before a change: the first record of the undo log keeps the counts the
 * state had. */
static void note_base(Pool *p)
{
    if (p->logging && p->undo_len == 0) p->base = pool_counts(p);
}

static void log_undo(Pool *p, Undo u)
{
    if (!p->logging) {
        obj_free(p, u.saved);
        return;
    }
    GROW(p->undo, p->undo_len, p->undo_cap);
    p->undo[p->undo_len++] = u;
}

static void note_change_as(Pool *p, ChangeKind kind, ObjId id, Sym name, Sym old, Sym type)
{
    ChangeList *l = &p->changes;
    if (!l->on || l->lost) return;
    if (l->len == CHANGES_MAX) {
        l->lost = true;
        return;
    }
    GROW(l->c, l->len, l->cap);
    l->c[l->len++] = (Change){kind, id, name, old, type};
}

static void note_change(Pool *p, ChangeKind kind, const Obj *o, Sym name, Sym old)
{
    /* attributes sort by Sym, and type's is one of the first texts
     * interned: it is almost always the first attribute */
    Sym type = obj_n(o) && obj_name(o, 0) == SYM_type ? o->vals[0] : obj_get(o, SYM_type);
    note_change_as(p, kind, o->id, name, old, type);
}

static void install(Pool *p, Obj *o)
{
    assert(o->id != 0 && o->id < p->next_id); /* ids from 1, never reused */
    assert(o->id >= p->objlen || !p->objs[o->id]);
    if (o->id >= p->objcap) {
        size_t cap = p->objcap ? p->objcap : 1024;
        while (cap <= o->id) cap *= 2;
        p->objs = xrealloc(p->objs, cap * sizeof *p->objs);
        p->objcap = cap;
    }
    if (o->id >= p->objlen) {
        /* only what is used is written: the room beyond costs no memory */
        memset(p->objs + p->objlen, 0, (o->id + 1 - p->objlen) * sizeof *p->objs);
        p->objlen = o->id + 1;
    }
    p->objs[o->id] = o;
    touch(p, o->id);
    idset_add(&p->all, o->id);
    /* a new object has no terms; one put back by an undo kept its own */
    assert(kept_terms(o) == obj_terms(p, o));
    p->state_hash += exist_term(p, o->id) + kept_terms(o);
    for (uint32_t i = 0; i < obj_n(o); i++) index_add(p, indexed_at(p, o->shape, i), o->id, obj_name(o, i), o->vals[i]);
}

static Obj *obj_new(Pool *p, ObjId id)
{
    Obj *o = xcalloc(1, sizeof *o);
    o->id = id;
    o->idsym = sym_from_long((long)id);
    o->shape = shape_none(p);
    shape_hold(p, o->shape);
    return o;
}

ObjId pool_create(Pool *p)
{
    note_base(p);
    ObjId id = p->next_id++;
    install(p, obj_new(p, id));
    note_change(p, CHANGE_CREATE, p->objs[id], SYM_EMPTY, SYM_EMPTY);
    log_undo(p, (Undo){.kind = UNDO_CREATE, .id = id});
    return id;
}

bool pool_create_at(Pool *p, ObjId id)
{
    if (id < p->next_id || id >= IDSET_DEAD) return false;
    p->next_id = id + 1;
    install(p, obj_new(p, id));
    return true;
}

bool pool_create_reserved(Pool *p, ObjId id)
{
    if (id == 0 || id >= p->next_id || pool_get(p, id)) return false;
    note_base(p);
    install(p, obj_new(p, id));
    note_change(p, CHANGE_CREATE, p->objs[id], SYM_EMPTY, SYM_EMPTY);
    log_undo(p, (Undo){.kind = UNDO_CREATE, .id = id});
    return true;
}

/* An attribute and its place in the list given: a name given twice keeps
 * the value given last, so the sort of a long list must not mix them. */
typedef struct AttrAt {
    Attr a;
    uint32_t at;
} AttrAt;

static int cmp_attr_at(const void *x, const void *y)
{
    const AttrAt *a = x, *b = y;
    if (a->a.name != b->a.name) return a->a.name < b->a.name ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Lists longer than this are sorted by qsort: a message may hold a move
 * of many thousands of attributes, in any order of their Syms. */
#define SORT_BY_INSERTION 32

/* in[0..n) sorted by name into out[0..n), ties in the order given. */
static void sort_attrs(const Attr *in, uint32_t n, Attr *out)
{
    if (n > SORT_BY_INSERTION) {
        AttrAt *t = xmalloc(n * sizeof *t);
        for (uint32_t k = 0; k < n; k++) t[k] = (AttrAt){in[k], k};
        qsort(t, n, sizeof *t, cmp_attr_at);
        for (uint32_t k = 0; k < n; k++) out[k] = t[k].a;
        free(t);
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = k;
        while (i > 0 && out[i - 1].name > in[k].name) {
            out[i] = out[i - 1];
            i--;
        }
        out[i] = in[k];
    }
}

/* pool_create_with's attributes in order of name, each name once with
 * the last value given for it (as the last pool_set leaves it), none
 * empty and no objectId; their number. */
static uint32_t sorted_attrs(const Attr *in, uint32_t n, Attr *out)
{
    sort_attrs(in, n, out);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (out[k].name == SYM_objectId || out[k].name == SYM_EMPTY) continue;
        if (k + 1 < n && out[k + 1].name == out[k].name) continue; /* a later value stands */
        if (out[k].value != SYM_EMPTY) out[m++] = out[k];
    }
    return m;
}

/* Room for the sorted attributes of a move on the stack. */
#define CREATE_LOCAL 32

ObjId pool_create_with(Pool *p, const Attr *attrs, uint32_t n)
{
    Attr local[CREATE_LOCAL], *a = n <= CREATE_LOCAL ? local : xmalloc(n * sizeof *a);
    uint32_t m = sorted_attrs(attrs, n, a);
    note_base(p);
    ObjId id = p->next_id++;
    Obj *o = obj_new(p, id);
    if (m) vals_resize(o, m);
    if (m > SHAPE_SHARED_MAX) { /* a shape of its own, grown name by name */
        for (uint32_t k = 0; k < m; k++) shape_change(p, &o->shape, k, a[k].name, true);
    } else if (m) { /* the shared shape the names lead to, at once */
        shape_drop(p, o->shape);
        o->shape = shape_of_attrs(p, a, m);
    }
    uint64_t terms = 0;
    Sym type = SYM_EMPTY;
    for (uint32_t k = 0; k < m; k++) {
        o->vals[k] = a[k].value;
        terms += term(p, id, a[k].name, a[k].value);
        if (a[k].name == SYM_type) type = a[k].value;
    }
    keep_terms(o, terms);
    install(p, o);
    /* the engine hears of it as of pool_create and a pool_set of each
     * attribute with the type set last: the reads of the type, once,
     * rather than those of each attribute of an object of that type */
    note_change_as(p, CHANGE_CREATE, id, SYM_EMPTY, SYM_EMPTY, SYM_EMPTY);
    for (uint32_t k = 0; k < m; k++)
        if (a[k].name != SYM_type) note_change_as(p, CHANGE_SET, id, a[k].name, SYM_EMPTY, SYM_EMPTY);
    if (type != SYM_EMPTY) note_change_as(p, CHANGE_SET, id, SYM_type, SYM_EMPTY, type);
    log_undo(p, (Undo){.kind = UNDO_CREATE, .id = id, .whole = true});
    if (a != local) free(a);
    return id;
}

static Obj *uninstall(Pool *p, ObjId id)
{
    Obj *o = p->objs[id];
    touch(p, id);
    for (uint32_t i = 0; i < obj_n(o); i++) index_remove(p, indexed_at(p, o->shape, i), id, obj_name(o, i), o->vals[i]);
    idset_remove(&p->all, id);
    p->state_hash -= exist_term(p, id) + kept_terms(o);
    p->objs[id] = NULL;
    return o;
}

bool pool_delete(Pool *p, ObjId id)
{
    if (!pool_get(p, id)) return false;
    note_base(p);
    Obj *o = uninstall(p, id);
    note_change(p, CHANGE_DELETE, o, SYM_EMPTY, SYM_EMPTY);
    log_undo(p, (Undo){.kind = UNDO_DELETE, .id = id, .saved = o});
    return true;
}

static uint32_t attr_pos(const Obj *o, Sym name, bool *found)
{
    const Shape *sh = o->shape;
    uint32_t lo = 0, hi = sh->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (sh->names[mid] < name) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < sh->n && sh->names[lo] == name;
    return lo;
}

Sym obj_get(const Obj *o, Sym name)
{
    if (name == SYM_objectId) return o->idsym;
    bool found;
    uint32_t i = attr_pos(o, name, &found);
    return found ? o->vals[i] : SYM_EMPTY;
}

/* Room for n values, made at once (a move's are known before it is made). */
static void obj_reserve(Obj *o, uint32_t n)
{
    if (!o->vals || n > vals_room(obj_n(o))) vals_resize(o, n);
}

void pool_reserve(Pool *p, ObjId id, uint32_t n)
{
    Obj *o = pool_get(p, id);
    if (o) obj_reserve(o, n);
}

/* Sets name to value ("" removes) in the attributes of o alone, at i,
 * where attr_pos found it or would put it. */
static void obj_put_at(Pool *p, Obj *o, uint32_t i, bool found, Sym name, Sym value)
{
    uint32_t n = obj_n(o);
    if (found) {
        if (value != SYM_EMPTY) {
            o->vals[i] = value;
            return;
        }
        memmove(o->vals + i, o->vals + i + 1, (n - i - 1) * sizeof *o->vals);
        shape_change(p, &o->shape, i, name, false);
        return;
    }
    if (value == SYM_EMPTY) return;
    if (!o->vals || n + 1 > vals_room(n)) obj_reserve(o, n + 1);
    memmove(o->vals + i + 1, o->vals + i, (n - i) * sizeof *o->vals);
    o->vals[i] = value;
    shape_change(p, &o->shape, i, name, true);
    /* sorted by name, and no attribute holds "" */
    assert(i == 0 || obj_name(o, i - 1) < name);
    assert(i + 1 == obj_n(o) || name < obj_name(o, i + 1));
}

static void obj_put(Pool *p, Obj *o, Sym name, Sym value)
{
    bool found;
    uint32_t i = attr_pos(o, name, &found);
    obj_put_at(p, o, i, found, name, value);
}

/* Writes without logging; used by pool_set and by undo.  The attribute
 * is at i of o's (attr_pos), holding old if found. */
static void raw_set_at(Pool *p, Obj *o, uint32_t i, bool found, Sym name, Sym value)
{
    Sym old = found ? o->vals[i] : SYM_EMPTY;
    uint64_t terms = kept_terms(o);
    RangeIndex *r = found ? indexed_at(p, o->shape, i) : indexed(p, name);
    touch(p, o->id);
    if (old != SYM_EMPTY) {
        index_remove(p, r, o->id, name, old);
        terms -= term(p, o->id, name, old);
    }
    obj_put_at(p, o, i, found, name, value);
    if (value != SYM_EMPTY) {
        index_add(p, r, o->id, name, value);
        terms += term(p, o->id, name, value);
    }
    p->state_hash += terms - kept_terms(o);
    keep_terms(o, terms);
}

static void raw_set(Pool *p, Obj *o, Sym name, Sym value)
{
    bool found;
    uint32_t i = attr_pos(o, name, &found);
    raw_set_at(p, o, i, found, name, value);
}

bool pool_set(Pool *p, ObjId id, Sym name, Sym value)
{
    Obj *o = pool_get(p, id);
    if (!o || name == SYM_objectId || name == SYM_EMPTY) return false;
    bool found;
    uint32_t i = attr_pos(o, name, &found);
    Sym old = found ? o->vals[i] : SYM_EMPTY;
    if (old == value) return false;
    note_base(p);
    raw_set_at(p, o, i, found, name, value);
    note_change(p, CHANGE_SET, o, name, old);
    log_undo(p, (Undo){.kind = UNDO_SET, .id = id, .name = name, .old = old, .new = value});
    return true;
}

/* ---- between events ---- */

/* Removes the key in slot i of r's table, moving back the keys after it
 * that probing would no longer find (linear probing's deletion: no
 * tombstones, so probes stay as short as the keys there are). */
static void key_remove_at(const Pool *p, RangeIndex *r, size_t i)
{
    size_t mask = r->keys_cap - 1;
    for (size_t j = (i + 1) & mask; r->keys[j].value; j = (j + 1) & mask) {
        size_t home = key_hash(p, r->keys[j].value) & mask;
        /* the key at j may fill the hole at i unless its home lies in (i, j] */
        bool stays = i <= j ? i < home && home <= j : i < home || home <= j;
        if (stays) continue;
        r->keys[i] = r->keys[j];
        i = j;
    }
    r->keys[i] = (KeySlot){0, 0};
    r->keys_n--;
    r->keys_dead--; /* only emptied keys are removed */
}

/* Lists of one (or none) go back to single keys, and emptied keys go.  A
 * list gone leaves its place to the next list made (the others do not
 * move, so the tables keep their refs), and a large table is walked only
 * once a quarter of its keys are emptied ones (a game's batches die by the
 * thousand between two collections, into a table of a hundred thousand):
 * a walk then removes at least a key for every eight slots it reads.  An
 * emptied key is harmless meanwhile: it is found, reused or skipped as a
 * key nobody holds.  A table four times larger than its keys need is made
 * again smaller. */
static void compact_index(Pool *p)
{
    lookup_memo_clear(p);
    for (uint32_t k = 0; k < p->nlists; k++) {
        IndexEntry *e = list_at(p, k);
        if (!e->name || e->set.live > 1) continue; /* free, or a list still */
        RangeIndex *r = range_find(p, e->name);
        KeySlot *slot = key_find(p, r, e->value);
        slot->ref = e->set.live ? e->set.ids[idset_seek(&e->set, 0, 1)] : 0;
        if (!slot->ref) r->keys_dead++;
        idset_free(&e->set);
        *e = (IndexEntry){.name = 0, .value = p->lists_free};
        p->lists_free = k + 1;
    }
    for (size_t n = 0; n < p->ranges_cap; n++) {
        RangeIndex *r = &p->ranges[n];
        if (r->keys_dead * 4 < r->keys_n && r->keys_cap > KEYS_MIN * 8) continue; /* not worth a walk yet */
        for (uint32_t i = 0; r->keys_dead && i < r->keys_cap; i++)
            while (r->keys[i].value && !r->keys[i].ref) key_remove_at(p, r, i); /* another key may move into i */
        if (r->keys_cap > KEYS_MIN && r->keys_cap >= 4 * keys_room(r->keys_n))
            keys_refill(p, r, r->keys_n ? keys_room(r->keys_n) : 0);
    }
}

void pool_compact(Pool *p)
{
    compact_index(p);
    for (size_t i = 0; i < p->ranges_cap; i++) {
        RangeIndex *r = &p->ranges[i];
        uint32_t n = 0;
        for (uint32_t k = 0; r->name && k < r->n; k++)
            if (index_live(p, r, r->nums[k])) r->nums[n++] = r->nums[k];
        r->n = n;
    }
}

static void mark_obj(const Obj *o)
{
    if (!o) return;
    sym_mark(o->idsym);
    for (uint32_t k = 0; k < obj_n(o); k++) sym_mark(o->vals[k]);
    /* the names of shared shapes: shapes_mark; an object's own, here */
    for (uint32_t k = 0; o->shape->room && k < obj_n(o); k++) sym_mark(obj_name(o, k));
}

void pool_mark_syms(Pool *p)
{
    pool_fresh_close(p); /* (never open here: its Syms would not stay theirs) */
    hash_memo_clear(p);
    lookup_memo_clear(p);
    shapes_mark(p);
    for (size_t i = 0; i < p->objlen; i++) mark_obj(p->objs[i]);
    /* The keys of the index need no mark: one somebody holds is the
     * canonical text of an object's value, which the collector keeps with
     * the value; an emptied one whose text is freed names, by its Sym, the
     * next text given that Sym, and is that text's key, held by nobody. */
    for (size_t i = 0; i < p->ranges_cap; i++) {
        const RangeIndex *r = &p->ranges[i];
        if (!r->name) continue;
        sym_mark(r->name);
        for (uint32_t k = 0; k < r->n; k++) sym_mark(r->nums[k]);
    }
    for (size_t i = 0; i < p->undo_len; i++) {
        const Undo *u = &p->undo[i];
        sym_mark(u->name);
        sym_mark(u->old);
        sym_mark(u->new);
        mark_obj(u->saved);
    }
    for (size_t i = 0; i < p->changes.len; i++) {
        const Change *c = &p->changes.c[i];
        sym_mark(c->name);
        sym_mark(c->old);
        sym_mark(c->type);
    }
}

/* ---- undo ---- */

size_t pool_mark(const Pool *p) { return p->undo_len; }

/* The ids whose first record from `mark` on is their creation: objects
 * that will not be there once the records are undone (a table of ids,
 * open addressing; the born ones flagged in the top bit). */
typedef struct Born {
    ObjId *ids;
    size_t mask;
    ObjId local[256];
} Born;

static ObjId *born_slot(const Born *b, ObjId id)
{
    size_t i = hash_mix(id) & b->mask;
    while (b->ids[i] && (b->ids[i] & ~IDSET_DEAD) != id) i = (i + 1) & b->mask;
    return &b->ids[i];
}

static void born_find(const Pool *p, size_t mark, Born *b)
{
    size_t n = p->undo_len - mark, cap = 256;
    while (cap < 2 * n) cap *= 2;
    b->ids = cap == 256 ? b->local : xmalloc(cap * sizeof *b->ids);
    memset(b->ids, 0, cap * sizeof *b->ids);
    b->mask = cap - 1;
    for (size_t k = mark; k < p->undo_len; k++) {
        ObjId *slot = born_slot(b, p->undo[k].id);
        if (!*slot) *slot = p->undo[k].id | (p->undo[k].kind == UNDO_CREATE ? IDSET_DEAD : 0);
    }
}

static bool born_has(const Born *b, ObjId id) { return *born_slot(b, id) & IDSET_DEAD; }

/* Undoes the records from `mark` on, the last first.  An object made
 * since is only removed at the end, as it is then: its changes are not
 * played back one by one (a move deleted by the rules put back in the
 * indexes to have each attribute set back, and removed again). */
void pool_undo_to(Pool *p, size_t mark)
{
    if (p->undo_len <= mark) return;
    Born born;
    born_find(p, mark, &born);
    while (p->undo_len > mark) {
        Undo *u = &p->undo[--p->undo_len];
        bool gone = born_has(&born, u->id); /* made since: it will not be there */
        switch (u->kind) {
        case UNDO_CREATE:
            if (p->objs[u->id]) obj_free(p, uninstall(p, u->id));
            if (u->id + 1 == p->next_id) p->next_id = u->id;
            break;
        case UNDO_DELETE:
            if (gone) obj_free(p, u->saved);
            else install(p, u->saved);
            u->saved = NULL;
            break;
        case UNDO_SET:
            if (!gone) raw_set(p, p->objs[u->id], u->name, u->old);
            break;
        }
    }
    if (born.ids != born.local) free(born.ids);
}

void pool_forget_undo(Pool *p)
{
    for (size_t i = 0; i < p->undo_len; i++) obj_free(p, p->undo[i].saved);
    p->undo_len = 0;
    p->fresh_undo = 0;
}

void pool_fresh_open(Pool *p)
{
    pool_fresh_close(p); /* one left open (an event given up) is closed first */
    p->fresh_from = p->next_id;
    p->fresh_undo = p->undo_len;
}

void pool_fresh_close(Pool *p)
{
    ObjId from = p->fresh_from;
    if (from == NO_WINDOW) return;
    p->fresh_from = NO_WINDOW; /* term() is SipHash's from here on */
    for (ObjId id = from; id < p->next_id && id < p->objlen; id++) {
        Obj *o = p->objs[id];
        if (!o) continue;
        uint64_t cheap = cheap_term(p, id, 0, 0) + kept_terms(o), terms = obj_terms(p, o);
        keep_terms(o, terms);
        p->state_hash += exist_hash(p, id) + terms - cheap;
    }
    /* and the new objects deleted within the window, which an undo may
     * put back */
    for (size_t i = p->fresh_undo < p->undo_len ? p->fresh_undo : p->undo_len; i < p->undo_len; i++) {
        Obj *o = p->undo[i].saved;
        if (o && o->id >= from) keep_terms(o, obj_terms(p, o));
    }
}

/* ---- the key, the public digest, and repeats ---- */

void pool_set_hash_key(Pool *p, const uint64_t key[2], int version)
{
    pool_fresh_close(p);
    p->hash_key[0] = key[0];
    p->hash_key[1] = key[1];
    p->hash_version = version;
    hash_memo_clear(p);
    p->state_hash = 0;
    IDSET_FOREACH (&p->all, id) {
        Obj *o = p->objs[id];
        uint64_t terms = obj_terms(p, o);
        keep_terms(o, terms);
        p->state_hash += exist_hash(p, o->id) + terms;
    }
    /* and the deleted ones an undo may put back */
    for (size_t i = 0; i < p->undo_len; i++)
        if (p->undo[i].saved) keep_terms(p->undo[i].saved, obj_terms(p, p->undo[i].saved));
}

/* Under a key of its own (the game's with its halves swapped and a tag),
 * so that the digest is no term of the state hash. */
uint64_t pool_public_hash(const Pool *p)
{
    assert(p->fresh_from == NO_WINDOW); /* the keyed hash only */
    uint64_t key[2] = {p->hash_key[1] ^ 0x6e6f6d6963707562ULL, p->hash_key[0]};
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(p->state_hash >> (8 * i));
    return siphash24(key, b, sizeof b);
}

static int cmp_objid(const void *a, const void *b)
{
    ObjId x = *(const ObjId *)a, y = *(const ObjId *)b;
    return x < y ? -1 : x > y;
}

/* Walks the undo records from the newest back to `mark` on copies of the
 * objects they touch, which then hold those objects as they were at the
 * mark (NULL: not alive then); untouched objects did not change. */
static void objects_at_mark(Pool *p, size_t mark, ObjId *ids, size_t n, Obj **then)
{
    for (size_t i = 0; i < n; i++) {
        const Obj *o = pool_get(p, ids[i]);
        then[i] = o ? obj_clone(p, o) : NULL;
    }
    for (size_t k = p->undo_len; k-- > mark;) {
        const Undo *u = &p->undo[k];
        const ObjId *at = bsearch(&u->id, ids, n, sizeof *ids, cmp_objid);
        Obj **o = &then[at - ids];
        if (u->kind == UNDO_CREATE) {
            obj_free(p, *o);
            *o = NULL;
        } else if (u->kind == UNDO_DELETE) {
            obj_free(p, *o);
            *o = obj_clone(p, u->saved);
        } else if (*o) {
            obj_put(p, *o, u->name, u->old);
        }
    }
}

static bool same_obj(const Obj *a, const Obj *b)
{
    if (!a || !b) return a == b;
    uint32_t n = obj_n(a);
    if (n != obj_n(b)) return false;
    /* an object's own shape and a copy of it hold the same names apart */
    if (a->shape != b->shape && memcmp(a->shape->names, b->shape->names, n * sizeof *a->shape->names) != 0) return false;
    return !n || memcmp(a->vals, b->vals, n * sizeof *a->vals) == 0;
}

bool pool_unchanged_since(Pool *p, size_t mark)
{
    if (!p->logging || mark > p->undo_len) return false;
    size_t n = 0, total = p->undo_len - mark;
    ObjId *ids = xmalloc((total ? total : 1) * sizeof *ids);
    for (size_t k = mark; k < p->undo_len; k++) ids[n++] = p->undo[k].id;
    qsort(ids, n, sizeof *ids, cmp_objid);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || ids[i] != ids[u - 1]) ids[u++] = ids[i];
    Obj **then = xmalloc((u ? u : 1) * sizeof *then);
    objects_at_mark(p, mark, ids, u, then);
    bool same = true;
    for (size_t i = 0; i < u; i++) {
        same = same && same_obj(then[i], pool_get(p, ids[i]));
        obj_free(p, then[i]);
    }
    free(then);
    free(ids);
    return same;
}
