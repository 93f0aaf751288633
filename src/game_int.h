/*
 * game_int.h - what the game's files share, and no other file (as SQLite's
 * vdbeInt.h is the VM's): the Mechanics' own steps between a message and
 * its committed event.  From
 * the lowest to the highest: game.c (the game loaded and kept),
 * game_mechanics.c and game_billing.c (settings, tokens, answers, the
 * outbox, the tallies), game_event.c (one event), game_lock.c (the
 * writer's turn, which finishes an unsettled event), game_submit.c,
 * game_suspend.c and game_replay.c (the ways in).  Each calls only those
 * below it.
 */
#ifndef NOMIC_GAME_INT_H
#define NOMIC_GAME_INT_H

#include "game.h"

/* game.c: the game's own state (settled event, generator, timers,
 * halted...), the meta row "state", written in the event's transaction
 * (in a group, at its end); false if the store failed. */
bool game_save_state(Game *g, long settled);
/* game.c: event `settled` is kept (its transaction committed); in a
 * group, which writes the state row at its end, it is that row now. */
void game_state_kept(Game *g, long settled);
/* game.c: the objects table's checkpoints.  game_object_changed notes an
 * object an event changed (born: the event made it);
 * game_objects_checkpoint, in the transaction of
 * event `settled` (or of a group, after it), writes the objects changed
 * since the last checkpoint as the pool has them, once the changes are
 * twice as many as the objects; false if the store failed. */
void game_object_changed(Game *g, ObjId id, bool born);
bool game_objects_checkpoint(Game *g, long settled);
/* game.c: a game with an empty pool and engine, among the open games. */
Game *game_new(void);
/* game.c: the pool, the game's own state and the messages waiting for
 * sendNow, as the store has them (no event recovered). */
bool game_load(Game *g, Buf *err);
/* game.c: the last event whose outcome is committed (-1: the store
 * failed). */
long game_settled_event(Store *st);
/* game.c: the state row a group's events left unwritten, written
 * (game_state_flush), or dropped with the group's writes. */
bool game_state_flush(Game *g);
void game_state_unsaved_drop(Game *g);
/* game.c: the whole pool in the object format (a snapshot). */
char *game_export_pool(const Pool *p);
/* game.c: a dry run draws from a throwaway generator: were it the game's,
 * `try` would show the numbers the next real events will draw. */
void game_throwaway_rng(Game *g);

/* game.c: the timer's back-off after timer event o (not a dry run): one
 * that ran past the budget makes the next try wait longer, and says when
 * in its message; one that did not ends the back-off.  Written with the
 * event (game_save_state). */
void game_timer_backoff(Game *g, Outcome *o);
void game_timer_backoff_clear(Game *g);

/* game.c: the suspended rules (Engine.suspended), the meta key
 * "suspended", in the caller's transaction. */
bool game_save_suspended(Game *g);

/* game_event.c: settles what a crash left unsettled (the game is locked). */
bool game_recover(Game *g);
/* Records that moves carry moveIndex from event n on, unless an earlier event began it. */
bool game_index_moves_from(Game *g, long n);

#endif
