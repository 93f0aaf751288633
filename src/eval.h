/*
 * eval.h - evaluation of conditions (with left-to-right backtracking) and of
 * verb lists, against the object pool.
 *
 * A condition is searched depth first: `exists` tries candidates in
 * ascending objectId, `&` proves its left side then its right side under
 * the left side's bindings, `|` yields the left side's solutions then the
 * right side's.  The first solution found is therefore the one with the
 * lexicographically lowest object ids.  Variables unbound on entry to `!`,
 * count, sum, min, max and other value contexts are local to them.
 *
 * The Ctx holds everything one event's evaluation needs: the pool, the
 * variable slots of the rule being run, the event time, the generator, the
 * message queue, and the first run-time error.  The Ctx does not own the
 * pool or the Prog.
 */
#ifndef NOMIC_EVAL_H
#define NOMIC_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "lang_parse.h"
#include "pool.h"

/* A variable's slot when it is unbound: a Sym no text ever takes.  (Not
 * UINT32_MAX, which is the immediate 2^31 - 1: a variable bound to that
 * number read as unbound.  The table of texts stops below this one,
 * value.h's SYM_NEVER.) */
#define VAR_UNBOUND SYM_NEVER

typedef struct Message {
    Sym to;    /* recipients, words separated by single spaces */
    Sym text;
} Message;

typedef struct MsgList {
    Message *m;
    size_t len, cap;
} MsgList;

/* What one event may cost (docs/limits.md).  Counted in units that do
 * not depend on the machine, so a replay reaches the same verdict
 * anywhere: work (a step of the search, a candidate visited, a value
 * computed, a byte of text or a limb of a number handled), memory (an
 * estimate in bytes of what the event adds: objects, changes, texts,
 * queued messages, states remembered for the loop check) and deliveries
 * (a queued message times its recipients).  Exceeding one trips the
 * meter: the evaluation unwinds and the engine rolls the event back.  A
 * number larger than number_bits is not a trip but a run-time error of
 * the rule computing it, as a division by zero is. */
typedef struct Meter {
    uint64_t work, work_max;
    uint64_t memory, memory_max;
    uint64_t deliveries, deliveries_max;
    uint64_t number_bits;   /* the largest number a rule may compute */
    long number_digits;     /* ... as the setting gives it */
    const char *tripped;    /* the setting exceeded (maxWork ...), or NULL */
    /* The full tests of the rules the event met for the first time,
     * charged apart under the same maxima (engine.c, first_meeting): a
     * process that ran the events before skips some of them, a fresh one
     * none, and the event's own charge above must not depend on which. */
    uint64_t first_work, first_memory;
    bool first_tripped;     /* ... and they went past a ceiling */
} Meter;

/* The choices a search made on its way to a solution, in the order it
 * met them: the id an exists took, the branch an or took.  The engine
 * keeps a rule's first solution's choices, and a later test of the rule
 * may resume from them (engine.c, test_rule): the choices before them
 * are then not tried again.  Only the condition's own search counts;
 * the searches inside !, count() and the like are not choices of it. */
#define MAX_CHOICES 32
typedef struct Choices {
    const uint32_t *from; /* resume from these (NULL: from the first) */
    int nfrom;
    int depth;            /* choice points on the current path */
    int follow;           /* leading choices of the path equal to from's */
    uint32_t at[MAX_CHOICES];
    uint32_t found[MAX_CHOICES]; /* the first solution's (set when found) */
    int nfound;           /* -1: too deep to keep */
} Choices;

typedef struct Ctx {
    Pool *pool;
    const Prog *prog;
    Sym *vars;            /* prog->nvars slots; VAR_UNBOUND when unbound */
    int *trail;           /* slots bound since, for backtracking */
    size_t trail_len, trail_cap;
    int64_t now;          /* time of the event (seconds since the epoch) */
    int64_t created;      /* time the game was made */
    bool have_timer;      /* a timeGE(t) was false during this pass ... */
    int64_t next_timer;   /* ... and this is the lowest such t */
    uint64_t *rng;        /* the game's generator state (4 words) */
    MsgList *queue;       /* queued by send/sendObject, waiting for sendNow */
    MsgList *sent;        /* handed over by sendNow during this event */
    bool halt;            /* halt() ran */
    Sym private_attrs;    /* engineSettings.privateAttributes */
    uint64_t rcpt_count;  /* ... and how many addresses it has */
    Sym rcpt_in, rcpt_out;/* the last recipient list and its normal form:
                             favor sends every announcement to the same
                             list of all players */
    Meter meter;          /* the event's budget and what it used */
    bool failed;          /* a run-time error happened, or the meter tripped */
    bool mute_texts;      /* send() and sendObject() leave out a text that cannot fail (the scam search, when nothing reads them) */
    char error[300];      /* ... and what it was */
    const Node *error_at;
    Choices *choices;     /* the condition's search keeps its choices here (NULL: not kept) */
    bool first_held;      /* the condition's first conjunct had a solution (eval_conjunction, eval_cond_goals) */
} Ctx;

void ctx_error(Ctx *cx, const Node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The meter (see Meter).  Each returns false, with cx->failed set, once the
 * budget is spent; callers stop what they were doing. */
bool meter_trip(Ctx *cx, const char *setting);
static inline bool meter_work(Ctx *cx, uint64_t units)
{
    return (cx->meter.work += units) <= cx->meter.work_max || meter_trip(cx, "maxWork");
}
static inline bool meter_memory(Ctx *cx, uint64_t bytes)
{
    return (cx->meter.memory += bytes) <= cx->meter.memory_max || meter_trip(cx, "maxMemory");
}
/* A text of n bytes about to be built: its memory and the work of writing it. */
static inline bool meter_text(Ctx *cx, size_t n)
{
    return meter_memory(cx, n + 32) && meter_work(cx, 1 + n / 64);
}
/* May a rule compute a number from operands a and b (b NULL: one operand)?
 * Checked before GMP starts: the result of +, -, *, / on rationals has
 * at most as many bits as the operands' numerators and denominators
 * together.  A run-time error at `at` when it would be too large. */
bool meter_number(Ctx *cx, const Node *at, mpq_srcptr a, mpq_srcptr b);

/* Finds the first solution of a rule's condition, given as its conjuncts
 * in order (node_conjuncts); on success the bindings stay in cx->vars.
 * Returns false when there is none or on a run-time error (cx->failed).
 * *first_held says whether the first conjunct had any solution. */
bool eval_conjunction(Ctx *cx, const Node *const *conj, int nconj, bool *first_held);
/* The goals eval_conjunction proves, made once for a condition that is
 * tested over and over (a rule's, engine.c): the same search, without
 * building them at each test. */
typedef struct CondGoals CondGoals;
CondGoals *cond_goals_new(const Node *const *conj, int nconj);
void cond_goals_free(CondGoals *g);
bool eval_cond_goals(Ctx *cx, const CondGoals *g, bool *first_held);
/* Is there a solution with conjunct `first` (an exists) limited to the
 * objects ids?  Bindings are not kept.  See lang_deps.h. */
bool eval_condition_seeded(Ctx *cx, const Node *const *conj, int nconj, int first, const ObjId *ids, int nids);
/* Runs prog->then with the current bindings. */
void eval_then(Ctx *cx);
void ctx_bind_reset(Ctx *cx); /* all variables unbound, trail empty */

/* Services for the handlers (eval_builtins.c) */
Sym eval_value(Ctx *cx, const Node *n, const Obj *cand);
bool eval_number(Ctx *cx, const Node *n, const Obj *cand, mpq_t out);
/* Calls fn(cx, obj, ud) for each object matching m (ascending id), with the
 * bindings of the object's first solution in place during the call; fn
 * returns false to stop.  Bindings made inside are undone afterwards. */
typedef bool (*MatchFn)(Ctx *cx, const Obj *o, void *ud);
void eval_each_match(Ctx *cx, const Node *m, MatchFn fn, void *ud);
ObjId eval_first_match(Ctx *cx, const Node *m);
long eval_count(Ctx *cx, const Node *m);
void eval_verbs(Ctx *cx, const Node *v, const Obj *cand);
void eval_assign(Ctx *cx, const Node *assigns, ObjId target, const Obj *cand);
/* Variable services for verbs that bind (create's objectId==%v). */
void ctx_bind(Ctx *cx, int slot, Sym value);
size_t ctx_trail_mark(const Ctx *cx);
void ctx_trail_undo(Ctx *cx, size_t mark);

void msg_push(MsgList *l, Sym to, Sym text);
void msg_truncate(MsgList *l, size_t len);
void msg_free(MsgList *l);

/* Is attribute `name` of o private (engineSettings.privateAttributes)? */

/* The game's generator (xoshiro256**, eval_builtins.c): steps the four
 * words of s and returns the next draw.  random() calls it once or more
 * (rejection); `nomic replay --strike` steps it to skip a struck event's
 * draws. */
uint64_t eval_rng_next(uint64_t *s);

#endif
