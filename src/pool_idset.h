/*
 * pool_idset.h - a sorted set of object ids, the posting list behind every index.
 *
 * Invariants: ids[0..len) is strictly ascending when the dead bit is ignored;
 * an entry with IDSET_DEAD set is a tombstone left by a removal and skipped
 * by readers.  `live` counts the entries without the bit.  Tombstones keep
 * removal O(log n) for long lists (a closing proposal deletes thousands of
 * votes); the list is compacted when more than half of it is dead.  Ids are
 * mostly added in ascending order (new objects get the highest id), which
 * appends, and mostly removed oldest first (a proposal's votes, processed
 * moves), so `head` marks where the dead prefix ends: readers start there
 * instead of stepping over it.  Most lists hold one id (an object's own
 * time, its own id): a single id is kept in the set itself, in `one`,
 * with ids pointing there and cap 1 (an allocation always has room for
 * two or more), so it costs no allocation.  Whoever copies an IdSet to
 * another place calls idset_moved on the copy.  An undo puts removed ids
 * back newest first, each below the others: the list keeps free room in
 * front of ids[0] as well as after it, and an insertion moves the shorter
 * side, so that rolling back a large event is linear, not quadratic.
 * Positions are only valid until the next change.
 */
#ifndef NOMIC_POOL_IDSET_H
#define NOMIC_POOL_IDSET_H

#include <stdbool.h>
#include <stdint.h>

typedef uint32_t ObjId;
#define IDSET_DEAD 0x80000000u

typedef struct IdSet {
    ObjId *ids;
    uint32_t len;  /* entries, tombstones included */
    uint32_t cap;  /* slots from ids[0] on */
    uint32_t front;/* free slots before ids[0] (the allocation starts there) */
    uint32_t live; /* entries that are not tombstones */
    uint32_t head; /* every entry before it is a tombstone */
    ObjId one;     /* the id when cap == 1 */
    uint32_t finger; /* where the last removal was: a hint for the next
                        (idset_remove), checked before it is used */
} IdSet;

void idset_add(IdSet *s, ObjId id);
void idset_remove(IdSet *s, ObjId id);
bool idset_has(const IdSet *s, ObjId id);
/* Index of the first live entry whose id is >= id, or s->len. */
uint32_t idset_seek(const IdSet *s, uint32_t from, ObjId id);
void idset_free(IdSet *s);
/* After s was copied from another place: ids points at its own `one`. */
static inline void idset_moved(IdSet *s)
{
    if (s->cap == 1) s->ids = &s->one;
}

/* Visits each live id of s (a set or NULL) in ascending order:
 *     IDSET_FOREACH (s, id) use(id);
 * s is evaluated once (it is often a pool_lookup); the set must not change
 * inside the loop.  The outer loop runs once, so a break ends both. */
#define IDSET_FOREACH(s, id)                                                                   \
    for (const IdSet *id##_set_ = (s); id##_set_; id##_set_ = NULL)                            \
        for (uint32_t id##_at_ = idset_seek(id##_set_, 0, 1), id = 0;                          \
             id##_at_ < id##_set_->len && ((id) = id##_set_->ids[id##_at_], true);             \
             id##_at_ = idset_seek(id##_set_, id##_at_ + 1, 0))

#endif
