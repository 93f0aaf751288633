/*
 * move_code.c - the Mechanics' check of the rule code in moves
 * (move_code.h): which attributes, read from engineSettings; each value
 * parsed and checked as `nomic check` does; the notes written out for the
 * sender and for the API.
 */
#include "move_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_builtins.h"
#include "lang_check.h"

/* The words of every engineSettings object's codeAttributes, joined (NULL:
 * none).  A copy, not the texts themselves: checking a word parses code,
 * which makes texts, and a short text lives inside the table that then
 * grows. */
static char *code_attributes(const Pool *p)
{
    Sym name = sym_cstr("codeAttributes");
    Buf b = {0};
    const IdSet *settings = pool_lookup(p, SYM_type, SYM_engineSettings); /* once: the loop reads it at each step */
    IDSET_FOREACH (settings, oid) {
        Sym v = obj_get(pool_get(p, oid), name);
        if (v == SYM_EMPTY) continue;
        if (b.len) buf_putc(&b, ' ');
        buf_add(&b, sym_text(v), sym_len(v));
    }
    return b.len ? buf_take(&b) : NULL;
}

static void add_note(CodeNotes *c, int move, Sym attr, bool error, int line, int col, const char *msg)
{
    if (error) c->errors++;
    else c->warnings++;
    if (c->len >= MAX_CODE_NOTES) return;
    if (c->len == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 8;
        c->n = xrealloc(c->n, (size_t)c->cap * sizeof *c->n);
    }
    CodeNote *n = &c->n[c->len++];
    *n = (CodeNote){move, attr, error, line, col, ""};
    snprintf(n->msg, sizeof n->msg, "%s", msg);
}

static bool all_verbs(const Node *n)
{
    if (n->kind == N_AND) return all_verbs(n->kid[0]) && all_verbs(n->kid[1]);
    return n->kind == N_CALL && builtins[n->bi].verb;
}

/* The notes of one parsed text (prog NULL: pe says why it does not
 * parse); ca and ta name the attributes of its condition and its verbs. */
static void note_prog(CodeNotes *c, int move, Prog *prog, const ParseError *pe, Sym ca, Sym ta)
{
    if (!prog) {
        add_note(c, move, pe->part == PART_THEN ? ta : ca, true, pe->line, pe->col, pe->msg);
        return;
    }
    Diags d = {0};
    check_prog(prog, &d);
    for (int i = 0; i < d.n; i++)
        add_note(c, move, d.d[i].part == PART_THEN ? ta : ca, d.d[i].error, d.d[i].line, d.d[i].col, d.d[i].msg);
    diags_free(&d);
    prog_free(prog);
}

/* The attribute of o named by the text w[0..n), or NULL.  The words are
 * compared as texts rather than interned: most moves have none of them,
 * and every move is checked. */
static const FmtAttr *attr_named(const FmtObj *o, const char *w, size_t n)
{
    for (int i = 0; i < o->n; i++) {
        Sym s = o->attrs[i].name;
        if (sym_len(s) == n && memcmp(sym_text(s), w, n) == 0) return &o->attrs[i];
    }
    return NULL;
}

/* The name and value of o's attribute named w[0..n) (none: SYM_EMPTY). */
static Sym value_named(const FmtObj *o, const char *w, size_t n, Sym *name)
{
    const FmtAttr *a = attr_named(o, w, n);
    *name = a ? a->name : SYM_EMPTY;
    return a ? a->value : SYM_EMPTY;
}

/* One word of codeAttributes on one move.  A/B: the condition A and the
 * verbs B of one rule, either of which may be absent (an amendment that
 * keeps one); A alone: a condition, or a verb list if it reads as verbs. */
static void check_word(CodeNotes *c, int move, const FmtObj *o, const char *w, size_t n)
{
    ParseError pe;
    const char *slash = memchr(w, '/', n);
    if (!slash) {
        Sym a, v = value_named(o, w, n, &a);
        if (v == SYM_EMPTY) return;
        Prog *prog = parse_rule_syms(&v, NULL, &pe);
        if (prog && all_verbs(prog->cond)) {
            prog_free(prog);
            prog = parse_rule_syms(NULL, &v, &pe);
        }
        note_prog(c, move, prog, &pe, a, a);
        return;
    }
    size_t cl = (size_t)(slash - w);
    Sym ca, ta, cond = value_named(o, w, cl, &ca), then = value_named(o, slash + 1, n - cl - 1, &ta);
    if (cond == SYM_EMPTY && then == SYM_EMPTY) return;
    /* a note names both parts, present or not */
    if (ca == SYM_EMPTY) ca = sym_intern(w, cl);
    if (ta == SYM_EMPTY) ta = sym_intern(slash + 1, n - cl - 1);
    Prog *prog = parse_rule_syms(cond ? &cond : NULL, then ? &then : NULL, &pe);
    note_prog(c, move, prog, &pe, ca, ta);
}

void code_check_moves(const Pool *p, const FmtDoc *doc, CodeNotes *out)
{
    char *words = code_attributes(p);
    for (int i = 0; words && i < doc->n; i++) {
        const char *q = words, *w;
        size_t n;
        for (int k = 0; k < MAX_CODE_ATTRIBUTES && word_next(&q, &w, &n, false); k++)
            check_word(out, i + 1, &doc->objs[i], w, n);
    }
    free(words);
}

char *code_notes_text(const CodeNotes *c)
{
    if (c->errors + c->warnings == 0) return NULL;
    Buf b = {0};
    buf_printf(&b, "The Mechanics checked the rule code in your message (codeAttributes): %d error%s, %d warning%s. "
                   "The rules, not this check, decide what becomes of it.",
               c->errors, c->errors == 1 ? "" : "s", c->warnings, c->warnings == 1 ? "" : "s");
    for (int i = 0; i < c->len; i++) {
        const CodeNote *n = &c->n[i];
        buf_printf(&b, "\nmove %d, %s, line %d, column %d: %s: %s", n->move, sym_text(n->attr), n->line, n->col,
                   n->error ? "error" : "warning", n->msg);
    }
    int left = c->errors + c->warnings - c->len;
    if (left > 0) buf_printf(&b, "\n(and %d more)", left);
    return buf_take(&b);
}

static void note_json(Buf *b, const CodeNotes *c, const CodeNote *n)
{
    buf_printf(b, "{\"move\":%d,", n->move);
    if (c->first_move) buf_printf(b, "\"moveId\":%ld,\"moveBatch\":%ld,", c->first_move + n->move - 1, c->first_move);
    buf_puts(b, "\"attribute\":");
    json_string(b, sym_text(n->attr), sym_len(n->attr));
    buf_printf(b, ",\"line\":%d,\"column\":%d,\"severity\":\"%s\",\"message\":", n->line, n->col,
               n->error ? "error" : "warning");
    json_string(b, n->msg, strlen(n->msg));
    buf_putc(b, '}');
}

void code_notes_json(Buf *b, const CodeNotes *c)
{
    buf_putc(b, '[');
    for (int i = 0; i < c->len; i++) {
        if (i) buf_putc(b, ',');
        note_json(b, c, &c->n[i]);
    }
    buf_putc(b, ']');
}

char *code_notes_journal(const CodeNotes *c)
{
    if (!c->len) return NULL;
    Buf b = {0};
    buf_puts(&b, "[\n");
    for (int i = 0; i < c->len; i++) {
        if (i) buf_puts(&b, ",\n");
        note_json(&b, c, &c->n[i]);
    }
    buf_puts(&b, "\n]");
    return buf_take(&b);
}

void code_notes_free(CodeNotes *c)
{
    free(c->n);
    *c = (CodeNotes){0};
}
