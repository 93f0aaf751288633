/*
 * store.c - the SQLite store (store.h).
 *
 * WAL journal mode with synchronous=FULL: a committed event survives a
 * crash of the program and a power cut, and never leaves half of one.
 * Prepared statements are cached per Store.  Every query's rows are read
 * through step_row, which tells the end of the rows from an error.
 *
 * A test hook, read from the environment: NOMIC_TEST_FAIL_COMMIT=N makes
 * writing the outcome of event N fail as a full disk would, so the suites
 * can check what a failed commit leaves (docs/mechanics.md).
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "objfmt.h"
#include "store_writer.h"

#define STORE_FORMAT "4"

enum {
    Q_META_GET, Q_META_SET, Q_PUT_OBJ, Q_DEL_OBJ, Q_RECEIVED, Q_OUTCOME, Q_EVENT_GET,
    Q_OUT_ADD, Q_RCPT_ADD, Q_RCPT_GET, Q_CONF_GET, Q_CONF_SET, Q_CONF_DEL, Q_TOKEN_GET, Q_TOKEN_SET,
    Q_TOKEN_OWNER, Q_OUT_CLAIM, Q_OUT_DONE, Q_OUT_RETRY, Q_BEGIN_WRITE, Q_BEGIN_READ, Q_COMMIT, Q_LAST_EVENT,
    Q_DATA_VERSION, Q_DROP_QUEUED, Q_LAST_TIME, Q_SAVEPOINT, Q_RELEASE, Q_ROLLBACK_TO, Q_META_UPDATE, Q_OUT_DUE, Q_COUNT
};

/* A message due for delivery at ?1 (?3: also those waiting out a backoff
 * and those given up), after id ?4: what a claim takes, and what
 * store_outbox_due asks about. */
#define OUT_DUE \
    " delivery <> 'kept' AND delivery <> 'delivered'" \
    " AND id>?4 AND ((delivery IN ('pending','sending') AND coalesce(next_try,0)<=?1)" \
    " OR (?3 AND delivery IN ('pending','failed')))"

static const char *queries[Q_COUNT] = {
    "SELECT value FROM meta WHERE key=?1",
    "INSERT INTO meta(key,value) VALUES(?1,?2) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
    "INSERT INTO objects(id,body) VALUES(?1,?2) ON CONFLICT(id) DO UPDATE SET body=excluded.body",
    "DELETE FROM objects WHERE id=?1",
    "INSERT INTO events(kind,time,sender,input,status,received_at,raw,stamp) VALUES(?1,?2,?3,?4,'received',?5,?6,?7)",
    "UPDATE events SET status=?2, message=?3, trace=?4, trace_json=?5, hash=?6, code_check=?7, changes=?8 WHERE n=?1",
    "SELECT n,kind,time,sender,input,status,message,trace,trace_json,hash,received_at,stamp,code_check,scam_check"
    " FROM events WHERE n=?1",
    ("INSERT INTO outbox(event,to_id,text,state,queued_at,sent_at,delivery,attempts)"
     " VALUES(?1,?2,?3,?4,?5,?6,?7,0)"),
    "INSERT OR IGNORE INTO recipients(list) VALUES(?1)",
    "SELECT id FROM recipients WHERE list=?1",
    "SELECT value FROM config WHERE key=?1",
    "INSERT INTO config(key,value) VALUES(?1,?2) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
    "DELETE FROM config WHERE key=?1",
    "SELECT hash FROM tokens WHERE address=?1",
    ("INSERT INTO tokens(address,hash,issued_at) VALUES(?1,?2,?3)"
     " ON CONFLICT(address) DO UPDATE SET hash=excluded.hash, issued_at=excluded.issued_at"),
    "SELECT address FROM tokens WHERE hash=?1",
    /* a claim is a lease: a process that dies while sending leaves the
     * message 'sending' until ?2, when another takes it up again.  Among
     * the messages not delivered (the index): by the id, SQLite would
     * read the outbox's whole history at every round of the sender */
    ("UPDATE outbox SET delivery='sending', next_try=?2, attempts=attempts+1 WHERE id=(SELECT id FROM outbox"
     " INDEXED BY outbox_pending WHERE" OUT_DUE " ORDER BY id LIMIT 1)"
     " RETURNING id,event,(SELECT list FROM recipients WHERE id=to_id),text,state,queued_at,sent_at,delivery,"
     "attempts,next_try,delivered_at,error,message_id"),
    ("UPDATE outbox SET delivery='delivered', delivered_at=?2, message_id=?3, error=NULL, next_try=NULL"
     " WHERE id=?1 AND delivery='sending'"),
    "UPDATE outbox SET delivery=?2, next_try=?3, error=?4, message_id=?5 WHERE id=?1 AND delivery='sending'",
    /* every event's own: prepared once, as parsing them each time cost a
     * tenth of an event */
    "BEGIN IMMEDIATE",
    "BEGIN",
    "COMMIT",
    "SELECT coalesce(max(n),0) FROM events",
    "PRAGMA data_version",
    "DELETE FROM outbox WHERE state='queued'",
    "SELECT time FROM events ORDER BY n DESC LIMIT 1",
    /* an event's transaction within a group's (store_group_begin) */
    "SAVEPOINT event",
    "RELEASE event",
    "ROLLBACK TO event",
    /* a meta value written at every event is there already: an UPDATE
     * costs half an upsert */
    "UPDATE meta SET value=?2 WHERE key=?1",
    "SELECT EXISTS(SELECT 1 FROM outbox INDEXED BY outbox_pending WHERE" OUT_DUE ")",
};

/* meta is written at every event: WITHOUT ROWID, it is one b-tree (the
 * key's), not a table and an index to keep in step.  changes, which games
 * of format 3 wrote at every event (WITHOUT ROWID too), is made empty in
 * a new game, where an event's changes are in its journal row, so that
 * reading the changes is one code for both.  A game made before keeps its
 * rowid tables and changes_event index; the statements are the same for
 * both. */
static const char *schema =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS initial(seq INTEGER PRIMARY KEY, label TEXT NOT NULL, text TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS objects(id INTEGER PRIMARY KEY, body TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS events(n INTEGER PRIMARY KEY, kind TEXT NOT NULL, time INTEGER NOT NULL,"
    " sender TEXT, input TEXT, status TEXT NOT NULL, message TEXT, trace TEXT, trace_json TEXT, hash TEXT,"
    " received_at INTEGER NOT NULL, raw TEXT, stamp INTEGER, code_check TEXT, changes TEXT, scam_check TEXT);"
    "CREATE TABLE IF NOT EXISTS changes(event INTEGER NOT NULL, id INTEGER NOT NULL, body TEXT,"
    " PRIMARY KEY(event, id)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS snapshots(event INTEGER PRIMARY KEY, body TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS recipients(id INTEGER PRIMARY KEY, list TEXT NOT NULL UNIQUE);"
    "CREATE TABLE IF NOT EXISTS outbox(id INTEGER PRIMARY KEY, event INTEGER NOT NULL, to_id INTEGER NOT NULL"
    " REFERENCES recipients(id), text TEXT NOT NULL, state TEXT NOT NULL, queued_at INTEGER, sent_at INTEGER,"
    " delivery TEXT, attempts INTEGER NOT NULL DEFAULT 0, next_try INTEGER, delivered_at INTEGER, error TEXT,"
    " message_id TEXT);"
    /* the messages not yet delivered (pending, sending, failed): two
     * comparisons, where an IN list made SQLite build a table at every
     * message written */
    "CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(delivery) WHERE delivery <> 'kept' AND delivery <> 'delivered';"
    "CREATE TABLE IF NOT EXISTS config(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS tokens(address TEXT PRIMARY KEY, hash TEXT NOT NULL, issued_at INTEGER NOT NULL);";

/* Tables and indexes a game made by an earlier build of this format may
 * lack; made on every open (nothing is written when they exist):
 * mail_keys, each mail taken (its Message-ID and sender, or a digest)
 * and the event it became, so that a mail is applied at most once;
 * answers, when the Mechanics last answered an address about a mail they
 * refused unread; tallies, what each sender (an address, or a client's
 * IP) had run and had refused in each hour (game_billing.c); token_offers, a
 * token mailed on request that does not yet void the address's token (it
 * does when first used); and the index
 * that finds the queue without reading the outbox's history. */
static const char *extras =
    "CREATE TABLE IF NOT EXISTS mail_keys(key TEXT PRIMARY KEY, event INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS tallies(who TEXT NOT NULL, hour INTEGER NOT NULL, events INTEGER NOT NULL,"
    " work INTEGER NOT NULL, bytes INTEGER NOT NULL, refused INTEGER NOT NULL, last_refusal TEXT,"
    " PRIMARY KEY(who, hour)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS answers(address TEXT PRIMARY KEY, at INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS token_offers(address TEXT PRIMARY KEY, hash TEXT NOT NULL, issued_at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS outbox_queued ON outbox(state) WHERE state='queued';";

struct Store {
    sqlite3 *db;
    sqlite3_stmt *q[Q_COUNT];
    char err[512];
    char *last_rcpt;   /* one-entry cache: most messages go to the same list */
    long last_rcpt_id;
    int lockfd;        /* the database file, for flock: the writer's lock */
    bool joined;       /* one of the users of its file (lock_file_join) */
    dev_t file_dev;
    ino_t file_ino;
    WriteBehind *behind; /* started by the first group that did not wait for the disk, or NULL */
    int locks;         /* store_lock nesting */
    bool yields;       /* leaves gaps in a long streak of events (store_yield) */
    int64_t released_ms, streak_ms; /* the lock's last release, and since when this
                                     * program has held it with hardly a gap */
    int64_t data_version;
    int bind_rc;       /* the first bind that failed since the statement was taken */
    sqlite3_stmt *binding; /* the statement last taken, and its parameters bound (bit i-1: ?i) */
    uint64_t bound_mask;
    bool txn;          /* store_begin opened a transaction not yet ended */
    bool group;        /* store_group_begin opened one that store_group_end ends */
    bool lazy;         /* synchronous=NORMAL: commits do not wait for the disk */
    char upgraded_from[8]; /* the format opening upgraded, or "" */
    char *kept;        /* where the file of that format was copied before, or NULL */
};

static bool fail(Store *s)
{
    snprintf(s->err, sizeof s->err, "%s", sqlite3_errmsg(s->db));
    return false;
}

const char *store_error(Store *s) { return s->err; }

void store_set_error(Store *s, const char *why) { snprintf(s->err, sizeof s->err, "%s", why); }

const char *store_format(void) { return STORE_FORMAT; }

const char *store_upgraded_from(const Store *s, const char **kept)
{
    *kept = s->kept;
    return s->upgraded_from[0] ? s->upgraded_from : NULL;
}

/* Before SQLite's first use: no count of the memory it holds (a global
 * lock taken at every allocation, for figures nobody reads).  If SQLite
 * was set up already (a test that installs its own allocator), the call
 * is refused and changes nothing. */
static void configure_sqlite(void) { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

static sqlite3_stmt *stmt(Store *s, int q)
{
    if (!s->q[q] && sqlite3_prepare_v2(s->db, queries[q], -1, &s->q[q], NULL) != SQLITE_OK) {
        fail(s);
        return NULL;
    }
    /* the last step's error was reported when it happened; its bindings
     * are all given again by the caller (each statement's every
     * parameter), so they are not cleared first */
    sqlite3_reset(s->q[q]);
    s->bind_rc = SQLITE_OK;
    s->binding = s->q[q];
    s->bound_mask = 0;
    return s->q[q];
}

/* Binding can fail (a text over SQLite's limit, no memory): the first
 * failure is kept and fails the statement's step, so that a parameter
 * left unset is never written as if it had been given. */
static void bound(Store *s, sqlite3_stmt *st, int i, int rc)
{
    if (rc != SQLITE_OK && s->bind_rc == SQLITE_OK) s->bind_rc = rc;
    if (st != s->binding) s->binding = st, s->bound_mask = 0;
    if (i >= 1 && i <= 64) s->bound_mask |= 1ull << (i - 1);
}

/* Bindings are not cleared between uses (stmt), so a parameter the caller
 * forgot would hold the last use's value, or a text since freed: the
 * first step of a statement checks that each was given.  (A loop's later
 * steps, after its callback took other statements, are not checked.) */
static bool param_unbound(Store *s, sqlite3_stmt *st)
{
    if (st != s->binding) return false;
    int n = sqlite3_bind_parameter_count(st);
    uint64_t all = n >= 64 ? ~0ull : (1ull << n) - 1;
    if ((s->bound_mask & all) == all) return false;
    snprintf(s->err, sizeof s->err, "internal error: a parameter of \"%.300s\" was not given", sqlite3_sql(st));
    return true;
}

/* Texts are bound without a copy (SQLITE_STATIC): every statement here is
 * bound and stepped in one function, while its caller's texts live, and
 * stmt() binds anew each time it is taken.  A copy of every object's body
 * cost an allocation and a memcpy per write. */
static void bind_text(Store *s, sqlite3_stmt *st, int i, const char *t)
{
    bound(s, st, i, t ? sqlite3_bind_text(st, i, t, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i));
}

static void bind_int(Store *s, sqlite3_stmt *st, int i, int64_t v) { bound(s, st, i, sqlite3_bind_int64(st, i, v)); }

static void bind_null(Store *s, sqlite3_stmt *st, int i) { bound(s, st, i, sqlite3_bind_null(st, i)); }

/* A bind that failed since the statement was taken: its error, once. */
static bool bind_failed(Store *s)
{
    if (s->bind_rc == SQLITE_OK) return false;
    snprintf(s->err, sizeof s->err, "%s", sqlite3_errstr(s->bind_rc));
    s->bind_rc = SQLITE_OK;
    return true;
}

/* Is the transaction store_begin (or store_group_begin) opened gone,
 * ended by an error (no memory, a full disk) whose statement's caller did
 * not stop?  Then no statement may run: on its own it would commit at
 * once, half an event (or the end of a group whose start was undone). */
static bool txn_lost(Store *s)
{
    if (!(s->txn || s->group) || !sqlite3_get_autocommit(s->db)) return false;
    static const char said[] = "the transaction was ended by an error: ";
    if (strncmp(s->err, said, sizeof said - 1) == 0) return true; /* said once */
    char why[400];
    snprintf(why, sizeof why, "%.399s", s->err[0] ? s->err : "no transaction is open");
    snprintf(s->err, sizeof s->err, "%s%s", said, why);
    return true;
}

static bool exec(Store *s, const char *sql)
{
    if (txn_lost(s)) return false;
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        /* without memory for the message, the code's own words */
        snprintf(s->err, sizeof s->err, "%s", msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        return false;
    }
    return true;
}

static bool step_done(Store *s, sqlite3_stmt *st)
{
    if (bind_failed(s) || param_unbound(s, st) || txn_lost(s)) {
        sqlite3_reset(st);
        return false;
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? true : fail(s);
}

/* Runs a statement of the table that returns no row. */
static bool run(Store *s, int q)
{
    sqlite3_stmt *st = txn_lost(s) ? NULL : stmt(s, q);
    return st && step_done(s, st);
}

/* The row iterator every query's loop uses: 1 a row, 0 the end of the
 * rows, -1 an error (kept in s->err).  sqlite3_step's SQLITE_DONE and an
 * I/O error both end a loop written `while (step == SQLITE_ROW)`: only
 * this tells a pool loaded whole from one loaded in part. */
static int step_row(Store *s, sqlite3_stmt *st)
{
    if (bind_failed(s) || param_unbound(s, st) || txn_lost(s)) return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) return 1;
    if (rc == SQLITE_DONE) return 0;
    fail(s);
    return -1;
}

/* Prepares a statement used once; false (and s->err) when it cannot. */
static bool prepare(Store *s, const char *sql, sqlite3_stmt **st)
{
    s->bind_rc = SQLITE_OK;
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK) {
        s->binding = *st;
        s->bound_mask = 0;
        return true;
    }
    fail(s);
    sqlite3_finalize(*st);
    *st = NULL;
    return false;
}

/* Format 2 had no delivery columns: every message it sent stays in the
 * outbox ('kept'). */
/* ---- copies ---- */

/* fsync of a file, or of the folder that holds path (a rename is durable
 * once the folder is on disk). */
static bool sync_path(const char *path, bool folder)
{
    char dir[4096];
    if (folder) {
        const char *slash = strrchr(path, '/');
        if (!slash) snprintf(dir, sizeof dir, ".");
        else snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
        path = dir;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = fsync(fd) == 0;
    close(fd);
    return ok;
}

/* The whole of src into the new file tmp: one step of the backup API takes
 * every page in one read transaction, so the copy is one moment of the
 * game whatever other connections commit meanwhile. */
static bool copy_pages(sqlite3 *src, const char *tmp, Buf *err)
{
    sqlite3 *d = NULL;
    bool ok = false;
    if (sqlite3_open_v2(tmp, &d, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        buf_printf(err, "%s: %s", tmp, d ? sqlite3_errmsg(d) : "out of memory");
        goto done;
    }
    sqlite3_busy_timeout(d, 5000);
    sqlite3_backup *b = sqlite3_backup_init(d, "main", src, "main");
    if (!b) {
        buf_printf(err, "%s: %s", tmp, sqlite3_errmsg(d));
        goto done;
    }
    int rc;
    while ((rc = sqlite3_backup_step(b, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED) sqlite3_sleep(10);
    if (sqlite3_backup_finish(b) != SQLITE_OK || rc != SQLITE_DONE) {
        buf_printf(err, "%s: %s", tmp, rc != SQLITE_DONE ? sqlite3_errstr(rc) : sqlite3_errmsg(d));
        goto done;
    }
    ok = true;
done:
    /* the last connection's close folds the copy's log into it: tmp is
     * then one file */
    if (sqlite3_close(d) != SQLITE_OK && ok) {
        buf_printf(err, "%s: cannot be closed", tmp);
        ok = false;
    }
    return ok;
}

/* How a copy takes its name: in place of what was there, or only if
 * nothing was (link fails on a name taken: the first copy is kept). */
static bool take_name(const char *tmp, const char *dst, bool replace, Buf *err)
{
    if (replace ? rename(tmp, dst) == 0 : link(tmp, dst) == 0 || errno == EEXIST) {
        if (!replace) unlink(tmp);
        return true;
    }
    buf_printf(err, "%s: %s", dst, strerror(errno));
    return false;
}

/* src copied to dst: written beside it, on disk, checked (check, when
 * given, on the copy under its own name), then renamed.  The log and
 * index of an earlier file of dst's name go first: SQLite would read
 * them with the copy. */
static bool copy_database(sqlite3 *src, const char *dst, bool replace, StoreCheck check, void *ud, Buf *err)
{
    char tmp[4200], side[4300];
    if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", dst, (long)getpid()) >= (int)sizeof tmp) {
        buf_printf(err, "%s: the name is too long", dst);
        return false;
    }
    unlink(tmp);
    bool ok = copy_pages(src, tmp, err);
    if (ok && !sync_path(tmp, false)) {
        buf_printf(err, "%s: cannot be written to disk: %s", tmp, strerror(errno));
        ok = false;
    }
    if (ok && check && !check(ud, tmp, err)) ok = false;
    if (ok && replace) {
        snprintf(side, sizeof side, "%s-wal", dst);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", dst);
        unlink(side);
    }
    ok = ok && take_name(tmp, dst, replace, err);
    if (ok) sync_path(dst, true);
    else unlink(tmp);
    snprintf(side, sizeof side, "%s-journal", tmp);
    unlink(side);
    return ok;
}

bool store_backup(Store *s, const char *dst, StoreCheck check, void *ud, Buf *err)
{
    return copy_database(s->db, dst, true, check, ud, err);
}

/* Before an upgrade: the file as it was, kept beside it as
 * PATH.formatN, once (a copy there already is the first one, kept: a
 * second program upgrading at the same moment cannot replace it). */
static bool keep_old_format(Store *s, const char *path, const char *format, Buf *err)
{
    Buf kept = {0};
    buf_printf(&kept, ".format%s", format);
    size_t n = strlen(path);
    snprintf(s->upgraded_from, sizeof s->upgraded_from, "%s", format);
    if (n > kept.len && strcmp(path + n - kept.len, buf_str(&kept)) == 0) {
        buf_free(&kept); /* this is a kept copy, opened by this build: its keeper's choice */
        return true;
    }
    buf_reset(&kept);
    buf_printf(&kept, "%s.format%s", path, format);
    bool ok = copy_database(s->db, buf_str(&kept), false, NULL, NULL, err);
    if (ok) {
        s->kept = buf_take(&kept);
    } else {
        buf_printf(err, " (the old file is copied before it is upgraded)");
    }
    buf_free(&kept);
    return ok;
}

static bool upgrade_from_2(Store *s)
{
    return exec(s, "BEGIN IMMEDIATE;"
                   "ALTER TABLE outbox ADD COLUMN delivery TEXT;"
                   "ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;"
                   "ALTER TABLE outbox ADD COLUMN next_try INTEGER;"
                   "ALTER TABLE outbox ADD COLUMN delivered_at INTEGER;"
                   "ALTER TABLE outbox ADD COLUMN error TEXT;"
                   "ALTER TABLE outbox ADD COLUMN message_id TEXT;"
                   "UPDATE outbox SET delivery='kept' WHERE state='sent';"
                   "CREATE INDEX outbox_undelivered ON outbox(delivery)"
                   " WHERE delivery IN ('pending','sending','failed');"
                   "UPDATE meta SET value='3' WHERE key='format';"
                   "COMMIT;") ||
           (exec(s, "ROLLBACK"), false);
}

/* Format 4: an event's changes are a text in its journal row, and the
 * objects table may lag behind the journal, the changes after the meta
 * key objects_at completing it (store.h); the outbox's index of messages
 * not delivered is outbox_pending (see the schema).  A game of format 3
 * kept a row per change in the table changes, and its objects table was
 * its settled event's: the upgrade adds the column and says so in
 * objects_at (an earlier build, which would take a lagging table for the
 * state, refuses the game after it).  In one transaction, which finds the
 * game still of format 3: another program may have upgraded it meanwhile. */
static bool upgrade_from_3(Store *s)
{
    if (!exec(s, "BEGIN IMMEDIATE")) return false;
    char *f = NULL;
    int got = store_meta_read(s, "format", &f);
    bool still = got > 0 && strcmp(f, "3") == 0;
    free(f);
    bool ok = got >= 0 && (!still || exec(s, "ALTER TABLE events ADD COLUMN changes TEXT;"
                                             "DROP INDEX IF EXISTS outbox_undelivered;"
                                             "CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(delivery)"
                                             " WHERE delivery <> 'kept' AND delivery <> 'delivered';"
                                             "INSERT OR IGNORE INTO meta(key,value) SELECT 'objects_at',"
                                             " substr(value, 9, instr(value, ' ') - 9) FROM meta"
                                             " WHERE key='state' AND value LIKE 'settled=% %';"
                                             "INSERT OR IGNORE INTO meta(key,value) SELECT 'objects_at', value"
                                             " FROM meta WHERE key='settled';"
                                             "UPDATE meta SET value='4' WHERE key='format';"));
    if (ok && exec(s, "COMMIT")) return true;
    exec(s, "ROLLBACK");
    return false;
}

/* The journal's columns code_check and scam_check, which a game made by
 * an earlier build of this format lacks: added when it is opened (another
 * program opening it at the same time may add it first). */
static bool has_column(Store *s, const char *name)
{
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT count(*) FROM pragma_table_info('events') WHERE name=?1", &st)) return false;
    bind_text(s, st, 1, name);
    bool has = step_row(s, st) == 1 && sqlite3_column_int(st, 0) == 1;
    sqlite3_finalize(st);
    return has;
}

static bool add_column(Store *s, const char *name)
{
    if (has_column(s, name)) return true;
    char sql[128];
    snprintf(sql, sizeof sql, "ALTER TABLE events ADD COLUMN %s TEXT", name);
    if (exec(s, sql)) return true;
    if (!has_column(s, name)) return false;
    s->err[0] = 0;
    return true;
}

/* A key of a table of the game file at path, read-only (store_peek_*). */
static int peek(const char *path, const char *query, const char *key, char **value, Buf *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, configure_sqlite);
    *value = NULL;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) goto done;
    sqlite3_busy_timeout(db, 5000);
    /* a file in the making (nomic init) has no settings yet: not a game */
    if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK) goto done;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        *value = xstrdup(v ? (const char *)v : "");
        rc = 1;
    } else if (step == SQLITE_DONE) {
        rc = 0;
    }
done:
    if (rc < 0) buf_printf(err, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot be opened");
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int store_peek_config(const char *path, const char *key, char **value, Buf *err)
{
    return peek(path, "SELECT value FROM config WHERE key=?1", key, value, err);
}

int store_peek_meta(const char *path, const char *key, char **value, Buf *err)
{
    return peek(path, "SELECT value FROM meta WHERE key=?1", key, value, err);
}

/* ---- the writer's lock descriptors ----
 *
 * A process's POSIX (fcntl) locks on a file are dropped when it closes any
 * descriptor of that file.  SQLite keeps a shared one on the database for
 * as long as a connection in WAL mode is open, which tells any other
 * program closing its last connection that it is not the last: that
 * program would otherwise checkpoint and delete the -wal and -shm files
 * under this one, and the commits of each would go where the other does
 * not look.  So the descriptor each Store opens for flock is not closed
 * while another Store of this process has the same file open: it is
 * parked, and closed with the last one (SQLite defers its own descriptors'
 * closes the same way). */
typedef struct LockFile {
    dev_t dev;
    ino_t ino;
    int users;  /* Stores of this process open on the file */
    int *parked, nparked;
} LockFile;

static pthread_mutex_t lock_files_mu = PTHREAD_MUTEX_INITIALIZER;
static LockFile *lock_files;
static int nlock_files;

static LockFile *lock_file_find(dev_t dev, ino_t ino)
{
    for (int i = 0; i < nlock_files; i++)
        if (lock_files[i].dev == dev && lock_files[i].ino == ino) return &lock_files[i];
    return NULL;
}

/* s, about to open a connection to the file sb describes, is one of its
 * users until lock_file_leave. */
static void lock_file_join(Store *s, const struct stat *sb)
{
    pthread_mutex_lock(&lock_files_mu);
    LockFile *f = lock_file_find(sb->st_dev, sb->st_ino);
    if (!f) {
        lock_files = xrealloc(lock_files, (size_t)(nlock_files + 1) * sizeof *lock_files);
        f = &lock_files[nlock_files++];
        *f = (LockFile){.dev = sb->st_dev, .ino = sb->st_ino};
    }
    f->users++;
    s->file_dev = sb->st_dev;
    s->file_ino = sb->st_ino;
    s->joined = true;
    pthread_mutex_unlock(&lock_files_mu);
}

/* After s's connection is closed: its lock descriptor is closed, or parked
 * while another Store has the file open; the last one closes them all. */
static void lock_file_leave(Store *s)
{
    int fd = s->lockfd;
    if (fd >= 0) (void)flock(fd, LOCK_UN); /* a parked descriptor holds no lock */
    if (s->joined) {
        pthread_mutex_lock(&lock_files_mu);
        LockFile *f = lock_file_find(s->file_dev, s->file_ino);
        if (--f->users > 0) {
            if (fd >= 0) {
                f->parked = xrealloc(f->parked, (size_t)(f->nparked + 1) * sizeof *f->parked);
                f->parked[f->nparked++] = fd;
                fd = -1;
            }
        } else {
            for (int i = 0; i < f->nparked; i++) close(f->parked[i]);
            free(f->parked);
            *f = lock_files[--nlock_files];
        }
        pthread_mutex_unlock(&lock_files_mu);
    }
    if (fd >= 0) close(fd);
}

Store *store_open(const char *path, bool create, bool force, Buf *err)
{
    struct stat sb;
    bool exists = stat(path, &sb) == 0;
    if (create && exists && !force) {
        buf_printf(err, "%s already exists (use --force to replace it)", path);
        return NULL;
    }
    if (!create && !exists) {
        buf_printf(err, "%s: no such game (create it with nomic init)", path);
        return NULL;
    }
    if (create && exists) {
        unlink(path);
        char side[4096];
        snprintf(side, sizeof side, "%s-wal", path);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", path);
        unlink(side);
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, configure_sqlite);
    Store *s = xcalloc(1, sizeof *s);
    s->lockfd = -1;
    /* NOMUTEX: a Store is used by one thread at a time (the game's under
     * its lock, the server's readers taken from a pool, its syncer by the
     * one thread that syncs), so SQLite's own locks would only cost */
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    if (!create) lock_file_join(s, &sb); /* (a new file: once made, below) */
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        buf_printf(err, "%s: %s", path, sqlite3_errmsg(s->db));
        store_close(s);
        return NULL;
    }
    /* synchronous=FULL: a commit returns once the WAL is on disk, since
     * what is acknowledged (deliver's exit 0, the HTTP answer) must
     * survive a power cut (store.h, "Durability") */
    if (sqlite3_busy_timeout(s->db, 5000) != SQLITE_OK ||
        !exec(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;") ||
        (create && !exec(s, schema))) {
        if (!s->err[0]) fail(s);
        buf_printf(err, "%s: %s", path, s->err);
        store_close(s);
        return NULL;
    }
    if (create) {
        if (!store_meta_set(s, "format", STORE_FORMAT) || !exec(s, extras)) {
            buf_printf(err, "%s: %s", path, s->err);
            store_close(s);
            return NULL;
        }
    } else {
        char *f = NULL;
        int got = store_meta_read(s, "format", &f);
        if (got > 0 && (strcmp(f, "2") == 0 || strcmp(f, "3") == 0) && !keep_old_format(s, path, f, err)) {
            free(f);
            store_close(s);
            return NULL;
        }
        if (got > 0 && strcmp(f, "2") == 0) {
            free(f);
            f = NULL;
            got = upgrade_from_2(s) ? 1 : -1;
            if (got > 0) f = xstrdup("3");
        }
        if (got > 0 && strcmp(f, "3") == 0) {
            free(f);
            f = NULL;
            got = upgrade_from_3(s) ? 1 : -1;
            if (got > 0) f = xstrdup(STORE_FORMAT);
        }
        bool ours = got > 0 && strcmp(f, STORE_FORMAT) == 0;
        free(f);
        if (got < 0 || (ours && (!exec(s, extras) || !add_column(s, "code_check") || !add_column(s, "scam_check")))) {
            buf_printf(err, "%s: %s", path, s->err);
            store_close(s);
            return NULL;
        }
        if (!ours) {
            buf_printf(err, "%s is not a nomic game (or was made by another version)", path);
            store_close(s);
            return NULL;
        }
    }
    /* A second descriptor of the file, for flock alone.  It stays open
     * until after sqlite3_close, and while another Store of this process
     * has the file open (lock_file_leave): closing a descriptor of the file
     * would drop SQLite's own (fcntl) locks. */
    s->lockfd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->lockfd < 0) {
        buf_printf(err, "%s: cannot open it for the writer's lock: %s", path, strerror(errno));
        store_close(s);
        return NULL;
    }
    if (!s->joined && fstat(s->lockfd, &sb) == 0) lock_file_join(s, &sb);
    store_changed_elsewhere(s);
    return s;
}

Store *store_open_readonly(const char *path, Buf *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        buf_printf(err, "%s: no such game (create it with nomic init)", path);
        return NULL;
    }
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, configure_sqlite);
    Store *s = xcalloc(1, sizeof *s);
    s->lockfd = -1;
    lock_file_join(s, &sb);
    char *f = NULL;
    int got = -1;
    /* A game no program has open has no -wal file, and its main file is
     * the whole game: read as immutable, SQLite makes no -wal or -shm
     * beside it (a plain read-only connection would, and could not remove
     * them).  Otherwise another program has it open: read beside it. */
    char side[4096];
    snprintf(side, sizeof side, "%s-wal", path);
    bool quiet = stat(side, &sb) != 0;
    Buf uri = {0};
    buf_puts(&uri, "file:");
    for (const char *p = path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#') buf_printf(&uri, "%%%02X", (unsigned char)*p);
        else buf_putc(&uri, *p);
    }
    buf_puts(&uri, quiet ? "?mode=ro&immutable=1" : "?mode=ro");
    int rc = sqlite3_open_v2(buf_str(&uri), &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, NULL);
    buf_free(&uri);
    if (rc == SQLITE_OK &&
        sqlite3_busy_timeout(s->db, 5000) == SQLITE_OK)
        got = store_meta_read(s, "format", &f);
    bool ours = got > 0 && strcmp(f, STORE_FORMAT) == 0;
    if (got < 0) {
        buf_printf(err, "%s: %s", path, s->err[0] ? s->err : sqlite3_errmsg(s->db));
    } else if (!ours && got > 0 && (strcmp(f, "2") == 0 || strcmp(f, "3") == 0)) {
        buf_printf(err, "%s is a game of format %s, which this build reads only by upgrading it; any command that "
                        "opens it (nomic log) upgrades it first", path, f);
    } else if (!ours) {
        buf_printf(err, "%s is not a nomic game (or was made by another version)", path);
    }
    free(f);
    if (ours) return s;
    store_close(s);
    return NULL;
}

bool store_copy_rows(Store *from, Store *to, const char *table)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT * FROM %s", table);
    sqlite3_stmt *sel = NULL, *ins = NULL;
    if (!prepare(from, sql, &sel)) {
        snprintf(to->err, sizeof to->err, "%s", from->err);
        return false;
    }
    int ncol = sqlite3_column_count(sel);
    Buf b = {0};
    buf_printf(&b, "INSERT OR REPLACE INTO %s VALUES(", table);
    for (int i = 0; i < ncol; i++) buf_puts(&b, i ? ",?" : "?");
    buf_putc(&b, ')');
    bool ok = prepare(to, buf_str(&b), &ins);
    buf_free(&b);
    int got = 0;
    while (ok && (got = step_row(from, sel)) == 1) {
        for (int i = 0; i < ncol; i++) sqlite3_bind_value(ins, i + 1, sqlite3_column_value(sel, i));
        int rc = sqlite3_step(ins);
        sqlite3_reset(ins);
        if (rc != SQLITE_DONE) ok = fail(to);
    }
    if (ok && got < 0) {
        snprintf(to->err, sizeof to->err, "%s", from->err);
        ok = false;
    }
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    return ok;
}

void store_close(Store *s)
{
    if (!s) return;
    /* finalize's result repeats the statement's last error, already seen;
     * with every statement finalized, close cannot be refused as busy */
    store_writer_stop(s->behind, s->db);
    s->behind = NULL;
    for (int i = 0; i < Q_COUNT; i++) sqlite3_finalize(s->q[i]);
    sqlite3_close(s->db);
    lock_file_leave(s);
    free(s->last_rcpt);
    free(s->kept);
    free(s);
}

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The lock is fair: another program waiting for it looks every 10 ms, and
 * a server taking it again at once after each event of a stream of moves
 * (store_yield) would make it wait past its deadline.  So once it has held
 * the lock for LOCK_STREAK_MS with hardly a gap, it leaves one of
 * LOCK_GAP_MS before taking it again, which any waiter sees. */
#define LOCK_STREAK_MS 200
#define LOCK_GAP_MS 40

static void leave_a_gap(Store *s)
{
    int64_t now = monotonic_ms();
    if (!s->released_ms || now - s->released_ms > 10) {
        s->streak_ms = now;
        return;
    }
    if (now - s->streak_ms < LOCK_STREAK_MS) return;
    usleep(LOCK_GAP_MS * 1000);
    s->streak_ms = monotonic_ms();
}

bool store_lock(Store *s, int wait_ms)
{
    if (s->locks) {
        s->locks++;
        return true;
    }
    if (s->yields) leave_a_gap(s);
    for (int waited = 0;; waited += 10) {
        if (flock(s->lockfd, LOCK_EX | LOCK_NB) == 0) break;
        if (errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(s->err, sizeof s->err, "the game's lock cannot be taken: %s", strerror(errno));
            return false;
        }
        if (waited >= wait_ms) {
            snprintf(s->err, sizeof s->err, "the game is busy: another program holds its lock");
            return false;
        }
        usleep(10000);
    }
    s->locks = 1;
    return true;
}

void store_yield(Store *s, bool yields) { s->yields = yields; }

void store_unlock(Store *s)
{
    /* closing the descriptor releases it too: an error here leaves
     * nothing held that store_close would not release */
    if (s->locks && --s->locks == 0) {
        (void)flock(s->lockfd, LOCK_UN);
        s->released_ms = monotonic_ms();
    }
}

bool store_changed_elsewhere(Store *s)
{
    /* a group's transaction holds the write lock: no one else commits */
    if (s->group) return false;
    /* when it cannot be read, say changed: the caller reloads, and meets
     * the error there */
    sqlite3_stmt *st = stmt(s, Q_DATA_VERSION);
    if (!st) return true;
    int64_t v = step_row(s, st) == 1 ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    bool changed = v != s->data_version;
    s->data_version = v;
    return changed;
}

bool store_sync_commits(Store *s, bool wait)
{
    /* a group's commit waits as store_group_begin found it (SQLite
     * refuses the change inside a transaction) */
    if (s->group || s->lazy == !wait) return true; /* a PRAGMA per event is not free */
    if (!exec(s, wait ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")) return false;
    s->lazy = !wait;
    return true;
}

bool store_sync_log(Store *s)
{
    /* the connection's own handle of the WAL file, which SQLite opens
     * with the first read: fsync on it takes down every frame any
     * connection wrote before */
    for (int tries = 0;; tries++) {
        sqlite3_file *f = NULL;
        int rc = sqlite3_file_control(s->db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &f);
        if (rc != SQLITE_OK) {
            snprintf(s->err, sizeof s->err, "the log cannot be found to write it to disk: %s", sqlite3_errstr(rc));
            return false;
        }
        if (f && f->pMethods) {
            if ((rc = f->pMethods->xSync(f, SQLITE_SYNC_NORMAL)) == SQLITE_OK) return true;
            snprintf(s->err, sizeof s->err, "the log cannot be written to disk: %s", sqlite3_errstr(rc));
            return false;
        }
        if (tries) {
            snprintf(s->err, sizeof s->err, "the log cannot be found to write it to disk");
            return false;
        }
        char *v;
        if (store_meta_read(s, "format", &v) < 0) return false; /* a read opens the log */
        free(v);
    }
}

bool store_begin(Store *s)
{
    s->err[0] = 0; /* what fails from here on is this transaction's */
    s->txn = run(s, s->group ? Q_SAVEPOINT : Q_BEGIN_WRITE);
    return s->txn;
}

bool store_begin_read(Store *s)
{
    s->err[0] = 0;
    s->txn = run(s, s->group ? Q_SAVEPOINT : Q_BEGIN_READ);
    return s->txn;
}

bool store_in_group(const Store *s) { return s->group; }

bool store_group_begin(Store *s)
{
    s->err[0] = 0;
    if (s->group || s->txn) {
        snprintf(s->err, sizeof s->err, "a group began inside a transaction");
        return false;
    }
    store_writer_restart_wait(s->behind);
    s->group = run(s, Q_BEGIN_WRITE);
    return s->group;
}

bool store_group_end(Store *s)
{
    if (!s->group) return true;
    bool ok = !s->txn && !txn_lost(s) && run(s, Q_COMMIT);
    if (!ok && !s->err[0]) snprintf(s->err, sizeof s->err, "a group ended inside an event's transaction");
    s->group = false;
    s->txn = false;
    if (!ok) store_rollback(s);
    else if (s->lazy) {
        if (!s->behind) s->behind = store_writer_start(s->db);
        store_writer_sync(s->behind);
    }
    return ok;
}

void store_group_abort(Store *s)
{
    if (!s->group) return;
    s->group = false;
    s->txn = false;
    store_rollback(s);
}

/* Some errors (no memory, a full disk, an I/O error) end the transaction
 * at once: a caller that went on would commit nothing, or, with no
 * transaction, each later statement on its own.  A commit with none open
 * fails, saying which error ended it. */
bool store_commit(Store *s)
{
    if (txn_lost(s)) {
        s->txn = false; /* ended already: nothing to roll back */
        return false;
    }
    bool ok = run(s, s->group ? Q_RELEASE : Q_COMMIT);
    /* a COMMIT that failed may leave the transaction open: the caller
     * rolls back */
    if (ok) s->txn = false;
    return ok;
}
/* Keeps the error that made the caller roll back (a failed COMMIT has
 * already ended the transaction, and ROLLBACK would only say so). */
void store_rollback(Store *s)
{
    /* the recipient list cached may be one this transaction added */
    free(s->last_rcpt);
    s->last_rcpt = NULL;
    char why[sizeof s->err];
    memcpy(why, s->err, sizeof why);
    if (s->group) {
        /* the event's own writes go; the group's earlier events stay,
         * unless the error ended the group's transaction too */
        if (s->txn && !txn_lost(s) && run(s, Q_ROLLBACK_TO)) run(s, Q_RELEASE);
        s->txn = false;
    } else {
        s->txn = false;
        exec(s, "ROLLBACK");
    }
    memcpy(s->err, why, sizeof why);
}

/* A text column of the current row: NULL only when the value is NULL.
 * (sqlite3_column_text gives NULL too when it has no memory to convert:
 * that is an error, kept to fail the row's step.) */
static const char *col_str(Store *s, sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    if (!t && sqlite3_column_type(st, i) != SQLITE_NULL && s->bind_rc == SQLITE_OK) s->bind_rc = SQLITE_NOMEM;
    return t;
}

static char *col_text(Store *s, sqlite3_stmt *st, int i)
{
    const char *t = col_str(s, st, i);
    return t ? xstrdup(t) : NULL;
}

/* The one text query q answers for key: 1 and *v (malloc'd, never NULL),
 * 0 no row, -1 an error (s->err). */
static int lookup_read(Store *s, int q, const char *key, char **v)
{
    *v = NULL;
    sqlite3_stmt *st = stmt(s, q);
    if (!st) return -1;
    bind_text(s, st, 1, key);
    int rc = step_row(s, st);
    if (rc == 1) {
        const char *t = col_str(s, st, 0);
        *v = xstrdup(t ? t : "");
        if (bind_failed(s)) {
            free(*v);
            *v = NULL;
            rc = -1;
        }
    }
    sqlite3_reset(st);
    return rc;
}

/* The same, NULL for no row and for an error alike (s->err says which). */
static char *lookup(Store *s, int q, const char *key)
{
    char *v;
    lookup_read(s, q, key, &v);
    return v;
}

char *store_meta_get(Store *s, const char *key) { return lookup(s, Q_META_GET, key); }
int store_meta_read(Store *s, const char *key, char **value) { return lookup_read(s, Q_META_GET, key, value); }
int store_config_read(Store *s, const char *key, char **value) { return lookup_read(s, Q_CONF_GET, key, value); }
int store_token_read(Store *s, const char *address, char **hash) { return lookup_read(s, Q_TOKEN_GET, address, hash); }

bool store_meta_set(Store *s, const char *key, const char *value)
{
    sqlite3_stmt *st = stmt(s, Q_META_UPDATE);
    if (!st) return false;
    bind_text(s, st, 1, key);
    bind_text(s, st, 2, value);
    if (!step_done(s, st)) return false;
    if (sqlite3_changes(s->db) > 0) return true;
    st = stmt(s, Q_META_SET);
    if (!st) return false;
    bind_text(s, st, 1, key);
    bind_text(s, st, 2, value);
    return step_done(s, st);
}

/* Rare (a game made before the "state" row, once): not a cached statement. */
bool store_meta_delete(Store *s, const char *key)
{
    sqlite3_stmt *st;
    if (!prepare(s, "DELETE FROM meta WHERE key=?1", &st)) return false;
    bind_text(s, st, 1, key);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

char *store_config_get(Store *s, const char *key) { return lookup(s, Q_CONF_GET, key); }

bool store_config_set(Store *s, const char *key, const char *value)
{
    sqlite3_stmt *st = stmt(s, value ? Q_CONF_SET : Q_CONF_DEL);
    if (!st) return false;
    bind_text(s, st, 1, key);
    if (value) bind_text(s, st, 2, value);
    return step_done(s, st);
}

bool store_each_config(Store *s, bool (*fn)(void *ud, const char *key, const char *value), void *ud)
{
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT key,value FROM config ORDER BY key", &st)) return false;
    int rc;
    while ((rc = step_row(s, st)) == 1) {
        const char *k = col_str(s, st, 0), *v = col_str(s, st, 1);
        if (bind_failed(s)) {
            rc = -1;
            break;
        }
        if (!fn(ud, k, v)) break;
    }
    sqlite3_finalize(st);
    return rc >= 0;
}

char *store_token_hash(Store *s, const char *address) { return lookup(s, Q_TOKEN_GET, address); }

bool store_token_set(Store *s, const char *address, const char *hash, int64_t when)
{
    sqlite3_stmt *st = stmt(s, Q_TOKEN_SET);
    if (!st) return false;
    bind_text(s, st, 1, address);
    bind_text(s, st, 2, hash);
    bind_int(s, st, 3, when);
    return step_done(s, st);
}

bool store_add_initial(Store *s, const char *label, const char *text)
{
    sqlite3_stmt *st;
    if (!prepare(s, "INSERT INTO initial(label,text) VALUES(?1,?2)", &st)) return false;
    bind_text(s, st, 1, label);
    bind_text(s, st, 2, text);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

bool store_each_initial(Store *s, bool (*fn)(void *ud, const char *label, const char *text), void *ud)
{
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT label,text FROM initial ORDER BY seq", &st)) return false;
    bool ok = true;
    int rc = 0;
    while (ok && (rc = step_row(s, st)) == 1) {
        const char *label = col_str(s, st, 0), *text = col_str(s, st, 1);
        if (bind_failed(s)) rc = -1;
        else ok = fn(ud, label, text);
        if (rc < 0) break;
    }
    sqlite3_finalize(st);
    return ok && rc >= 0;
}

bool store_put_object(Store *s, ObjId id, const char *text)
{
    sqlite3_stmt *st = stmt(s, Q_PUT_OBJ);
    if (!st) return false;
    bind_int(s, st, 1, id);
    bind_text(s, st, 2, text);
    return step_done(s, st);
}

bool store_delete_object(Store *s, ObjId id)
{
    sqlite3_stmt *st = stmt(s, Q_DEL_OBJ);
    if (!st) return false;
    bind_int(s, st, 1, id);
    return step_done(s, st);
}

/* Installs printed objects (each with its objectId) into p. */
static bool load_text(Pool *p, const char *text, const char *what, Buf *err)
{
    FmtDoc doc = {0};
    bool ok = fmt_read(text, strlen(text), what, &doc, err);
    for (int i = 0; ok && i < doc.n; i++) {
        const FmtObj *fo = &doc.objs[i];
        if (!fo->objectId || !pool_create_at(p, (ObjId)fo->objectId)) {
            buf_printf(err, "%s: object without a usable objectId", what);
            ok = false;
            break;
        }
        for (int k = 0; k < fo->n; k++) pool_set(p, (ObjId)fo->objectId, fo->attrs[k].name, fo->attrs[k].value);
    }
    fmt_doc_free(&doc);
    return ok;
}

bool store_load_objects(Store *s, Pool *p, Buf *err)
{
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT body FROM objects ORDER BY id", &st)) {
        buf_puts(err, s->err);
        return false;
    }
    Buf all = {0};
    int rc;
    while ((rc = step_row(s, st)) == 1) {
        const char *body = col_str(s, st, 0);
        if (bind_failed(s)) {
            rc = -1;
            break;
        }
        buf_puts(&all, body ? body : "");
        buf_putc(&all, '\n');
    }
    sqlite3_finalize(st);
    /* a pool loaded in part is no pool: the error, not what was read */
    bool ok = rc == 0 ? load_text(p, buf_str(&all), "stored objects", err) : (buf_puts(err, s->err), false);
    buf_free(&all);
    return ok;
}

long store_journal_received(Store *s, const char *kind, int64_t time, const char *sender, const char *input,
                           const char *raw, int64_t stamp)
{
    sqlite3_stmt *st = stmt(s, Q_RECEIVED);
    if (!st) return -1;
    bind_text(s, st, 1, kind);
    bind_int(s, st, 2, time);
    bind_text(s, st, 3, sender);
    bind_text(s, st, 4, input);
    bind_int(s, st, 5, (int64_t)time_now_wall());
    bind_text(s, st, 6, raw);
    if (stamp != time) bind_int(s, st, 7, stamp);
    else bind_null(s, st, 7);
    if (!step_done(s, st)) return -1;
    return (long)sqlite3_last_insert_rowid(s->db);
}

bool store_event_outcome(Store *s, long n, const char *status, const char *message, const char *trace,
                         const char *trace_json, const char *hash, const char *code_check, const char *changes)
{
    /* a test hook: the commit of event N fails as on a full disk */
    static _Atomic long fail_at = -1;
    if (n > 0 && env_number_once("NOMIC_TEST_FAIL_COMMIT", &fail_at) == n) {
        snprintf(s->err, sizeof s->err, "database or disk is full (NOMIC_TEST_FAIL_COMMIT=%ld)", n);
        return false;
    }
    sqlite3_stmt *st = stmt(s, Q_OUTCOME);
    if (!st) return false;
    bind_int(s, st, 1, n);
    bind_text(s, st, 2, status);
    bind_text(s, st, 3, message);
    bind_text(s, st, 4, trace);
    bind_text(s, st, 5, trace_json);
    bind_text(s, st, 6, hash);
    bind_text(s, st, 7, code_check);
    bind_text(s, st, 8, changes);
    return step_done(s, st);
}

bool store_event_scam_check(Store *s, long n, const char *text)
{
    sqlite3_stmt *st;
    if (!prepare(s, "UPDATE events SET scam_check=?2 WHERE n=?1", &st)) return false;
    bind_int(s, st, 1, n);
    bind_text(s, st, 2, text);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

static void read_event(Store *s, sqlite3_stmt *st, JournalRow *r)
{
    r->n = (long)sqlite3_column_int64(st, 0);
    r->kind = col_text(s, st, 1);
    r->time = sqlite3_column_int64(st, 2);
    r->sender = col_text(s, st, 3);
    r->input = col_text(s, st, 4);
    r->status = col_text(s, st, 5);
    r->message = col_text(s, st, 6);
    r->trace = col_text(s, st, 7);
    r->trace_json = col_text(s, st, 8);
    r->hash = col_text(s, st, 9);
    r->received_at = sqlite3_column_int64(st, 10);
    r->stamp = sqlite3_column_type(st, 11) == SQLITE_NULL ? r->time : sqlite3_column_int64(st, 11);
    r->code_check = col_text(s, st, 12);
    r->scam_check = col_text(s, st, 13);
}

void journal_row_free(JournalRow *r)
{
    free(r->kind);
    free(r->sender);
    free(r->input);
    free(r->status);
    free(r->message);
    free(r->trace);
    free(r->trace_json);
    free(r->hash);
    free(r->code_check);
    free(r->scam_check);
    memset(r, 0, sizeof *r);
}

/* A row read whole, or an error (a text SQLite had no memory for). */
static bool read_event_whole(Store *s, sqlite3_stmt *st, JournalRow *r)
{
    read_event(s, st, r);
    if (!bind_failed(s) && r->kind && r->status) return true;
    if (!r->kind || !r->status) snprintf(s->err, sizeof s->err, "event %ld: a row without kind or status", r->n);
    journal_row_free(r);
    return false;
}

int store_event_get(Store *s, long n, JournalRow *row)
{
    sqlite3_stmt *st = stmt(s, Q_EVENT_GET);
    if (!st) return -1;
    bind_int(s, st, 1, n);
    int rc = step_row(s, st);
    if (rc == 1 && !read_event_whole(s, st, row)) rc = -1;
    sqlite3_reset(st);
    return rc;
}

long store_last_event(Store *s)
{
    sqlite3_stmt *st = stmt(s, Q_LAST_EVENT);
    if (!st) return -1;
    long n = step_row(s, st) == 1 ? (long)sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
    return n;
}

int store_last_time(Store *s, int64_t *t)
{
    sqlite3_stmt *st = stmt(s, Q_LAST_TIME);
    if (!st) return -1;
    int rc = step_row(s, st);
    if (rc == 1) *t = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return rc;
}

bool store_each_event(Store *s, long from, long to, bool (*fn)(void *ud, const JournalRow *r), void *ud)
{
    sqlite3_stmt *st;
    if (!prepare(s,
                 "SELECT n,kind,time,sender,input,status,message,trace,trace_json,hash,received_at,stamp,code_check,"
                 "scam_check FROM events WHERE n>=?1 AND n<=?2 ORDER BY n",
                 &st))
        return false;
    bind_int(s, st, 1, from);
    bind_int(s, st, 2, to);
    bool ok = true;
    int rc = 0;
    while (ok && (rc = step_row(s, st)) == 1) {
        JournalRow r;
        if (!read_event_whole(s, st, &r)) {
            rc = -1;
            break;
        }
        ok = fn(ud, &r);
        journal_row_free(&r);
    }
    sqlite3_finalize(st);
    return ok && rc >= 0;
}

bool store_put_snapshot(Store *s, long event, const char *text)
{
    sqlite3_stmt *st;
    if (!prepare(s, "INSERT OR REPLACE INTO snapshots(event,body) VALUES(?1,?2)", &st)) return false;
    bind_int(s, st, 1, event);
    bind_text(s, st, 2, text);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

/* One change applied to a pool being rebuilt: the object's new text at
 * its id, or its deletion (text NULL). */
static bool apply_change(Pool *p, ObjId id, const char *body, Buf *err)
{
    if (pool_get(p, id)) pool_delete(p, id);
    if (!body) return true;
    /* ids only grow, but a snapshot may be behind: an id the snapshot
     * already passed is re-created under it */
    if (id >= p->next_id) return load_text(p, body, "change", err);
    FmtDoc doc = {0};
    bool ok = fmt_read(body, strlen(body), "change", &doc, err);
    if (ok && (doc.n != 1 || !pool_create_reserved(p, id))) {
        buf_printf(err, "change of object %u: not one object that can be re-created at its id", id);
        ok = false;
    }
    for (int k = 0; ok && k < doc.objs[0].n; k++) pool_set(p, id, doc.objs[0].attrs[k].name, doc.objs[0].attrs[k].value);
    fmt_doc_free(&doc);
    return ok;
}

bool store_state_at(Store *s, long n, Pool *p, Buf *err)
{
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT event,body FROM snapshots WHERE event<=?1 ORDER BY event DESC LIMIT 1", &st)) {
        buf_puts(err, s->err);
        return false;
    }
    bind_int(s, st, 1, n);
    int rc = step_row(s, st);
    if (rc != 1) {
        sqlite3_finalize(st);
        if (rc == 0) buf_printf(err, "no snapshot at or before event %ld", n);
        else buf_puts(err, s->err);
        return false;
    }
    long from = (long)sqlite3_column_int64(st, 0);
    const char *snap = col_str(s, st, 1);
    bool ok = bind_failed(s) ? (buf_puts(err, s->err), false) : load_text(p, snap ? snap : "", "snapshot", err);
    sqlite3_finalize(st);
    /* the write path keeps no snapshot but event 0's: the work grows with
     * the changes read */
    return ok && store_apply_changes(s, from, n, p, NULL, NULL, err);
}

/* The changes of events (from, to] read so far, latest first: each
 * object's last record (the others only counted). */
typedef struct LastChange {
    ObjId id;
    char *text;   /* the record, or NULL: deleted */
    long changes; /* the object's records read */
} LastChange;

typedef struct LastChanges {
    LastChange *c;
    size_t n, cap;
    GHashTable *at; /* id -> index + 1 in c */
} LastChanges;

/* Takes one record of an event's changes text: "objectId: N\n..." or
 * "deleted: N".  False when it is neither. */
static bool take_record(LastChanges *l, const char *rec, size_t len)
{
    bool deleted = strncmp(rec, "deleted: ", 9) == 0;
    if (!deleted && strncmp(rec, "objectId: ", 10) != 0) return false;
    char *end;
    unsigned long id = strtoul(rec + (deleted ? 9 : 10), &end, 10);
    if (end == rec + (deleted ? 9 : 10) || id == 0 || id > UINT32_MAX) return false;
    gpointer k = GUINT_TO_POINTER((guint)id);
    size_t i = GPOINTER_TO_SIZE(g_hash_table_lookup(l->at, k));
    if (i) {
        l->c[i - 1].changes++;
        return true;
    }
    GROW(l->c, l->n, l->cap);
    l->c[l->n++] = (LastChange){(ObjId)id, deleted ? NULL : xstrndup(rec, len), 1};
    g_hash_table_insert(l->at, k, GSIZE_TO_POINTER(l->n));
    return true;
}

/* The changes texts of events (from, to], the latest first. */
static bool read_event_changes(Store *s, long from, long to, LastChanges *l, Buf *err)
{
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT n,changes FROM events WHERE n>?1 AND n<=?2 AND changes IS NOT NULL ORDER BY n DESC", &st)) {
        buf_puts(err, s->err);
        return false;
    }
    bind_int(s, st, 1, from);
    bind_int(s, st, 2, to);
    int rc;
    bool ok = true;
    while (ok && (rc = step_row(s, st)) == 1) {
        const char *t = col_str(s, st, 1);
        if (bind_failed(s)) {
            rc = -1;
            break;
        }
        while (ok && t && *t) {
            const char *sep = strstr(t, "\n\n");
            size_t len = sep ? (size_t)(sep - t) + 1 : strlen(t);
            if (!(ok = take_record(l, t, len)))
                buf_printf(err, "event %lld: its changes do not read (a record \"%.40s\")",
                           (long long)sqlite3_column_int64(st, 0), t);
            t = sep ? sep + 2 : t + len;
        }
    }
    sqlite3_finalize(st);
    if (rc < 0) buf_puts(err, s->err);
    return ok && rc >= 0;
}

/* The table changes of a game of format 3: each object's last row in
 * (from, to], applied unless a later event's text had it. */
static bool apply_table_changes(Store *s, long from, long to, Pool *p, LastChanges *l,
                                void (*applied)(void *ud, ObjId id, long changes), void *ud, Buf *err)
{
    /* max() makes SQLite take body from the row of the latest event */
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT id,body,max(event),count(*) FROM changes WHERE event>?1 AND event<=?2 GROUP BY id ORDER BY id",
                 &st)) {
        buf_puts(err, s->err);
        return false;
    }
    bind_int(s, st, 1, from);
    bind_int(s, st, 2, to);
    bool ok = true;
    int rc;
    while (ok && (rc = step_row(s, st)) == 1) {
        const char *body = col_str(s, st, 1);
        ObjId id = (ObjId)sqlite3_column_int64(st, 0);
        long changes = (long)sqlite3_column_int64(st, 3);
        if (bind_failed(s)) {
            rc = -1;
            break;
        }
        size_t i = GPOINTER_TO_SIZE(g_hash_table_lookup(l->at, GUINT_TO_POINTER((guint)id)));
        if (i) {
            l->c[i - 1].changes += changes;
            continue;
        }
        ok = apply_change(p, id, body, err);
        if (ok && applied) applied(ud, id, changes);
    }
    sqlite3_finalize(st);
    if (rc < 0) buf_puts(err, s->err);
    return ok && rc >= 0;
}

static int cmp_last_change(const void *a, const void *b)
{
    ObjId x = ((const LastChange *)a)->id, y = ((const LastChange *)b)->id;
    return x < y ? -1 : x > y;
}

bool store_apply_changes(Store *s, long from, long to, Pool *p, void (*applied)(void *ud, ObjId id, long changes),
                         void *ud, Buf *err)
{
    /* the events' texts first, latest first: every record there is later
     * than the table's rows, which only games of format 3 wrote */
    LastChanges l = {NULL, 0, 0, g_hash_table_new(g_direct_hash, g_direct_equal)};
    bool ok = read_event_changes(s, from, to, &l, err) && apply_table_changes(s, from, to, p, &l, applied, ud, err);
    if (l.n > 1) qsort(l.c, l.n, sizeof *l.c, cmp_last_change);
    for (size_t i = 0; ok && i < l.n; i++) {
        ok = apply_change(p, l.c[i].id, l.c[i].text, err);
        if (ok && applied) applied(ud, l.c[i].id, l.c[i].changes);
    }
    for (size_t i = 0; i < l.n; i++) free(l.c[i].text);
    free(l.c);
    g_hash_table_destroy(l.at);
    return ok;
}

/* The id of a recipient list already written: 1 and *id, 0 none, -1 the
 * store failed. */
static int recipients_find(Store *s, const char *to, long *id)
{
    sqlite3_stmt *st = stmt(s, Q_RCPT_GET);
    if (!st) return -1;
    bind_text(s, st, 1, to);
    int rc = step_row(s, st);
    if (rc == 1) *id = (long)sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return rc;
}

static long recipients_id(Store *s, const char *to)
{
    if (s->last_rcpt && strcmp(s->last_rcpt, to) == 0) return s->last_rcpt_id;
    /* looked up first: most lists were written before (the players') */
    long id = -1;
    int rc = recipients_find(s, to, &id);
    if (rc < 0) return -1;
    if (rc == 0) {
        /* OR IGNORE: outside a transaction another program may have
         * added it since; then it is looked up again */
        sqlite3_stmt *st = stmt(s, Q_RCPT_ADD);
        if (!st) return -1;
        bind_text(s, st, 1, to);
        if (!step_done(s, st)) return -1;
        if (sqlite3_changes(s->db) == 1) {
            id = (long)sqlite3_last_insert_rowid(s->db);
        } else if ((rc = recipients_find(s, to, &id)) != 1) {
            if (rc == 0) snprintf(s->err, sizeof s->err, "the recipient list just added is not found");
            return -1; /* not cached: the next message asks again */
        }
    }
    free(s->last_rcpt);
    s->last_rcpt = xstrdup(to);
    s->last_rcpt_id = id;
    return id;
}

long store_outbox_add(Store *s, long event, const char *to, const char *text, const char *state,
                      const char *delivery, int64_t when)
{
    long rid = recipients_id(s, to);
    sqlite3_stmt *st = rid < 0 ? NULL : stmt(s, Q_OUT_ADD);
    if (!st) return -1;
    bind_int(s, st, 1, event);
    bind_int(s, st, 2, rid);
    bind_text(s, st, 3, text);
    bind_text(s, st, 4, state);
    bind_int(s, st, 5, when);
    if (strcmp(state, "queued") == 0) bind_null(s, st, 6);
    else bind_int(s, st, 6, when);
    bind_text(s, st, 7, delivery);
    if (!step_done(s, st)) return -1;
    return (long)sqlite3_last_insert_rowid(s->db);
}

bool store_outbox_drop_queued(Store *s) { return run(s, Q_DROP_QUEUED); }

#define OUT_COLUMNS                                                                                                  \
    "o.id,o.event,r.list,o.text,o.state,o.queued_at,o.sent_at,o.delivery,o.attempts,o.next_try,o.delivered_at,"      \
    "o.error,o.message_id"

static void out_row(Store *s, sqlite3_stmt *st, OutRow *r)
{
    r->id = (long)sqlite3_column_int64(st, 0);
    r->event = (long)sqlite3_column_int64(st, 1);
    r->to = col_text(s, st, 2);
    r->text = col_text(s, st, 3);
    r->state = col_text(s, st, 4);
    r->queued_at = sqlite3_column_int64(st, 5);
    r->sent_at = sqlite3_column_int64(st, 6);
    r->delivery = col_text(s, st, 7);
    r->attempts = sqlite3_column_int(st, 8);
    r->next_try = sqlite3_column_int64(st, 9);
    r->delivered_at = sqlite3_column_int64(st, 10);
    r->error = col_text(s, st, 11);
    r->message_id = col_text(s, st, 12);
}

void out_row_free(OutRow *r)
{
    free(r->to);
    free(r->text);
    free(r->state);
    free(r->delivery);
    free(r->error);
    free(r->message_id);
    memset(r, 0, sizeof *r);
}

/* Calls fn for each outbox row the query selects, in order. */
/* The rows of sql, whose one parameter (if any) is `param`. */
static bool each_outbox_row_with(Store *s, const char *sql, long param, bool (*fn)(void *ud, const OutRow *r), void *ud)
{
    sqlite3_stmt *st;
    if (!prepare(s, sql, &st)) return false;
    if (sqlite3_bind_parameter_count(st) > 0) bind_int(s, st, 1, param);
    bool ok = true;
    int rc = 0;
    while (ok && (rc = step_row(s, st)) == 1) {
        OutRow r;
        out_row(s, st, &r);
        if (bind_failed(s)) rc = -1;
        else ok = fn(ud, &r);
        out_row_free(&r);
        if (rc < 0) break;
    }
    sqlite3_finalize(st);
    return ok && rc >= 0;
}

static bool each_outbox_row(Store *s, const char *sql, bool (*fn)(void *ud, const OutRow *r), void *ud)
{
    return each_outbox_row_with(s, sql, 0, fn, ud);
}

bool store_each_outbox(Store *s, bool (*fn)(void *ud, const OutRow *r), void *ud)
{
    return each_outbox_row(s, "SELECT " OUT_COLUMNS " FROM outbox o JOIN recipients r ON r.id=o.to_id ORDER BY o.id", fn, ud);
}

bool store_each_outbox_before(Store *s, long before, bool (*fn)(void *ud, const OutRow *r), void *ud)
{
    return each_outbox_row_with(
        s, "SELECT " OUT_COLUMNS " FROM outbox o JOIN recipients r ON r.id=o.to_id WHERE o.id<? ORDER BY o.id DESC", before,
        fn, ud);
}

bool store_each_outbox_after(Store *s, long after, bool (*fn)(void *ud, const OutRow *r), void *ud)
{
    return each_outbox_row_with(
        s, "SELECT " OUT_COLUMNS " FROM outbox o JOIN recipients r ON r.id=o.to_id WHERE o.id>? ORDER BY o.id", after, fn,
        ud);
}

bool store_each_queued(Store *s, bool (*fn)(void *ud, const OutRow *r), void *ud)
{
    return each_outbox_row(s,
                           "SELECT " OUT_COLUMNS " FROM outbox o JOIN recipients r ON r.id=o.to_id"
                           " WHERE o.state='queued' ORDER BY o.id",
                           fn, ud);
}

int store_outbox_claim(Store *s, long after, int64_t now, int64_t lease_until, bool all, OutRow *r)
{
    sqlite3_stmt *st = stmt(s, Q_OUT_CLAIM);
    if (!st) return -1;
    bind_int(s, st, 4, after);
    bind_int(s, st, 1, now);
    bind_int(s, st, 2, lease_until);
    bind_int(s, st, 3, all);
    int rc = step_row(s, st);
    if (rc == 1) {
        out_row(s, st, r);
        if (bind_failed(s)) {
            out_row_free(r);
            rc = -1;
        }
    }
    /* RETURNING gives the row as updated; the update itself was done by
     * the first step, and reset's result repeats its error */
    sqlite3_reset(st);
    return rc;
}

int store_outbox_due(Store *s, int64_t now, bool all)
{
    sqlite3_stmt *st = stmt(s, Q_OUT_DUE);
    if (!st) return -1;
    bind_int(s, st, 1, now);
    bind_int(s, st, 2, 0); /* a claim's lease: not in this query, but numbered as in the claim's */
    bind_int(s, st, 3, all);
    bind_int(s, st, 4, 0);
    int rc = step_row(s, st);
    if (rc == 1) rc = sqlite3_column_int(st, 0) != 0;
    sqlite3_reset(st);
    return rc;
}

bool store_outbox_delivered(Store *s, long id, const char *message_id, int64_t when)
{
    sqlite3_stmt *st = stmt(s, Q_OUT_DONE);
    if (!st) return false;
    bind_int(s, st, 1, id);
    bind_int(s, st, 2, when);
    bind_text(s, st, 3, message_id);
    return step_done(s, st);
}

bool store_outbox_failed(Store *s, long id, const char *message_id, const char *error, int64_t next_try)
{
    sqlite3_stmt *st = stmt(s, Q_OUT_RETRY);
    if (!st) return false;
    bind_int(s, st, 1, id);
    bind_text(s, st, 2, next_try ? "pending" : "failed");
    if (next_try) bind_int(s, st, 3, next_try);
    else bind_null(s, st, 3);
    bind_text(s, st, 4, error);
    bind_text(s, st, 5, message_id);
    return step_done(s, st);
}

/* One text that a query with one text parameter answers: 1 and *v
 * (malloc'd), 0 no row, -1 the store failed. */
static int lookup_text(Store *s, const char *sql, const char *key, char **v)
{
    sqlite3_stmt *st;
    *v = NULL;
    if (!prepare(s, sql, &st)) return -1;
    bind_text(s, st, 1, key);
    int rc = step_row(s, st);
    if (rc == 1) *v = col_text(s, st, 0);
    if (rc == 1 && bind_failed(s)) rc = -1;
    sqlite3_finalize(st);
    return rc;
}

char *store_token_owner(Store *s, const char *hash)
{
    char *who;
    if (lookup_read(s, Q_TOKEN_OWNER, hash, &who) == 0)
        lookup_text(s, "SELECT address FROM token_offers WHERE hash=?1", hash, &who);
    return who;
}

int store_token_offer_read(Store *s, const char *address, char **hash)
{
    return lookup_text(s, "SELECT hash FROM token_offers WHERE address=?1", address, hash);
}

bool store_token_offer_set(Store *s, const char *address, const char *hash, int64_t when)
{
    sqlite3_stmt *st;
    if (!prepare(s, "INSERT INTO token_offers(address,hash,issued_at) VALUES(?1,?2,?3) ON CONFLICT(address)"
                    " DO UPDATE SET hash=excluded.hash, issued_at=excluded.issued_at", &st))
        return false;
    bind_text(s, st, 1, address);
    bind_text(s, st, 2, hash);
    bind_int(s, st, 3, when);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

static bool token_offer_exec(Store *s, const char *sql, const char *address)
{
    sqlite3_stmt *st;
    if (!prepare(s, sql, &st)) return false;
    bind_text(s, st, 1, address);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

/* The offer becomes the token first, then goes: a failure between leaves
 * an offer equal to the token, which changes nothing. */
bool store_token_offer_take(Store *s, const char *address)
{
    return token_offer_exec(s, "INSERT INTO tokens(address,hash,issued_at) SELECT address,hash,issued_at FROM"
                               " token_offers WHERE address=?1 ON CONFLICT(address) DO UPDATE SET hash=excluded.hash,"
                               " issued_at=excluded.issued_at", address) &&
           store_token_offer_drop(s, address);
}

bool store_token_offer_drop(Store *s, const char *address)
{
    return token_offer_exec(s, "DELETE FROM token_offers WHERE address=?1", address);
}

int store_token_known(Store *s, const char *address)
{
    char *v;
    int rc = lookup_text(s, "SELECT 'yes' FROM tokens WHERE address=?1 UNION ALL"
                            " SELECT 'yes' FROM token_offers WHERE address=?1 LIMIT 1", address, &v);
    free(v);
    return rc;
}

/* The keys that begin with the prefix are a range of the primary key
 * (from the prefix to the prefix with its last byte one more), so the
 * count reads them only, not every address ever answered. */
long store_answers_since(Store *s, const char *prefix, int64_t since)
{
    sqlite3_stmt *st;
    size_t n = strlen(prefix);
    if (!n || (unsigned char)prefix[n - 1] == 0xff) return -1;
    char *end = xstrdup(prefix);
    end[n - 1]++;
    long count = -1;
    if (prepare(s, "SELECT count(*) FROM answers WHERE address>=?1 AND address<?2 AND at>=?3", &st)) {
        bind_text(s, st, 1, prefix);
        bind_text(s, st, 2, end);
        bind_int(s, st, 3, since);
        count = step_row(s, st) == 1 ? (long)sqlite3_column_int64(st, 0) : -1;
        sqlite3_finalize(st);
    }
    free(end);
    return count;
}

char *store_all_senders(Store *s)
{
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT DISTINCT sender FROM events WHERE sender IS NOT NULL ORDER BY sender", &st)) return NULL;
    Buf b = {0};
    int rc;
    while ((rc = step_row(s, st)) == 1) {
        const char *who = col_str(s, st, 0);
        if (bind_failed(s)) {
            rc = -1;
            break;
        }
        if (b.len) buf_putc(&b, ' ');
        buf_puts(&b, who ? who : "");
    }
    sqlite3_finalize(st);
    if (rc < 0) {
        buf_free(&b);
        return NULL;
    }
    char *all = buf_take(&b);
    return all ? all : xstrdup("");
}

/* One integer that a query with one text parameter answers; dflt when
 * there is no row, -1 when the store fails. */
static int64_t lookup_int(Store *s, const char *sql, const char *key, int64_t dflt)
{
    sqlite3_stmt *st;
    if (!prepare(s, sql, &st)) return -1;
    bind_text(s, st, 1, key);
    int rc = step_row(s, st);
    int64_t v = rc == 1 ? sqlite3_column_int64(st, 0) : rc == 0 ? dflt : -1;
    sqlite3_finalize(st);
    return v;
}

static bool put_pair(Store *s, const char *sql, const char *key, int64_t v)
{
    sqlite3_stmt *st;
    if (!prepare(s, sql, &st)) return false;
    bind_text(s, st, 1, key);
    bind_int(s, st, 2, v);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

long store_mail_seen(Store *s, const char *key)
{
    return (long)lookup_int(s, "SELECT event FROM mail_keys WHERE key=?1", key, 0);
}

bool store_mail_taken(Store *s, const char *key, long event)
{
    return put_pair(s, "INSERT INTO mail_keys(key,event) VALUES(?1,?2)", key, event);
}

int64_t store_answered_at(Store *s, const char *address)
{
    return lookup_int(s, "SELECT at FROM answers WHERE address=?1", address, 0);
}

bool store_answered(Store *s, const char *address, int64_t when)
{
    return put_pair(s, "INSERT INTO answers(address,at) VALUES(?1,?2) ON CONFLICT(address) DO UPDATE SET at=excluded.at",
                    address, when);
}

int store_tally_read(Store *s, const char *who, int64_t hour, SenderTally *t)
{
    memset(t, 0, sizeof *t);
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT events,work,bytes,refused FROM tallies WHERE who=?1 AND hour=?2", &st)) return -1;
    bind_text(s, st, 1, who);
    bind_int(s, st, 2, hour);
    int rc = step_row(s, st);
    if (rc == 1) *t = (SenderTally){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
                              sqlite3_column_int64(st, 3)};
    sqlite3_finalize(st);
    return rc;
}

bool store_tally_add(Store *s, const char *who, int64_t hour, const SenderTally *d, const char *refusal)
{
    sqlite3_stmt *st;
    if (!prepare(s,
                 "INSERT INTO tallies(who,hour,events,work,bytes,refused,last_refusal) VALUES(?1,?2,?3,?4,?5,?6,?7)"
                 " ON CONFLICT(who,hour) DO UPDATE SET events=events+?3, work=work+?4, bytes=bytes+?5,"
                 " refused=refused+?6, last_refusal=coalesce(?7,last_refusal)",
                 &st))
        return false;
    bind_text(s, st, 1, who);
    bind_int(s, st, 2, hour);
    bind_int(s, st, 3, d->events);
    bind_int(s, st, 4, d->work);
    bind_int(s, st, 5, d->bytes);
    bind_int(s, st, 6, d->refused);
    bind_text(s, st, 7, refusal);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

bool store_tallies_prune(Store *s, int64_t before)
{
    sqlite3_stmt *st;
    if (!prepare(s, "DELETE FROM tallies WHERE hour<?1", &st)) return false;
    bind_int(s, st, 1, before);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

bool store_event_set_aside(Store *s, long n)
{
    sqlite3_stmt *st;
    if (!prepare(s, "UPDATE events SET raw=coalesce(raw,input), input=NULL WHERE n=?1", &st)) return false;
    bind_int(s, st, 1, n);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

char *store_event_raw(Store *s, long n)
{
    sqlite3_stmt *st;
    if (!prepare(s, "SELECT raw FROM events WHERE n=?1 AND kind='move'", &st)) return NULL;
    bind_int(s, st, 1, n);
    char *raw = step_row(s, st) == 1 ? col_text(s, st, 0) : NULL;
    sqlite3_finalize(st);
    return raw;
}
