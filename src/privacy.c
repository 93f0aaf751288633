/*
 * privacy.c - who may see what (privacy.h).
 */
#include "privacy.h"

#include <string.h>

bool attr_is_private(Sym private_attrs, Sym name)
{
    if (private_attrs == SYM_EMPTY) return false;
    const char *s = sym_text(private_attrs), *n = sym_text(name);
    size_t nl = sym_len(name);
    while (*s) {
        while (*s == ' ' || *s == ',' || *s == '\t' || *s == '\n') s++;
        const char *w = s;
        while (*s && *s != ' ' && *s != ',' && *s != '\t' && *s != '\n') s++;
        if ((size_t)(s - w) == nl && memcmp(w, n, nl) == 0) return true;
    }
    return false;
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
