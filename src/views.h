/*
 * views.h - the JSON views of events and messages that the command line
 * (--json) and the server's API share, so both say the same thing the
 * same way (docs/formats.md, docs/api.md).
 *
 * A Viewer (pool_privacy.h) says who is looking: a player sees the private
 * attributes of their own moves only; the public (the command line
 * without --as, the server without a token) sees none.
 */
#ifndef NOMIC_VIEWS_H
#define NOMIC_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

#include "pool_privacy.h"
#include "store.h"
#include "value.h"


/* {"event":N,"kind":...,"trace":[...]}: one event of the journal. */
void view_event_json(Buf *b, const JournalRow *r, const Viewer *v);
/* The same with the moves cut to input_max bytes (at a character's edge)
 * and the trace left out (null) when it is over trace_max bytes; then
 * "cut":{"input":BYTES,"trace":BYTES} gives the whole sizes of what was
 * cut, so a list of events stays small and a reader knows to ask for the
 * one event. */
void view_event_json_cut(Buf *b, const JournalRow *r, const Viewer *v, size_t input_max, size_t trace_max);
/* {"id":N,"event":N,"to":...,"delivery":...}: one message of the outbox. */
void view_message_json(Buf *b, const OutRow *r);
/* The same with the text cut to text_max bytes (at a character's edge);
 * then "cut":{"text":BYTES} gives its whole size. */
void view_message_json_cut(Buf *b, const OutRow *r, size_t text_max);
/* The moves of a message as `v` may see them: private attributes left
 * out unless v is the sender.  malloc'd. */
char *view_moves(const char *input, const char *sender, const Viewer *v);
/* The event's message (why it was refused) as `v` may see it: when the
 * game has private attributes, only the sender reads the reason, which may
 * quote the move. */
const char *view_refusal(const JournalRow *r, const Viewer *v);
/* The event's scam check in words, a line per proposal and goal ("  scam
 * check:" first; nothing when the event has none). */
void view_scam_check_text(Buf *b, const JournalRow *r);

#endif
