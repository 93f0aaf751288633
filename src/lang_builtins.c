/*
 * lang_builtins.c - the table of the language's verbs and functions, built from
 * lang_builtins_list.h, and the lookups on it.  No behaviour here: eval_builtins.c
 * holds what each one does.
 */
#include "lang_builtins.h"

#include <string.h>

#define KINDS(...) {__VA_ARGS__}
#define VERB(nm, lo, hi, kinds, fl, co, u, d) [BI_##nm] = {#nm, true, lo, hi, KINDS kinds, fl, co, u, d},
#define FUNC(nm, lo, hi, kinds, fl, co, u, d) [BI_##nm] = {#nm, false, lo, hi, KINDS kinds, fl, co, u, d},
const Builtin builtins[NBUILTINS] = {
#include "lang_builtins_list.h"
};
#undef VERB
#undef FUNC

int builtin_find(const char *name, size_t len)
{
    for (int i = 0; i < NBUILTINS; i++)
        if (strlen(builtins[i].name) == len && memcmp(builtins[i].name, name, len) == 0) return i;
    return -1;
}

ArgKind builtin_argkind(const Builtin *b, int i)
{
    int last = 0;
    while (last + 1 < BUILTIN_MAX_KINDS && b->kinds[last + 1] != ARG_NONE) last++;
    ArgKind k = b->kinds[i < last ? i : last];
    return k == ARG_NONE ? ARG_EXPR : k;
}

const char *cost_class_name(CostClass c)
{
    static const char *const names[NCOSTS] = {
        [COST_STEP] = "step",         [COST_MATCHES] = "matches", [COST_OBJECTS] = "objects",
        [COST_TEXT] = "text",         [COST_DIGITS] = "digits",   [COST_DELIVERIES] = "deliveries",
    };
    return (unsigned)c < NCOSTS ? names[c] : "?";
}
