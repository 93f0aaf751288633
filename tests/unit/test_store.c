/*
 * test_store.c - a game in a SQLite file: the journal holds every event
 * with its outcome and hash, the state survives closing and reopening
 * (event by event and in groups, across the objects table's checkpoints),
 * show --at reads old states, an event is all or nothing, a long
 * stream of groups keeps its log bounded, and closing one connection
 * leaves the locks of the others.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "game_int.h"
#include "unit.h"

static const char *SET = "type: engineSettings\nrunType: rule\n\n"
                         "type: rule\nruleOrder: 1\n"
                         "if: exists(type==\"move\" & subtype==\"add\" & n==%n & objectId==%m) & exists(type==\"total\" & v==%v & objectId==%t)\n"
                         "then: set(%t)(v==%v+%n) & send(%m, \"added\") & delete(%m)\n\n"
                         "type: total\nv: 0\n";

static char path[64];

static int make_path(void **state)
{
    snprintf(path, sizeof path, "/tmp/nomic-unit-%d.db", (int)getpid());
    unlink(path);
    return 0;
}

static int remove_path(void **state)
{
    char p[80];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
    return 0;
}

static Game *new_game_of(const char *text)
{
    Buf err = {0};
    char *set = xstrdup(text);
    FILE *f = fopen("/tmp/nomic-unit-set.nomic", "w");
    assert_non_null(f);
    fputs(set, f);
    fclose(f);
    free(set);
    const char *sets[] = {"/tmp/nomic-unit-set.nomic"};
    Game *g = game_init(path, sets, 1, true, 7, 1000, true, &err);
    if (!g) fail_msg("game_init: %s", buf_str(&err));
    buf_free(&err);
    return g;
}

static Game *new_game(void) { return new_game_of(SET); }

static long move(Game *g, long t, const char *body, char *hash)
{
    Outcome o = {0};
    assert_true(game_event_move(g, "p@x", t, t, body, false, &o));
    long n = o.event;
    if (hash) memcpy(hash, o.hash, sizeof o.hash);
    outcome_free(&o);
    return n;
}

static void journal_and_reopen(void **state)
{
    Game *g = new_game();
    char h1[17], h2[17];
    assert_int_equal(move(g, 1001, "subtype: add\nn: 5\n", h1), 1);
    assert_int_equal(move(g, 1002, "subtype: add\nn: 1/2\n", h2), 2);
    assert_int_equal(move(g, 1003, "type: sneaky\n", NULL), 3); /* refused, still journaled */
    uint64_t hash = g->pool->state_hash;
    game_close(g);

    Buf err = {0};
    g = game_open(path, &err);
    assert_non_null(g);
    assert_string_equal(unit_attr(g, "total", "v"), "5.5");
    assert_true(g->pool->state_hash == hash);
    assert_int_equal(store_last_event(g->st), 3);
    JournalRow r;
    assert_true(store_event_get(g->st, 2, &r));
    assert_string_equal(r.status, "applied");
    assert_string_equal(r.input, "subtype: add\nn: 1/2\n");
    assert_string_equal(r.hash, h2);
    journal_row_free(&r);
    assert_true(store_event_get(g->st, 3, &r));
    assert_string_equal(r.status, "refused");
    assert_non_null(strstr(r.message, "type"));
    assert_null(r.hash);
    journal_row_free(&r);

    /* the state after event 1, from the journal */
    Pool *at = pool_new();
    assert_true(store_state_at(g->st, 1, at, &err));
    const IdSet *s = pool_lookup(at, SYM_type, sym_cstr("total"));
    assert_non_null(s);
    assert_string_equal(sym_text(obj_get(pool_get(at, s->ids[0]), sym_cstr("v"))), "5");
    pool_free(at);
    buf_free(&err);
    game_close(g);
}

static void halted_games_stay_halted(void **state)
{
    Game *g = new_game();
    move(g, 1001, "subtype: add\nn: 1\n", NULL);
    g->halted = true; /* as halt() leaves it; it is saved with the next event */
    Outcome o = {0};
    assert_true(game_event_move(g, "p@x", 1002, 1002, "subtype: add\nn: 1\n", false, &o));
    assert_int_equal(o.verdict, VERDICT_REFUSED);
    outcome_free(&o);
    game_close(g);
    Buf err = {0};
    g = game_open(path, &err);
    assert_true(g->halted);
    assert_string_equal(unit_attr(g, "total", "v"), "1");
    buf_free(&err);
    game_close(g);
}

static void a_dry_run_keeps_nothing(void **state)
{
    Game *g = new_game();
    Outcome o = {0};
    assert_true(game_event_move(g, "p@x", 1001, 1001, "subtype: add\nn: 9\n", true, &o));
    outcome_free(&o);
    assert_int_equal(store_last_event(g->st), 0);
    game_close(g);
    Buf err = {0};
    g = game_open(path, &err);
    assert_string_equal(unit_attr(g, "total", "v"), "0");
    buf_free(&err);
    game_close(g);
}

/* Objects made, changed and deleted over many events: the state after
 * every one of them, rebuilt from the journal alone (the write path keeps
 * no snapshot but event 0's), and from a later snapshot as games of
 * earlier builds hold. */
static const char *NOTES = "type: engineSettings\nrunType: rule\n\n"
                           "type: rule\nruleOrder: 1\n"
                           "if: exists(type==\"move\" & subtype==\"keep\" & k==%k & objectId==%m)\n"
                           "then: create(type==\"note\" & k==%k & seen==0) & setAll(type==\"note\")(seen==seen+1) & delete(%m)\n\n"
                           "type: rule\nruleOrder: 2\n"
                           "if: exists(type==\"move\" & subtype==\"drop\" & k==%k & objectId==%m)\n"
                           "then: deleteAll(type==\"note\" & k==%k) & delete(%m)\n";

static void every_past_state_from_the_journal(void **state)
{
    enum { EVENTS = 240 };
    Game *g = new_game_of(NOTES);
    char *want[EVENTS + 1];
    want[0] = game_export_pool(g->pool);
    for (long n = 1; n <= EVENTS; n++) {
        char body[64];
        snprintf(body, sizeof body, "subtype: %s\nk: %ld\n", n % 3 == 0 ? "drop" : "keep", (n * 7) % 11);
        assert_int_equal(move(g, 1000 + n, body, NULL), n);
        want[n] = game_export_pool(g->pool);
        if (n == 150) { /* as an earlier build wrote them */
            assert_true(store_put_snapshot(g->st, n, want[n]));
        }
    }
    Buf err = {0};
    for (long n = 0; n <= EVENTS; n++) {
        Pool *at = pool_new();
        if (!store_state_at(g->st, n, at, &err)) fail_msg("state at %ld: %s", n, buf_str(&err));
        char *got = game_export_pool(at);
        if (strcmp(got, want[n]) != 0) fail_msg("state at %ld differs:\n%s\nwant:\n%s", n, got, want[n]);
        free(got);
        free(want[n]);
        pool_free(at);
    }
    buf_free(&err);
    game_close(g);
}

/* The event the objects table is up to date with (game.c's checkpoints),
 * or -1: none said (the settled event). */
static long objects_at(Game *g)
{
    char *v = NULL;
    int got = store_meta_read(g->st, "objects_at", &v);
    long at = got > 0 ? strtol(v, NULL, 10) : -1;
    free(v);
    return at;
}

/* Plays n events of NOTES from event `first` on, in groups of `group`
 * events (0: each on its own); closes and opens the game after each event
 * or group, and checks that it has the pool, the state hash and the next
 * object number it had.  The objects table lags behind the journal (its
 * checkpoints come once the changes outnumber the objects twice): the
 * changes after it complete it.  Returns how many checkpoints there
 * were, after checking that some openings had changes to apply. */
static int reopen_while_playing(Game **gp, long first, long n, int group)
{
    Game *g = *gp;
    Buf err = {0};
    int checkpoints = 0, behind = 0;
    long at = objects_at(g);
    for (long e = first; e < first + n; e++) {
        char body[64];
        snprintf(body, sizeof body, "subtype: %s\nk: %ld\n", e % 3 == 0 ? "drop" : "keep", (e * 7) % 11);
        if (group && (e - first) % group == 0) assert_true(game_group_begin(g, &err));
        assert_int_equal(move(g, 1000 + e, body, NULL), e);
        if (group && (e - first) % group != group - 1 && e != first + n - 1) continue;
        if (group) assert_true(game_group_end(g, &err));
        char *want = game_export_pool(g->pool);
        uint64_t hash = g->pool->state_hash;
        ObjId next = g->pool->next_id;
        game_close(g);
        if (!(g = game_open(path, &err))) fail_msg("open after event %ld: %s", e, buf_str(&err));
        char *got = game_export_pool(g->pool);
        if (strcmp(got, want) != 0) fail_msg("opened after event %ld, the pool differs:\n%s\nwant:\n%s", e, got, want);
        assert_true(g->pool->state_hash == hash);
        assert_int_equal(g->pool->next_id, next);
        free(got);
        free(want);
        long now = objects_at(g);
        if (now != at) checkpoints++;
        if (now >= 0 && now < e) behind++;
        at = now;
    }
    assert_true(behind > 0);
    buf_free(&err);
    *gp = g;
    return checkpoints;
}

/* Opened after any event, the game has the pool, the state hash and the
 * next object number it had: its objects table and the changes since,
 * whether it was played event by event or in groups. */
static void reopened_after_every_event(void **state)
{
    Game *g = new_game_of(NOTES);
    int by_event = reopen_while_playing(&g, 1, 300, 0);
    int in_groups = reopen_while_playing(&g, 301, 300, 8);
    if (by_event < 2 || in_groups < 2) fail_msg("checkpoints: %d event by event, %d in groups", by_event, in_groups);
    game_close(g);
}

/* Groups committed without waiting for the disk, as a stream of moves is
 * played: the store's own thread checkpoints the log, and past 64 MiB the
 * writer lets it finish before its next group, so that the log starts
 * again from its beginning instead of growing with the stream.  120
 * groups rewrite a 1 MiB row: 120 MiB through the log. */
static void a_long_stream_keeps_its_log_bounded(void **state)
{
    Buf err = {0};
    Store *s = store_open(path, true, false, &err);
    if (!s) fail_msg("store_open: %s", buf_str(&err));
    assert_true(store_sync_commits(s, false));
    size_t mib = (size_t)1 << 20;
    char *big = xmalloc(mib + 1);
    big[mib] = 0;
    for (int i = 0; i < 120; i++) {
        memset(big, 'a' + i % 26, mib);
        assert_true(store_group_begin(s));
        assert_true(store_meta_set(s, "big", big));
        assert_true(store_group_end(s));
    }
    assert_true(store_sync_log(s));
    char wal[96];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", path);
    assert_int_equal(stat(wal, &st), 0);
    if (st.st_size > 70 * (off_t)mib) fail_msg("the log grew to %lld bytes", (long long)st.st_size);
    store_close(s);
    s = store_open(path, false, false, &err);
    if (!s) fail_msg("store_open: %s", buf_str(&err));
    char *v = NULL;
    assert_int_equal(store_meta_read(s, "big", &v), 1);
    assert_string_equal(v, big); /* the last group's */
    free(v);
    store_close(s);
    free(big);
    buf_free(&err);
}

/* The last event another program reads in the game, with the sqlite3
 * shell (a program of its own: a forked child would share SQLite's record
 * of this process's locks). */
static long events_seen_elsewhere(void)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "sqlite3 %s 'SELECT max(n) FROM events'", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    long n = -1;
    if (fscanf(p, "%ld", &n) != 1) n = -1;
    assert_int_equal(pclose(p), 0);
    return n;
}

/* A process's fcntl locks on a file go when it closes any descriptor of
 * it, and SQLite keeps a shared one for as long as a connection in WAL
 * mode is open: another program closing its last connection finds none,
 * takes itself for the last, and deletes the -wal and -shm under this one;
 * the moves this one commits after that go where no other program looks.
 * A server opens and closes connections beside its game's (a reader
 * beyond the eight it keeps): closing one leaves the others' locks. */
static void a_closed_connection_leaves_the_others_locks(void **state)
{
    Game *g = new_game();
    assert_int_equal(move(g, 1001, "subtype: add\nn: 5\n", NULL), 1);
    Buf err = {0};
    for (int i = 0; i < 2; i++) { /* a read-write connection, then a read-only one */
        Store *r = i == 0 ? store_open(path, false, false, &err) : store_open_readonly(path, &err);
        if (!r) fail_msg("store_open: %s", buf_str(&err));
        assert_int_equal(store_last_event(r), 1 + i);
        store_close(r);
        assert_int_equal(events_seen_elsewhere(), 1 + i);
        char wal[96];
        snprintf(wal, sizeof wal, "%s-wal", path);
        if (access(wal, F_OK) != 0) fail_msg("another program deleted the log under the game's connection");
        assert_int_equal(move(g, 1002 + i, "subtype: add\nn: 1\n", NULL), 2 + i);
        assert_int_equal(events_seen_elsewhere(), 2 + i);
    }
    buf_free(&err);
    game_close(g);
}

int run_store_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(journal_and_reopen, make_path, remove_path),
        cmocka_unit_test_setup_teardown(halted_games_stay_halted, make_path, remove_path),
        cmocka_unit_test_setup_teardown(a_dry_run_keeps_nothing, make_path, remove_path),
        cmocka_unit_test_setup_teardown(every_past_state_from_the_journal, make_path, remove_path),
        cmocka_unit_test_setup_teardown(reopened_after_every_event, make_path, remove_path),
        cmocka_unit_test_setup_teardown(a_long_stream_keeps_its_log_bounded, make_path, remove_path),
        cmocka_unit_test_setup_teardown(a_closed_connection_leaves_the_others_locks, make_path, remove_path),
    };
    return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
