/*
 * move_prose.h - the moves of a mail among its prose.  People write moves in
 * the middle of greetings, explanations and sign-offs; the Mechanics read
 * each line the mail reader kept (mail_in.h) as one of:
 *
 *   - a sugar move: its first word is a pattern's first word and the line
 *     matches a pattern of the game's sugar (in any case: `vote 12 for`);
 *   - a move in the object format: a block of `name: value` lines,
 *     unindented, each name beginning with a lower-case letter
 *     (`subtype: vote`; "PS: ..." and "Tel: ..." are prose), with the
 *     indented lines that go on a value and comments, running to a blank
 *     line, a `---`, a sugar line or any other line;
 *   - an error: a line whose first word is a pattern's first word written
 *     as the table writes it (`VOTE 44 yes`) but which matches no pattern,
 *     or an object block that does not parse;
 *   - moves in sentences: the phrases of the table (move_sentences.c),
 *     "I hereby vote FOR on 8123", anywhere in a line;
 *   - prose, set aside: every other line; a line an +aside phrase
 *     matched is set aside with its reason ("conditional votes are not
 *     supported").
 *
 * Errors name the line by its number in the mail, quote it and say what
 * was expected; one error refuses the whole message (its moves belong
 * together).
 */
#ifndef NOMIC_MOVE_PROSE_H
#define NOMIC_MOVE_PROSE_H

#include <stdbool.h>

#include "move_sugar.h"
#include "util.h"

typedef struct ProseRead {
    Buf moves;   /* the moves in the object format, each ending with ---, in the mail's order */
    int nmoves;
    Buf aside;   /* the lines set aside: "line N: TEXT\n" each, or "line N: TEXT\tWHY\n" when
                  * the table says why (+aside: an act the game does not support) */
    int naside;
    int nreasons; /* lines set aside with a reason */
} ProseRead;

/* A mail's text as its reader kept it (mail_in.h): its lines (line i is
 * line lines[i] of the mail), the quoted lines apart (their text after
 * the > marks, numbered alike), and its Subject. */
typedef struct MailText {
    const char *text;
    const int *lines;
    int nlines;
    const char *quotes; /* or NULL */
    const int *qlines;
    int nquotes;
    const char *subject; /* or NULL */
} MailText;

/* Reads the text; false with a message in err at the first error.  With
 * a table of phrases (move_sentences.c), a quoted line gives context to
 * the lines after it, and the Subject is read when the body holds no move
 * and the table says so (+subject). */
bool prose_read(const Sugar *s, const MailText *m, ProseRead *r, Buf *err);
void prose_free(ProseRead *r);

#endif
