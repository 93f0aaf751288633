/*
 * test_hash.c - the state hash: SipHash-2-4 against its reference vectors,
 * a hash that depends on the content and the key but not on the order of
 * changes, the undo log's verdict on whether the pool is back where it
 * was, a loop that needs a repeated state, not a repeated hash, and dry
 * runs that leave the game as they found it.
 */
#include <stdlib.h>
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

/* A term of the state hash is SipHash of its bytes however it is computed
 * (a short name and value copied into whole blocks, longer ones fed in
 * pieces): eight bytes of head (the id, the tag 2, the name's length),
 * the name, the value.  Every length of each up to 200, so that each
 * side of the short path's limit and every offset in a block is met.
 * Each text's bytes depend on its length, and a term of other bytes is
 * computed before each one checked, so that a byte left out of a copy
 * cannot pass for being there with what an earlier term left behind. */
static void term_hash_is_siphash_of_its_bytes(void **state)
{
    enum { MAX = 200 };
    static const uint64_t keys[][2] = {{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL},
                                       {0xfedcba9876543210ULL, 0x0123456789abcdefULL}};
    static const ObjId ids[] = {1, 0xffffffffu};
    static char nt[MAX + 1][MAX], vt[MAX + 1][MAX];
    Sym names[MAX + 1], values[MAX + 1];
    for (int n = 0; n <= MAX; n++) {
        for (int i = 0; i < n; i++) { /* no NUL: texts are C strings too */
            nt[n][i] = (char)(1 + (i * 131 + n * 17 + 7) % 255);
            vt[n][i] = (char)(1 + (i * 37 + n * 59 + 101) % 255);
        }
        names[n] = sym_intern(nt[n], (size_t)n);
        values[n] = sym_intern(vt[n], (size_t)n);
        assert_int_equal(sym_len(names[n]), n);
        assert_int_equal(sym_len(values[n]), n);
    }
    Sym other_name = sym_cstr("~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~");
    Sym other_value = sym_cstr("################################");
    unsigned char m[8 + 2 * MAX];
    Pool *p = pool_new();
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        pool_set_hash_key(p, keys[k], 1);
        for (size_t d = 0; d < sizeof ids / sizeof *ids; d++)
            for (int nl = 0; nl <= MAX; nl++)
                for (int vl = 0; vl <= MAX; vl++) {
                    uint64_t head = (uint64_t)ids[d] | (uint64_t)2 << 32 | (uint64_t)nl << 40;
                    for (int i = 0; i < 8; i++) m[i] = (unsigned char)(head >> (8 * i));
                    memcpy(m + 8, nt[nl], (size_t)nl);
                    memcpy(m + 8 + nl, vt[vl], (size_t)vl);
                    uint64_t want = siphash24(keys[k], m, 8 + (size_t)nl + (size_t)vl);
                    assert_true(pool_term_hash(p, ids[d], other_name, other_value) != want);
                    assert_true(pool_term_hash(p, ids[d], names[nl], values[vl]) == want);
                }
    }
    pool_free(p);
}

/* A name of 2^24 bytes or more has its length in eight bytes of its own,
 * after the id and the tag 3. */
static void term_hash_of_a_very_long_name(void **state)
{
    uint64_t key[2] = {11, 12};
    size_t nl = (size_t)1 << 24;
    unsigned char *m = malloc(16 + nl + 3);
    assert_non_null(m);
    uint64_t head[2] = {(uint64_t)7 | (uint64_t)3 << 32, nl};
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 8; i++) m[8 * h + i] = (unsigned char)(head[h] >> (8 * i));
    memset(m + 16, 'n', nl);
    memcpy(m + 16 + nl, "val", 3);
    Pool *p = pool_new();
    pool_set_hash_key(p, key, 1);
    Sym name = sym_intern((const char *)m + 16, nl);
    assert_true(pool_term_hash(p, 7, name, sym_cstr("val")) == siphash24(key, m, 16 + nl + 3));
    pool_free(p);
    free(m);
}

/* Version 2's term (docs/formats.md), computed here from its definition:
 * murmur3's finalizer (util.c's hash_mix; tests/public_hash.py writes it
 * again, and t52 checks a game's published hash with it), and SipHash-2-4
 * of each text alone. */
static uint64_t fmix(uint64_t x) { return hash_mix(x); }

/* A text's hash: SipHash-2-4 of its bytes, but for a whole number from 0
 * to 2^31 - 1 written as such (no sign, no leading zero): a keyed mix of
 * the number. */
static uint64_t text_v2(const uint64_t key[2], const char *t, size_t n)
{
    uint64_t v = 0;
    bool number = n >= 1 && n <= 10 && !(t[0] == '0' && n > 1);
    for (size_t i = 0; i < n && number; i++) {
        number = t[i] >= '0' && t[i] <= '9';
        v = v * 10 + (uint64_t)(t[i] - '0');
    }
    if (number && v < (uint64_t)1 << 31) return fmix(fmix((v | (uint64_t)4 << 32) ^ key[1]) + key[0]);
    return siphash24(key, t, n);
}

static uint64_t term_v2_of(const uint64_t key[2], ObjId id, const char *name, size_t nl, const char *value, size_t vl)
{
    uint64_t a = text_v2(key, name, nl), b = text_v2(key, value, vl);
    return fmix(fmix(a ^ ((uint64_t)id | (uint64_t)2 << 32) * 0x9e3779b97f4a7c15ULL) + b);
}

/* Version 2's terms follow the definition, for texts of every length up
 * to 100 and for numbers (immediates, and numbers' texts that are none),
 * across collections that give a freed text's Sym number to another text
 * (whose hash the table must not take for the one it kept), and under two
 * keys used in turn (a table keeps the texts' hashes under one key: the
 * other makes it forget them). */
static void check_terms_v2(Pool *p, const uint64_t key[2], int round, Sym *texts)
{
    char t[101];
    for (int n = 1; n <= 100; n++) {
        for (int i = 0; i < n; i++) t[i] = (char)('a' + (i * 7 + n + round * 13) % 26);
        t[n] = 0;
        Sym text = texts[n] = sym_intern(t, (size_t)n);
        /* an immediate, a number too large for one, and digits that are
         * no number's own writing */
        char num[24];
        int nn = round % 3 == 0   ? snprintf(num, sizeof num, "%d", n * 1000003)
                 : round % 3 == 1 ? snprintf(num, sizeof num, "%lld", 2147483648LL + n)
                                  : snprintf(num, sizeof num, "0%d", n);
        Sym number = sym_intern(num, (size_t)nn);
        for (int again = 0; again < 2; again++) {
            assert_true(pool_term_hash(p, (ObjId)n, text, number) ==
                        term_v2_of(key, (ObjId)n, t, (size_t)n, num, (size_t)nn));
            assert_true(pool_term_hash(p, 0xffffffffu, number, text) ==
                        term_v2_of(key, 0xffffffffu, num, (size_t)nn, t, (size_t)n));
        }
    }
}

static void term_v2_follows_its_definition(void **state)
{
    static const uint64_t keys[][2] = {{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL},
                                       {0xfedcba9876543210ULL, 0x0123456789abcdefULL}};
    Pool *p[2] = {pool_new(), pool_new()};
    for (int k = 0; k < 2; k++) pool_set_hash_key(p[k], keys[k], 2);
    Sym texts[101];
    for (int round = 0; round < 4; round++) {
        check_terms_v2(p[0], keys[0], round, texts);
        /* every text above unused: a collection frees them */
        sym_gc_begin();
        pool_mark_syms(p[0]);
        pool_mark_syms(p[1]);
        sym_gc_end();
    }
    /* the Sym of a text whose hash was kept, freed, then taken by another
     * (new texts take freed numbers before new ones: within as many texts
     * as there are freed numbers, this one comes back) */
    char t[40];
    Sym freed = texts[50], again = 0;
    for (int i = 0; i < 1000000 && again != freed; i++) {
        snprintf(t, sizeof t, "another text, %d", i);
        again = sym_cstr(t);
    }
    assert_true(again == freed);
    assert_true(pool_term_hash(p[0], 9, again, again) == term_v2_of(keys[0], 9, t, strlen(t), t, strlen(t)));
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < 2; k++) check_terms_v2(p[k], keys[k], round, texts);
    /* an object's existence: murmur3's finalizer of the keyed id */
    pool_set(p[0], pool_create(p[0]), SYM_type, sym_cstr("x"));
    uint64_t exists = fmix(fmix(((uint64_t)1 | (uint64_t)1 << 32) ^ keys[0][0]) + keys[0][1]);
    assert_true(p[0]->state_hash == exists + term_v2_of(keys[0], 1, "type", 4, "x", 1));
    for (int k = 0; k < 2; k++) pool_free(p[k]);
}

/* The version the tests below make their pools with: each runs under
 * every version (every_version). */
static int version = POOL_HASH_VERSION;

static Pool *two_objects(const uint64_t key[2], bool reversed)
{
    Pool *p = pool_new();
    pool_set_hash_key(p, key, version);
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
    pool_set_hash_key(x, other, version);
    assert_true(x->state_hash != before);
    assert_true(pool_public_hash(x) != pool_public_hash(y));
    pool_set_hash_key(x, key, version);
    assert_true(x->state_hash == before);
    assert_true(pool_public_hash(x) == pool_public_hash(y));
    /* "5" and "5.0" are equal numbers but different texts: different states */
    pool_set(x, 1, sym_cstr("score"), sym_cstr("12.0"));
    assert_true(x->state_hash != before);
    pool_free(x);
    pool_free(y);
}

/* The memo of recent terms (the scam search's) changes no hash: two
 * pools, one keeping it, take the same changes, each undone and made
 * again as a search makes them, with a change of key between, and agree
 * after every one. */
static void memo_changes_no_hash(void **state)
{
    uint64_t key[2] = {7, 8}, other[2] = {9, 10};
    Pool *with = two_objects(key, false), *without = two_objects(key, false);
    assert_false(pool_hash_memo(with, true)); /* a pool starts without */
    assert_true(pool_hash_memo(with, true));
    with->logging = without->logging = true;
    const char *names[] = {"score", "nickname", "vote"}, *values[] = {"1", "12", "ann", "FOR", ""};
    unsigned x = 12345;
    for (int step = 0; step < 2000; step++) {
        x = x * 1103515245u + 12345u;
        Pool *both[] = {with, without};
        size_t mark[2];
        for (int k = 0; k < 2; k++) mark[k] = pool_mark(both[k]);
        for (int again = 0; again < 2; again++) {
            for (int k = 0; k < 2; k++) {
                Pool *p = both[k];
                pool_set(p, 1 + (x >> 8) % 2, sym_cstr(names[(x >> 12) % 3]), sym_cstr(values[(x >> 16) % 5]));
                if ((x >> 20) % 7 == 0) pool_set(p, pool_create(p), SYM_type, sym_cstr("token"));
            }
            assert_true(with->state_hash == without->state_hash);
            if (again == 0)
                for (int k = 0; k < 2; k++) pool_undo_to(both[k], mark[k]);
            assert_true(with->state_hash == without->state_hash);
        }
        if (step == 1000) {
            pool_set_hash_key(with, other, version);
            pool_set_hash_key(without, other, version);
        }
        if (step % 100 == 0) {
            pool_forget_undo(with);
            pool_forget_undo(without);
        }
    }
    assert_true(pool_hash_memo(with, false));
    assert_false(pool_hash_memo(with, false));
    pool_free(with);
    pool_free(without);
}

/* The terms of long values a pool keeps (pool.c, LongMemo) change no
 * hash: the state hash after many changes of long values, undone and
 * made again, with collections between (after which a new text may take
 * the Sym number of one freed), is what computing it afresh gives. */
static void long_terms_kept_change_no_hash(void **state)
{
    uint64_t key[2] = {11, 12};
    Pool *p = two_objects(key, false);
    Sym list = sym_cstr("listContent");
    char text[200];
    unsigned x = 777;
    for (int step = 0; step < 600; step++) {
        x = x * 1103515245u + 12345u;
        /* a text of 100 to 199 bytes, one of a few hundred */
        int len = 100 + (int)((x >> 8) % 100);
        memset(text, 'a' + (int)((x >> 16) % 26), (size_t)len);
        snprintf(text, 12, "%u", (x >> 4) % 300);
        text[strlen(text)] = ' ';
        Sym v = sym_intern(text, (size_t)len);
        p->logging = true;
        size_t mark = pool_mark(p);
        pool_set(p, 1 + (x >> 12) % 2, list, v);
        if ((x >> 20) % 3 == 0) pool_undo_to(p, mark); /* the old term again */
        pool_forget_undo(p);
        if (step % 50 == 49) {
            sym_gc_begin();
            pool_mark_syms(p);
            sym_gc_end();
        }
        if (step % 25 == 10) { /* (not every step: a new key empties what is kept) */
            uint64_t kept = p->state_hash;
            pool_set_hash_key(p, key, version); /* every term computed afresh */
            assert_true(p->state_hash == kept);
        }
    }
    pool_free(p);
}

/* An event's window (pool_fresh_open) changes no keyed hash: a pool whose
 * events run in windows and one whose events run without, given the same
 * changes (objects made, made whole, changed, deleted, and changes undone
 * within the event), have the same state hash once each window is
 * closed, and again after undoing into an event already closed. */
static void window_changes_no_hash(void **state)
{
    uint64_t key[2] = {21, 22};
    Pool *win = two_objects(key, false), *plain = two_objects(key, false);
    Pool *both[] = {win, plain};
    const char *names[] = {"type", "score", "vote", "credited"}, *values[] = {"move", "vote", "1", "FOR", "T", ""};
    /* a new object deleted within its event, put back by an undo after */
    size_t start[2], mid[2];
    for (int k = 0; k < 2; k++) {
        both[k]->logging = true;
        start[k] = pool_mark(both[k]);
    }
    pool_fresh_open(win);
    for (int k = 0; k < 2; k++) {
        Attr a[] = {{SYM_type, sym_cstr("move")}, {sym_cstr("vote"), sym_cstr("FOR")}};
        ObjId id = pool_create_with(both[k], a, 2);
        pool_set(both[k], id, sym_cstr("credited"), sym_cstr("F"));
        mid[k] = pool_mark(both[k]);
        pool_delete(both[k], id);
    }
    pool_fresh_close(win);
    assert_true(win->state_hash == plain->state_hash);
    for (int k = 0; k < 2; k++) pool_undo_to(both[k], mid[k]);
    assert_true(win->state_hash == plain->state_hash);
    for (int k = 0; k < 2; k++) pool_undo_to(both[k], start[k]);
    assert_true(win->state_hash == plain->state_hash);
    unsigned x = 4242;
    for (int event = 0; event < 400; event++) {
        mid[0] = mid[1] = 0;
        for (int k = 0; k < 2; k++) {
            both[k]->logging = true;
            start[k] = pool_mark(both[k]);
        }
        pool_fresh_open(win);
        int steps = 1 + event % 9;
        for (int step = 0; step < steps; step++) {
            x = x * 1103515245u + 12345u;
            if (step == steps / 2)
                for (int k = 0; k < 2; k++) mid[k] = pool_mark(both[k]);
            for (int k = 0; k < 2; k++) {
                Pool *p = both[k];
                ObjId last = p->next_id - 1;
                switch ((x >> 8) % 6) {
                case 0: { /* a move made whole */
                    Attr a[] = {{SYM_type, sym_cstr("move")}, {sym_cstr("vote"), sym_cstr(values[(x >> 12) % 5])}};
                    pool_create_with(p, a, 2);
                    break;
                }
                case 1:
                    pool_set(p, pool_create(p), SYM_type, sym_cstr("token"));
                    break;
                case 2:
                    pool_delete(p, last - (x >> 14) % 3);
                    break;
                default: /* a change to one of the newest objects, or the two old ones */
                    pool_set(p, (x >> 16) % 4 ? last - (x >> 18) % 3 : 1 + (x >> 20) % 2,
                             sym_cstr(names[(x >> 22) % 4]), sym_cstr(values[(x >> 25) % 6]));
                }
            }
            if ((x >> 28) % 5 == 0) /* a firing undone */
                for (int k = 0; k < 2; k++) pool_undo_to(both[k], mid[k] ? mid[k] : start[k]);
        }
        pool_fresh_close(win);
        assert_true(win->state_hash == plain->state_hash);
        if (event % 7 == 3) { /* a dry run: undone into the event, then whole */
            for (int k = 0; k < 2; k++) pool_undo_to(both[k], mid[k] ? mid[k] : start[k]);
            assert_true(win->state_hash == plain->state_hash);
            for (int k = 0; k < 2; k++) pool_undo_to(both[k], start[k]);
            assert_true(win->state_hash == plain->state_hash);
        }
        if (event % 3 == 0)
            for (int k = 0; k < 2; k++) pool_forget_undo(both[k]);
    }
    uint64_t kept = win->state_hash;
    pool_set_hash_key(win, key, version); /* every term computed afresh */
    assert_true(win->state_hash == kept);
    pool_free(win);
    pool_free(plain);
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

/* test_every_version: the test run under each version of the state hash */
#define EVERY_VERSION(test)                                                                                        \
    static void test##_every_version(void **state)                                                                 \
    {                                                                                                              \
        for (version = 1; version <= POOL_HASH_VERSION; version++) test(state);                                    \
        version = POOL_HASH_VERSION;                                                                               \
    }
EVERY_VERSION(hash_follows_content_and_key)
EVERY_VERSION(memo_changes_no_hash)
EVERY_VERSION(long_terms_kept_change_no_hash)
EVERY_VERSION(window_changes_no_hash)
EVERY_VERSION(undo_log_tells_a_return)

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
        cmocka_unit_test(term_hash_is_siphash_of_its_bytes),
        cmocka_unit_test(term_hash_of_a_very_long_name),
        cmocka_unit_test(term_v2_follows_its_definition),
        cmocka_unit_test(hash_follows_content_and_key_every_version),
        cmocka_unit_test(memo_changes_no_hash_every_version),
        cmocka_unit_test(long_terms_kept_change_no_hash_every_version),
        cmocka_unit_test(window_changes_no_hash_every_version),
        cmocka_unit_test(undo_log_tells_a_return_every_version),
        cmocka_unit_test(forged_collision_is_no_loop),
        cmocka_unit_test(real_repeat_is_a_loop),
        cmocka_unit_test(dry_runs_leave_the_game_alone),
    };
    return cmocka_run_group_tests_name("hash", tests, NULL, NULL);
}
