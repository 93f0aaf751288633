/*
 * engine_trace.h - the trace of an event, one firing at a time (engine_trace.c).
 *
 * The trace is a reader of the engine's public types (engine.h: the
 * Engine's bindings, queue and private attributes, the EventRun it
 * fills) and the engine calls it; engine.h names nothing of it but an
 * opaque TraceTail the EventRun holds.  The trace is the lower of the
 * two: this way round, a firing is traced from what the engine holds
 * already, without a copy of it in a struct of the trace's.
 */
#ifndef NOMIC_ENGINE_TRACE_H
#define NOMIC_ENGINE_TRACE_H

#include "engine.h"

/* The trace keeps the first firings of an event up to this size (each of
 * its two forms); the rest are counted in r->trace_omitted. */
#define TRACE_MAX (1u << 20)

/* An event undone by its budget keeps a short trace instead: the notes
 * before its first firing, how many firings were not kept, and its last
 * TRACE_TAIL firings, the last of which says what tripped
 * (docs/limits.md). */
#define TRACE_TAIL 16
typedef struct TraceTail TraceTail;
void trace_tail_free(TraceTail *tt);
void trace_shorten(EventRun *r);

/* Adds one firing of rule (ruleOrder order, compiled as p) to r's traces:
 * its bindings (e->vars), the changes of the undo log in [ufrom, uto),
 * the messages queued from qfrom and handed over from sfrom, or the error
 * that stopped it.  Does nothing unless e->trace_on. */
void trace_firing(Engine *e, EventRun *r, ObjId rule, Sym order, const Prog *p, size_t ufrom, size_t uto, size_t sfrom,
                  size_t qfrom, bool changed, const char *error);

#endif
