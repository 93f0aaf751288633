/*
 * rulesets.c - resolves --ruleset: a shipped name first, else a file path.
 */
#include "rulesets.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static char *sugar_beside(const char *path)
{
    size_t n = strlen(path);
    if (n < 6 || strcmp(path + n - 6, ".nomic") != 0) return NULL;
    char *s = xmalloc(n + 1);
    memcpy(s, path, n - 6);
    strcpy(s + n - 6, ".sugar");
    char *text = read_file(s, NULL);
    free(s);
    return text;
}

char *ruleset_load(const char *name_or_path, const char **label, char **sugar)
{
    for (const ShippedSet *s = shipped_sets; s->name; s++) {
        if (strcmp(s->name, name_or_path) == 0) {
            *label = s->name;
            if (sugar) *sugar = s->sugar ? xstrdup(s->sugar) : NULL;
            return xstrdup(s->text);
        }
    }
    *label = name_or_path;
    char *text = read_file(name_or_path, NULL);
    if (sugar) *sugar = text ? sugar_beside(name_or_path) : NULL;
    return text;
}
