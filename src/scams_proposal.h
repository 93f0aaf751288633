/*
 * scams_proposal.h - a set's proposals as its rules declare them: the
 * proposalView attribute of engineSettings (docs/api.md, "What the page
 * reads of a set"), read once here for the page (GET /api/game's
 * proposalView) and for `nomic scams --proposal`, which applies a
 * proposal's changes in memory as if it were adopted.
 */
#ifndef NOMIC_SCAMS_PROPOSAL_H
#define NOMIC_SCAMS_PROPOSAL_H

#include <stdbool.h>

#include "game.h"

/* One line of proposalView: its role (proposal, poll, change, ballot),
 * then its words KEY=VALUE.  A key given twice means its last value. */
typedef struct ViewWord {
    char *key, *value;
} ViewWord;

typedef struct ViewLine {
    char *role;
    ViewWord *words;
    int n, cap;
} ViewLine;

typedef struct ProposalView {
    ViewLine *lines;
    int n, cap;
} ProposalView;

/* Reads text, a line a role.  Lines without a role are left out. */
void proposal_view_parse(const char *text, ProposalView *v);
void proposal_view_free(ProposalView *v);
/* The value of key on line l, or "" when the line does not give it. */
const char *proposal_view_get(const ViewLine *l, const char *key);

/* The view of every engineSettings' proposalView (in id order, as one
 * text) as JSON, without a newline: null when it declares no proposal,
 * else {"proposal":{...},"polls":[...],"changes":[...],"ballots":[...]},
 * each line an object of its words, a list (type, id, open, decided,
 * passed, failed, amend, show) as an array of its comma-separated items
 * and a list of pairs (labels, record, compare) as an array of [A,B]
 * pairs; a line without a type is left out.  null too when proposalView
 * is a private attribute (private_attrs: engineSettings' privateAttributes):
 * no one owns engineSettings, so no one sees it. */
void proposal_view_json(Buf *b, const Pool *p, Sym private_attrs);
/* How many proposals are open, as the view declares it: those in an
 * `open` status of the proposal line (counted by their first `id`), or,
 * when a poll line says what is voted on, the proposals with an open
 * poll (counted by its `of`).  -1: the view does not say (no `open`, or
 * proposalView is private). */
int proposal_view_open_count(const Pool *p, Sym private_attrs);

/* Applies, in memory, the changes of proposal `id` as if it were adopted:
 * the objects the rules declare to be a proposal's changes to their rules
 * (the `change ... in=RULETYPE` lines of engineSettings' proposalView,
 * which the page reads too: docs/api.md) whose `of` is id; `kind` create
 * (or enact), amend or repeal.  False, with the reason in err, when the
 * rules declare none or it finds none. */
bool scams_adopt(Game *g, const char *id, Buf *err);

#endif
