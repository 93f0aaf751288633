/*
 * move_phrase.h - phrases: the patterns of a sugar table (move_sugar.h) that
 * read sentences as people write them ("I hereby vote FOR on 8123, 8124"),
 * rather than a command that is the whole line.
 *
 * A line is cut into tokens: words ("8123", "V.J", "don't") and the marks
 * around them, each a token of its own (, ; : ! ? . ( ) [ ] { } " ' # * ~ and
 * the curly quotes).  A pattern is tokens and constructs:
 *
 *     word          the word, in any case
 *     [ ... ]       optional
 *     ( a | b c )   one of the alternatives (each a sequence)
 *     <name>        one word
 *     <name:A|B>    one of these words, in any case; gives it as written here
 *     <name:#>      a number (8123, 1.0, -2)
 *     <name...>     one or more tokens, as few as leave a match for the rest;
 *                   at the end of a pattern, up to the end of the sentence
 *     <name,...>    a list of words (<name:#,...> of numbers, <name:A|B,...>
 *                   of those words): "8123, 8124 and 8125"; one move per item
 *     <"name">      a quoted text ("..." or “...”), without its quotes
 *
 * Matching never recurses on the line: a (pattern step, token) pair that
 * failed once is not tried again, so an attempt costs at most (steps) x
 * (tokens of the sentence), and a line's attempts share a budget.
 */
#ifndef NOMIC_MOVE_PHRASE_H
#define NOMIC_MOVE_PHRASE_H

#include <stdbool.h>

#include "util.h"

/* A token of a line: [start, end) in the line; word or mark. */
typedef struct Tok {
    int start, end;
    bool word;
    bool stop; /* a mark that ends a sentence */
} Tok;

typedef struct Toks {
    Tok *t;
    int n, cap;
} Toks;

void toks_split(const char *line, int len, Toks *out);

typedef struct Phrase Phrase;

/* What a pattern takes, by name: a span of tokens [from, to), or the
 * alternative chosen; a list's items are the words of its span. */
typedef struct Capture {
    const char *name;
    int from, to;        /* -1: not taken (an optional part left out) */
    const char *alt;     /* <name:A|B>: the alternative as the table writes it */
    bool list, number;   /* <name,...>; <name:#...> */
    bool quoted;         /* <"name"> */
} Capture;

#define PHRASE_MAX_CAPTURES 16

/* Compiles a pattern (a line of the table, without its `kind:`); NULL
 * with a message in err ("column N: why"). */
Phrase *phrase_compile(const char *src, int len, Buf *err);
void phrase_free(Phrase *p);
/* The names the pattern takes, in order. */
int phrase_names(const Phrase *p, const char **names, int max);
/* Can the pattern start with this token?  (a phrase starts with words written out) */
bool phrase_may_start(const Phrase *p, const char *line, const Tok *t);
/* Does every way into the pattern start with a word written out? */
bool phrase_may_start_any(const Phrase *p);

/* Matches p at token `at` of the line: the token after the match, or -1.
 * whole: the match must run to the end of the line (marks ending a
 * sentence may be left over).  *budget is spent by each step tried;
 * at 0 every match fails. */
int phrase_match(const Phrase *p, const char *line, const Toks *ts, int at, bool whole, Capture *caps, int *ncaps,
                 long *budget);

/* A capture's text: the line from its first token to its last. */
void capture_text(const Capture *c, const char *line, const Toks *ts, Buf *out);
/* The items of a list capture, one by one: *k starts at c->from; false at the end. */
bool capture_item(const Capture *c, const char *line, const Toks *ts, int *k, Buf *out);

#endif
