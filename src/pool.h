/*
 * pool.h - the object pool: objects with sequential ids, their attributes,
 * the indexes that matching uses, a running state hash and the undo log.
 *
 * Invariants:
 *  - Ids are assigned from 1 upwards and never reused (next_id only grows).
 *  - An object's attributes are sorted by name Sym; no attribute holds "".
 *    Their names are its Shape's, shared with every object of the pool
 *    that has the same names; its Sym values are its own.
 *  - Every live object's id is in `all`.  For every live object and
 *    attribute (name, value) whose name is indexed (ranges' `indexed`: some
 *    lookup asked for the name, or every name is, past NAMES_LISTED_MAX in
 *    pool.c), the object's id is in the posting list of (name,
 *    sym_canon(value)); nothing else is in any posting list.  So "type ==
 *    vote" or "propId == 5.0" is one lookup, and "5" and "5.0" share a
 *    list.  (A key only one object has, such as a player's nickname, is
 *    kept as its value and that id, in its name's table of keys, until a
 *    lookup asks for its list; pool_lookup then makes one.  Between
 *    events pool_compact turns lists of one back into bare keys.)
 *  - For every indexed name, `ranges` keeps the distinct numeric values
 *    it has held since it was indexed, ascending, and how many live
 *    objects hold a value of it that is not a number; so "score > 100"
 *    can visit only the posting lists of the numbers above 100 (and knows
 *    when text values could also compare greater, which makes that
 *    shortcut wrong).
 *  - state_hash is the sum over live objects of a hash of the id and of every
 *    (id, name, value) triple: order-independent and updated per change, so
 *    the engine can spot a possibly repeated state in O(1).  The terms are
 *    keyed by hash_key, the game's secret (SipHash of each triple in version
 *    1; in version 2 a mix of the id and the SipHash of each text, which
 *    the text keeps): no player can choose values that make two states
 *    collide, nor learn from the hash what a value is.
 *    A match is still only a candidate: pool_unchanged_since confirms it.
 *  - While logging is on, every change appends an undo record; pool_undo_to
 *    rolls the pool back to an earlier mark exactly (ids included).
 *  - `text_bytes` is the sum, over the attributes of live objects, of the
 *    lengths of their names and values; with all.live (the live objects) it
 *    is what the state caps of the engine measure, kept per change in O(1).
 *    `base` holds both as they were before the oldest record of the undo
 *    log (the state the event began from), so the engine can tell whether
 *    an event made the state grow.
 *  - While `touched.on`, every object created, deleted or changed (undo
 *    included) has its id appended to `touched`, for a reader that keeps
 *    views of the objects and re-renders only those (the server); past
 *    TOUCHED_MAX ids the list gives up and sets `lost`.
 *  - While `changes.on`, pool_create, pool_delete and pool_set also append a
 *    Change (undo does not: whoever rolls back knows it); the engine drains
 *    them to learn which rules a change may have made true.  Past
 *    CHANGES_MAX undrained changes the list gives up and sets `lost`.
 * The pool owns its objects; Obj pointers are valid until the object is
 * deleted or the pool freed.
 */
#ifndef NOMIC_POOL_H
#define NOMIC_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool_idset.h"
#include "value.h"

typedef struct Attr {
    Sym name;
    Sym value;
} Attr;

/* The names of an object's attributes, sorted by Sym: one Shape for all
 * the objects of a pool that have the same names (a thousand votes share
 * one), so that an object keeps only its values.  An object of more than
 * SHAPE_SHARED_MAX names has one of its own, changed in place (`room`
 * is then its capacity), so that setting a million names on one object
 * does not copy a growing list a million times.  pool.c makes, finds and
 * frees them; the rest of the program only reads them. */
#define SHAPE_SHARED_MAX 64
typedef struct ShapeNext ShapeNext;
typedef struct Shape {
    uint32_t n;     /* names */
    uint32_t refs;  /* objects holding it (pool_shape.c) */
    uint64_t hash;  /* of the names, as a set (pool_shape.c) */
    ShapeNext *next; /* the shapes it led to last (pool_shape.c) */
    uint32_t room;  /* 0: shared; else an object's own, with room for so many names */
    uint32_t slots_gen; /* a shared shape: names[n + k] is the place of names[k]'s
                           index entry (pool.c, indexed_at) while this is
                           the pool's ranges_gen */
    Sym names[];    /* in the cache line of n, for a small shape */
} Shape;

typedef struct Obj {
    ObjId id;
    Sym idsym;     /* the id as text, for reading objectId */
    Shape *shape;  /* its attributes' names; never NULL */
    Sym *vals;     /* vals[k] is the value of shape->names[k] (with, before
                      them, what pool.c keeps of them) */
} Obj;

static inline uint32_t obj_n(const Obj *o) { return o->shape->n; }
static inline Sym obj_name(const Obj *o, uint32_t k) { return o->shape->names[k]; }
static inline Sym obj_value(const Obj *o, uint32_t k) { return o->vals[k]; }

typedef enum { UNDO_CREATE, UNDO_DELETE, UNDO_SET } UndoKind;

typedef struct Undo {
    UndoKind kind;
    ObjId id;
    Sym name, old, new; /* UNDO_SET */
    bool whole;         /* UNDO_CREATE: made with its attributes (pool_create_with),
                           which have no UNDO_SET records of their own */
    Obj *saved;         /* UNDO_DELETE: the object as it was */
} Undo;

/* One change, as the engine's dependency tracking sees it. */
typedef enum { CHANGE_CREATE, CHANGE_DELETE, CHANGE_SET } ChangeKind;

typedef struct Change {
    ChangeKind kind;
    ObjId id;
    Sym name, old;   /* CHANGE_SET: the attribute and its value before */
    Sym type;        /* the object's type after the change (DELETE: before) */
} Change;

#define CHANGES_MAX 65536

typedef struct ChangeList {
    Change *c;
    size_t len, cap;
    bool on;         /* record changes */
    bool lost;       /* more than CHANGES_MAX were not drained */
} ChangeList;

/* The ids of the objects changed since the reader last took them. */
#define TOUCHED_MAX (1u << 20)

typedef struct TouchedIds {
    ObjId *ids;      /* in the order of the changes; an id may repeat */
    size_t len, cap;
    bool on;
    bool lost;       /* more than TOUCHED_MAX: assume every object changed */
} TouchedIds;

/* What the engine's state caps measure. */
typedef struct PoolCounts {
    size_t objects;
    size_t text_bytes;
} PoolCounts;

typedef struct IndexEntry IndexEntry;
typedef struct KeySlot KeySlot;

/* Per attribute name: whether the index keeps its keys (only once some
 * lookup asked for them), the table of those keys, and its numeric
 * values, for range matching. */
typedef struct RangeIndex {
    Sym name;        /* 0: empty slot */
    uint8_t indexed; /* 1: its keys are in the index, and the rest is kept
                        (2: while index_every_name lists them) */
    uint32_t text_live; /* live (object, name) pairs whose value is not a number */
    KeySlot *keys;   /* the name's keys: open addressing (pool.c) */
    uint32_t keys_cap, keys_n;
    uint32_t keys_dead; /* of them, emptied ones (nobody holds the key) */
    Sym *nums;       /* distinct canonical numbers ever held, ascending */
    uint32_t n, cap;
} RangeIndex;

typedef struct Pool {
    Obj **objs;        /* by id; NULL when deleted or never made */
    ObjId next_id;     /* the id the next created object gets */
    size_t objlen;     /* objs[0..objlen) are set; the rest is unwritten room */
    size_t objcap;
    IdSet all;         /* every live id */
    IndexEntry **lists; /* the (name, canon value) lists, in chunks: none moves */
    size_t nlists, lists_chunks;
    uint32_t lists_free; /* 1 + a free list's index (each names the next), or 0 */
    uint64_t slots_seed; /* of the keys' hash, drawn for each pool */
    uint32_t names_listed; /* names indexed by a walk over the pool (pool.c) */
    bool index_every_name; /* past NAMES_LISTED_MAX of them: all are */
    RangeIndex *ranges; /* open addressing by name; each holds its keys */
    Sym *range_names;   /* ranges[i].name, probed instead of ranges (pool.c) */
    size_t ranges_cap, ranges_len;
    uint32_t ranges_gen; /* changes as the names with an index entry do (pool.c) */
    Shape **shapes;     /* its objects' shapes: open addressing by hash (pool_shape.c) */
    size_t shapes_cap, nshapes, shapes_unheld;
    Shape *shape_none;  /* the shape of no attributes (in shapes) */
    Shape *shape_made;  /* the last shape shape_of_attrs gave, or NULL (pool_shape.c) */
    uint64_t state_hash;
    ObjId fresh_from;  /* the objects from this id on are the event's own, hashed
                          cheaply until pool_fresh_close; (ObjId)-1: none */
    size_t fresh_undo; /* the undo records since pool_fresh_open */
    uint64_t hash_key[2]; /* the game's secret (store meta hash_key) */
    int hash_version;     /* how its terms are made (store meta hash_version) */
    struct HashMemo *hash_memo; /* recent terms of state_hash (pool.c) */
    struct LookupMemo *lookup_memo; /* lists pool_lookup_at found (pool.c) */
    struct LongMemo *long_memo;     /* the last long terms of state_hash (pool.c) */
    bool logging;
    size_t text_bytes;  /* see the invariants above */
    PoolCounts base;    /* the counts before the undo log's first record */
    uint64_t generation; /* unique to this pool in the process */
    TouchedIds touched;
    ChangeList changes;
    Undo *undo;
    size_t undo_len, undo_cap;
} Pool;

Pool *pool_new(void);
void pool_free(Pool *p);

Obj *pool_get(const Pool *p, ObjId id);
size_t pool_size(const Pool *p);
ObjId pool_create(Pool *p);              /* a new empty object */
bool pool_create_at(Pool *p, ObjId id);  /* for loading; id must be >= next_id */
/* An empty object under an id handed out earlier (below next_id) that no
 * object holds: shadow evaluation applies a pass's creations with the ids
 * their firings were given. */
bool pool_create_reserved(Pool *p, ObjId id);
/* A new object with the attributes attrs[0..n), made at once as
 * pool_create and a pool_set of each in turn would make it (a name given
 * twice keeps its last value; "" and objectId set nothing), in one undo
 * record: a move, whose attributes are known before it is made. */
ObjId pool_create_with(Pool *p, const Attr *attrs, uint32_t n);
bool pool_delete(Pool *p, ObjId id);     /* false when there was nothing */
/* Sets name to value ("" removes); returns whether anything changed. */
bool pool_set(Pool *p, ObjId id, Sym name, Sym value);
/* Room in object id for n attributes, the room that setting them one by
 * one would grow to, made at once (a move's are known before it is made). */
void pool_reserve(Pool *p, ObjId id, uint32_t n);

Sym obj_get(const Obj *o, Sym name); /* "" when absent; objectId is virtual */

/* Posting list of objects whose `name` equals `value`, or NULL if none.
 * The index keeps the keys of a name from the first lookup of it on (that
 * one lists the objects holding it): a name nothing looks up costs none. */
const IdSet *pool_lookup(const Pool *p, Sym name, Sym value);
/* The same, for a caller that asks for one key again and again (a match's
 * literal key, at every test of its rule): `site`, a number that stays the
 * caller's (MatchKey.site), picks where the pool keeps the answer at hand. */
const IdSet *pool_lookup_at(const Pool *p, unsigned site, Sym name, Sym value);

/* The range index of `name` (indexing it, as a lookup does), or NULL
 * when the index keeps every name and no object holds this one. */
const RangeIndex *pool_range_index(const Pool *p, Sym name);
/* The largest number a live object holds under `name` (SYM_EMPTY when
 * none), for a reader that must leave the index as it is: 1; 0 when some
 * live object holds a text that is not a number; -1 when the index does
 * not keep the name's keys (the reader looks at the objects itself). */
int pool_number_max(const Pool *p, Sym name, Sym *max);
/* How many keys (name, value) the index holds, emptied ones included. */
size_t pool_index_keys(const Pool *p);
/* The objects and bytes of the state now, and as the oldest record of
 * the undo log found them (now, when the log is empty). */
PoolCounts pool_counts(const Pool *p);
PoolCounts pool_counts_base(const Pool *p);
/* Starts recording touched ids (pool.h, TouchedIds), emptying the list. */
void pool_touched_reset(Pool *p);

/* Undo log. */
size_t pool_mark(const Pool *p);
void pool_undo_to(Pool *p, size_t mark);
void pool_forget_undo(Pool *p); /* drop the log (commit) */

/* The state hash's definition that new games take (docs/formats.md); a
 * game keeps the version it was made with. */
#define POOL_HASH_VERSION 2
/* Sets the key and version of the state hash and computes the hash again
 * under them. */
void pool_set_hash_key(Pool *p, const uint64_t key[2], int version);
/* An event's window (pool.c): the objects it creates are hashed cheaply
 * while it runs, and given their keyed terms at the close, so that
 * state_hash is the keyed hash again.  Only the loop check reads
 * state_hash in between; a collection must not fall in between (a Sym
 * names its text only until then).  Closing a closed window does nothing;
 * opening one closes the one left open. */
void pool_fresh_open(Pool *p);
void pool_fresh_close(Pool *p);
/* Keeps (on) or drops the memo of the state hash's recent terms, for a
 * caller that undoes changes and makes them again (the scam search);
 * returns whether it was kept.  The hash is the same either way. */
bool pool_hash_memo(Pool *p, bool on);
/* The digest the journal publishes after each event: a keyed hash of
 * state_hash, so two consecutive digests (whose states differ by one value)
 * tell nothing about that value to anyone without the key. */
uint64_t pool_public_hash(const Pool *p);
/* One term of state_hash: the attribute (name, value) of object id, under
 * the pool's key, as state_hash adds it (pool.c; exported for its test). */
uint64_t pool_term_hash(const Pool *p, ObjId id, Sym name, Sym value);
/* Whether the undo records from `mark` on leave the pool exactly as it was
 * at the mark: every object created since is gone again, every one deleted
 * since is back, every attribute set since has its old value.  False when
 * the log is off.  Costs O(records since the mark). */
bool pool_unchanged_since(Pool *p, size_t mark);

/* Between events: drops the emptied posting lists (and their numbers from
 * the range indexes), then marks every Sym the pool holds for the collector
 * (value.h). */
void pool_compact(Pool *p);
void pool_mark_syms(Pool *p);


#endif
