/*
 * store.h - persistence of one game in one SQLite database file.
 *
 * Tables: meta (key/value: format, clock, generator, settings), initial
 * (the initial sets as loaded), objects (the pool as of a checkpoint, one
 * printed object per row), events (the journal: every move received, with
 * its outcome, trace, state hash and the new text of each object it
 * touched, for loading and `show --at`), changes (the same for games of
 * format 3), snapshots (the pool after event 0; games of earlier builds
 * have later ones too), outbox (every message,
 * queued or sent) and
 * recipients (each distinct recipient list once), config (the settings
 * of the Mechanics), tokens (per address, hashed), mail_keys (each mail
 * taken, by Message-ID or digest, and its event) and answers (when an
 * address was last answered about a mail refused unread).
 *
 * A received move is written and committed before it is processed
 * (store_journal_received); its outcome and all its effects are then
 * written in one transaction (store_begin ... store_commit), so a crash
 * leaves either the whole event or none of it, and never loses the move.
 *
 * Durability: a commit returns only once it is on disk (WAL with
 * synchronous=FULL: the log is fsync'd at each commit), so that what the
 * caller then acknowledges (deliver's exit 0 to the MTA, the HTTP answer,
 * `nomic move`'s exit 0) survives a power cut as well as a crash.
 *
 * Errors: every function reports a failure of SQLite (an I/O error, a
 * full disk, no memory) as false, -1 or NULL with store_error() saying
 * what, and a loop over rows never takes an error for the end of them.
 *
 * This is the narrow interface a different store (PostgreSQL) would
 * implement.  Strings returned are malloc'd and owned by the caller.
 */
#ifndef NOMIC_STORE_H
#define NOMIC_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "pool.h"
#include "util.h"

typedef struct Store Store;

typedef struct JournalRow {
    long n;
    char *kind;     /* "move", "tick" */
    int64_t time;
    char *sender;
    char *input;    /* the raw body as received */
    char *status;   /* received, applied, refused, loop, halted */
    char *message;  /* why refused, or what the Mechanics did */
    char *trace;
    char *trace_json;
    char *hash;     /* state hash after the event (hex), or NULL */
    int64_t received_at;
    int64_t stamp;  /* the moves' moveTimeStamp (time unless a mail said) */
    char *code_check; /* the Mechanics' check of the moves' rule code: a JSON array, one note a line; or NULL */
    char *scam_check; /* the Mechanics' scam check of the proposals the event opened (scams_check.h): "pending KEY..."
                       * until it ran, then its entries as JSON objects, one a line; NULL: none */
} JournalRow;

/* Opens (create: makes a new file, refusing to overwrite unless force). */
Store *store_open(const char *path, bool create, bool force, Buf *err);
void store_close(Store *s);
/* Opens a game of this build's format for reading only (SQLite's
 * read-only mode: no upgrade, no recovery, no lock, nothing written);
 * NULL and err when it cannot, or the file is of another format. */
Store *store_open_readonly(const char *path, Buf *err);
/* Copies every row of `table` (a table of this schema, named by the
 * caller, never by a user) from one store to another, replacing rows of
 * the same key; in to's transaction if one is open.  False: store_error(to). */
bool store_copy_rows(Store *from, Store *to, const char *table);
/* A setting of the game file at path, read without opening it as a game
 * (no upgrade, no write, no lock): 1 and *value (malloc'd), 0 unset, -1
 * not readable as a game (err).  What a host reads of each of its games
 * to find the one a mail is for (host.h). */
int store_peek_config(const char *path, const char *key, char **value, Buf *err);
/* The same of the store's own keys (meta): "created" is written by the
 * transaction that finishes a new game. */
int store_peek_meta(const char *path, const char *key, char **value, Buf *err);
const char *store_error(Store *s);
/* Sets what store_error says: a caller's reading of the store failed. */
void store_set_error(Store *s, const char *why);
/* The format of the files this build writes ("4"). */
const char *store_format(void);
/* When opening upgraded an older format: what it was and where the copy
 * of the old file was kept ("game.db.format3"), for the keeper to be
 * told; NULL otherwise. */
const char *store_upgraded_from(const Store *s, const char **kept);

/* A consistent copy of the whole database into dst, taken while others
 * write (SQLite's backup API, in one read transaction: every event
 * committed before it began, none after), written beside dst, checked by
 * check (when not NULL: given the copy's own path, false with err set to
 * refuse it) and renamed into place once on disk, so dst is never half a
 * copy nor one that failed its check.  False with err set if it could not
 * be made; dst is then as it was. */
typedef bool (*StoreCheck)(void *ud, const char *copy, Buf *err);
bool store_backup(Store *s, const char *dst, StoreCheck check, void *ud, Buf *err);

/* Whether a commit waits for the disk (true, as opened).  A commit that
 * does not wait is made durable by the next one that does (the WAL is one
 * file, written in order, and its fsync covers every earlier frame): a
 * received move is journaled without waiting, since only its outcome's
 * commit is acknowledged. */
bool store_sync_commits(Store *s, bool wait);
/* Writes the log to disk now (fsync): what every connection committed
 * before is then durable.  The server's group commit: the moves committed
 * while one fsync ran share the next. */
bool store_sync_log(Store *s);

bool store_begin(Store *s);
bool store_begin_read(Store *s); /* a consistent view for reading; ends with store_commit */
bool store_commit(Store *s);
void store_rollback(Store *s);

/* A group: the events between these two in one SQLite transaction, each
 * event's own (store_begin ... store_commit) a savepoint in it, so that a
 * stream of moves writes each page it touches once per group, not once per
 * event (see docs/mechanics.md, "Groups").  Nothing of the group is in the
 * database for other connections, nor durable, until store_group_end
 * commits it; when that fails, or an error ended the transaction earlier
 * (a full disk), every event of the group is gone, and every statement
 * fails until store_group_end says so.  A commit's wait for the disk is
 * the one store_sync_commits set before the group began; a group that
 * does not wait starts the log's write to disk behind it (a thread's
 * fdatasync), so that the store_sync_log which makes the stream durable
 * finds little left; the same thread checkpoints the log, which a long
 * stream's writer would otherwise do inside a commit (store.c,
 * "Write-behind"). */
bool store_group_begin(Store *s);
bool store_group_end(Store *s);
/* Ends the group open now keeping none of it (a write its end needed
 * failed). */
void store_group_abort(Store *s);
bool store_in_group(const Store *s);

/* NULL when the key is unset and when the store failed (store_error). */
char *store_meta_get(Store *s, const char *key);
bool store_meta_set(Store *s, const char *key, const char *value);
bool store_meta_delete(Store *s, const char *key);
/* The same lookups telling the two apart: 1 and *value (malloc'd), 0 no
 * such key (*value NULL), -1 the store failed (store_error). */
int store_meta_read(Store *s, const char *key, char **value);
int store_config_read(Store *s, const char *key, char **value);
int store_token_read(Store *s, const char *address, char **hash);

bool store_add_initial(Store *s, const char *label, const char *text);
/* Calls fn for each initial set in load order. */
bool store_each_initial(Store *s, bool (*fn)(void *ud, const char *label, const char *text), void *ud);

/* The objects table: the state as of an event, not always the last.  An
 * event writes its changes (below), not the objects it touched, which
 * would put a page of the table in the log at almost every event; the
 * game brings the table up to date once the changes since are twice the
 * live objects (game.c, "checkpoints") and keeps the event it is up to
 * date with in the meta key objects_at (none, in a game of format 3 not
 * yet upgraded: the settled event).  Loading
 * reads the table, then the changes after objects_at. */
bool store_put_object(Store *s, ObjId id, const char *text); /* insert or replace; text as fmt_print_obj prints it */
bool store_delete_object(Store *s, ObjId id);
bool store_load_objects(Store *s, Pool *p, Buf *err);

/* Settings of the Mechanics (nomic config): NULL when unset; value NULL
 * unsets. */
char *store_config_get(Store *s, const char *key);
bool store_config_set(Store *s, const char *key, const char *value);
bool store_each_config(Store *s, bool (*fn)(void *ud, const char *key, const char *value), void *ud);
/* Per-address tokens, kept as hashes only. */
char *store_token_hash(Store *s, const char *address);
bool store_token_set(Store *s, const char *address, const char *hash, int64_t when);
/* The journal. */
/* input: the moves in the object format (NULL when the Mechanics refused
 * the message before reading moves); raw: the message as received (a whole
 * mail), kept for the game-keeper, never shown in public views; stamp:
 * the moves' moveTimeStamp (a mail's Date), where time is when the
 * Mechanics took the message. */
long store_journal_received(Store *s, const char *kind, int64_t time, const char *sender, const char *input,
                           const char *raw, int64_t stamp);
/* changes: the objects the event changed (store_apply_changes), or NULL. */
bool store_event_outcome(Store *s, long n, const char *status, const char *message, const char *trace,
                         const char *trace_json, const char *hash, const char *code_check, const char *changes);
/* The scam check of event n (JournalRow.scam_check), in the caller's transaction. */
bool store_event_scam_check(Store *s, long n, const char *text);
/* 1: *row is filled; 0: no event n; -1: the store failed. */
int store_event_get(Store *s, long n, JournalRow *row);
/* A move event's message as received (a whole mail), malloc'd, or NULL. */
char *store_event_raw(Store *s, long n);
/* An event the engine cannot run: its moves are kept with the message as
 * received (raw), and it no longer holds moves to run, as one the
 * Mechanics refused unread (replay then refuses it too). */
bool store_event_set_aside(Store *s, long n);
long store_last_event(Store *s);
/* The last event's time: 1 and *t, 0 no event yet, -1 the store failed. */
int store_last_time(Store *s, int64_t *t);
bool store_each_event(Store *s, long from, long to, bool (*fn)(void *ud, const JournalRow *r), void *ud);
void journal_row_free(JournalRow *r);

/* Changes and snapshots, for the state at an earlier event.  An event's
 * changes are a text in its journal row (events.changes), a record per
 * object it changed, in id order, records apart by an empty line: the
 * object's new text (fmt_print_obj: "objectId: N" first), or the line
 * "deleted: N".  (An object made and deleted within the event has none.)
 * Games of format 3 kept a row per object in the table changes, which is
 * read for their events of then. */
bool store_put_snapshot(Store *s, long event, const char *text);
/* The pool after event n, rebuilt into p (empty on entry): the latest
 * snapshot at or before n, then each object as its last change up to n
 * left it.  Nothing on the write path grows with the pool: the cost is
 * here, in the changes read. */
bool store_state_at(Store *s, long n, Pool *p, Buf *err);
/* Each object as its last change in events (from, to] left it, into p;
 * applied(ud, id, changes), when not NULL, is told each id and how many
 * changes it had. */
bool store_apply_changes(Store *s, long from, long to, Pool *p, void (*applied)(void *ud, ObjId id, long changes),
                         void *ud, Buf *err);

/* The outbox.  A message is 'queued' until the rules' sendNow() hands it
 * over ('sent'); its delivery is then 'pending' until the transport takes
 * it ('delivered'), 'sending' while a process holds it, 'failed' when the
 * retries gave up, or 'kept' when the transport is the outbox itself. */
typedef struct OutRow {
    long id;
    long event;
    char *to;
    char *text;
    char *state;        /* queued, sent */
    int64_t queued_at;
    int64_t sent_at;
    char *delivery;     /* NULL (queued), pending, sending, delivered, failed, kept */
    int attempts;
    int64_t next_try;   /* pending: not before; sending: the lease's end */
    int64_t delivered_at;
    char *error;        /* the transport's last complaint */
    char *message_id;
} OutRow;
void out_row_free(OutRow *r);
long store_outbox_add(Store *s, long event, const char *to, const char *text, const char *state,
                      const char *delivery, int64_t when);
bool store_outbox_drop_queued(Store *s); /* before re-writing the queue */
bool store_each_outbox(Store *s, bool (*fn)(void *ud, const OutRow *r), void *ud);
/* The messages after id `after`, oldest first, read one at a time until
 * fn returns false: a page of the outbox costs what it reads. */
bool store_each_outbox_after(Store *s, long after, bool (*fn)(void *ud, const OutRow *r), void *ud);
/* The messages before id `before`, newest first, as above. */
bool store_each_outbox_before(Store *s, long before, bool (*fn)(void *ud, const OutRow *r), void *ud);
/* Only the messages waiting for sendNow (the index outbox_queued): what
 * loading a game needs, whatever the size of the outbox's history. */
bool store_each_queued(Store *s, bool (*fn)(void *ud, const OutRow *r), void *ud);
/* Takes the oldest message after id `after` due for delivery at `now`
 * (all: also those waiting out a backoff, and those given up) and leases
 * it to this process until `lease_until`, counting the attempt.  1: *r is
 * filled; 0: none. */
int store_outbox_claim(Store *s, long after, int64_t now, int64_t lease_until, bool all, OutRow *r);
bool store_outbox_delivered(Store *s, long id, const char *message_id, int64_t when);
/* A failed attempt: try again at next_try, or give up (next_try 0). */
bool store_outbox_failed(Store *s, long id, const char *message_id, const char *error, int64_t next_try);
/* The address whose token, or token offered, hashes to `hash`, or NULL. */
char *store_token_owner(Store *s, const char *hash);
/* A token mailed on request is an offer (table token_offers): the
 * address's token stays valid until the offer is first used, and the
 * offer then takes its place (store_token_offer_take).  _read: 1 and
 * *hash, 0 none, -1 the store failed. */
int store_token_offer_read(Store *s, const char *address, char **hash);
bool store_token_offer_set(Store *s, const char *address, const char *hash, int64_t when);
bool store_token_offer_take(Store *s, const char *address);
bool store_token_offer_drop(Store *s, const char *address);
/* Has the address a token or an offer: 1 yes, 0 no, -1 the store failed. */
int store_token_known(Store *s, const char *address);

/* The writer's lock: one event at a time over every process that opens
 * the game (the server, nomic deliver from the MTA, nomic move).  Waits
 * up to wait_ms; nests. */
bool store_lock(Store *s, int wait_ms);
void store_unlock(Store *s);
/* A program that writes event after event for others (the server) leaves
 * the lock free for a moment now and then, so that another program
 * waiting for it gets its turn within its deadline (store.c). */
void store_yield(Store *s, bool yields);
/* Has another connection committed since the last call? */
bool store_changed_elsewhere(Store *s);

/* Mail taken: the event a mail's key (its Message-ID and sender, or a
 * digest) became, 0 when it is new, -1 when the store failed; and the
 * record of a new one (in the transaction that journals it). */
long store_mail_seen(Store *s, const char *key);
bool store_mail_taken(Store *s, const char *key, long event);
/* When `address` was last answered about a mail refused unread (0:
 * never; -1: the store failed), and the record of an answer. */
int64_t store_answered_at(Store *s, const char *address);
bool store_answered(Store *s, const char *address, int64_t when);
/* A sender's tally for an hour (game_billing.h): events run, their work and
 * journal bytes, and requests refused unread or over quota.  read: 1 with
 * *t, 0 when there is none (*t zero), -1 when the store fails; add adds d
 * (refusal: the last refusal's reason, or NULL); prune drops the hours
 * before `before`. */
typedef struct SenderTally {
    int64_t events, work, bytes, refused;
} SenderTally;
int store_tally_read(Store *s, const char *who, int64_t hour, SenderTally *t);
bool store_tally_add(Store *s, const char *who, int64_t hour, const SenderTally *d, const char *refusal);
bool store_tallies_prune(Store *s, int64_t before);
/* How many answers keys beginning with `prefix` were noted at or after
 * `since` (-1: the store failed). */
long store_answers_since(Store *s, const char *prefix, int64_t since);

/* Every distinct sender in the journal (for the loop meta-rule's notice). */
char *store_all_senders(Store *s);

#endif
