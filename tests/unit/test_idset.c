/*
 * test_idset.c - posting lists: random additions and removals, in every
 * order (ascending as creation, descending as an undo), against a plain
 * array of flags.
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#define N 3000

static void check_same(const IdSet *s, const bool *in)
{
    uint32_t live = 0, i = idset_seek(s, 0, 1);
    for (ObjId id = 1; id <= N; id++) {
        assert_int_equal(idset_has(s, id), in[id]);
        if (!in[id]) continue;
        live++;
        /* the live entries, read in order, are exactly the flagged ids */
        assert_true(i < s->len);
        assert_int_equal(s->ids[i], id);
        i = idset_seek(s, i + 1, 0);
    }
    assert_int_equal(i, s->len);
    assert_int_equal(s->live, live);
}

static void random_operations(void **state)
{
    static bool in[N + 1];
    IdSet s = {0};
    srand(7);
    for (int round = 0; round < 20000; round++) {
        ObjId id = (ObjId)(1 + rand() % N);
        if (rand() % 3) {
            idset_add(&s, id);
            in[id] = true;
        } else {
            idset_remove(&s, id);
            in[id] = false;
        }
        if (round % 997 == 0) check_same(&s, in);
    }
    check_same(&s, in);
    idset_free(&s);
}

/* Removing the oldest first and putting them back newest first, as the
 * rollback of an event that deleted them does. */
static void undo_order(void **state)
{
    static bool in[N + 1];
    IdSet s = {0};
    for (ObjId id = 1; id <= N; id++) {
        idset_add(&s, id);
        in[id] = true;
    }
    for (ObjId id = 1; id <= N - 10; id++) {
        idset_remove(&s, id);
        in[id] = false;
    }
    check_same(&s, in);
    for (ObjId id = N - 10; id >= 1; id--) {
        idset_add(&s, id);
        in[id] = true;
    }
    check_same(&s, in);
    /* and the ids in the middle, from both ends */
    for (ObjId id = 1000; id < 2000; id++) idset_remove(&s, id), in[id] = false;
    for (ObjId lo = 1000, hi = 1999; lo < hi; lo++, hi--) {
        idset_add(&s, hi);
        idset_add(&s, lo);
        in[lo] = in[hi] = true;
    }
    check_same(&s, in);
    idset_free(&s);
}

/* A list of one id keeps it inline: copied elsewhere (as the index copies
 * its entries when it grows) and told so, the copy reads it, grows from
 * it in either direction and shrinks back to it. */
static void one_id_inline(void **state)
{
    static bool in[N + 1];
    IdSet a = {0};
    idset_add(&a, 50);
    in[50] = true;
    IdSet b = a;
    memset(&a, 0xff, sizeof a); /* the old place is gone */
    idset_moved(&b);
    check_same(&b, in);
    idset_add(&b, 10); /* before the inline id */
    idset_add(&b, 90);
    in[10] = in[90] = true;
    check_same(&b, in);
    idset_remove(&b, 10);
    idset_remove(&b, 90);
    in[10] = in[90] = false;
    check_same(&b, in);
    idset_free(&b);
    /* emptied and used again, the id stays inline */
    idset_add(&b, 7);
    idset_remove(&b, 7);
    idset_add(&b, 8);
    IdSet c = b;
    idset_moved(&c);
    assert_int_equal(c.live, 1);
    assert_int_equal(c.ids[idset_seek(&c, 0, 1)], 8);
    idset_free(&c);
}

/* Removals resume where the last one was (idset_remove's finger): two
 * proposals' votes interleaved, one's removed in order; then removals
 * before the last one, and after ids added before them all, which move
 * every entry one place on. */
static void removals_from_the_last(void **state)
{
    static bool in[N + 1];
    memset(in, 0, sizeof in);
    IdSet s = {0};
    for (ObjId id = 100; id <= N; id++) {
        idset_add(&s, id);
        in[id] = true;
    }
    for (ObjId id = 101; id <= N; id += 2) {
        idset_remove(&s, id);
        in[id] = false;
    }
    check_same(&s, in);
    idset_remove(&s, 2000), in[2000] = false;
    idset_remove(&s, 500), in[500] = false; /* before the last removal */
    idset_remove(&s, 2002), in[2002] = false;
    check_same(&s, in);
    for (ObjId id = 99; id >= 50; id--) idset_add(&s, id), in[id] = true;
    for (ObjId id = 2004; id <= 2100; id += 2) idset_remove(&s, id), in[id] = false;
    idset_remove(&s, 60), in[60] = false;
    idset_remove(&s, 3000), in[3000] = false;
    check_same(&s, in);
    idset_free(&s);
}

int run_idset_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_operations),
        cmocka_unit_test(removals_from_the_last),
        cmocka_unit_test(undo_order),
        cmocka_unit_test(one_id_inline),
    };
    return cmocka_run_group_tests_name("idset", tests, NULL, NULL);
}
