/*
 * pool_shape.h - the shapes of a pool's objects (pool.h, Shape): the
 * sorted names of an object's attributes, kept once per pool for all the
 * objects that have the same ones.  A vote's eleven names were 44 of the
 * 88 bytes its attributes took; now the vote keeps its eleven values and a
 * pointer.  Only pool.c uses this.
 *
 * A shape is found from the one an object had and the name it gains or
 * loses, by a hash of the set of names (the sum of a hash per name, so
 * the new set's is the old one's plus or minus one term).  A shape no
 * object holds is not freed at once: the next object passes through the
 * same shapes as its attributes are set one by one (a move made whole
 * walks them without holding them, or takes the last one it was given).
 * It is freed at
 * the next collection of texts (whose names it would otherwise hold), or
 * once such shapes outnumber the held ones by a margin, so that a rule
 * setting attributes in every order cannot pile them up.
 *
 * An object of more than SHAPE_SHARED_MAX names has a shape of its own,
 * in no table, changed in place while it alone holds it (a copy of the
 * object, for the undo's checks, makes the next change copy it): a
 * shared shape per name gained would copy the names so far at each one,
 * and a rule setting 200,000 names on one object took 24 s that way.
 */
#ifndef NOMIC_POOL_SHAPE_H
#define NOMIC_POOL_SHAPE_H

#include "pool.h"

/* The shape of no attributes, which every object starts from (the pool
 * holds it: it is never freed before the pool). */
Shape *shape_none(Pool *p);

/* Moves the object whose shape is *at to the shape of its names with
 * `name` put in at i (add), or with the name at i taken out (!add). */
void shape_change(Pool *p, Shape **at, uint32_t i, Sym name, bool add);
/* The shape of the names of a[0..n) (sorted, distinct, n at most
 * SHAPE_SHARED_MAX), held for the caller: where n shape_changes from
 * shape_none lead, without holding each shape on the way.  An object made
 * whole (pool_create_with) takes it: a game's moves come with the same
 * names, one after another, and the last one given is tried first. */
Shape *shape_of_attrs(Pool *p, const Attr *a, uint32_t n);
void shape_hold(Pool *p, Shape *sh);
void shape_drop(Pool *p, Shape *sh);
/* Frees the shapes no object holds, and marks the names of the others
 * for the collector of texts (value.h). */
void shapes_mark(Pool *p);
/* Frees every shape (the pool's objects are gone). */
void shapes_free(Pool *p);

#endif
