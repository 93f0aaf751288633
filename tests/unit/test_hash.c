/*
 * test_hash.c - the state hash: SipHash-2-4 against its reference vectors,
 * a hash that depends on the content and the key but not on the order of
 * changes, the undo log's verdict on whether the pool is back where it
 * was, a loop that needs a repeated state, not a repeated hash, and dry
 * runs that leave the game as they found it.
 */
#include <string.h>

#include "unit.h"

/* The reference vectors of SipHash-2-4: key 00 01 .. 0f, message 00 01 ..
 * of the given length. */
static void siphash_reference_vectors(void **state)
{
    uint64_t key[2] = {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};
    unsigned char m[64];
    for (int i = 0; i < 64; i++) m[i] = (unsigned char)i;
    assert_true(siphash24(key, m, 0) == 0x726fdb47dd0e0e31ULL);
    assert_true(siphash24(key, m, 1) == 0x74f839c593dc67fdULL);
    assert_true(siphash24(key, m, 8) == 0x93f5f5799a932462ULL);
    assert_true(siphash24(key, m, 15) == 0xa129ca6149be45e5ULL);
    assert_true(siphash24(key, m, 63) == 0x958a324ceb064572ULL);
}

/* Fed in pieces of any sizes, SipHash is that of the whole: the state
 * hash's terms are computed so, and the journal keeps them. */
static void siphash_in_pieces(void **state)
{
    uint64_t key[2] = {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};
    unsigned char m[64];
    for (int i = 0; i < 64; i++) m[i] = (unsigned char)(i * 7 + 3);
    for (size_t n = 0; n <= sizeof m; n++)
        for (size_t a = 0; a <= n; a++)
            for (size_t b = a; b <= n; b += 3) {
                SipHash h;
                sip_init(&h, key);
                sip_add(&h, m, a);
                sip_add(&h, m + a, b - a);
                sip_add(&h, m + b, n - b);
                assert_true(sip_end(&h) == siphash24(key, m, n));
            }
}

static Pool *two_objects(const uint64_t key[2], bool reversed)
{
    Pool *p = pool_new();
    pool_set_hash_key(p, key);
    ObjId a = pool_create(p), b = pool_create(p);
    const char *names[] = {"type", "score", "nickname"}, *values[] = {"player", "12", "ann"};
    for (int k = 0; k < 3; k++) {
        int i = reversed ? 2 - k : k;
        pool_set(p, reversed ? b : a, sym_cstr(names[i]), sym_cstr(values[i]));
        pool_set(p, reversed ? a : b, sym_cstr(names[i]), sym_cstr(i == 2 ? "bob" : values[i]));
    }
    pool_set(p, reversed ? a : b, SYM_type, sym_cstr("player"));
    return p;
}

static void hash_follows_content_and_key(void **state)
{
    uint64_t key[2] = {1, 2}, other[2] = {3, 4};
    Pool *x = two_objects(key, false), *y = two_objects(key, true);
    /* the same objects (bob under the other id, so not the same) */
    assert_true(x->state_hash != y->state_hash);
    pool_set(y, 1, sym_cstr("nickname"), sym_cstr("ann"));
    pool_set(y, 2, sym_cstr("nickname"), sym_cstr("bob"));
    assert_true(x->state_hash == y->state_hash);
    uint64_t before = x->state_hash;
    pool_set_hash_key(x, other);
    assert_true(x->state_hash != before);
    assert_true(pool_public_hash(x) != pool_public_hash(y));
    pool_set_hash_key(x, key);
    assert_true(x->state_hash == before);
    assert_true(pool_public_hash(x) == pool_public_hash(y));
    /* "5" and "5.0" are equal numbers but different texts: different states */
    pool_set(x, 1, sym_cstr("score"), sym_cstr("12.0"));
    assert_true(x->state_hash != before);
    pool_free(x);
    pool_free(y);
}

static void undo_log_tells_a_return(void **state)
{
    uint64_t key[2] = {5, 6};
    Pool *p = two_objects(key, false);
    p->logging = true;
    size_t mark = pool_mark(p);
    assert_true(pool_unchanged_since(p, mark));
    Sym score = sym_cstr("score");
    pool_set(p, 1, score, sym_cstr("13"));
    assert_false(pool_unchanged_since(p, mark));
    pool_set(p, 1, score, SYM_EMPTY);
    assert_false(pool_unchanged_since(p, mark));
    pool_set(p, 1, score, sym_cstr("12"));
    assert_true(pool_unchanged_since(p, mark));
    /* an object made and deleted again leaves nothing (ids are no content) */
    ObjId c = pool_create(p);
    pool_set(p, c, SYM_type, sym_cstr("token"));
    assert_false(pool_unchanged_since(p, mark));
    pool_delete(p, c);
    assert_true(pool_unchanged_since(p, mark));
    /* one that was there and is gone is a change */
    pool_delete(p, 2);
    assert_false(pool_unchanged_since(p, mark));
    size_t later = pool_mark(p);
    pool_undo_to(p, mark);
    assert_true(pool_unchanged_since(p, mark));
    assert_false(pool_unchanged_since(p, later)); /* a mark past the log proves nothing */
    p->logging = false;
    assert_false(pool_unchanged_since(p, mark)); /* no log: nothing to confirm with */
    pool_free(p);
}

/* Makes every changing firing after the first leave the hash the first
 * one left: a collision with a state seen before, as a forged move once
 * made one. */
typedef struct Forger {
    Pool *pool;
    bool armed;
    uint64_t first;
} Forger;

static void collide(void *ud, ObjId rule, const Prog *prog, const Sym *vars, bool changed)
{
    Forger *f = ud;
    if (!changed) return;
    if (f->armed) f->pool->state_hash = f->first;
    f->first = f->pool->state_hash;
    f->armed = true;
}

static const char *counting =
    "type: engineSettings\nrunType: rule\n%s\n"
    "type: rule\nruleOrder: 1\n"
    "if: exists(type==\"move\" & objectId==%%m) & exists(type==\"count\" & n<3 & n==%%n & objectId==%%c)\n"
    "then: set(%%c)(n==%%n+1)\n\n"
    "type: count\nn: 0\n";

static void forged_collision_is_no_loop(void **state)
{
    const char *modes[] = {"", "evaluation: shadow\n"};
    for (int i = 0; i < 2; i++) {
        char set[1024];
        snprintf(set, sizeof set, counting, modes[i]);
        Game *g = unit_game(set);
        Forger f = {g->pool, false, 0};
        g->eng->hook = collide;
        g->eng->hook_ud = &f;
        Outcome o = {0};
        assert_true(game_event_move(g, "a@x", 10, 10, "subtype: go\n", false, &o));
        assert_string_equal(verdict_name(o.verdict), "applied");
        assert_false(g->halted);
        outcome_free(&o);
        assert_string_equal(unit_attr(g, "count", "n"), "3");
        game_close(g);
    }
}

static const char *flipping =
    "type: engineSettings\nrunType: rule\n%s\n"
    "type: rule\nruleOrder: 1\n"
    "if: exists(type==\"move\" & objectId==%%m) & !exists(type==\"token\")\n"
    "then: create(type==\"token\")\n\n"
    "type: rule\nruleOrder: 2\n"
    "if: exists(type==\"token\" & objectId==%%t)\n"
    "then: delete(%%t)\n";

/* A token made and deleted for ever: the ids differ, the states repeat. */
static void real_repeat_is_a_loop(void **state)
{
    const char *modes[] = {"", "evaluation: shadow\n"};
    for (int i = 0; i < 2; i++) {
        char set[1024];
        snprintf(set, sizeof set, flipping, modes[i]);
        Game *g = unit_game(set);
        assert_string_equal(unit_move(g, "a@x", 10, "subtype: go\n"), "loop");
        assert_true(g->halted);
        game_close(g);
    }
}

static const char *runaway =
    "type: engineSettings\nrunType: rule\nmaxSteps: 41\nevaluation: shadow\n\n"
    "type: rule\nruleOrder: 1\n"
    "if: exists(type==\"move\" & subtype==\"note\" & moveSender==%s & objectId==%m)\n"
    "then: send(%s, \"noted\") & delete(%m)\n\n"
    "type: rule\nruleOrder: 2\n"
    "if: exists(type==\"move\" & subtype==\"loop\" & objectId==%m) & exists(type==\"light\" & on!=T & objectId==%l)\n"
    "then: set(%l)(on==T)\n\n"
    "type: rule\nruleOrder: 3\n"
    "if: exists(type==\"light\" & on==T & objectId==%l)\n"
    "then: set(%l)(on==F)\n\n"
    "type: rule\nruleOrder: 4\n"
    "if: exists(type==\"move\" & subtype==\"run\")\n"
    "then: create(type==\"spark\")\n\n"
    "type: rule\nruleOrder: 5\n"
    "if: exists(type==\"move\" & subtype==\"run\")\n"
    "then: create(type==\"ember\")\n\n"
    "type: light\non: F\n";

/* A dry run that runs away or loops leaves the game as it found it: the
 * next id (shadow firings reserve ids), the generator, the queue, halted,
 * the last mover, the timer. */
static void dry_runs_leave_the_game_alone(void **state)
{
    Game *g = unit_game(runaway);
    assert_string_equal(unit_move(g, "a@x", 10, "subtype: note\n"), "no effect"); /* it only queues a message */
    assert_int_equal(g->eng->queue.len, 1);
    ObjId next = g->pool->next_id;
    uint64_t rng[4], hash = g->pool->state_hash;
    memcpy(rng, g->eng->rng, sizeof rng);
    const char *bodies[] = {"subtype: run\n", "subtype: loop\n"}, *want[] = {"refused", "loop"};
    for (int i = 0; i < 2; i++) {
        Outcome o = {0};
        assert_true(game_event_move(g, "b@x", 20, 20, bodies[i], true, &o));
        assert_string_equal(verdict_name(o.verdict), want[i]);
        outcome_free(&o);
        assert_int_equal(g->pool->next_id, next);
        assert_memory_equal(g->eng->rng, rng, sizeof rng);
        assert_int_equal(g->eng->queue.len, 1);
        assert_false(g->halted);
        assert_null(g->winner_note);
        assert_string_equal(g->last_mover, "a@x");
        assert_true(g->pool->state_hash == hash);
    }
    game_close(g);
}

int run_hash_tests(void)
{
    value_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(siphash_reference_vectors),
        cmocka_unit_test(siphash_in_pieces),
        cmocka_unit_test(hash_follows_content_and_key),
        cmocka_unit_test(undo_log_tells_a_return),
        cmocka_unit_test(forged_collision_is_no_loop),
        cmocka_unit_test(real_repeat_is_a_loop),
        cmocka_unit_test(dry_runs_leave_the_game_alone),
    };
    return cmocka_run_group_tests_name("hash", tests, NULL, NULL);
}
