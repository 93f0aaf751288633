/*
 * pool_privacy.c - who may see what (pool_privacy.h).
 */
#include "pool_privacy.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

bool attr_is_private(Sym private_attrs, Sym name)
{
    return private_attrs != SYM_EMPTY && words_include(sym_text(private_attrs), sym_text(name), sym_len(name), true);
}

bool viewer_sees_all(const Viewer *v, const char *owner)
{
    return v->private_attrs == SYM_EMPTY || (v->address && owner && strcmp(v->address, owner) == 0);
}

static bool owns(const Viewer *v, const Obj *o)
{
    Sym owners[2] = {obj_get(o, SYM_moveSender), obj_get(o, SYM_defaultEmail)};
    for (int i = 0; i < 2; i++)
        if (owners[i] != SYM_EMPTY && v->address && strcmp(sym_text(owners[i]), v->address) == 0) return true;
    return false;
}

bool viewer_hides(const Obj *o, Sym name, void *ud)
{
    const Viewer *v = ud;
    return attr_is_private(v->private_attrs, name) && !owns(v, o);
}

bool publication_hides(const Obj *o, Sym name, void *ud)
{
    return attr_is_private(*(const Sym *)ud, name);
}

Sym privacy_attributes(const Pool *p)
{
    const IdSet *s = pool_lookup(p, SYM_type, SYM_engineSettings);
    Buf b = {0};
    IDSET_FOREACH (s, oid) {
        Sym v = obj_get(pool_get(p, oid), SYM_privateAttributes);
        if (v == SYM_EMPTY) continue;
        if (b.len) buf_putc(&b, ' ');
        buf_add(&b, sym_text(v), sym_len(v));
    }
    Sym r = b.len ? sym_intern(buf_str(&b), b.len) : SYM_EMPTY;
    buf_free(&b);
    return r;
}

size_t privacy_blank(Pool *p, const char *viewer)
{
    Viewer v = {privacy_attributes(p), viewer};
    if (v.private_attrs == SYM_EMPTY) return 0;
    /* the names, once: a game lists a handful */
    Sym *names = NULL;
    size_t nn = 0, cap = 0;
    const char *list = sym_text(v.private_attrs), *w;
    size_t n;
    while (word_next(&list, &w, &n, true)) {
        Sym name = sym_intern(w, n);
        /* the list itself stays: the dry run must know what is private */
        if (name == SYM_privateAttributes) continue;
        GROW(names, nn, cap);
        names[nn++] = name;
    }
    size_t blanked = 0;
    IDSET_FOREACH (&p->all, id) {
        const Obj *o = pool_get(p, id);
        if (owns(&v, o)) continue;
        for (size_t k = 0; k < nn; k++)
            if (obj_get(o, names[k]) != SYM_EMPTY && pool_set(p, id, names[k], SYM_EMPTY)) blanked++;
    }
    free(names);
    return blanked;
}
