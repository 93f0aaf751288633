/*
 * rulesets.c - resolves --ruleset: a shipped name first, else a file path.
 */
#include "rulesets.h"

#include <string.h>

#include "util.h"

char *ruleset_load(const char *name_or_path, const char **label)
{
    for (const ShippedSet *s = shipped_sets; s->name; s++) {
        if (strcmp(s->name, name_or_path) == 0) {
            *label = s->name;
            return xstrdup(s->text);
        }
    }
    *label = name_or_path;
    return read_file(name_or_path, NULL);
}
