/*
 * move_sugar_int.h - the sugar table's entries, shared by the files that read
 * it: move_sugar.c (the table, and commands: a line that is one move) and
 * move_sentences.c (phrases, quoted context, blocks: moves as people write
 * them among their sentences).
 */
#ifndef NOMIC_MOVE_SUGAR_INT_H
#define NOMIC_MOVE_SUGAR_INT_H

#include "move_phrase.h"
#include "move_sugar.h"

typedef enum { W_LIT, W_WORD, W_CHOICE, W_REST } WordKind;

typedef struct PWord {
    WordKind kind;
    char *text;   /* the literal, or the name of what is taken */
    char **alts;  /* W_CHOICE */
    int nalts;
} PWord;

typedef struct Tmpl {
    char *name, *value;
    int move;     /* which of the entry's moves (a template of several moves: --- between) */
} Tmpl;

/* A command is a whole line that starts with its first word (VOTE 12
 * FOR); the other kinds are phrases (move_phrase.h): found anywhere in a
 * sentence, a whole line, or a quoted line that gives context. */
typedef enum { E_COMMAND, E_PHRASE, E_LINE, E_QUOTED } EntryKind;

typedef struct Entry {
    EntryKind kind;
    char *pattern; /* as written, for messages */
    Phrase *ph;    /* a phrase's pattern */
    Phrase *more;  /* +more: tried again and again right after a match */
    Phrase *lines; /* +lines: each following line, whole */
    char *block;   /* +block: the name the following lines' text is given */
    Phrase **until, **head; /* +until, +head: whole lines */
    int nuntil, nhead;
    char *name;    /* +name */
    char *inside;  /* +inside: read only in the blocks of that entry */
    char *aside;   /* +aside: the line is set aside for this reason */
    char **cond;   /* +if NAME per move: made only when NAME was taken (NULL: always) */
    int nmoves;
    PWord *w;
    int nw;
    Tmpl *t;
    int nt, tcap;
} Entry;

struct Sugar {
    Entry *e;
    int n, cap;
    bool subject;  /* +subject: a mail's Subject is read when its body holds no move */
    bool phrases;  /* some entry is not a command */
};

/* Puts the move made by template k of e in out (object format, ending
 * with ---), each <name> given by value(name); nothing when a value is
 * missing for +if. */
/* Does a phrase entry take this name (its pattern, +more, +lines, +head, +block)? */
bool phrase_takes(const Entry *e, const char *name, size_t n);
typedef const char *(*ValueFn)(void *ud, const char *name, size_t n);
void sugar_emit_move(const Entry *e, int move, ValueFn value, void *ud, Buf *out);

#endif
