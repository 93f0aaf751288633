/*
 * store_writer.h - the store's write-behind thread: writes the log to disk
 * and checkpoints it while the writer goes on (store_writer.c says how and
 * why).  Private to the store: only store.c calls it.
 */
#ifndef NOMIC_STORE_WRITER_H
#define NOMIC_STORE_WRITER_H

#include <sqlite3.h>

typedef struct WriteBehind WriteBehind;

/* Starts the thread for the writer's connection; NULL when it cannot (the
 * store goes on without it: it is only a head start). */
WriteBehind *store_writer_start(sqlite3 *writer);
/* After a commit that did not wait for the disk: the thread writes the log
 * to disk.  w may be NULL. */
void store_writer_sync(WriteBehind *w);
/* Before a group: waits for the thread's checkpoint of a long log, so that
 * the group writes the log from its start.  w may be NULL. */
void store_writer_restart_wait(WriteBehind *w);
/* Stops the thread and gives SQLite its own checkpoints back.  w may be
 * NULL. */
void store_writer_stop(WriteBehind *w, sqlite3 *writer);

#endif
