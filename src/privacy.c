/*
 * privacy.c - who may see what (privacy.h).
 */
#include "privacy.h"

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
