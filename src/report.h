/*
 * report.h - what a game-keeper posts (the standings, the Proposal Pool,
 * the Assessor's resolutions), asked of the set's report rules.
 *
 * The layouts are the set's: the rules are asked, in a dry run that keeps
 * nothing, with one move `subtype: report`, `kind: KIND` from the address
 * REPORT_SENDER, and the text they answer to that address is the report.
 * A player who sends the same move (REPORT KIND in the shipped sets'
 * sugar) gets the same text by mail.  `nomic report` and the server's
 * GET /api/report/KIND both come here.
 *
 * Ownership: a Report owns its text and why; report_free releases them.
 */
#ifndef NOMIC_REPORT_H
#define NOMIC_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"

#define REPORT_SENDER "report"
/* the longest kind: it is one word of a move */
#define REPORT_KIND_MAX 64

typedef struct Report {
    Buf text;     /* what the rules answered, messages separated by a blank line */
    bool refused; /* the move was refused (why says why) */
    char *why;
} Report;

/* Is kind one word of letters, digits, - and _, at most REPORT_KIND_MAX long? */
bool report_kind_ok(const char *kind);
/* Asks g's rules for the report KIND at time t (GAME_TIME_NOW: the wall
 * clock), timers due by then first, all of it undone.  Fills r (zeroed by
 * the caller).  Returns false only on a store failure. */
bool report_run(Game *g, const char *kind, int64_t t, Report *r);
void report_free(Report *r);

#endif
