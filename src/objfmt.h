/*
 * objfmt.h - the text format of objects (.nomic files, move bodies, show).
 *
 * An object is a block of `name: value` lines; blocks are separated by
 * blank lines or a line `---`; a line indented more than the block's first
 * line continues the previous value (joined with a newline, each line
 * trimmed); a line whose first non-blank character is `#` is a comment; a
 * value that is one double-quoted string (escapes \" \\ \n \t) is that text.
 * `objectId:` is optional and, where present, ascending.
 *
 * Ownership: fmt_read fills a FmtDoc that the caller releases with
 * fmt_doc_free.  Values and names are interned Syms.
 */
#ifndef NOMIC_OBJFMT_H
#define NOMIC_OBJFMT_H

#include <stdbool.h>

#include "pool.h"
#include "util.h"

typedef struct SrcPos {
    int line; /* 1-based line in the source */
    int col;  /* 1-based column of the first character of this value line */
} SrcPos;

typedef struct FmtAttr {
    Sym name;
    Sym value;
    bool quoted;   /* the value was a quoted string: positions are approximate */
    int npos;      /* one SrcPos per line of the value: */
    SrcPos pos0;   /* the first line's */
    SrcPos *more;  /* a value of several lines: all of them (npos); else NULL */
} FmtAttr;

typedef struct FmtObj {
    int line;      /* line of the block's first attribute */
    long objectId; /* 0 when the block gave none */
    int n, cap;
    FmtAttr *attrs;
} FmtObj;

typedef struct FmtDoc {
    int n, cap;
    FmtObj *objs;
} FmtDoc;

/* Parses text; on error writes "FILE:LINE:COL: message" to err and returns
 * false (doc holds what was read before the error). */
bool fmt_read(const char *text, size_t len, const char *fname, FmtDoc *doc, Buf *err);
void fmt_doc_free(FmtDoc *doc);
const FmtAttr *fmt_attr(const FmtObj *o, Sym name);

/* Maps a (value line, column) position inside attr's value to the file. */
SrcPos fmt_map(const FmtAttr *a, int vline, int vcol);

/* Printing.  `hide` (may be NULL) says which attribute names to leave out. */
typedef bool (*FmtHide)(const Obj *o, Sym name, void *ud);
void fmt_print_value(Buf *b, Sym v);
void fmt_print_obj(Buf *b, const Obj *o, FmtHide hide, void *ud);
/* JSON: {"objectId":"1","type":...}; strings escaped. */
void json_string(Buf *b, const char *s, size_t n);
void fmt_json_obj(Buf *b, const Obj *o, FmtHide hide, void *ud);
/* Attribute names in print order: objectId, type, ruleOrder, if, then,
 * then the rest by byte order.  Returns a malloc'd array of obj_n(o) indexes. */
uint32_t *fmt_order(const Obj *o);

#endif
