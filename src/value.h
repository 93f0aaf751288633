/*
 * value.h - the value model: every value is text, interned as a Sym.
 *
 * Invariants:
 *  - A Sym is a small integer naming one interned text; equal texts have the
 *    same Sym.  Sym 0 is the empty text "", which is also "absent".
 *  - A whole number from 0 to 2^31 - 1, written as the printing rule
 *    writes it ("42", not "042" or "42.0"), is an immediate: its Sym is
 *    SYM_IMMEDIATE plus its value, and it has no atom (ids, times, counts:
 *    two of the texts of each object).  sym_text still gives its digits,
 *    written on demand; like every text's, the pointer is good until the
 *    next collection, and not across the interning of other texts. 
 *  - Text that reads as a number (-12, 3.75, 2/5: optional minus, digits,
 *    then optionally .digits or /digits with a non-zero denominator) carries
 *    its exact rational value (GMP mpq) and a canonical Sym: the number
 *    printed by the printing rule (integer, else exact decimal, else p/q).
 *    Two numeric texts are equal as values iff their canonical Syms are
 *    equal, so "5" and "5.0" index and compare alike.
 *  - Interned texts live until the collector frees them or value_shutdown();
 *    callers never free them.  The collector (sym_gc_*) frees the texts
 *    nobody marked: it runs between events, when the only holders of Syms
 *    are the pool and the engine, which mark theirs (game.c).  A freed Sym
 *    may be reused for another text.
 */
#ifndef NOMIC_VALUE_H
#define NOMIC_VALUE_H

#include <gmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t Sym;

#define SYM_IMMEDIATE 0x80000000u
/* The one Sym below the immediates that no text takes (atom_new stops
 * short of it): a mark for "no value here" that is never a value. */
#define SYM_NEVER (SYM_IMMEDIATE - 1)

enum {
    SYM_EMPTY = 0, /* "" */
    SYM_T,         /* "T" */
    SYM_F,         /* "F" */
    SYM_type,
    SYM_objectId,
    SYM_ruleOrder,
    SYM_if,
    SYM_then,
    SYM_runType,
    SYM_engineSettings,
    SYM_noRestart,
    SYM_evaluation,
    SYM_maxSteps,
    SYM_privateAttributes,
    SYM_move,
    SYM_moveSender,
    SYM_moveTimeStamp,
    SYM_moveBatch,
    SYM_rule,
    SYM_shadow,
    SYM_defaultEmail,
    SYM_moveIndex,
    SYM_PREDEFINED_COUNT
};

void value_init(void);     /* idempotent */
void value_shutdown(void); /* frees every interned text */

/* The interned texts are a table's: the process's, unless the thread uses
 * another.  A server of many games gives each game a table of its own,
 * made current by the thread that holds the game, so that games run at
 * once: a Sym means something only in the table it was made in, and the
 * collector of one table never frees what another game holds. */
typedef struct SymTable SymTable;
SymTable *sym_table_new(void);       /* the predefined texts already in */
void sym_table_free(SymTable *t);    /* every text of it */
void sym_use(SymTable *t);           /* this thread's table from now on; NULL: the process's */
SymTable *sym_current(void);         /* this thread's, or NULL: the process's */

Sym sym_intern(const char *s, size_t n);
Sym sym_cstr(const char *s);
const char *sym_text(Sym s);
size_t sym_len(Sym s);
uint64_t sym_hash(Sym s); /* stable hash of the text (not of the Sym) */
/* The text's hash under key (the state hash's version 2, docs/formats.md):
 * SipHash-2-4 of the text, kept with it; for an immediate, a keyed mix of
 * its number */
uint64_t sym_keyed_hash(Sym s, const uint64_t key[2]);
size_t sym_count(void);    /* texts interned now */

/* The collector: sym_gc_due() says whether texts have piled up since the
 * last collection, in number or in bytes; between begin and end every Sym still in use is marked
 * (a number's canonical text with it); end frees the others and returns
 * how many it freed. */
bool sym_gc_due(void);
void sym_gc_begin(void);
void sym_mark(Sym s);
size_t sym_gc_end(void);

/* Two bits a caller keeps with a text, 0 until set and again once the
 * text is collected: parses() notes there whether the text parses
 * (eval_builtins.c), so that a text checked at every event is parsed once. */
unsigned sym_memo(Sym s);
void sym_set_memo(Sym s, unsigned v); /* an immediate keeps none */

bool sym_is_number(Sym s);
/* Only for numbers.  An immediate's rational is one of a few the table
 * lends in turn: use it at once (two at a time at most). */
mpq_srcptr sym_num(Sym s);
int num_cmp(Sym a, Sym b);  /* both numbers: <0, 0, >0 */
Sym sym_canon(Sym s);      /* canonical number text, or s itself */
Sym sym_from_mpq(mpq_srcptr q);
Sym sym_from_long(long v);
bool sym_to_long(Sym s, long *out); /* whole numbers that fit in a long */
/* Whole numbers of at most 18 digits are kept without a rational: their
 * value, read with no GMP.  False for any other text (which may still be
 * a number that fits 64 bits: sym_num has it). */
bool sym_small_int(Sym s, int64_t *out);
Sym sym_from_int64(int64_t v); /* v printed, as sym_from_mpq would */
static inline bool sym_is_immediate(Sym s) { return s & SYM_IMMEDIATE; }
/* An immediate's digits into b (at least 11 bytes, NUL added): their
 * count.  For a caller that copies them at once (the state hash). */
size_t sym_digits(Sym s, char *b);

bool val_eq(Sym a, Sym b);  /* numeric if both numbers, else text */
int val_cmp(Sym a, Sym b);  /* <0, 0, >0; numeric if both numbers */
static inline bool val_true(Sym s) { return s == SYM_T; }

/* Number syntax check on raw text (no interning). */
bool text_is_number(const char *s, size_t n);
/* Prints q by the printing rule into a fresh string the caller frees. */
char *mpq_print(mpq_srcptr q);

#endif
