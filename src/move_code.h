/*
 * move_code.h - the Mechanics' check of the rule code a message's moves
 * carry, before the rules see them.
 *
 * A set names the move attributes that hold rule code in `codeAttributes`
 * on its engineSettings (every engineSettings object counts, as for
 * privateAttributes): a word `A/B` is a rule's condition A and verb list
 * B, checked together (the variables A binds are known in B); a lone word
 * is one text, a condition or a verb list, as `nomic check` reads a bare
 * text.  Each value is parsed and checked as `nomic check` does
 * (src/lang_check.c through rule_compile) and its errors and warnings are
 * collected.  Nothing here decides anything: the notes go to the sender
 * and into the API's answer, and whether such a move may be adopted stays
 * with the rules.
 *
 * Ownership: a CodeNotes owns its array; code_notes_free releases it.
 */
#ifndef NOMIC_MOVE_CODE_H
#define NOMIC_MOVE_CODE_H

#include <stdbool.h>

#include "objfmt.h"
#include "pool.h"

/* At most this many notes are kept for one message; the rest are counted. */
#define MAX_CODE_NOTES 100
/* At most this many words of codeAttributes are read (the rest are
 * ignored): each is a parse of every move, and the rules may set it. */
#define MAX_CODE_ATTRIBUTES 16

typedef struct CodeNote {
    int move;       /* 1 for the message's first move */
    Sym attr;       /* the attribute the note is about */
    bool error;     /* false: a warning */
    int line, col;  /* in that attribute's value */
    char msg[240];
} CodeNote;

typedef struct CodeNotes {
    CodeNote *n;
    int len, cap;
    int errors, warnings; /* all of them, those left out included */
    long first_move;      /* the objectId of the message's first move (its moveBatch); 0 before they exist */
} CodeNotes;

/* Checks the code attributes (as the pool's engineSettings name them) of
 * every move of doc, adding to out. */
void code_check_moves(const Pool *p, const FmtDoc *doc, CodeNotes *out);
/* The answer to the sender: one line per note, malloc'd; NULL when there
 * is none. */
char *code_notes_text(const CodeNotes *c);
/* A JSON array of the notes; each names its move's objectId (moveId) and
 * the message's moveBatch once first_move is known. */
void code_notes_json(Buf *b, const CodeNotes *c);
/* The same for the journal, one note a line ("[\n{...},\n{...}\n]"), so
 * that a reader may leave out, note by note, those about an attribute it
 * may not see (views.c); NULL when there is no note.  malloc'd. */
char *code_notes_journal(const CodeNotes *c);
void code_notes_free(CodeNotes *c);

#endif
