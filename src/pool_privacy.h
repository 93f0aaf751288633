/*
 * pool_privacy.h - who may see what.  A game's rules name private attributes
 * (engineSettings' privateAttributes, a list of words); a private value
 * shows only to the object's owner: the sender of a move (moveSender), or
 * the address an object names as defaultEmail.  Everything that prints
 * objects, moves, events or traces asks here: the command line, the
 * server, the views of the journal, the traces and the messages the rules
 * send (which are publications, and never show a private value).
 */
#ifndef NOMIC_POOL_PRIVACY_H
#define NOMIC_POOL_PRIVACY_H

#include <stdbool.h>

#include "pool.h"

/* Is name one of the words of the list private_attrs? */
bool attr_is_private(Sym private_attrs, Sym name);

/* Who is looking: a player (address), or the public (address NULL). */
typedef struct Viewer {
    Sym private_attrs;   /* the game's engineSettings.privateAttributes */
    const char *address;
} Viewer;

/* Does v see every attribute of what `owner` sent or owns? */
bool viewer_sees_all(const Viewer *v, const char *owner);
/* For fmt_print_obj and fmt_json_obj (ud: a Viewer): hides a private
 * attribute from all but the object's owner. */
bool viewer_hides(const Obj *o, Sym name, void *ud);
/* The same for a publication (ud: a const Sym *, the private_attrs):
 * hidden from everyone, the owner too. */
bool publication_hides(const Obj *o, Sym name, void *ud);

/* The viewer-scoped state every dry run a request triggers plays on
 * (`try`, a report, the "no effect" explanation, the scam search): sets
 * to "" every private value of every object v does not own, so that
 * whatever the rules or a goal compute (attribute() of a glued name,
 * word() over privateAttributes, a variable bound to the value, an
 * indexed match on it) reads "" as the public does.  Blanking the pool,
 * rather than hiding values in the evaluator's reads, leaves no path
 * uncovered: indexes, the state hash and every builtin see the same
 * state.  The caller blanks under an undo mark (p->logging on) and rolls
 * back to it; pool_set keeps the indexes and the hash true meanwhile.
 * The private attributes are read from the pool itself, not from an
 * engine that may not have seen the latest settings.
 * Returns how many values it blanked. */
size_t privacy_blank(Pool *p, const char *viewer);
/* The private attributes as the pool holds them now: the privateAttributes
 * of every engineSettings object, or "" (the engine's too: a set loaded
 * on another, --ruleset favor --ruleset mathflag, brings its own settings
 * object, and what either calls private stays private). */
Sym privacy_attributes(const Pool *p);

#endif
