/*
 * pool_shape.c - the shapes of a pool's objects: found, made, held,
 * dropped and freed (pool_shape.h).
 */
#include "pool_shape.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The shapes one led to last, by the name gained or lost: apart from the
 * names, which a lookup reads, and made at its first transition. */
#define SHAPE_NEXT 4
struct ShapeNext {
    struct {
        Sym name;
        bool add;
        Shape *to;
    } e[SHAPE_NEXT];
};

/* Unheld shapes kept beyond the held ones before they are swept. */
#define SHAPES_UNHELD_SLACK 4096

static uint64_t name_term(Sym name) { return hash_mix((uint64_t)name + 0x9e3779b97f4a7c15ULL); }

/* Are sh's names those of from with `name` put in at i (add), or with
 * the one at i taken out? */
static bool shape_is(const Shape *sh, const Shape *from, uint32_t i, Sym name, bool add)
{
    if (add) {
        if (sh->n != from->n + 1 || sh->names[i] != name) return false;
        for (uint32_t k = 0; k < i; k++)
            if (sh->names[k] != from->names[k]) return false;
        for (uint32_t k = i; k < from->n; k++)
            if (sh->names[k + 1] != from->names[k]) return false;
        return true;
    }
    if (sh->n + 1 != from->n) return false;
    for (uint32_t k = 0; k < i; k++)
        if (sh->names[k] != from->names[k]) return false;
    for (uint32_t k = i; k < sh->n; k++)
        if (sh->names[k] != from->names[k + 1]) return false;
    return true;
}

static void table_put(Shape **t, size_t cap, Shape *sh)
{
    size_t mask = cap - 1, k = sh->hash & mask;
    while (t[k]) k = (k + 1) & mask;
    t[k] = sh;
}

static void table_grow(Pool *p)
{
    size_t cap = p->shapes_cap ? 2 * p->shapes_cap : 64;
    Shape **t = xcalloc(cap, sizeof *t);
    for (size_t k = 0; k < p->shapes_cap; k++)
        if (p->shapes[k]) table_put(t, cap, p->shapes[k]);
    free(p->shapes);
    p->shapes = t;
    p->shapes_cap = cap;
}

static Shape *shape_new(Pool *p, size_t k, uint32_t n, uint64_t h)
{
    /* the names, then the places of their index entries (pool.c) */
    Shape *sh = xmalloc(sizeof *sh + 2 * (size_t)n * sizeof *sh->names);
    memset(sh, 0, sizeof *sh);
    sh->n = n;
    sh->hash = h;
    p->shapes[k] = sh;
    p->nshapes++;
    p->shapes_unheld++;
    return sh;
}

Shape *shape_none(Pool *p)
{
    if (p->shape_none) return p->shape_none;
    if ((p->nshapes + 1) * 2 > p->shapes_cap) table_grow(p);
    size_t mask = p->shapes_cap - 1, k = 0;
    while (p->shapes[k]) k = (k + 1) & mask;
    p->shape_none = shape_new(p, k, 0, 0);
    shape_hold(p, p->shape_none); /* the pool's own: never swept */
    return p->shape_none;
}

/* The shape from's names lead to, found in the table or made. */
static Shape *shape_find(Pool *p, const Shape *from, uint32_t i, Sym name, bool add)
{
    uint32_t n = add ? from->n + 1 : from->n - 1;
    if (n == 0) return shape_none(p);
    uint64_t h = add ? from->hash + name_term(name) : from->hash - name_term(from->names[i]);
    if ((p->nshapes + 1) * 2 > p->shapes_cap) table_grow(p);
    size_t mask = p->shapes_cap - 1, k = h & mask;
    for (; p->shapes[k]; k = (k + 1) & mask)
        if (p->shapes[k]->hash == h && shape_is(p->shapes[k], from, i, name, add)) return p->shapes[k];
    Shape *sh = shape_new(p, k, n, h);
    memcpy(sh->names, from->names, (size_t)i * sizeof *sh->names);
    if (add) {
        sh->names[i] = name;
        memcpy(sh->names + i + 1, from->names + i, (size_t)(from->n - i) * sizeof *sh->names);
    } else {
        memcpy(sh->names + i, from->names + i + 1, (size_t)(n - i) * sizeof *sh->names);
    }
    return sh;
}

/* The shared shape from's names lead to.  The memo of transitions comes
 * first: a move gains the same names in the same order as the move before
 * it.  (An object's own shape keeps no memo.) */
static Shape *shape_next(Pool *p, Shape *from, uint32_t i, Sym name, bool add)
{
    if (!add) name = from->names[i];
    ShapeNext *m = from->next;
    for (int k = 0; m && k < SHAPE_NEXT; k++)
        if (m->e[k].to && m->e[k].name == name && m->e[k].add == add) return m->e[k].to;
    Shape *to = shape_find(p, from, i, name, add);
    if (from->room) return to;
    if (!m) m = from->next = xcalloc(1, sizeof *m);
    memmove(m->e + 1, m->e, (SHAPE_NEXT - 1) * sizeof *m->e);
    m->e[0].name = name;
    m->e[0].add = add;
    m->e[0].to = to;
    return to;
}

static bool shape_names_are(const Shape *sh, const Attr *a, uint32_t n)
{
    if (sh->n != n) return false;
    for (uint32_t k = 0; k < n; k++)
        if (sh->names[k] != a[k].name) return false;
    return true;
}

Shape *shape_of_attrs(Pool *p, const Attr *a, uint32_t n)
{
    Shape *sh = p->shape_made;
    if (!sh || !shape_names_are(sh, a, n)) {
        /* the walk holds nothing, so no sweep frees a shape under it */
        sh = shape_none(p);
        for (uint32_t k = 0; k < n; k++) sh = shape_next(p, sh, k, a[k].name, true);
        p->shape_made = sh;
    }
    shape_hold(p, sh);
    return sh;
}

/* from's names with the change, in sh (room for them all). */
static void names_changed(Shape *sh, const Shape *from, uint32_t i, Sym name, bool add)
{
    uint32_t n = add ? from->n + 1 : from->n - 1;
    if (sh != from) memcpy(sh->names, from->names, (size_t)i * sizeof *sh->names);
    if (add) {
        memmove(sh->names + i + 1, from->names + i, (size_t)(from->n - i) * sizeof *sh->names);
        sh->names[i] = name;
        sh->hash = from->hash + name_term(name);
    } else {
        sh->hash = from->hash - name_term(from->names[i]);
        memmove(sh->names + i, from->names + i + 1, (size_t)(n - i) * sizeof *sh->names);
    }
    sh->n = n;
}

/* An object's own shape for from's names with the change: from itself
 * when only that object holds it (grown as a list of attributes grows,
 * by half), else a copy. */
static Shape *own_shape(Shape *from, uint32_t i, Sym name, bool add)
{
    uint32_t n = add ? from->n + 1 : from->n - 1;
    if (from->room && from->refs == 1 && n <= from->room) {
        names_changed(from, from, i, name, add);
        return from;
    }
    uint32_t room = n + n / 2;
    Shape *sh;
    if (from->room && from->refs == 1) {
        sh = xrealloc(from, sizeof *sh + (size_t)room * sizeof *sh->names);
        sh->room = room;
        names_changed(sh, sh, i, name, add);
        return sh;
    }
    sh = xmalloc(sizeof *sh + (size_t)room * sizeof *sh->names);
    memset(sh, 0, sizeof *sh);
    sh->room = room;
    names_changed(sh, from, i, name, add);
    return sh;
}

void shape_change(Pool *p, Shape **at, uint32_t i, Sym name, bool add)
{
    Shape *from = *at;
    uint32_t n = add ? from->n + 1 : from->n - 1;
    if (n > SHAPE_SHARED_MAX && from->room && from->refs == 1) {
        *at = own_shape(from, i, name, add); /* changed in place: held as before */
        return;
    }
    Shape *to = n > SHAPE_SHARED_MAX ? own_shape(from, i, name, add) : shape_next(p, from, i, name, add);
    shape_hold(p, to);
    shape_drop(p, from);
    *at = to;
}

void shape_hold(Pool *p, Shape *sh)
{
    if (sh->refs++ == 0 && !sh->room) p->shapes_unheld--;
}

/* Frees the unheld shapes, and lays the table out again without them. */
static void sweep(Pool *p)
{
    if (!p->shapes_unheld) return;
    Shape **t = xcalloc(p->shapes_cap, sizeof *t);
    for (size_t k = 0; k < p->shapes_cap; k++) { /* no memo may lead to a shape freed */
        Shape *sh = p->shapes[k];
        for (int j = 0; sh && sh->refs && sh->next && j < SHAPE_NEXT; j++)
            if (sh->next->e[j].to && !sh->next->e[j].to->refs) sh->next->e[j].to = NULL;
    }
    for (size_t k = 0; k < p->shapes_cap; k++) {
        Shape *sh = p->shapes[k];
        if (!sh) continue;
        if (sh->refs) {
            table_put(t, p->shapes_cap, sh);
        } else {
            if (sh == p->shape_made) p->shape_made = NULL;
            free(sh->next);
            free(sh);
        }
    }
    free(p->shapes);
    p->shapes = t;
    p->nshapes -= p->shapes_unheld;
    p->shapes_unheld = 0;
}

void shape_drop(Pool *p, Shape *sh)
{
    if (--sh->refs) return;
    if (sh->room) { /* an object's own: in no table */
        free(sh);
        return;
    }
    size_t unheld = ++p->shapes_unheld;
    if (unheld > p->nshapes - unheld + SHAPES_UNHELD_SLACK) sweep(p);
}

void shapes_mark(Pool *p)
{
    sweep(p);
    for (size_t k = 0; k < p->shapes_cap; k++) {
        const Shape *sh = p->shapes[k];
        if (!sh) continue;
        for (uint32_t j = 0; j < sh->n; j++) sym_mark(sh->names[j]);
    }
}

void shapes_free(Pool *p)
{
    for (size_t k = 0; k < p->shapes_cap; k++) {
        if (!p->shapes[k]) continue;
        free(p->shapes[k]->next);
        free(p->shapes[k]);
    }
    free(p->shapes);
    p->shapes = NULL;
    p->shape_none = p->shape_made = NULL;
    p->shapes_cap = p->nshapes = p->shapes_unheld = 0;
}
