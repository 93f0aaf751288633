/*
 * store.c - the SQLite store (store.h).
 *
 * WAL journal mode with synchronous=NORMAL: a committed event survives a
 * crash of the program; a power cut may lose the last commits but never
 * leaves half of one.  Prepared statements are cached per Store.
 *
 * A test hook, read from the environment: NOMIC_TEST_FAIL_COMMIT=N makes
 * writing the outcome of event N fail as a full disk would, so the suites
 * can check what a failed commit leaves (docs/mechanics.md).
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "objfmt.h"

#define STORE_FORMAT "3"

enum {
    Q_META_GET, Q_META_SET, Q_PUT_OBJ, Q_DEL_OBJ, Q_RECEIVED, Q_OUTCOME, Q_EVENT_GET, Q_CHANGE,
    Q_OUT_ADD, Q_RCPT_ADD, Q_RCPT_GET, Q_CONF_GET, Q_CONF_SET, Q_CONF_DEL, Q_TOKEN_GET, Q_TOKEN_SET,
    Q_TOKEN_OWNER, Q_OUT_CLAIM, Q_OUT_DONE, Q_OUT_RETRY, Q_COUNT
};

static const char *queries[Q_COUNT] = {
    "SELECT value FROM meta WHERE key=?1",
    "INSERT INTO meta(key,value) VALUES(?1,?2) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
    "INSERT INTO objects(id,body) VALUES(?1,?2) ON CONFLICT(id) DO UPDATE SET body=excluded.body",
    "DELETE FROM objects WHERE id=?1",
    "INSERT INTO events(kind,time,sender,input,status,received_at,raw,stamp) VALUES(?1,?2,?3,?4,'received',?5,?6,?7)",
    "UPDATE events SET status=?2, message=?3, trace=?4, trace_json=?5, hash=?6 WHERE n=?1",
    "SELECT n,kind,time,sender,input,status,message,trace,trace_json,hash,received_at,stamp FROM events WHERE n=?1",
    "INSERT INTO changes(event,id,body) VALUES(?1,?2,?3)",
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
     * message 'sending' until ?2, when another takes it up again */
    ("UPDATE outbox SET delivery='sending', next_try=?2, attempts=attempts+1 WHERE id=(SELECT id FROM outbox"
     " WHERE id>?4 AND ((delivery IN ('pending','sending') AND coalesce(next_try,0)<=?1)"
     " OR (?3 AND delivery IN ('pending','failed'))) ORDER BY id LIMIT 1)"
     " RETURNING id,event,(SELECT list FROM recipients WHERE id=to_id),text,state,queued_at,sent_at,delivery,"
     "attempts,next_try,delivered_at,error,message_id"),
    ("UPDATE outbox SET delivery='delivered', delivered_at=?2, message_id=?3, error=NULL, next_try=NULL"
     " WHERE id=?1 AND delivery='sending'"),
    "UPDATE outbox SET delivery=?2, next_try=?3, error=?4, message_id=?5 WHERE id=?1 AND delivery='sending'",
};

static const char *schema =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS initial(seq INTEGER PRIMARY KEY, label TEXT NOT NULL, text TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS objects(id INTEGER PRIMARY KEY, body TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS events(n INTEGER PRIMARY KEY, kind TEXT NOT NULL, time INTEGER NOT NULL,"
    " sender TEXT, input TEXT, status TEXT NOT NULL, message TEXT, trace TEXT, trace_json TEXT, hash TEXT,"
    " received_at INTEGER NOT NULL, raw TEXT, stamp INTEGER);"
    "CREATE TABLE IF NOT EXISTS changes(event INTEGER NOT NULL, id INTEGER NOT NULL, body TEXT);"
    "CREATE INDEX IF NOT EXISTS changes_event ON changes(event);"
    "CREATE TABLE IF NOT EXISTS snapshots(event INTEGER PRIMARY KEY, body TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS recipients(id INTEGER PRIMARY KEY, list TEXT NOT NULL UNIQUE);"
    "CREATE TABLE IF NOT EXISTS outbox(id INTEGER PRIMARY KEY, event INTEGER NOT NULL, to_id INTEGER NOT NULL"
    " REFERENCES recipients(id), text TEXT NOT NULL, state TEXT NOT NULL, queued_at INTEGER, sent_at INTEGER,"
    " delivery TEXT, attempts INTEGER NOT NULL DEFAULT 0, next_try INTEGER, delivered_at INTEGER, error TEXT,"
    " message_id TEXT);"
    "CREATE INDEX IF NOT EXISTS outbox_undelivered ON outbox(delivery) WHERE delivery IN ('pending','sending','failed');"
    "CREATE TABLE IF NOT EXISTS config(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS tokens(address TEXT PRIMARY KEY, hash TEXT NOT NULL, issued_at INTEGER NOT NULL);";

/* Tables and indexes a game made by an earlier build of this format may
 * lack; made on every open (nothing is written when they exist):
 * mail_keys, each mail taken (its Message-ID and sender, or a digest)
 * and the event it became, so that a mail is applied at most once;
 * answers, when the Mechanics last answered an address about a mail they
 * refused unread; and the index that finds the queue without reading the
 * outbox's history. */
static const char *extras =
    "CREATE TABLE IF NOT EXISTS mail_keys(key TEXT PRIMARY KEY, event INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS answers(address TEXT PRIMARY KEY, at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS outbox_queued ON outbox(state) WHERE state='queued';";

struct Store {
    sqlite3 *db;
    sqlite3_stmt *q[Q_COUNT];
    char err[512];
    char *last_rcpt;   /* one-entry cache: most messages go to the same list */
    long last_rcpt_id;
    int lockfd;        /* the database file, for flock: the writer's lock */
    int locks;         /* store_lock nesting */
    int64_t data_version;
};

static bool fail(Store *s)
{
    snprintf(s->err, sizeof s->err, "%s", sqlite3_errmsg(s->db));
    return false;
}

const char *store_error(Store *s) { return s->err; }

static sqlite3_stmt *stmt(Store *s, int q)
{
    if (!s->q[q] && sqlite3_prepare_v2(s->db, queries[q], -1, &s->q[q], NULL) != SQLITE_OK) {
        fail(s);
        return NULL;
    }
    sqlite3_reset(s->q[q]);
    sqlite3_clear_bindings(s->q[q]);
    return s->q[q];
}

static void bind_text(sqlite3_stmt *st, int i, const char *t)
{
    if (t) sqlite3_bind_text(st, i, t, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i);
}

static bool exec(Store *s, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(s->err, sizeof s->err, "%s", msg ? msg : "unknown error");
        sqlite3_free(msg);
        return false;
    }
    return true;
}

static bool step_done(Store *s, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? true : fail(s);
}

/* Format 2 had no delivery columns: every message it sent stays in the
 * outbox ('kept'). */
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
    Store *s = xcalloc(1, sizeof *s);
    s->lockfd = -1;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        buf_printf(err, "%s: %s", path, sqlite3_errmsg(s->db));
        store_close(s);
        return NULL;
    }
    sqlite3_busy_timeout(s->db, 5000);
    if (!exec(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;") ||
        (create && !exec(s, schema))) {
        buf_printf(err, "%s: %s", path, s->err);
        store_close(s);
        return NULL;
    }
    if (create) {
        store_meta_set(s, "format", STORE_FORMAT);
        exec(s, extras);
    } else {
        char *f = store_meta_get(s, "format");
        if (f && strcmp(f, "2") == 0 && upgrade_from_2(s)) {
            free(f);
            f = xstrdup(STORE_FORMAT);
        }
        bool ok = f && strcmp(f, STORE_FORMAT) == 0;
        free(f);
        if (ok && !exec(s, extras)) {
            buf_printf(err, "%s: %s", path, s->err);
            store_close(s);
            return NULL;
        }
        if (!ok) {
            buf_printf(err, "%s is not a nomic game (or was made by another version)", path);
            store_close(s);
            return NULL;
        }
    }
    /* A second descriptor of the file, for flock alone.  It stays open
     * until after sqlite3_close: closing a descriptor of the file would
     * drop SQLite's own (fcntl) locks. */
    s->lockfd = open(path, O_RDONLY | O_CLOEXEC);
    store_changed_elsewhere(s);
    return s;
}

void store_close(Store *s)
{
    if (!s) return;
    for (int i = 0; i < Q_COUNT; i++) sqlite3_finalize(s->q[i]);
    sqlite3_close(s->db);
    if (s->lockfd >= 0) close(s->lockfd);
    free(s->last_rcpt);
    free(s);
}

bool store_lock(Store *s, int wait_ms)
{
    if (s->locks) {
        s->locks++;
        return true;
    }
    for (int waited = 0;; waited += 10) {
        if (flock(s->lockfd, LOCK_EX | LOCK_NB) == 0) break;
        if (errno != EWOULDBLOCK || waited >= wait_ms) {
            snprintf(s->err, sizeof s->err, "the game is busy: another program holds its lock");
            return false;
        }
        usleep(10000);
    }
    s->locks = 1;
    return true;
}

void store_unlock(Store *s)
{
    if (s->locks && --s->locks == 0) flock(s->lockfd, LOCK_UN);
}

bool store_changed_elsewhere(Store *s)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "PRAGMA data_version", -1, &st, NULL) != SQLITE_OK) return true;
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    bool changed = v != s->data_version;
    s->data_version = v;
    return changed;
}

bool store_begin(Store *s) { return exec(s, "BEGIN IMMEDIATE"); }
bool store_begin_read(Store *s) { return exec(s, "BEGIN"); }
bool store_commit(Store *s) { return exec(s, "COMMIT"); }
/* Keeps the error that made the caller roll back (a failed COMMIT has
 * already ended the transaction, and ROLLBACK would only say so). */
void store_rollback(Store *s)
{
    char why[sizeof s->err];
    memcpy(why, s->err, sizeof why);
    exec(s, "ROLLBACK");
    memcpy(s->err, why, sizeof why);
}

static char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? xstrdup((const char *)t) : NULL;
}

/* The one text query q answers for key, or NULL. */
static char *lookup(Store *s, int q, const char *key)
{
    sqlite3_stmt *st = stmt(s, q);
    if (!st) return NULL;
    bind_text(st, 1, key);
    char *v = sqlite3_step(st) == SQLITE_ROW ? col_text(st, 0) : NULL;
    sqlite3_reset(st);
    return v;
}

char *store_meta_get(Store *s, const char *key) { return lookup(s, Q_META_GET, key); }

bool store_meta_set(Store *s, const char *key, const char *value)
{
    sqlite3_stmt *st = stmt(s, Q_META_SET);
    if (!st) return false;
    bind_text(st, 1, key);
    bind_text(st, 2, value);
    return step_done(s, st);
}

char *store_config_get(Store *s, const char *key) { return lookup(s, Q_CONF_GET, key); }

bool store_config_set(Store *s, const char *key, const char *value)
{
    sqlite3_stmt *st = stmt(s, value ? Q_CONF_SET : Q_CONF_DEL);
    if (!st) return false;
    bind_text(st, 1, key);
    if (value) bind_text(st, 2, value);
    return step_done(s, st);
}

bool store_each_config(Store *s, bool (*fn)(void *ud, const char *key, const char *value), void *ud)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT key,value FROM config ORDER BY key", -1, &st, NULL) != SQLITE_OK)
        return fail(s);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (!fn(ud, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1))) break;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? true : fail(s);
}

char *store_token_hash(Store *s, const char *address) { return lookup(s, Q_TOKEN_GET, address); }

bool store_token_set(Store *s, const char *address, const char *hash, int64_t when)
{
    sqlite3_stmt *st = stmt(s, Q_TOKEN_SET);
    if (!st) return false;
    bind_text(st, 1, address);
    bind_text(st, 2, hash);
    sqlite3_bind_int64(st, 3, when);
    return step_done(s, st);
}

bool store_add_initial(Store *s, const char *label, const char *text)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "INSERT INTO initial(label,text) VALUES(?1,?2)", -1, &st, NULL) != SQLITE_OK)
        return fail(s);
    bind_text(st, 1, label);
    bind_text(st, 2, text);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

bool store_each_initial(Store *s, bool (*fn)(void *ud, const char *label, const char *text), void *ud)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT label,text FROM initial ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
        return fail(s);
    bool ok = true;
    while (ok && sqlite3_step(st) == SQLITE_ROW)
        ok = fn(ud, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
    sqlite3_finalize(st);
    return ok;
}

bool store_put_object(Store *s, const Obj *o)
{
    Buf b = {0};
    fmt_print_obj(&b, o, NULL, NULL);
    sqlite3_stmt *st = stmt(s, Q_PUT_OBJ);
    bool ok = false;
    if (st) {
        sqlite3_bind_int64(st, 1, o->id);
        bind_text(st, 2, buf_str(&b));
        ok = step_done(s, st);
    }
    buf_free(&b);
    return ok;
}

bool store_delete_object(Store *s, ObjId id)
{
    sqlite3_stmt *st = stmt(s, Q_DEL_OBJ);
    if (!st) return false;
    sqlite3_bind_int64(st, 1, id);
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
    if (sqlite3_prepare_v2(s->db, "SELECT body FROM objects ORDER BY id", -1, &st, NULL) != SQLITE_OK) return fail(s);
    Buf all = {0};
    while (sqlite3_step(st) == SQLITE_ROW) {
        buf_puts(&all, (const char *)sqlite3_column_text(st, 0));
        buf_putc(&all, '\n');
    }
    sqlite3_finalize(st);
    bool ok = load_text(p, buf_str(&all), "stored objects", err);
    buf_free(&all);
    return ok;
}

long store_journal_received(Store *s, const char *kind, int64_t time, const char *sender, const char *input,
                           const char *raw, int64_t stamp)
{
    sqlite3_stmt *st = stmt(s, Q_RECEIVED);
    if (!st) return -1;
    bind_text(st, 1, kind);
    sqlite3_bind_int64(st, 2, time);
    bind_text(st, 3, sender);
    bind_text(st, 4, input);
    sqlite3_bind_int64(st, 5, (int64_t)time_now_wall());
    bind_text(st, 6, raw);
    if (stamp != time) sqlite3_bind_int64(st, 7, stamp);
    if (!step_done(s, st)) return -1;
    return (long)sqlite3_last_insert_rowid(s->db);
}

bool store_event_outcome(Store *s, long n, const char *status, const char *message, const char *trace,
                         const char *trace_json, const char *hash)
{
    /* a test hook: the commit of event N fails as on a full disk */
    const char *hook = getenv("NOMIC_TEST_FAIL_COMMIT");
    if (hook && *hook && strtol(hook, NULL, 10) == n) {
        snprintf(s->err, sizeof s->err, "database or disk is full (NOMIC_TEST_FAIL_COMMIT=%ld)", n);
        return false;
    }
    sqlite3_stmt *st = stmt(s, Q_OUTCOME);
    if (!st) return false;
    sqlite3_bind_int64(st, 1, n);
    bind_text(st, 2, status);
    bind_text(st, 3, message);
    bind_text(st, 4, trace);
    bind_text(st, 5, trace_json);
    bind_text(st, 6, hash);
    return step_done(s, st);
}

static void read_event(sqlite3_stmt *st, EventRow *r)
{
    r->n = (long)sqlite3_column_int64(st, 0);
    r->kind = col_text(st, 1);
    r->time = sqlite3_column_int64(st, 2);
    r->sender = col_text(st, 3);
    r->input = col_text(st, 4);
    r->status = col_text(st, 5);
    r->message = col_text(st, 6);
    r->trace = col_text(st, 7);
    r->trace_json = col_text(st, 8);
    r->hash = col_text(st, 9);
    r->received_at = sqlite3_column_int64(st, 10);
    r->stamp = sqlite3_column_type(st, 11) == SQLITE_NULL ? r->time : sqlite3_column_int64(st, 11);
}

void event_row_free(EventRow *r)
{
    free(r->kind);
    free(r->sender);
    free(r->input);
    free(r->status);
    free(r->message);
    free(r->trace);
    free(r->trace_json);
    free(r->hash);
    memset(r, 0, sizeof *r);
}

bool store_event_get(Store *s, long n, EventRow *row)
{
    sqlite3_stmt *st = stmt(s, Q_EVENT_GET);
    if (!st) return false;
    sqlite3_bind_int64(st, 1, n);
    bool found = sqlite3_step(st) == SQLITE_ROW;
    if (found) read_event(st, row);
    sqlite3_reset(st);
    return found;
}

long store_last_event(Store *s)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT coalesce(max(n),0) FROM events", -1, &st, NULL) != SQLITE_OK) return -1;
    long n = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return n;
}

bool store_each_event(Store *s, long from, long to, bool (*fn)(void *ud, const EventRow *r), void *ud)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT n,kind,time,sender,input,status,message,trace,trace_json,hash,received_at,stamp"
                           " FROM events WHERE n>=?1 AND n<=?2 ORDER BY n",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(s);
    sqlite3_bind_int64(st, 1, from);
    sqlite3_bind_int64(st, 2, to);
    bool ok = true;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        EventRow r;
        read_event(st, &r);
        ok = fn(ud, &r);
        event_row_free(&r);
    }
    sqlite3_finalize(st);
    return ok;
}

bool store_put_change(Store *s, long event, ObjId id, const char *text)
{
    sqlite3_stmt *st = stmt(s, Q_CHANGE);
    if (!st) return false;
    sqlite3_bind_int64(st, 1, event);
    sqlite3_bind_int64(st, 2, id);
    bind_text(st, 3, text);
    return step_done(s, st);
}

bool store_put_snapshot(Store *s, long event, const char *text)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO snapshots(event,body) VALUES(?1,?2)", -1, &st, NULL) !=
        SQLITE_OK)
        return fail(s);
    sqlite3_bind_int64(st, 1, event);
    bind_text(st, 2, text);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

bool store_state_at(Store *s, long n, Pool *p, Buf *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT event,body FROM snapshots WHERE event<=?1 ORDER BY event DESC LIMIT 1", -1,
                           &st, NULL) != SQLITE_OK)
        return fail(s);
    sqlite3_bind_int64(st, 1, n);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        buf_printf(err, "no snapshot at or before event %ld", n);
        return false;
    }
    long from = (long)sqlite3_column_int64(st, 0);
    bool ok = load_text(p, (const char *)sqlite3_column_text(st, 1), "snapshot", err);
    sqlite3_finalize(st);
    if (!ok) return false;
    if (sqlite3_prepare_v2(s->db, "SELECT id,body FROM changes WHERE event>?1 AND event<=?2 ORDER BY rowid", -1, &st,
                           NULL) != SQLITE_OK)
        return fail(s);
    sqlite3_bind_int64(st, 1, from);
    sqlite3_bind_int64(st, 2, n);
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        ObjId id = (ObjId)sqlite3_column_int64(st, 0);
        if (pool_get(p, id)) pool_delete(p, id);
        const unsigned char *body = sqlite3_column_text(st, 1);
        if (!body) continue;
        /* re-create at its id: ids only grow, but a snapshot may be behind */
        if (id >= p->next_id) {
            ok = load_text(p, (const char *)body, "change", err);
        } else {
            FmtDoc doc = {0};
            ok = fmt_read((const char *)body, strlen((const char *)body), "change", &doc, err);
            if (ok && doc.n == 1) {
                ObjId keep = p->next_id;
                p->next_id = id;
                pool_create_at(p, id);
                p->next_id = keep;
                for (int k = 0; k < doc.objs[0].n; k++) pool_set(p, id, doc.objs[0].attrs[k].name, doc.objs[0].attrs[k].value);
            }
            fmt_doc_free(&doc);
        }
    }
    sqlite3_finalize(st);
    return ok;
}

static long recipients_id(Store *s, const char *to)
{
    if (s->last_rcpt && strcmp(s->last_rcpt, to) == 0) return s->last_rcpt_id;
    sqlite3_stmt *st = stmt(s, Q_RCPT_ADD);
    if (!st) return -1;
    bind_text(st, 1, to);
    if (!step_done(s, st)) return -1;
    st = stmt(s, Q_RCPT_GET);
    bind_text(st, 1, to);
    long id = sqlite3_step(st) == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : -1;
    sqlite3_reset(st);
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
    sqlite3_bind_int64(st, 1, event);
    sqlite3_bind_int64(st, 2, rid);
    bind_text(st, 3, text);
    bind_text(st, 4, state);
    sqlite3_bind_int64(st, 5, when);
    if (strcmp(state, "queued") == 0) sqlite3_bind_null(st, 6);
    else sqlite3_bind_int64(st, 6, when);
    bind_text(st, 7, delivery);
    if (!step_done(s, st)) return -1;
    return (long)sqlite3_last_insert_rowid(s->db);
}

bool store_outbox_drop_queued(Store *s) { return exec(s, "DELETE FROM outbox WHERE state='queued'"); }

#define OUT_COLUMNS                                                                                                  \
    "o.id,o.event,r.list,o.text,o.state,o.queued_at,o.sent_at,o.delivery,o.attempts,o.next_try,o.delivered_at,"      \
    "o.error,o.message_id"

static void out_row(sqlite3_stmt *st, OutRow *r)
{
    r->id = (long)sqlite3_column_int64(st, 0);
    r->event = (long)sqlite3_column_int64(st, 1);
    r->to = col_text(st, 2);
    r->text = col_text(st, 3);
    r->state = col_text(st, 4);
    r->queued_at = sqlite3_column_int64(st, 5);
    r->sent_at = sqlite3_column_int64(st, 6);
    r->delivery = col_text(st, 7);
    r->attempts = sqlite3_column_int(st, 8);
    r->next_try = sqlite3_column_int64(st, 9);
    r->delivered_at = sqlite3_column_int64(st, 10);
    r->error = col_text(st, 11);
    r->message_id = col_text(st, 12);
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
static bool each_outbox_row(Store *s, const char *sql, bool (*fn)(void *ud, const OutRow *r), void *ud)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return fail(s);
    bool ok = true;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        OutRow r;
        out_row(st, &r);
        ok = fn(ud, &r);
        out_row_free(&r);
    }
    sqlite3_finalize(st);
    return ok;
}

bool store_each_outbox(Store *s, bool (*fn)(void *ud, const OutRow *r), void *ud)
{
    return each_outbox_row(s, "SELECT " OUT_COLUMNS " FROM outbox o JOIN recipients r ON r.id=o.to_id ORDER BY o.id", fn, ud);
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
    sqlite3_bind_int64(st, 4, after);
    sqlite3_bind_int64(st, 1, now);
    sqlite3_bind_int64(st, 2, lease_until);
    sqlite3_bind_int(st, 3, all);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out_row(st, r);
        /* RETURNING gives the row as updated; the update itself was done
         * by the first step */
        sqlite3_reset(st);
        return 1;
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : (fail(s), -1);
}

bool store_outbox_delivered(Store *s, long id, const char *message_id, int64_t when)
{
    sqlite3_stmt *st = stmt(s, Q_OUT_DONE);
    if (!st) return false;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, when);
    bind_text(st, 3, message_id);
    return step_done(s, st);
}

bool store_outbox_failed(Store *s, long id, const char *message_id, const char *error, int64_t next_try)
{
    sqlite3_stmt *st = stmt(s, Q_OUT_RETRY);
    if (!st) return false;
    sqlite3_bind_int64(st, 1, id);
    bind_text(st, 2, next_try ? "pending" : "failed");
    if (next_try) sqlite3_bind_int64(st, 3, next_try);
    else sqlite3_bind_null(st, 3);
    bind_text(st, 4, error);
    bind_text(st, 5, message_id);
    return step_done(s, st);
}

char *store_token_owner(Store *s, const char *hash) { return lookup(s, Q_TOKEN_OWNER, hash); }

char *store_all_senders(Store *s)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT DISTINCT sender FROM events WHERE sender IS NOT NULL ORDER BY sender", -1,
                           &st, NULL) != SQLITE_OK)
        return NULL;
    Buf b = {0};
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (b.len) buf_putc(&b, ' ');
        buf_puts(&b, (const char *)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    return buf_take(&b);
}

/* One integer that a query with one text parameter answers; dflt when
 * there is no row, -1 when the store fails. */
static int64_t lookup_int(Store *s, const char *sql, const char *key, int64_t dflt)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return (fail(s), -1);
    bind_text(st, 1, key);
    int rc = sqlite3_step(st);
    int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : rc == SQLITE_DONE ? dflt : (fail(s), -1);
    sqlite3_finalize(st);
    return v;
}

static bool put_pair(Store *s, const char *sql, const char *key, int64_t v)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return fail(s);
    bind_text(st, 1, key);
    sqlite3_bind_int64(st, 2, v);
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

bool store_event_set_aside(Store *s, long n)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "UPDATE events SET raw=coalesce(raw,input), input=NULL WHERE n=?1", -1, &st, NULL) !=
        SQLITE_OK)
        return fail(s);
    sqlite3_bind_int64(st, 1, n);
    bool ok = step_done(s, st);
    sqlite3_finalize(st);
    return ok;
}

char *store_event_raw(Store *s, long n)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT raw FROM events WHERE n=?1 AND kind='move'", -1, &st, NULL) != SQLITE_OK) {
        fail(s);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, n);
    char *raw = sqlite3_step(st) == SQLITE_ROW ? col_text(st, 0) : NULL;
    sqlite3_finalize(st);
    return raw;
}
