/*
 * pool_idset.c - sorted posting lists with tombstones (see pool_idset.h).
 */
#include "pool_idset.h"

#include <assert.h>

#include <stdlib.h>
#include <string.h>

#include "util.h"

static inline ObjId bare(ObjId x) { return x & ~IDSET_DEAD; }

/* Interpolation (lower_bound) when the search spans more than this. */
#define GUESS_MIN 16
/* Positions from lo on tried one by one before guessing (lower_bound): a
 * guess costs more than a step or two, not more than four (measured). */
#define NEAR_TRIES 1

/* First position in (l, r] whose bare id is >= id, given that the id at l
 * is < id and the one at r is not.  Halving without branches: each step
 * a compare and a conditional move. */
static uint32_t search_between(const IdSet *s, uint32_t l, uint32_t r, ObjId id)
{
    const ObjId *base = s->ids + l + 1;
    uint32_t n = r - l;
    while (n > 1) {
        uint32_t half = n / 2;
        if (bare(base[half - 1]) < id) base += half;
        n -= half;
    }
    return (uint32_t)(base - s->ids);
}

/* First position whose bare id is >= id, searching [lo, len).  Leapfrog
 * joins mostly step a little way forward, so lo and the position after it
 * are tried first.  Past those the target may be anywhere (a key of one
 * object looked for in the list of its type); ids are handed out in
 * order, so a list is spread about evenly over its range of ids and the
 * target's place is guessed from its value, then bracketed by steps that
 * double away from the guess, then searched within the bracket. */
static uint32_t lower_bound(const IdSet *s, uint32_t lo, ObjId id)
{
    uint32_t hi = s->len;
    for (uint32_t near = 0; near < NEAR_TRIES; near++) {
        if (lo >= hi || bare(s->ids[lo]) >= id) return lo;
        lo++;
    }
    if (lo >= hi || bare(s->ids[lo]) >= id) return lo;
    uint32_t last = hi - 1;
    ObjId first_id = bare(s->ids[lo]), last_id = bare(s->ids[last]);
    if (last_id < id) return hi;
    /* the id at lo is < id, the one at last is not: the answer is in (lo, last] */
    uint32_t l = lo, r = last;
    if (last - lo > GUESS_MIN) {
        uint32_t g = lo + (uint32_t)((uint64_t)(id - first_id) * (last - lo) / (last_id - first_id));
        uint32_t step = 1;
        if (bare(s->ids[g]) < id) {
            l = g;
            while (step < last - l && bare(s->ids[l + step]) < id) {
                l += step;
                step *= 2;
            }
            if (step < last - l) r = l + step;
        } else {
            r = g;
            while (step < r - lo && bare(s->ids[r - step]) >= id) {
                r -= step;
                step *= 2;
            }
            if (step < r - lo) l = r - step;
        }
    }
    return search_between(s, l, r, id);
}

static void compact(IdSet *s)
{
    uint32_t j = 0;
    for (uint32_t i = s->head; i < s->len; i++)
        if (!(s->ids[i] & IDSET_DEAD)) s->ids[j++] = s->ids[i];
    s->len = j;
    s->head = 0;
}

/* Moves the single inline id (if any) into an allocation of `front` free
 * slots and then `cap` (>= 2) slots. */
static void leave_inline(IdSet *s, uint32_t front, uint32_t cap)
{
    ObjId *base = xmalloc(((size_t)front + cap) * sizeof *base);
    if (s->len) base[front] = s->one;
    s->ids = base + front;
    s->front = front;
    s->cap = cap;
}

/* Room for one more id after the last: the first id stays inline. */
static void make_room(IdSet *s)
{
    if (s->len < s->cap) return;
    if (s->cap == 0) {
        s->ids = &s->one;
        s->cap = 1;
        return;
    }
    if (s->cap == 1) {
        leave_inline(s, 0, 4);
        return;
    }
    s->cap *= 2;
    ObjId *base = xrealloc(s->ids - s->front, ((size_t)s->front + s->cap) * sizeof *s->ids);
    s->ids = base + s->front;
}

/* Room for one more id before ids[0]: as much again as the list holds. */
static void make_front_room(IdSet *s)
{
    if (s->front) return;
    uint32_t front = s->len > 4 ? s->len : 4;
    if (s->cap <= 1) {
        leave_inline(s, front, 2);
        return;
    }
    ObjId *base = xmalloc(((size_t)front + s->cap) * sizeof *s->ids);
    memcpy(base + front, s->ids, (size_t)s->len * sizeof *s->ids);
    free(s->ids);
    s->ids = base + front;
    s->front = front;
}

/* The header's invariants that one change can break, checked where it was
 * made (O(1): a whole-list check would make the debug build quadratic). */
static void check_around(const IdSet *s, uint32_t i)
{
    assert(s->live <= s->len && s->head <= s->len && s->len <= s->cap);
    assert(s->cap != 1 || s->ids == &s->one);
    assert(i >= s->len || i == 0 || bare(s->ids[i - 1]) < bare(s->ids[i]));
    assert(i + 1 >= s->len || bare(s->ids[i]) < bare(s->ids[i + 1]));
    (void)s, (void)i;
}

void idset_add(IdSet *s, ObjId id)
{
    assert(id != 0 && !(id & IDSET_DEAD));
    if (s->len == 0 || bare(s->ids[s->len - 1]) < id) {
        make_room(s);
        s->ids[s->len++] = id;
        s->live++;
        check_around(s, s->len - 1);
        return;
    }
    uint32_t i = lower_bound(s, 0, id);
    if (i < s->len && bare(s->ids[i]) == id) {
        if (s->ids[i] & IDSET_DEAD) {
            s->ids[i] = id;
            s->live++;
            if (i < s->head) s->head = i;
        }
        return;
    }
    if (i < s->len - i) {
        /* nearer the front: move the ids before i down one slot */
        make_front_room(s);
        s->ids--;
        s->front--;
        s->cap++;
        memmove(s->ids, s->ids + 1, (size_t)i * sizeof *s->ids);
    } else {
        make_room(s);
        memmove(s->ids + i + 1, s->ids + i, (s->len - i) * sizeof *s->ids);
    }
    s->ids[i] = id;
    s->len++;
    s->live++;
    if (i < s->head) s->head = i;
    check_around(s, i);
}

void idset_remove(IdSet *s, ObjId id)
{
    if (s->len == 0) return;
    /* the last and the first live are the common cases: ids made last,
     * and objects deleted in the order they were made; none before the
     * head is live.  Else the search starts where the last removal was,
     * if that is before id: a proposal's votes deleted one after the
     * other, among the votes of another in the list of all votes. */
    uint32_t i, f = s->finger;
    if (s->ids[s->len - 1] == id) i = s->len - 1;
    else if (s->head < s->len && s->ids[s->head] == id) i = s->head;
    else i = lower_bound(s, f > s->head && f < s->len && bare(s->ids[f]) < id ? f : s->head, id);
    if (i >= s->len || s->ids[i] != id) return;
    s->finger = i;
    s->live--;
    if (i == s->len - 1) {
        s->len--;
        while (s->len && (s->ids[s->len - 1] & IDSET_DEAD)) s->len--;
    } else {
        s->ids[i] |= IDSET_DEAD;
        if (i == s->head)
            while (s->head < s->len && (s->ids[s->head] & IDSET_DEAD)) s->head++;
    }
    if (s->head > s->len) s->head = s->len;
    if (s->len > 16 && s->live < s->len / 2) compact(s);
    if (s->live == 0) s->len = s->head = 0;
    assert(s->live <= s->len && s->head <= s->len);
    assert(s->head == s->len || !(s->ids[s->head] & IDSET_DEAD));
}

bool idset_has(const IdSet *s, ObjId id)
{
    uint32_t i = lower_bound(s, s->head, id);
    return i < s->len && s->ids[i] == id;
}

uint32_t idset_seek(const IdSet *s, uint32_t from, ObjId id)
{
    if (from < s->head) from = s->head;
    if (from >= s->len) return s->len;
    uint32_t i = bare(s->ids[from]) >= id ? from : lower_bound(s, from, id);
    while (i < s->len && (s->ids[i] & IDSET_DEAD)) i++;
    return i;
}

void idset_free(IdSet *s)
{
    if (s->cap > 1) free(s->ids - s->front);
    s->ids = NULL;
    s->len = s->cap = s->front = s->live = s->head = s->one = s->finger = 0;
}
