/*
 * slr.h - Agora's Short Logical Ruleset (SLR) read and written.
 *
 * The SLR is the Rulekeepor's listing of the rules: a header, then
 * sections (a line of `=`, a heading, an optional note, a line of `-`),
 * each holding rules separated by lines of `-`; a rule is
 * `Rule ID/REV (Power=P)`, its title (on the same line or the next) and
 * its text, indented.  slr_parse reads that layout and also the SLR
 * flattened onto one line (seed 002), where the line break between a
 * title and its text is lost and the title is recovered by a heuristic
 * and a small table of decided titles (docs/agora.md).  slr_emit writes
 * the multi-line layout; parsing what it wrote gives back the same rules.
 *
 * What a parse guarantees of every text it keeps (and what emit relies
 * on): titles are one trimmed line; rule texts, notes, the header and the
 * footer have no trailing blanks on a line, no blank first or last line
 * and a smallest indentation of zero; none holds a separator (a run of 20
 * or more `-` or `=` standing alone) or a line that starts a rule.
 *
 * Ownership: an SlrDoc owns every string in it (malloc'd); slr_doc_free
 * releases them.  A zeroed SlrDoc is an empty document.
 */
#ifndef NOMIC_SLR_H
#define NOMIC_SLR_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef struct SlrRule {
    char *id;       /* "2557": digits, as written */
    char *revision; /* "0": digits, as written */
    char *power;    /* "3.14": digits[.digits], as written */
    char *title;    /* "" when the rule has none */
    char *text;     /* paragraphs separated by blank lines; "" when none */
    int section;    /* index in SlrDoc.sections; -1: before any section */
    int line, col;  /* where its `Rule` header is (0 when not parsed) */
} SlrRule;

typedef struct SlrSection {
    char *heading; /* "Players" */
    char *note;    /* the lines under the heading; "" when none */
} SlrSection;

typedef struct SlrDoc {
    char *header;  /* what comes before the first rule or section; may be NULL */
    char *footer;  /* a last `=` block with no rules ("END OF THE ..."); may be NULL */
    SlrSection *sections;
    int nsections, seccap;
    SlrRule *rules;
    int nrules, rulecap;
} SlrDoc;

/* Parses an SLR.  Errors and warnings are appended to err and warn as
 * lines "FILE:LINE:COL: error: ..." / "...: warning: ..." (warn may be
 * NULL).  Returns false on any error; doc then holds what could be read
 * and must still be freed.  Two rules with one ID are both kept, with a
 * warning. */
bool slr_parse(const char *text, size_t len, const char *fname, SlrDoc *doc, Buf *err, Buf *warn);
void slr_doc_free(SlrDoc *doc);

/* Appends the document in the usual multi-line layout: sections in their
 * order, the rules of each in theirs (rules with section -1 before the
 * first section). */
void slr_emit(const SlrDoc *doc, Buf *out);

/* Adding to a document being built (emit from a game): the strings are
 * copied.  slr_add_section returns the index of the section with that
 * heading, adding it when there is none. */
int slr_add_section(SlrDoc *doc, const char *heading, const char *note);
SlrRule *slr_add_rule(SlrDoc *doc, const char *id, const char *revision, const char *power, const char *title,
                      const char *text, int section);
/* The section heading of rule r, "" when it is in none. */
const char *slr_section_of(const SlrDoc *doc, const SlrRule *r);

/* Does s read as an ID or revision (digits) / a power (digits[.digits])? */
bool slr_is_digits(const char *s);
bool slr_is_power(const char *s);
/* Compares two powers numerically ("3" == "3.0" < "3.14"). */
int slr_power_cmp(const char *a, const char *b);

/* Do a and b hold the same rules in the same order (ID, revision, power
 * compared numerically, title, text, section heading)?  When not, says
 * where in why. */
bool slr_same_rules(const SlrDoc *a, const SlrDoc *b, Buf *why);

#endif
