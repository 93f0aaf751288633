/*
 * test_faults.c - the store under failing I/O and memory, as SQLite tests
 * itself: a VFS wrapping the default one fails the Nth read, write, sync
 * or lock (once, or from then on), or reports a full disk, and an
 * allocator fails the Nth allocation SQLite asks for.  A short game is
 * played for every N up to the number of calls the game makes; each
 * command must either succeed or fail with a message that says why, a
 * move acknowledged must be in the journal as applied, no event may be
 * left half done once the game is opened again, and `nomic replay` must
 * then pass.
 *
 * The faulty VFS and allocator exist only in this test program: the
 * nomic binary has no way to switch them on.  FAULT_FROM=N starts each
 * sweep at N, to look at one failure.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

/* ---- the faulty VFS ---- */

typedef enum { OP_READ, OP_WRITE, OP_SYNC, OP_LOCK } Op;

typedef struct Faults {
    long calls;       /* I/O calls counted since arming */
    long at;          /* the call that fails first (0: none) */
    bool sticky;      /* every call from `at` on fails, not only that one */
    bool full;        /* only writes count, and they fail as on a full disk */
    long failed;      /* calls failed */
    /* the allocator */
    long allocs, alloc_at;
    bool alloc_sticky;
} Faults;

static Faults F;
static long fault_at; /* the N of the run, for the messages */
static sqlite3_vfs *real_vfs;
static sqlite3_vfs faulty_vfs;

typedef struct FFile {
    sqlite3_file base;
    sqlite3_file *real; /* follows this struct, szOsFile bytes */
} FFile;

/* Does this call fail?  Counts it. */
static bool fault(Op op)
{
    if (F.full && op != OP_WRITE) return false;
    long n = ++F.calls;
    bool fails = F.at && (F.sticky ? n >= F.at : n == F.at);
    if (fails) F.failed++;
    return fails;
}

static int f_close(sqlite3_file *f)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods ? p->real->pMethods->xClose(p->real) : SQLITE_OK;
}

static int f_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
    FFile *p = (FFile *)f;
    if (fault(OP_READ)) return SQLITE_IOERR_READ;
    return p->real->pMethods->xRead(p->real, buf, n, off);
}

static int f_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
    FFile *p = (FFile *)f;
    if (fault(OP_WRITE)) return F.full ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    return p->real->pMethods->xWrite(p->real, buf, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods->xTruncate(p->real, size);
}

static int f_sync(sqlite3_file *f, int flags)
{
    FFile *p = (FFile *)f;
    if (fault(OP_SYNC)) return SQLITE_IOERR_FSYNC;
    return p->real->pMethods->xSync(p->real, flags);
}

static int f_size(sqlite3_file *f, sqlite3_int64 *size)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods->xFileSize(p->real, size);
}

static int f_lock(sqlite3_file *f, int level)
{
    FFile *p = (FFile *)f;
    if (fault(OP_LOCK)) return SQLITE_IOERR_LOCK;
    return p->real->pMethods->xLock(p->real, level);
}

static int f_unlock(sqlite3_file *f, int level)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods->xUnlock(p->real, level);
}

static int f_check(sqlite3_file *f, int *out)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods->xCheckReservedLock(p->real, out);
}

static int f_control(sqlite3_file *f, int op, void *arg)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods->xFileControl(p->real, op, arg);
}

static int f_sector(sqlite3_file *f)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods->xSectorSize(p->real);
}

static int f_chars(sqlite3_file *f)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods->xDeviceCharacteristics(p->real);
}

static int f_shm_map(sqlite3_file *f, int pg, int sz, int extend, void volatile **pp)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods->xShmMap(p->real, pg, sz, extend, pp);
}

static int f_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
    FFile *p = (FFile *)f;
    /* taking a lock can fail; releasing one cannot (a real lock left held
     * would be no fault of the disk's, but a broken VFS) */
    if (!(flags & SQLITE_SHM_UNLOCK) && fault(OP_LOCK)) return SQLITE_IOERR_SHMLOCK;
    return p->real->pMethods->xShmLock(p->real, off, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
    FFile *p = (FFile *)f;
    p->real->pMethods->xShmBarrier(p->real);
}

static int f_shm_unmap(sqlite3_file *f, int del)
{
    FFile *p = (FFile *)f;
    return p->real->pMethods->xShmUnmap(p->real, del);
}

/* Version 2 of the methods: WAL needs the shared memory ones; no mmap
 * (version 3), so that every read goes through xRead. */
static const sqlite3_io_methods faulty_methods = {
    2,       f_close,        f_read,      f_write,       f_truncate, f_sync,      f_size,
    f_lock,  f_unlock,       f_check,     f_control,     f_sector,   f_chars,     f_shm_map,
    f_shm_lock, f_shm_barrier, f_shm_unmap,
};

static int f_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
    FFile *p = (FFile *)f;
    p->real = (sqlite3_file *)(p + 1);
    p->base.pMethods = NULL;
    int rc = real_vfs->xOpen(real_vfs, name, p->real, flags, out);
    if (rc == SQLITE_OK && p->real->pMethods) p->base.pMethods = &faulty_methods;
    return rc;
}

static int f_delete(sqlite3_vfs *v, const char *name, int sync) { return real_vfs->xDelete(real_vfs, name, sync); }
static int f_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
    return real_vfs->xAccess(real_vfs, name, flags, out);
}
static int f_full(sqlite3_vfs *v, const char *name, int n, char *out)
{
    return real_vfs->xFullPathname(real_vfs, name, n, out);
}
static void *f_dlopen(sqlite3_vfs *v, const char *name) { return real_vfs->xDlOpen(real_vfs, name); }
static void f_dlerror(sqlite3_vfs *v, int n, char *out) { real_vfs->xDlError(real_vfs, n, out); }
static void (*f_dlsym(sqlite3_vfs *v, void *h, const char *sym))(void) { return real_vfs->xDlSym(real_vfs, h, sym); }
static void f_dlclose(sqlite3_vfs *v, void *h) { real_vfs->xDlClose(real_vfs, h); }
static int f_random(sqlite3_vfs *v, int n, char *out) { return real_vfs->xRandomness(real_vfs, n, out); }
/* SQLite waits out a lock it cannot take (a WAL reader retries up to a
 * hundred times, sleeping longer each time); a fault here is no other
 * program's lock, and the sweep would take minutes: it is said to have
 * slept. */
static int f_sleep(sqlite3_vfs *v, int us) { return us; }
static int f_time(sqlite3_vfs *v, double *out) { return real_vfs->xCurrentTime(real_vfs, out); }
static int f_lasterr(sqlite3_vfs *v, int n, char *out) { return real_vfs->xGetLastError(real_vfs, n, out); }

/* ---- the failing allocator ---- */

static sqlite3_mem_methods real_mem;

static bool alloc_fails(void)
{
    long n = ++F.allocs;
    bool fails = F.alloc_at && (F.alloc_sticky ? n >= F.alloc_at : n == F.alloc_at);
    if (fails) F.failed++;
    return fails;
}

static void *m_malloc(int n) { return alloc_fails() ? NULL : real_mem.xMalloc(n); }
static void *m_realloc(void *p, int n) { return alloc_fails() ? NULL : real_mem.xRealloc(p, n); }
static void m_free(void *p) { real_mem.xFree(p); }
static int m_size(void *p) { return real_mem.xSize(p); }
static int m_roundup(int n) { return real_mem.xRoundup(n); }
static int m_init(void *ud) { return real_mem.xInit(ud); }
static void m_shutdown(void *ud) { real_mem.xShutdown(ud); }
static const sqlite3_mem_methods faulty_mem = {m_malloc, m_free, m_realloc, m_size, m_roundup, m_init, m_shutdown, NULL};

static int install(void **state)
{
    /* the allocator can be set only while SQLite is shut down: every
     * connection of the earlier groups is closed */
    if (sqlite3_shutdown() != SQLITE_OK) return -1;
    if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &real_mem) != SQLITE_OK) return -1;
    if (sqlite3_config(SQLITE_CONFIG_MALLOC, &faulty_mem) != SQLITE_OK) return -1;
    if (sqlite3_initialize() != SQLITE_OK) return -1;
    real_vfs = sqlite3_vfs_find(NULL);
    faulty_vfs = (sqlite3_vfs){
        2, (int)sizeof(FFile) + real_vfs->szOsFile, real_vfs->mxPathname, NULL, "faulty", NULL,
        f_open, f_delete, f_access, f_full, f_dlopen, f_dlerror, f_dlsym, f_dlclose, f_random, f_sleep, f_time,
        f_lasterr, NULL, NULL, NULL, NULL};
    return sqlite3_vfs_register(&faulty_vfs, 1) == SQLITE_OK ? 0 : -1;
}

static int uninstall(void **state)
{
    sqlite3_vfs_unregister(&faulty_vfs);
    sqlite3_vfs_register(real_vfs, 1);
    sqlite3_shutdown();
    sqlite3_config(SQLITE_CONFIG_MALLOC, &real_mem);
    return sqlite3_initialize() == SQLITE_OK ? 0 : -1;
}

/* ---- the game ---- */

static const char *SET = "type: engineSettings\nrunType: rule\n\n"
                         "type: rule\nruleOrder: 1\n"
                         "if: exists(type==\"move\" & subtype==\"add\" & n==%n & objectId==%m) & exists(type==\"total\" & v==%v & objectId==%t)\n"
                         "then: set(%t)(v==%v+%n) & send(%m, \"added\") & delete(%m)\n\n"
                         "type: total\nv: 0\n";

/* Each move adds its own decimal digit to the total: a digit above 1
 * would be a move applied twice. */
#define NMOVES 4
static const long ADDS[NMOVES] = {1, 10, 100, 1000};

static char dir[64], path[96], pristine[96];

static void remove_db(const char *p)
{
    char side[128];
    unlink(p);
    snprintf(side, sizeof side, "%s-wal", p);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", p);
    unlink(side);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char b[65536];
    size_t n;
    while ((n = fread(b, 1, sizeof b, in)) > 0) assert_int_equal(fwrite(b, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* A new game, once, copied for every run (made without faults). */
static void make_pristine(void)
{
    struct stat sb;
    snprintf(dir, sizeof dir, "%s", stat("/dev/shm", &sb) == 0 ? "/dev/shm" : "/tmp");
    snprintf(path, sizeof path, "%s/nomic-faults-%d.db", dir, (int)getpid());
    snprintf(pristine, sizeof pristine, "%s/nomic-faults-%d-new.db", dir, (int)getpid());
    char set[128];
    snprintf(set, sizeof set, "%s/nomic-faults-%d.nomic", dir, (int)getpid());
    FILE *f = fopen(set, "w");
    assert_non_null(f);
    fputs(SET, f);
    fclose(f);
    const char *sets[] = {set};
    Buf err = {0};
    remove_db(pristine);
    Game *g = game_init(pristine, sets, 1, true, 7, 1000, true, &err);
    if (!g) fail_msg("game_init: %s", buf_str(&err));
    game_close(g);
    buf_free(&err);
    unlink(set);
}

/* A failure must say why: SQLite's words for what went wrong. */
static void assert_clear(const char *what, const char *msg)
{
    if (!msg || !*msg) fail_msg("%s failed without a message (fault at call %ld)", what, fault_at);
    static const char *words[] = {"I/O error", "disk is full", "out of memory", "locked", "busy", "malformed",
                                  "unable to open", "locking protocol", NULL};
    for (const char **w = words; *w; w++)
        if (strstr(msg, *w)) return;
    fail_msg("%s failed with an unclear message: \"%s\" (fault at call %ld)", what, msg, fault_at);
}

typedef struct Played {
    bool acked[NMOVES];
    long event[NMOVES];
    int failed; /* commands that failed: opening the game, a move, a read */
} Played;

static void note_event(void *ud, Game *g, const Outcome *o)
{
    long *n = ud;
    if (strcmp(o->kind, "move") == 0) *n = o->event;
}

/* One move, as `nomic move` makes it: open, move, close.  `g` given: the
 * game is held open across moves, as the server holds it. */
static void one_move(Game *held, int i, Played *pl)
{
    Buf err = {0};
    Game *g = held ? held : game_open(path, &err);
    if (!g) {
        assert_clear("opening the game", buf_str(&err));
        pl->failed++;
        buf_free(&err);
        return;
    }
    char body[64];
    snprintf(body, sizeof body, "subtype: add\nn: %ld\n", ADDS[i]);
    long n = 0;
    pl->acked[i] = game_move(g, "p@x", 1001 + i, body, false, note_event, &n);
    pl->event[i] = n;
    if (!pl->acked[i]) {
        assert_clear("a move", store_error(g->st));
        pl->failed++;
    }
    if (!held) game_close(g);
    buf_free(&err);
}

/* A read of the journal, as `nomic log` makes it. */
static bool count_row(void *ud, const JournalRow *r)
{
    (*(long *)ud)++;
    return true;
}

static void read_log(Played *pl)
{
    Buf err = {0};
    Game *g = game_open(path, &err);
    if (!g) {
        assert_clear("opening the game to read it", buf_str(&err));
        pl->failed++;
        buf_free(&err);
        return;
    }
    long rows = 0;
    if (!store_each_event(g->st, 1, 1000, count_row, &rows)) {
        assert_clear("reading the journal", store_error(g->st));
        pl->failed++;
    }
    game_close(g);
}

/* The moves as a stream plays them: the game held open, the moves in one
 * group (game_group_begin), acknowledged only once the group committed.
 * A fault fails the group as one command, however many of its moves it
 * stopped. */
static void play_grouped(Played *pl)
{
    memset(pl, 0, sizeof *pl);
    Buf err = {0};
    Game *g = game_open(path, &err);
    if (!g) {
        assert_clear("opening the game", buf_str(&err));
        pl->failed++;
        buf_free(&err);
        return;
    }
    bool began = game_group_begin(g, &err), moved[NMOVES] = {false}, all = began;
    if (!began) assert_clear("beginning a group", buf_str(&err));
    for (int i = 0; began && i < NMOVES; i++) {
        char body[64];
        snprintf(body, sizeof body, "subtype: add\nn: %ld\n", ADDS[i]);
        moved[i] = game_move(g, "p@x", 1001 + i, body, false, note_event, &pl->event[i]);
        if (!moved[i]) assert_clear("a move in a group", store_error(g->st));
        all = all && moved[i];
    }
    bool kept = began && game_group_end(g, &err);
    if (began && !kept) assert_clear("ending a group", buf_str(&err));
    for (int i = 0; i < NMOVES; i++) pl->acked[i] = kept && moved[i];
    pl->failed = !(all && kept);
    game_close(g);
    buf_free(&err);
}

static void play(bool held, Played *pl)
{
    memset(pl, 0, sizeof *pl);
    Game *g = NULL;
    if (held) {
        Buf err = {0};
        g = game_open(path, &err);
        if (!g) {
            assert_clear("opening the game", buf_str(&err));
            pl->failed++;
        }
        buf_free(&err);
        if (!g) return;
    }
    for (int i = 0; i < NMOVES; i++) {
        one_move(g, i, pl);
        if (i == 1 && !held) read_log(pl);
    }
    game_close(g);
}

/* nomic replay's check, its output kept out of the test's. */
static bool replay(Game *g)
{
    fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    close(null);
    bool rc = game_replay(g);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    return rc;
}

/* What every run must leave, once the faults stop and the game is opened
 * again (which finishes an event left half done). */
static void check_after(const Played *pl)
{
    Buf err = {0};
    Game *g = game_open(path, &err);
    if (!g) fail_msg("the game does not open after the faults stop (fault at %ld): %s", fault_at,
                     buf_str(&err));
    long last = store_last_event(g->st);
    assert_true(last >= 0);
    for (long n = 1; n <= last; n++) {
        JournalRow r;
        assert_int_equal(store_event_get(g->st, n, &r), 1);
        if (strcmp(r.status, "received") == 0)
            fail_msg("event %ld is left half done (fault at %ld)", n, fault_at);
        journal_row_free(&r);
    }
    for (int i = 0; i < NMOVES; i++) {
        if (!pl->acked[i]) continue;
        JournalRow r;
        assert_int_equal(store_event_get(g->st, pl->event[i], &r), 1);
        if (strcmp(r.status, "applied") != 0)
            fail_msg("move %d was acknowledged as event %ld, which is %s (fault at %ld)", i, pl->event[i], r.status,
                     fault_at);
        journal_row_free(&r);
    }
    /* no move applied twice, every acknowledged one applied */
    long v = strtol(unit_attr(g, "total", "v"), NULL, 10);
    for (int i = 0; i < NMOVES; i++) {
        long digit = v / ADDS[i] % 10;
        if (digit > 1) fail_msg("move %d applied %ld times (fault at %ld)", i, digit, fault_at);
        if (pl->acked[i] && digit != 1) fail_msg("move %d acknowledged but not in the total %ld", i, v);
    }
    if (!replay(g)) {
        game_replay(g); /* again, to show what differs */
        fail_msg("nomic replay fails after the fault at %ld", fault_at);
    }
    game_close(g);
    buf_free(&err);
}

typedef struct Mode {
    const char *name;
    bool sticky, full, alloc, held, grouped;
} Mode;

/* Plays once without faults to count the calls, then once for every N. */
static void sweep(const Mode *m)
{
    make_pristine();
    Played pl;
    remove_db(path);
    copy_file(pristine, path);
    F = (Faults){.full = m->full};
    fault_at = 0;
    if (m->grouped) play_grouped(&pl);
    else play(m->held, &pl);
    long total = m->alloc ? F.allocs : F.calls;
    for (int i = 0; i < NMOVES; i++) assert_true(pl.acked[i]);
    check_after(&pl);
    assert_true(total > 10);
    /* every N when there are few (every I/O call); past a few thousand
     * allocations, a stride of a few, which still reaches each statement
     * of a move */
    long step = total > 2000 ? total / 800 : 1;
    long runs = 0, failed_commands = 0;
    const char *from = getenv("FAULT_FROM");
    for (long at = from ? atol(from) : 1; at <= total + 1; at += step, runs++) {
        remove_db(path);
        copy_file(pristine, path);
        F = (Faults){.full = m->full, .sticky = m->sticky};
        if (m->alloc) F.alloc_at = at, F.alloc_sticky = m->sticky;
        else F.at = at;
        fault_at = at;
        if (m->grouped) play_grouped(&pl);
        else play(m->held, &pl);
        for (int i = 0; i < NMOVES; i++) failed_commands += !pl.acked[i];
        /* one call failing fails one command at most: the next ones, in
         * a game held open too, find the game as the store has it */
        if (!m->sticky && pl.failed > 1) fail_msg("%d commands failed on one fault (at %ld)", pl.failed, at);
        F = (Faults){0}; /* the faults stop */
        check_after(&pl);
    }
    F = (Faults){0};
    print_message("    %s: %ld calls, %ld runs, %ld moves refused by a fault\n", m->name, total, runs, failed_commands);
    assert_true(failed_commands > 0); /* the faults did reach the moves */
    remove_db(path);
    remove_db(pristine);
}

static void io_fails_once(void **state) { sweep(&(Mode){"an I/O call fails once", false, false, false, false}); }
static void io_fails_from_then_on(void **state) { sweep(&(Mode){"I/O fails from then on", true, false, false, false}); }
static void disk_full(void **state) { sweep(&(Mode){"the disk is full from then on", true, true, false, false}); }
static void io_fails_under_a_server(void **state) { sweep(&(Mode){"an I/O call fails, the game held open", false, false, false, true}); }
static void io_fails_in_a_group(void **state)
{
    sweep(&(Mode){"an I/O call fails, the moves in one group", false, false, false, true, true});
}
static void disk_full_in_a_group(void **state)
{
    sweep(&(Mode){"the disk is full from then on, the moves in one group", true, true, false, true, true});
}
static void memory_fails_in_a_group(void **state)
{
    sweep(&(Mode){"an allocation fails once, the moves in one group", false, false, true, true, true});
}
static void memory_fails_once(void **state) { sweep(&(Mode){"an allocation fails once", false, false, true, false}); }
static void memory_fails_under_a_server(void **state)
{
    sweep(&(Mode){"allocations fail from then on, the game held open", true, false, true, true});
}

int run_fault_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(io_fails_once),
        cmocka_unit_test(io_fails_from_then_on),
        cmocka_unit_test(disk_full),
        cmocka_unit_test(io_fails_under_a_server),
        cmocka_unit_test(io_fails_in_a_group),
        cmocka_unit_test(disk_full_in_a_group),
        cmocka_unit_test(memory_fails_in_a_group),
        cmocka_unit_test(memory_fails_once),
        cmocka_unit_test(memory_fails_under_a_server),
    };
    return cmocka_run_group_tests_name("faults", tests, install, uninstall);
}
