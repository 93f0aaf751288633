/*
 * cmd/slr.c - nomic slr parse and nomic slr emit: Agora's Short Logical
 * Ruleset read from a file (as a summary, JSON, or the objects of an
 * initial set) and written from a game's objects (slr.h, docs/agora.md).
 *
 * The objects: `type: slrHeader` (text, footer), `type: slrSection`
 * (order, heading, note) and `type: ruleText` (number, revision, power,
 * title, text, section, order).  Emit puts the sections in ascending
 * `order`, and the rules of each in ascending `order`, then those without
 * one (rules enacted in play) by objectId.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "objfmt.h"
#include "slr.h"

/* ---- parse ---- */

static void print_summary(const SlrDoc *d)
{
    int section = -2;
    for (int i = 0; i < d->nrules; i++) {
        const SlrRule *r = &d->rules[i];
        if (r->section != section && r->section >= 0) printf("== %s\n", d->sections[r->section].heading);
        section = r->section;
        printf("Rule %s/%s (Power=%s) %s\n", r->id, r->revision, r->power, r->title);
    }
    printf("%d rules in %d sections\n", d->nrules, d->nsections);
}

static void json_field(Buf *b, const char *name, const char *value, bool first)
{
    buf_printf(b, "%s\"%s\":", first ? "" : ",", name);
    json_string(b, value, strlen(value));
}

static void print_json(const SlrDoc *d)
{
    Buf b = {0};
    buf_puts(&b, "[");
    for (int i = 0; i < d->nrules; i++) {
        const SlrRule *r = &d->rules[i];
        buf_puts(&b, i ? ",\n{" : "\n{");
        json_field(&b, "id", r->id, true);
        json_field(&b, "revision", r->revision, false);
        json_field(&b, "power", r->power, false);
        json_field(&b, "title", r->title, false);
        json_field(&b, "text", r->text, false);
        json_field(&b, "section", slr_section_of(d, r), false);
        buf_putc(&b, '}');
    }
    buf_puts(&b, "\n]\n");
    fwrite(b.s, 1, b.len, stdout);
    buf_free(&b);
}

/* name: value in the object text format; an empty value is left out. */
static void put_attr(Buf *b, const char *name, const char *value)
{
    if (!value || !*value) return;
    buf_printf(b, "%s: ", name);
    fmt_print_value(b, sym_cstr(value));
    buf_putc(b, '\n');
}

static void print_objects(const SlrDoc *d, const char *fname)
{
    Buf b = {0};
    buf_printf(&b, "# %d rules in %d sections, read from %s by nomic slr parse --objects\n", d->nrules, d->nsections,
               fname);
    if ((d->header && *d->header) || (d->footer && *d->footer)) {
        buf_puts(&b, "\ntype: slrHeader\n");
        put_attr(&b, "text", d->header);
        put_attr(&b, "footer", d->footer);
    }
    for (int i = 0; i < d->nsections; i++) {
        buf_printf(&b, "\ntype: slrSection\norder: %d\n", i + 1);
        put_attr(&b, "heading", d->sections[i].heading);
        put_attr(&b, "note", d->sections[i].note);
    }
    for (int i = 0; i < d->nrules; i++) {
        const SlrRule *r = &d->rules[i];
        buf_printf(&b, "\ntype: ruleText\nnumber: %s\nrevision: %s\npower: %s\n", r->id, r->revision, r->power);
        put_attr(&b, "title", r->title);
        put_attr(&b, "section", slr_section_of(d, r));
        buf_printf(&b, "order: %d\n", i + 1);
        put_attr(&b, "text", r->text);
    }
    fwrite(b.s, 1, b.len, stdout);
    buf_free(&b);
}

enum { PARSE_JSON, PARSE_OBJECTS };
static const OptSpec parse_opts[] = {
    [PARSE_JSON] = {"--json", NULL, OPT_OR_NEXT, "the rules as a JSON array"},
    [PARSE_OBJECTS] = {"--objects", NULL, 0, "the SLR as the objects of an initial set"},
    {NULL},
};

static int parse_run(CmdCall *c)
{
    const OptVal *o = c->opt;
    const char *const *pos = c->pos;
    if (o[PARSE_JSON].set && o[PARSE_OBJECTS].set) {
        fprintf(stderr, "nomic slr parse: --json or --objects, not both\n");
        return EXIT_USAGE;
    }
    size_t len;
    char *text = read_file(pos[0], &len);
    if (!text) {
        fprintf(stderr, "nomic slr parse: %s: cannot read it\n", pos[0]);
        return EXIT_USAGE;
    }
    SlrDoc d = {0};
    Buf err = {0}, warn = {0};
    bool ok = slr_parse(text, len, pos[0], &d, &err, &warn);
    fputs(buf_str(&warn), stderr);
    fputs(buf_str(&err), stderr);
    if (ok) {
        if (o[PARSE_JSON].set) print_json(&d);
        else if (o[PARSE_OBJECTS].set) print_objects(&d, pos[0]);
        else print_summary(&d);
    }
    slr_doc_free(&d);
    buf_free(&err);
    buf_free(&warn);
    free(text);
    return ok ? 0 : EXIT_REFUSED;
}

static const CmdSpec cmd_slr_parse = {
    .name = "slr parse",
    .args = "FILE",
    .minpos = 1,
    .maxpos = 1,
    .opts = parse_opts,
    .doc = "read an SLR: a summary, JSON or objects",
    .run = parse_run,
};

/* ---- emit ---- */

typedef struct Item {
    const Obj *o;
    Sym order;
    int section; /* rules: index in the doc's sections, -1 none */
} Item;

/* Ascending `order` (numbers first, numerically), then objectId. */
static int cmp_order(Sym a, Sym b, ObjId ia, ObjId ib)
{
    bool na = sym_is_number(a), nb = sym_is_number(b);
    if (na != nb) return na ? -1 : 1;
    int c = na ? num_cmp(a, b) : 0;
    return c ? c : (ia > ib) - (ia < ib);
}

static int cmp_section_item(const void *x, const void *y)
{
    const Item *a = x, *b = y;
    return cmp_order(a->order, b->order, a->o->id, b->o->id);
}

static int cmp_rule_item(const void *x, const void *y)
{
    const Item *a = x, *b = y;
    if (a->section != b->section) return a->section < b->section ? -1 : 1;
    return cmp_order(a->order, b->order, a->o->id, b->o->id);
}

static const char *attr(const Obj *o, const char *name) { return sym_text(obj_get(o, sym_cstr(name))); }

/* The objects of one type, in ascending objectId; *n says how many. */
static Item *objects_of(const Pool *p, const char *type, int *n)
{
    const IdSet *s = pool_lookup(p, SYM_type, sym_cstr(type));
    Item *items = xcalloc(s ? s->len + 1 : 1, sizeof *items);
    *n = 0;
    IDSET_FOREACH (s, oid) {
        const Obj *o = pool_get(p, oid);
        items[(*n)++] = (Item){o, obj_get(o, sym_cstr("order")), -1};
    }
    return items;
}

/* A rule is left out once repealed: rule 105 sets a repealed rule's
 * power to 0; a `status: repealed` says so too. */
static bool repealed(const Obj *o)
{
    Sym power = obj_get(o, sym_cstr("power"));
    return (sym_is_number(power) && mpq_sgn(sym_num(power)) == 0) || strcmp(attr(o, "status"), "repealed") == 0;
}

/* An attribute that must read as digits (or a power) to be written in a
 * rule's header: otherwise 0, with a warning. */
static const char *header_part(const Obj *o, const char *name, bool power)
{
    const char *v = attr(o, name);
    if (power ? slr_is_power(v) : slr_is_digits(v)) return v;
    fprintf(stderr, "nomic slr emit: warning: ruleText %u: %s \"%s\" is not %s; written as 0\n", o->id, name, v,
            power ? "a power (3, 3.0, 1.7)" : "a number");
    return "0";
}

static void add_rules(SlrDoc *d, const Pool *p)
{
    int n;
    Item *rules = objects_of(p, "ruleText", &n);
    for (int i = 0; i < n; i++) {
        const char *section = attr(rules[i].o, "section");
        rules[i].section = *section ? slr_add_section(d, section, "") : -1;
    }
    qsort(rules, (size_t)n, sizeof *rules, cmp_rule_item);
    for (int i = 0; i < n; i++) {
        const Obj *o = rules[i].o;
        if (repealed(o)) continue;
        slr_add_rule(d, header_part(o, "number", false), header_part(o, "revision", false),
                     header_part(o, "power", true), attr(o, "title"), attr(o, "text"), rules[i].section);
    }
    free(rules);
}

/* The game's SLR as a document: its header, its sections in order (then
 * any section a rule names that has no slrSection), its rules. */
static void game_doc(const Pool *p, SlrDoc *d)
{
    int n;
    Item *items = objects_of(p, "slrHeader", &n);
    if (n) {
        d->header = xstrdup(attr(items[0].o, "text"));
        d->footer = xstrdup(attr(items[0].o, "footer"));
    }
    free(items);
    items = objects_of(p, "slrSection", &n);
    qsort(items, (size_t)n, sizeof *items, cmp_section_item);
    for (int i = 0; i < n; i++) {
        int s = slr_add_section(d, attr(items[i].o, "heading"), NULL);
        free(d->sections[s].note);
        d->sections[s].note = xstrdup(attr(items[i].o, "note"));
    }
    free(items);
    add_rules(d, p);
}

static int emit_run(CmdCall *c)
{
    SlrDoc d = {0};
    game_doc(c->g->pool, &d);
    if (d.nrules == 0) fprintf(stderr, "nomic slr emit: warning: the game has no ruleText objects\n");
    Buf b = {0};
    slr_emit(&d, &b);
    fwrite(b.s ? b.s : "", 1, b.len, stdout);
    buf_free(&b);
    slr_doc_free(&d);
    return 0;
}

static const CmdSpec cmd_slr_emit = {
    .name = "slr emit",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .doc = "print the game's SLR from its ruleText objects",
    .run = emit_run,
};

/* Its errors print the usage line of slr, both subcommands. */
static const Command slr_subs[] = {
    {&cmd_slr_parse, 0},
    {&cmd_slr_emit, CMD_GAME},
    {NULL, 0},
};

const CmdSpec cmd_slr = {
    .name = "slr",
    .doc = "Agora's Short Logical Ruleset: read one (a summary, JSON or objects), or print a game's",
    .more = "`slr parse` reads an SLR, flattened onto one line (as seed 002) or in the usual multi-line layout,\n"
            "and prints a summary, `--json` (a bare array of\n"
            "`{\"id\",\"revision\",\"power\",\"title\",\"text\",\"section\"}`, every value a string) or `--objects`\n"
            "(the SLR as `ruleText`, `slrSection` and `slrHeader` objects: the `agora` set's texts are made so).\n"
            "Warnings (two rules with one ID) go to standard error; an error names `FILE:LINE:COL` and exits 1.\n"
            "`slr emit` prints the game's SLR from its objects; parsing it gives back the same rules.\n"
            "docs/agora.md.\n",
    .subs = slr_subs,
};
