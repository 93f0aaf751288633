/*
 * scams.h - the scam search: sequences of messages from a player (or a
 * coalition) after which a goal condition holds, found by playing them in
 * memory (nomic scams, docs/scams.md).
 *
 * The moves are built from a vocabulary read from the rules: the shapes of
 * the move objects they match (the literal keys, such as subtype=="vote"),
 * the attributes they read on moves and on what moves become (a vote move
 * that a rule turns into a "vote" object), the literals they compare those
 * with, and the values of the live state that the rules join them with
 * (propId==%p on a move, propId==%p on a voteInProgress).  The game's sugar
 * says which attributes an honest move of a shape sets; the other
 * attributes the rules read are tried one at a time on top of it, since
 * an attribute the rules read and honest moves never set is where scams
 * live.
 *
 * The amounts are read again at every step (the state's numbers then,
 * negated and doubled), with the goal's numbers and boundary values; a
 * message may hold two different moves that one rule reads together.
 *
 * The search is iterative deepening over the game's own pool: each message
 * is an event run by the engine with the undo log on, then rolled back to
 * the pool's mark; nothing is written to the store.  A state whose hash was
 * reached before at the same or a lower depth is not explored again, and a
 * move that changed nothing is not played again below while nothing the
 * rules it met read has changed.  Best-first (on the goal's distance) and
 * seeded random walks (kept when they make a new rule fire) go deeper.
 * The budget counts events and the engine's units of work.  The
 * generator is seeded for the search, so every run gives the same answer.
 */
#ifndef NOMIC_SCAMS_H
#define NOMIC_SCAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"
#include "scams_proposal.h"

#define SCAM_MAX_ATTRS 16  /* attributes of one generated move */
#define SCAM_MAX_EXHAUSTIVE 8 /* the deepest exhaustive search asked for */
#define SCAM_MAX_DEPTH 32  /* the longest path of any mode (best, walk) */
#define SCAM_MAX_MOVES 2   /* moves in one message */

/* How the search goes (docs/scams.md): iterative deepening, every
 * sequence within the depth; best-first on the goal's distance; or
 * seeded random walks that keep the paths reaching rules not fired yet. */
typedef enum { SCAM_EXHAUSTIVE, SCAM_BEST, SCAM_WALK } ScamMode;

typedef struct ScamQuery {
    const char *const *senders; /* the coalition; senders[0] is --as */
    int nsenders;
    const char *goal;           /* a condition of the rule language */
    int depth;
    long budget;                /* events, at most */
    bool wait;                  /* "wait for the next timer" is a step */
    bool progress;              /* a progress line on standard error */
    const char *viewer;         /* whose private values the search sees (NULL: nobody's); see scams_search */
    uint64_t work_budget;       /* units of work summed over the events (docs/limits.md), at most; 0: none */
    ScamMode mode;
    uint64_t seed;              /* SCAM_WALK: the walks' generator */
    bool play_all;              /* skip no move (to check that the skipping is exact) */
    int jobs;                   /* processes sharing each round from depth 3 (0, 1: this one alone) */
} ScamQuery;

/* One step of an answer: a message, or a wait.  A message holds one move,
 * the same move twice (a move counted twice within one event), or two
 * different moves (attrs2: the second, moveIndex 2). */
typedef struct ScamStep {
    bool wait;
    int64_t time;
    int sender;                 /* index in the query's senders */
    Attr attrs[SCAM_MAX_ATTRS]; /* the move (wait: none) */
    int nattrs;
    int copies;                 /* 1 or 2 */
    Attr attrs2[SCAM_MAX_ATTRS]; /* a second, different move of the message */
    int nattrs2;                /* 0: none */
} ScamStep;

/* What the vocabulary left out: each bound that dropped values or moves,
 * with how many times it did.  Zero everywhere: nothing was cut. */
typedef enum {
    CUT_VALUES,     /* values of one attribute past the candidates' room */
    CUT_JOINS,      /* live values of a join past the newest few */
    CUT_COMBOS,     /* honest moves of a kind past the bound per state */
    CUT_EXTRAS,     /* the extra attributes' values, or moves without them */
    CUT_RULES,      /* literals, joins, attributes of a kind past their room */
    NCUTS
} ScamCut;
extern const char *const scam_cut_names[NCUTS];

typedef struct ScamResult {
    bool found;
    bool budget_spent;          /* stopped by the budget before depth was done */
    long explored;              /* distinct states reached */
    long events;                /* events run */
    uint64_t work;              /* units of work they cost, summed */
    long skipped;               /* moves not played: no-ops whose reads nothing changed */
    long skipped_last;          /* last moves not played: their known effect the goal does not read */
    long skipped_reach;         /* last moves not played: nothing their event can change is read by the goal */
    long revisits;              /* events that changed the state to one reached already: what
                                   a reduction of commuting moves could spare at most */
    long cut[NCUTS];            /* what the vocabulary dropped (ScamCut) */
    int depth_done;             /* the deepest level searched in full */
    ScamStep steps[SCAM_MAX_DEPTH];
    int nsteps;
    Buf trace;                  /* the trace of the answer's last event */
} ScamResult;

/* Searches from the game's state at time `now`.  False, with the reason in
 * err, when the goal is not a condition; otherwise r says what was found.
 * The game is as it was afterwards.
 *
 * Privacy: the search plays on q->viewer's view of the state (pool_privacy.h,
 * privacy_blank): every private value of what the viewer does not own
 * reads "", to the rules and to the goal alike, and a message queued
 * before the search shows to a goal only if addressed to the viewer.  So
 * found or none tells nothing of another's private value, however the
 * goal computes its name.  And in a game with private attributes a wait
 * never reaches past the real clock: a timer not yet due is not played
 * (nomic try refuses a time later than now for the same reason). */
/* The time a search plays at: that of the journal's last event (time
 * does not pass unless the query waits), or when the game was made. */
int64_t scams_game_time(Game *g);
bool scams_search(Game *g, int64_t now, const ScamQuery *q, ScamResult *r, Buf *err);
void scam_result_free(ScamResult *r);
/* The answer as JSON (nomic scams --json, POST /api/scams): {"found":
 * ..., "explored": N, "steps": [...]} without a newline. */
void scam_result_json(Buf *b, const ScamQuery *q, const ScamResult *r);

/* scams_adopt, a proposal as if adopted: scams_proposal.h */

#endif
