/*
 * scams_check.h - every proposal checked, without asking (docs/scams.md,
 * "The check of every proposal"): when an event opens a proposal (an
 * object the set's proposalView declares a proposal, in an `open`
 * status), the Mechanics search, once the event is on disk, each goal the
 * set declares in `scamGoals` on engineSettings on the game as if that
 * proposal were adopted (scams_adopt), a bounded search each (`scamBudget`),
 * and journal the answers with the event (the column scam_check, shown as
 * `scamCheck` by nomic log --json and /api/log).
 *
 * The search runs in a child process (fork): a copy of the game as the
 * event left it, so nothing of the game (its objects, its generator, its
 * queue) can be touched by it, and the caller holds the game's lock only
 * for the fork.  The answer comes back through a pipe and is written to the
 * journal in a transaction of its own.
 */
#ifndef NOMIC_SCAMS_CHECK_H
#define NOMIC_SCAMS_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "game.h"

#define SCAM_CHECK_BUDGET 20000   /* events per search, unless scamBudget says (a fifth of a second) */
#define SCAM_CHECK_BUDGET_MAX 200000
#define SCAM_CHECK_PLAYERS 4      /* as=any: the first addresses of the journal, each alone */
#define SCAM_CHECK_COALITION 5    /* as=all: the first addresses of the journal, together */
#define SCAM_CHECK_GOALS 8        /* goals of a set, at most */
#define SCAM_CHECK_SECONDS 60     /* a check still running then is stopped */

/* The keys of the proposals the event being committed opened, as the
 * journal's pending marker "pending KEY KEY..." (malloc'd), or NULL: none,
 * or the set declares no goal.  Reads the pool's undo log: call it before
 * the event's undo log is forgotten. */
char *scam_check_opened(Game *g);

/* A check started: the child searching, and the pipe it answers on. */
typedef struct ScamCheckJob {
    long event;
    pid_t pid;
    int fd;
    char *keys;
    const char *why;  /* not started: why (a static text), or NULL */
} ScamCheckJob;

/* Starts the check of event `event` (at `time`) whose pending marker is
 * `pending`: under the game's lock, for the moment of a fork.  False when
 * no process could be started (job->pid < 0); the caller writes
 * scam_check_failed's entries then. */
bool scam_check_start(Game *g, long event, int64_t time, const char *pending, ScamCheckJob *job);
/* Waits for the child and returns the check's entries, one JSON object a
 * line (malloc'd): those it wrote, or, for a child that failed, one entry
 * per proposal saying why.  Without the game's lock. */
char *scam_check_collect(ScamCheckJob *job);
/* Writes the entries to event `event`'s journal row, under the game's
 * lock (taken here), in a transaction of its own. */
bool scam_check_save(Game *g, long event, const char *entries, Buf *err);

/* The hook of the command line (nomic move, nomic deliver): every check
 * the events opened started at once (Game.on_opened), then, the events
 * done and the lock given back, each collected and saved. */
typedef struct ScamChecks {
    ScamCheckJob *jobs;
    int n, cap;
} ScamChecks;
void scam_checks_hook(void *ud, Game *g, long event, int64_t time, const char *pending);
/* Sets the game's hooks (Game.opened, Game.on_opened): hook NULL unsets them. */
void scam_checks_install(Game *g, void (*hook)(void *, Game *, long, int64_t, const char *), void *ud);
/* Collects and saves every check started; false (and a note on standard
 * error) when one could not be saved. */
bool scam_checks_finish(ScamChecks *c, Game *g);

#endif
