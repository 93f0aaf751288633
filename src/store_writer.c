/*
 * store_writer.c - the store's write-behind thread (store_writer.h).
 *
 * Write-behind: after a group's commit that did not wait for the disk, a
 * thread of the Store's writes the log to disk (fdatasync on a descriptor
 * of its own: the file's pages, whoever wrote them) while the writer goes
 * on with the next group, so that the fsync which makes the stream
 * durable (store_sync_log, before anything is acknowledged) finds little
 * left to write.  Only a head start: what it does or fails to do changes
 * nothing of what that fsync says.
 *
 * The same thread checkpoints: it copies the log's pages into the
 * database through a connection of its own, where SQLite would have made
 * the writer do it in a commit every CKPT_PAGES pages (a copy and two
 * fsyncs: a tenth of a stream's time).  A checkpoint copies only what was
 * committed when it began, and the log starts again from its beginning
 * only if, when the writer opens its next transaction, every frame is in
 * the database: past RESTART_PAGES the writer waits for the thread's last
 * checkpoint before its next group, so the log stays bounded however long
 * the stream.  Should the thread fail to checkpoint, nothing is lost (the
 * log keeps every frame) and closing the game checkpoints as before.
 */
#include "store_writer.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

#define CKPT_PAGES 1000     /* SQLite's own wal_autocheckpoint */
#define RESTART_PAGES 16384 /* 64 MiB of log at 4 KiB pages */

struct WriteBehind {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int fd;
    sqlite3 *db;               /* the thread's connection, for checkpoints; NULL: SQLite's own */
    unsigned asked, done;      /* fdatasync requests made, and taken up */
    unsigned ckpt_asked, ckpt_done; /* checkpoints asked for, and finished */
    bool restart;              /* the log passed RESTART_PAGES: the next group waits */
    bool stop;
};

static void *writer_run(void *arg)
{
    WriteBehind *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->stop && w->done == w->asked && w->ckpt_done == w->ckpt_asked) pthread_cond_wait(&w->cv, &w->mu);
        if (w->stop) break;
        bool sync = w->done != w->asked;
        unsigned ckpt = w->ckpt_asked;
        w->done = w->asked; /* one fdatasync takes down every request made before it */
        pthread_mutex_unlock(&w->mu);
        if (sync) (void)fdatasync(w->fd);
        if (ckpt != w->ckpt_done) (void)sqlite3_wal_checkpoint_v2(w->db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&w->mu);
        w->ckpt_done = ckpt;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* After each commit of the writer's (SQLite's hook, in place of its
 * automatic checkpoint): a long log is the thread's to checkpoint. */
static int log_committed(void *arg, sqlite3 *db, const char *name, int pages)
{
    (void)db;
    (void)name;
    WriteBehind *w = arg;
    if (pages < CKPT_PAGES) return SQLITE_OK;
    pthread_mutex_lock(&w->mu);
    w->ckpt_asked++;
    if (pages >= RESTART_PAGES) w->restart = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return SQLITE_OK;
}

/* Before a group: if the log is long, the thread's checkpoint of all of
 * it, so that the group writes the log from its start. */
void store_writer_restart_wait(WriteBehind *w)
{
    if (!w || !w->db) return;
    pthread_mutex_lock(&w->mu);
    if (w->restart) {
        while (w->ckpt_done != w->ckpt_asked) pthread_cond_wait(&w->cv, &w->mu);
        w->restart = false;
    }
    pthread_mutex_unlock(&w->mu);
}

WriteBehind *store_writer_start(sqlite3 *writer)
{
    const char *db = sqlite3_db_filename(writer, "main");
    char wal[4200];
    if (!db || !*db || snprintf(wal, sizeof wal, "%s-wal", db) >= (int)sizeof wal) return NULL;
    int fd = open(wal, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    WriteBehind *w = xcalloc(1, sizeof *w);
    w->fd = fd;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    /* a read opens the log: until then the connection does not know the
     * database is in WAL mode, and its checkpoints do nothing */
    if (sqlite3_open_v2(db, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
        sqlite3_exec(w->db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_close(w->db); /* SQLite's own checkpoints go on */
        w->db = NULL;
    }
    if (pthread_create(&w->thread, NULL, writer_run, w) != 0) {
        sqlite3_close(w->db);
        close(fd);
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        return NULL;
    }
    if (w->db) sqlite3_wal_hook(writer, log_committed, w);
    return w;
}

void store_writer_sync(WriteBehind *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    w->asked++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void store_writer_stop(WriteBehind *w, sqlite3 *writer)
{
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    if (w->db) sqlite3_wal_autocheckpoint(writer, CKPT_PAGES); /* the hook's argument is freed here */
    sqlite3_close(w->db);
    close(w->fd);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

