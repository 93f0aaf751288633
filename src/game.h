/*
 * game.h - one game: its pool, its engine, its store, and the Mechanics
 * that turn a received message or a timer into an event.
 *
 * An event is journaled before it is processed (so no move is lost), then
 * processed, then its outcome and effects are committed in one store
 * transaction.  A game without a store (game_memory) runs the same code
 * and keeps everything in memory: replay and the benchmark use it.
 */
#ifndef NOMIC_GAME_H
#define NOMIC_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "store.h"

typedef struct Game {
    Store *st;           /* NULL: in memory */
    Pool *pool;
    Engine *eng;
    bool halted;
    bool have_timer;
    int64_t next_timer;
    char *last_mover;    /* sender of the most recent move */
    char *winner_note;   /* set when the loop meta-rule ended the game */
    uint64_t seed;
    size_t changes_since_snapshot;
} Game;

typedef struct Outcome {
    long event;          /* journal number (0 in memory) */
    const char *kind;    /* "move" or "tick" */
    int64_t time;
    bool refused;        /* the Mechanics refused the event */
    const char *status;  /* as journaled: applied, refused, loop, halted */
    bool ran;            /* the rules ran (and er is filled) */
    char *message;       /* why refused, or a note from the Mechanics */
    EventResult er;
    char hash[17];       /* state hash after the event, hex */
} Outcome;

void outcome_free(Outcome *o);

/* Called once per event (timers included) as they complete. */
typedef void (*OutcomeFn)(void *ud, Game *g, const Outcome *o);

Game *game_init(const char *path, const char **sets, int nsets, bool have_seed, uint64_t seed, int64_t time,
                bool force, Buf *err);
Game *game_open(const char *path, Buf *err);
Game *game_memory(uint64_t seed);
bool game_load_set(Game *g, const char *label, const char *text, Buf *err);
void game_close(Game *g);
/* Frees the interned texts no open game uses any more; every event starts
 * with it, and it works only once they outnumber the live ones, unless
 * `force`.  `g` is the game about to run an event (all open games are
 * kept). */
void game_collect(Game *g, bool force);

/* A message from `sender` at `time`: first the timers due by then, then
 * the move itself.  dry: nothing is kept (try).  Returns the move's
 * outcome through fn as well. Returns false only on a store failure. */
bool game_move(Game *g, const char *sender, int64_t time, const char *body, bool dry, OutcomeFn fn, void *ud);
/* Runs every timer due at or before `time`. */
bool game_tick(Game *g, int64_t time, bool dry, OutcomeFn fn, void *ud);
/* The journal's event kinds, one at a time, without running timers first
 * (replay feeds the journal through these). */
bool game_event_move(Game *g, const char *sender, int64_t time, const char *body, bool dry, Outcome *o);
bool game_event_tick(Game *g, int64_t time, bool dry, Outcome *o);

/* Is `addr` one of the words of the recipient list `to`? */
bool addressed_to(Sym to, const char *addr);

#endif
