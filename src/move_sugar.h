/*
 * move_sugar.h - a game's sugar: the per-game table (Mechanics, not Rules) that
 * turns a line such as `VOTE 12 FOR` into a move in the object format.
 *
 * The table is text, one entry per paragraph: a pattern line starting in
 * column 1, then the move's attributes as indented `name: template` lines.
 *
 *     VOTE <propId> <vote:FOR|AGAINST>
 *         subtype: vote
 *         propId: <propId>
 *         vote: <vote>
 *
 * Pattern words: a literal word matches itself in any case; <name> one
 * word; <name:A|B> one of the alternatives in any case (the value is the
 * alternative as written in the table); <name...> one or more words, as
 * written, up to what the rest of the pattern needs (a pattern has at
 * most 64 words and three of these; a line is taken whole, however many
 * words it has).  A template is text in which <name> stands for what
 * the pattern took; an attribute whose value comes out empty is left out
 * (absent).  Lines starting with # are comments.
 *
 * A message body is read in blocks separated by blank lines or `---`: a
 * block whose first line matches a pattern is sugar, every line of it one
 * move; any other block is passed on as the object format.
 */
#ifndef NOMIC_MOVE_SUGAR_H
#define NOMIC_MOVE_SUGAR_H

#include <stdbool.h>

#include "util.h"

typedef struct Sugar Sugar;

/* Parses a table; on error writes "NAME:LINE: message" to err. */
Sugar *sugar_parse(const char *text, const char *name, Buf *err);
void sugar_free(Sugar *s);
/* One line per pattern, for messages that list what a player may write. */
void sugar_describe(const Sugar *s, Buf *out);
/* Rewrites the body's sugar lines as moves in the object format (out);
 * false with a message (line numbers of the body) when a line looks like
 * sugar but matches no pattern. */
bool sugar_expand(const Sugar *s, const char *body, Buf *out, Buf *err);

/* One line of a mail, where prose and moves mix (move_prose.h): SUGAR_MOVE
 * when it matches a pattern (the move appended to out); SUGAR_ERROR
 * when its first word is a pattern's first word written as the table
 * writes it but the line matches no pattern (err says so, with lineno
 * and the forms); SUGAR_NONE otherwise (prose). */
typedef enum { SUGAR_NONE, SUGAR_MOVE, SUGAR_ERROR } SugarLine;
SugarLine sugar_read_line(const Sugar *s, const char *line, int len, int lineno, Buf *out, Buf *err);

/* A message read with the table's phrases (move_sentences.c): the
 * context quoted lines give, a block being read, the lines that follow
 * an "as follows:".  One per message, in the order of its lines. */
typedef struct Reading Reading;
Reading *reading_new(const Sugar *s);
void reading_free(Reading *r);
/* Does the table have phrases (anything but commands)?  Does it read the Subject? */
bool sugar_has_phrases(const Sugar *s);
bool sugar_reads_subject(const Sugar *s);
/* A quoted line, its text after the > marks: a quoted: entry that
 * matches it gives the context of the lines after it. */
void reading_quoted(Reading *r, const char *line, int len);
/* Is a block open?  Then every line, blank ones too, is its. */
bool reading_in_block(const Reading *r);
/* One line.  READ_MOVES: its moves appended to out; READ_ASIDE: an
 * +aside entry matched (*why: its reason); READ_TAKEN: a block took it;
 * READ_NONE: nothing of it is a phrase. */
typedef enum { READ_NONE, READ_MOVES, READ_ASIDE, READ_TAKEN } ReadLine;
ReadLine reading_line(Reading *r, const char *line, int len, Buf *out, const char **why);
/* The message's end: a block still open is closed (its moves to out). */
bool reading_end(Reading *r, Buf *out);

/* One attribute line of a pattern, for what builds moves from the table
 * (nomic scams): its name, and the literal value when the template takes
 * nothing from the line, or the alternatives when the template is exactly
 * one <name:A|B> (neither: the value is a word the player chooses). */
typedef struct SugarAttr {
    const char *name;
    const char *literal;
    char *const *alts;
    int nalts;
} SugarAttr;
int sugar_count(const Sugar *s);
/* Pattern i's attribute lines, at most max of them; returns how many. */
int sugar_attrs(const Sugar *s, int i, SugarAttr *out, int max);

#endif
