/*
 * lang_deps.h - what a rule's condition reads, so that the engine tests a rule
 * again only when a change since its last test could have made it true.
 *
 * A condition is a conjunction C1 & ... & Cn.  A conjunct that is a plain
 * exists(M) is positive: its solutions come from objects matching M.  Any
 * other conjunct (a negation, a count, a comparison, an |) is a filter over
 * the variables bound before it and over the objects its own matches read.
 *
 * Every match in the condition becomes a Read: the type its candidates are
 * limited to (a type=="c" key), if any, and the attribute names it asks
 * them for.  A change to object o is relevant to a Read when o has or had
 * that type and the change creates o, deletes o or sets one of those names.
 *
 * Why skipping is exact: if a rule had no solution in state S and has one in
 * a later state S', some change between them is relevant to one of its
 * Reads, for otherwise every object of that solution answers every question
 * the condition asks exactly as it did in S.  If no change was relevant to a
 * filter's Read, the new solution must take, for some positive Ci, an object
 * changed relevantly to Ci's Read.  So the engine
 *   - skips a rule found false when no relevant change happened since;
 *   - evaluates it in full when a filter's Read saw one;
 *   - otherwise proves it with only the changed objects as Ci's candidates
 *     ("seeds": those that, when the engine takes the change, still exist
 *     and have Ci's literal keys, such as subtype=="vote"; one that gets
 *     them later does so by a change of its own), Ci first and the other conjuncts after it in their order,
 *     and runs the full evaluation (which picks the lowest-id solution) only
 *     when that finds one.
 * Proving Ci first finds the same solutions only when every conjunct before
 * Ci that mentions a variable of Ci has it bound by then, Ci uses the
 * variables bound before it only as keys (attr == %v), and those shared
 * variables are only ever compared (the text of "5" and "5.0" may differ);
 * `seedable` says where that holds.
 *
 * When a test finds that C1 (a positive conjunct) has no solution at all,
 * only a change relevant to C1 can make the rule true: changes to the
 * filters and to later conjuncts are ignored until then (first_empty in
 * engine.c), which spares the many rules that wait for an object of a type
 * that is seldom there (a completed vote, a passed proposal).
 *
 * A condition that reads the generator, or an attribute named by a value
 * (`attribute()`), is tested on every pass.  One that
 * reads the clock (`timed`) is tested again whenever the event's time
 * differs from its last test, and in full after any relevant change; the
 * timers a skipped test would have set are those of its last test, since it
 * would take the same path.  Unless it reads the clock through timeGE
 * alone and its last test found it false: then it stays false until the
 * clock reaches the earliest timeGE(t) that test found false, since the
 * clock only goes forward and a timeGE once true stays true (a vote's
 * rule waits for its close, not for every event before it).
 */
#ifndef NOMIC_LANG_DEPS_H
#define NOMIC_LANG_DEPS_H

#include <stdbool.h>

#include "lang_parse.h"
#include "pool.h"

/* attr == "literal": a key every candidate must have. */
typedef struct ConstKey {
    Sym name, value; /* value canonical, never "" */
} ConstKey;

typedef struct Read {
    Sym type;     /* canonical type the candidates must have; SYM_EMPTY: any */
    Sym *attrs;   /* attribute names read from the candidates */
    int nattrs;
    ConstKey *consts; /* the match's literal keys (type== included), by name */
    int nconsts;
    int conj;     /* >= 0: the positive conjunct these candidates serve;
                     -1: a match inside a filter or nested in a match */
} Read;

typedef struct Deps {
    bool always;          /* test on every pass (reads the generator) */
    bool timed;           /* reads the clock */
    bool timed_other;     /* reads it otherwise than through timeGE (timeNow) */
    int nconj;
    const Node **conj;    /* the top-level conjuncts, in order */
    bool *seedable;       /* per conjunct: positive, and may be proved first */
    int nreads;
    Read *reads;
} Deps;

Deps *deps_analyse(const Prog *p);
void deps_free(Deps *d);
/* Could change c alter what read r sees? */
bool deps_relevant(const Read *r, const Change *c);
/* Does object o (NULL: gone) have every literal key of read r now? */
bool deps_may_match(const Read *r, const Obj *o);

#endif
