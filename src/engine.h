/*
 * engine.h - the engine cycle: run the rules to quiescence for one event.
 *
 * Rules are the objects whose type is the runType of the first
 * engineSettings object (default "rule"), run in ascending (ruleOrder,
 * objectId).  After a firing that changed the pool the run restarts from
 * the first rule (or, for a noRestart rule, re-tests that rule and goes
 * on); a pass that changes nothing ends the event.  A state seen before in
 * the same event is a loop; more than maxSteps firings is a runaway.
 *
 * The Engine owns its rule cache and the queue of messages waiting for a
 * sendNow; it does not own the pool.  The caller turns logging on and takes
 * a pool mark before the event so that a runaway can be rolled back whole.
 */
#ifndef NOMIC_ENGINE_H
#define NOMIC_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "lang_check.h"
#include "eval.h"
#include "pool.h"
#include "util.h"

typedef struct RuleEntry RuleEntry;
typedef struct Seed Seed;
typedef struct Interest Interest;

/* One limit of an event's budget (docs/limits.md): the engineSettings
 * attribute that tunes it, its default, and the ceiling no rule can lift,
 * which protects the host whatever the game's rules say. */
typedef struct Limit {
    const char *setting;
    long dflt, ceiling;
    const char *what;   /* what it counts, for people */
} Limit;

enum {
    LIMIT_STEPS, LIMIT_WORK, LIMIT_MEMORY, LIMIT_DELIVERIES, LIMIT_DIGITS,
    /* the state an event leaves, checked at its end (engine_run) */
    LIMIT_OBJECTS, LIMIT_STATE_BYTES, LIMIT_VALUE_BYTES,
    NLIMITS
};
extern const Limit limits[NLIMITS];

typedef void (*FireHook)(void *ud, ObjId rule, const Prog *p, const Sym *vars, bool changed);

/* A hash table over the keys of a sorted array of Interests: for each
 * key, where its entries are.  A change is marked at the cost of one
 * lookup, not of a binary search. */
typedef struct InterestSpan {
    uint64_t key; /* 0: an empty slot (no key is 0) */
    int lo, n;
} InterestSpan;
typedef struct InterestSpans {
    InterestSpan *slot;
    uint32_t mask;
} InterestSpans;

typedef struct Engine {
    Pool *pool;
    uint64_t rng[4];       /* the game's generator */
    MsgList queue;         /* queued, waiting for sendNow (kept across events) */
    RuleEntry *rules;      /* sorted run order */
    int nrules, rulecap;
    int *timed;            /* the places in rules of those that read the clock */
    int ntimed;
    int *next_timed;       /* [i]: the first place from i on of a rule that reads
                              the clock (nrules if none); [nrules] = nrules */
    unsigned char *passable; /* [i]: 1 if rule i is known false, not stale and
                              has no seeds (engine.c, note_passable); a 0 after
                              the last rule and padding to read a word at any i */
    int reach;             /* the rules before this place were met in this
                              event (first_meeting), their `met` not written */
    bool dirty;            /* rules or settings changed: rebuild the order */
    Interest *by_attr;     /* sorted by key: reads of each attribute name */
    Interest *by_type;     /* sorted by key: reads limited to each type */
    Interest *untyped;     /* reads of any type (a create concerns them) */
    int nby_attr, nby_type, nuntyped;
    InterestSpans attr_spans, type_spans; /* where each key's reads are in by_attr, by_type */
    uint64_t untyped_names; /* a bit of each name an untyped read asks for (engine.c, name_bit) */
    bool have_now;         /* the time of the last run, for timed rules */
    int64_t now;
    int64_t created;       /* when the game was made (nomic init): timeCreated() */
    Sym run_type;
    long limit[NLIMITS];   /* the budget in force (read_settings) */
    Buf settings_note;     /* settings out of bounds, for every trace */
    bool shadow;           /* evaluation: shadow requested (see engine.c) */
    bool resuming;         /* the event's rule searches resume (test_rule) */
    Sym private_attrs;
    FireHook hook;         /* optional: told of every firing (benchmarks) */
    void *hook_ud;
    Sym *vars;             /* variable slots, sized for the largest rule */
    int *trail;            /* the bindings' trail (Ctx), kept from one event to
                              the next rather than allocated for each */
    size_t trail_cap;
    struct SeenState *seen_kept; /* the states table of the last large event,
                              reused by the next (engine.c, seen_free) */
    size_t seen_kept_cap;
    int nvars_cap;
    bool trace_on;         /* build the text and JSON traces */
    bool mute_texts;       /* messages queued without their texts, where composing one
                              cannot fail: the scam search, whose goal does not read them */
    bool exhaustive;       /* test every rule on every pass, skipping none:
                              the reference the tests compare skipping with */
    unsigned long events;  /* events run: which rules an event met already */
    unsigned long drains;  /* drains of changes made (engine.c, mark) */
    ObjId *suspended;      /* rules the game-keeper set aside (nomic suspend):
                              left out of the run order; ascending */
    int nsuspended;
} Engine;

/* RUN_RUNAWAY: the event exceeded its budget (maxSteps or another limit)
 * or would leave the state over one of its caps, and must be rolled back
 * whole. */
typedef enum { RUN_QUIET, RUN_LOOP, RUN_RUNAWAY } RunStatus;

typedef struct EventRun {
    RunStatus status;
    bool halt;             /* halt() ran */
    MsgList sent;          /* handed to the transport by sendNow */
    Buf trace;             /* one line per firing and change, for people */
    Buf trace_json;        /* the same as a JSON array */
    bool have_timer;       /* the next timer, from the quiescent pass */
    int64_t next_timer;
    long firings;
    long changing_firings;
    Meter used;            /* what the event used of its budget */
    long trace_omitted;    /* firings past the trace's size limit */
    struct TraceTail *tail; /* its last firings: the trace's own, opaque here (engine_trace.h) */
    char message[400];     /* loop or runaway: what happened */
} EventRun;

Engine *engine_new(Pool *pool);
void engine_free(Engine *e);
void engine_invalidate(Engine *e); /* the pool was replaced or reloaded */
/* Runs the rules at time `now`. */
void engine_run(Engine *e, int64_t now, EventRun *r);
void event_run_free(EventRun *r);
/* Marks every Sym the engine holds, for the collector (value.h). */
void engine_mark_syms(const Engine *e);

/* The rules in run order with their parse/check state, for check, show and
 * the web page.  Valid until the next engine_run. */
typedef struct RuleInfo {
    ObjId id;
    Sym order;
    const char *error; /* NULL when the rule can fire */
    Sym cond;          /* its if, as written */
    const Prog *prog;  /* compiled, or NULL */
    const struct Deps *deps; /* what its if reads (lang_deps.h), or NULL */
    bool suspended;    /* set aside by the game-keeper: never tested (prog NULL) */
} RuleInfo;
/* The run order, then the suspended rules still in the pool. */
int engine_rules(Engine *e, RuleInfo **out); /* caller frees *out */
/* The rules known false at the pool's state as it is and at time `now`:
 * tested false, and no change since concerns them (the run skips them).
 * Writes their ids to out (room for every rule); returns how many. */
int engine_false_rules(const Engine *e, int64_t now, ObjId *out);

/* The rules the game-keeper set aside (a Mechanics' list, outside the
 * pool: no rule reads or changes it): the engine leaves them out of its
 * run order until they are taken off the list.  Copies ids. */
void engine_set_suspended(Engine *e, const ObjId *ids, int n);
bool engine_is_suspended(const Engine *e, ObjId id);
/* The budget of one event under the game's settings (engineSettings),
 * for evaluations outside engine_run. */
void engine_meter_start(const Engine *e, Meter *m);

/* Why a move changed nothing: the rules that read moves of its kind (an
 * `exists` of the rule's if looks for type "move" and, for every
 * attribute it compares with a literal, the move's value), at most 8:
 * those that fired in the event (`fired`) say so; the others each with
 * the first conjunct of its if, in order, after which the
 * condition had no solution on the pool as it is, and the values the
 * conjuncts before it bound.  The rule that came nearest to firing (the
 * most conjuncts of its if holding, all for one that fired; ties: one
 * that fired, then run order; one whose if holds but did not fire was
 * pre-empted and is none), if it has a `because`, gives the reason: that text with the
 * variables its nearest attempt bound put in, appended to `reason`, and
 * its line comes first.  Evaluated under one event's budget, with a
 * copy of the generator: nothing of the game changes.  Appends lines to
 * out.  This reads the rules; it decides nothing. */
void engine_why_not(Engine *e, int64_t now, ObjId move, const ObjId *fired, size_t nfired, Buf *reason, Buf *out);

/* What the engine knows of its rules (which were false, and since which
 * changes), for a caller that rolls the pool back to a state it saw (the
 * scam search): restored there, the next event skips the rules known
 * false instead of testing every rule again, as after engine_invalidate.
 * Saved and restored only on the same state of the pool. */
typedef struct EngineMemo EngineMemo;
EngineMemo *engine_memo_new(void);
void engine_memo_save(const Engine *e, EngineMemo *m);
void engine_memo_restore(Engine *e, const EngineMemo *m);
void engine_memo_free(EngineMemo *m);
void engine_memo_mark_syms(const EngineMemo *m); /* for the collector */

/* Parses and checks one rule's if/then; the diagnostics say where. */
Prog *rule_compile(Sym cond, Sym then, Diags *d, ParseError *perr);

#endif
