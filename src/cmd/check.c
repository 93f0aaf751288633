/*
 * cmd/check.c - nomic check: parse and lint rulesets or rule texts, with
 * every problem reported as FILE:LINE:COL.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_builtins.h"
#include "lang_check.h"
#include "cli.h"
#include "move_sugar.h"
#include "objfmt.h"
#include "rulesets.h"

typedef struct Tally {
    int rules, errors, warnings;
} Tally;

static void report(Tally *t, const char *file, SrcPos at, bool error, const char *what, const char *msg)
{
    printf("%s:%d:%d: %s: %s%s\n", file, at.line, at.col, error ? "error" : "warning", what, msg);
    if (error) t->errors++;
    else t->warnings++;
}

/* Checks the if/then of one rule object. */
static void check_rule(Tally *t, const char *file, const FmtObj *fo, long id)
{
    const FmtAttr *ai = fmt_attr(fo, SYM_if), *at = fmt_attr(fo, SYM_then), *ao = fmt_attr(fo, SYM_ruleOrder);
    char what[64];
    snprintf(what, sizeof what, "(rule %ld) ", id);
    SrcPos head = {fo->line, 1};
    t->rules++;
    if (!ai) report(t, file, head, true, what, "the rule has no if");
    if (!at) report(t, file, head, true, what, "the rule has no then");
    if (!ao) report(t, file, head, true, what, "the rule has no ruleOrder");
    else if (!sym_is_number(ao->value)) report(t, file, ao->pos0, true, what, "ruleOrder is not a number");
    if (!ai || !at) return;
    Diags d = {0};
    ParseError pe;
    Prog *p = rule_compile(ai->value, at->value, &d, &pe);
    if (!p) {
        const FmtAttr *a = pe.part == PART_THEN ? at : ai;
        report(t, file, fmt_map(a, pe.line, pe.col), true, what, pe.msg);
    }
    for (int i = 0; i < d.n; i++) {
        const FmtAttr *a = d.d[i].part == PART_THEN ? at : ai;
        report(t, file, fmt_map(a, d.d[i].line, d.d[i].col), d.d[i].error, what, d.d[i].msg);
    }
    diags_free(&d);
    prog_free(p);
}

static bool looks_like_objects(const char *text)
{
    for (const char *s = text; *s;) {
        while (*s == ' ' || *s == '\t') s++;
        const char *w = s;
        while (isalnum((unsigned char)*s) || *s == '_') s++;
        if (s > w && *s == ':' && !isdigit((unsigned char)*w)) return true;
        s = strchr(s, '\n');
        if (!s) break;
        s++;
    }
    return false;
}

static bool all_verbs(const Node *n)
{
    if (n->kind == N_AND) return all_verbs(n->kid[0]) && all_verbs(n->kid[1]);
    return n->kind == N_CALL && builtins[n->bi].verb;
}

/* A file holding one bare condition or verb list. */
static void check_text(Tally *t, const char *file, const char *text)
{
    ParseError pe;
    Prog *p = parse_rule(text, strlen(text), NULL, 0, &pe);
    t->rules++;
    if (!p) {
        report(t, file, (SrcPos){pe.line, pe.col}, true, "", pe.msg);
        return;
    }
    bool verbs = all_verbs(p->cond);
    if (verbs) {
        prog_free(p);
        p = parse_rule(NULL, 0, text, strlen(text), &pe);
    }
    Diags d = {0};
    check_prog(p, &d);
    for (int i = 0; i < d.n; i++)
        report(t, file, (SrcPos){d.d[i].line, d.d[i].col}, d.d[i].error, "", d.d[i].msg);
    diags_free(&d);
    prog_free(p);
}

/* FILE may also name a shipped set, which checks the built-in text. */
static void check_file(Tally *t, const char *file)
{
    const char *label;
    char *text = ruleset_load(file, &label, NULL);
    if (!text) {
        printf("%s: cannot read the file\n", file);
        t->errors++;
        return;
    }
    file = label;
    if (strncmp(text, "SQLite format 3", 15) == 0) {
        printf("%s: this is a game's database, not rules; `nomic export %s` prints its objects\n", file, file);
        t->errors++;
        free(text);
        return;
    }
    size_t n = strlen(file);
    if (n > 6 && strcmp(file + n - 6, ".sugar") == 0) {
        Buf err = {0};
        Sugar *s = sugar_parse(text, file, &err);
        if (s) {
            sugar_free(s);
        } else {
            /* "FILE:LINE:COL: why", said as check says every error */
            const char *e = buf_str(&err);
            SrcPos at = {0, 0};
            int used = 0;
            size_t fl = strlen(file);
            if (strncmp(e, file, fl) == 0 && sscanf(e + fl, ":%d:%d: %n", &at.line, &at.col, &used) == 2 && used > 0)
                report(t, file, at, true, "", e + fl + used);
            else
                printf("%s: error: %s\n", file, e), t->errors++;
        }
        buf_free(&err);
        free(text);
        return;
    }
    if (!looks_like_objects(text)) {
        check_text(t, file, text);
        free(text);
        return;
    }
    FmtDoc doc = {0};
    Buf err = {0};
    if (!fmt_read(text, strlen(text), file, &doc, &err)) {
        printf("%s\n", buf_str(&err));
        t->errors++;
    }
    Sym run = SYM_rule;
    for (int i = 0; i < doc.n; i++) {
        const FmtAttr *ty = fmt_attr(&doc.objs[i], SYM_type);
        if (ty && ty->value == SYM_engineSettings) {
            const FmtAttr *rt = fmt_attr(&doc.objs[i], SYM_runType);
            if (rt) run = rt->value;
            break;
        }
    }
    long id = 0;
    for (int i = 0; i < doc.n; i++) {
        const FmtObj *fo = &doc.objs[i];
        id = fo->objectId ? fo->objectId : id + 1;
        const FmtAttr *ty = fmt_attr(fo, SYM_type);
        if (ty && ty->value == run) check_rule(t, file, fo, id);
    }
    fmt_doc_free(&doc);
    buf_free(&err);
    free(text);
}

static int check_run(CmdCall *c)
{
    Tally t = {0};
    for (int i = 0; i < c->npos; i++) check_file(&t, c->pos[i]);
    printf("%d rule%s checked: %d error%s, %d warning%s\n", t.rules, t.rules == 1 ? "" : "s", t.errors,
           t.errors == 1 ? "" : "s", t.warnings, t.warnings == 1 ? "" : "s");
    return t.errors ? EXIT_REFUSED : 0;
}

const CmdSpec cmd_check = {
    .name = "check",
    .args = "FILE...",
    .minpos = 1,
    .maxpos = MAX_POS,
    .doc = "parse and lint a ruleset or a rule text",
    .more = "It reports `FILE:LINE:COL: error|warning: (rule ID) message` for every rule object of a file, or\n"
            "for a file holding one bare condition or verb list, and exits 1 if it found an error.  It also\n"
            "checks sugar tables (`FILE.sugar`: docs/formats.md).  FILE may name a shipped set.\n",
    .run = check_run,
};
