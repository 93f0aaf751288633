/*
 * rulesets.h - the initial sets shipped inside the binary (generated from
 * rulesets/NAME.nomic and NAME.sugar by tools/embed.sh) and the lookup of --ruleset NAME|FILE.
 */
#ifndef NOMIC_RULESETS_H
#define NOMIC_RULESETS_H

typedef struct ShippedSet {
    const char *name;
    const char *text;
    const char *sugar;  /* its sugar table (move_sugar.h), or NULL */
} ShippedSet;

extern const ShippedSet shipped_sets[]; /* ends with {0, 0} */

/* The text of a shipped set or of a file, malloc'd; NULL if neither.
 * *label receives the shipped name or the path (not owned); *sugar (if
 * sugar is not NULL) the set's sugar, malloc'd, or NULL: a file's is the
 * file beside it named .sugar instead of .nomic. */
char *ruleset_load(const char *name_or_path, const char **label, char **sugar);

#endif
