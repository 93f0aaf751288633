/*
 * game_billing.h - every request a game is sent is someone's, and billed to
 * them.  A sender is an address (a mail's From, a request's from= or its
 * token's owner) and, over HTTP, the client's IP as well; per sender and
 * hour the Mechanics tally the events run for it, the work they cost
 * (the event's budget and its first look at the rules) and the bytes
 * they added to the journal, and the requests refused unread (no token)
 * or over quota.  Past a quota (the settings quotaEvents, quotaWork and
 * quotaJournal, each with a ceiling: docs/limits.md) a message is not
 * run; of the refusals of one sender in an hour, the first is journaled
 * (and a mail answered), the others are counted in its tally, one row
 * of the `tallies` table, not a journal row each.  The game-keeper's
 * command line is never billed.
 */
#ifndef NOMIC_GAME_BILLING_H
#define NOMIC_GAME_BILLING_H

#include "game.h"
#include "game_mechanics.h"

/* Who pays for a message: its sender, and its client's IP. */
typedef struct Payers {
    char *who[2];
    int n;
    size_t input;  /* the bytes of the message the journal keeps */
} Payers;
void payers_of(const Incoming *m, Payers *p);
void payers_free(Payers *p);

/* Is a payer over a quota this hour?  1 with *why (malloc'd), 0, or -1
 * when the store cannot say. */
int billing_over(Game *g, const Payers *p, int64_t time, char **why);
/* Counts a refusal (unread, or over quota) in the payers' tallies, in a
 * transaction of its own.  1 when it is the first of the hour for every
 * payer (the caller journals it), 0 when it is only counted, -1 when the
 * store failed. */
int billing_refused(Game *g, const Payers *p, int64_t time, const char *why);
/* Bills event o to the payers, in the event's transaction. */
bool billing_charge(Game *g, const Payers *p, const Outcome *o);

#endif
