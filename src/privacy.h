/*
 * privacy.h - who may see what.  A game's rules name private attributes
 * (engineSettings' privateAttributes, a list of words); a private value
 * shows only to the object's owner: the sender of a move (moveSender), or
 * the address an object names as defaultEmail.  Everything that prints
 * objects, moves, events or traces asks here: the command line, the
 * server, the views of the journal, the traces and the messages the rules
 * send (which are publications, and never show a private value).
 */
#ifndef NOMIC_PRIVACY_H
#define NOMIC_PRIVACY_H

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

#endif
