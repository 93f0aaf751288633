/*
 * cmd/show.c - nomic show and nomic export: objects in the text format
 * (or JSON), now or as they stood after an earlier event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game_mechanics.h"
#include "objfmt.h"
#include "pool_privacy.h"

/* Prints the objects of `type` (all when empty), or only `id`; returns how
 * many it printed.  keeper: the engine whose suspended rules are marked
 * (a comment line before each in text, a list in JSON), or NULL. */
static int print_objects(const Pool *p, const Viewer *v, Sym type, long id, bool json, const Engine *keeper)
{
    int count = 0;
    Buf b = {0};
    bool first = true;
    if (json) printf("{\"version\":1,\"objects\":[");
    const IdSet *s = type != SYM_EMPTY ? pool_lookup(p, SYM_type, type) : &p->all;
    IDSET_FOREACH (s, oid) {
        const Obj *o = pool_get(p, oid);
        if (id && o->id != (ObjId)id) continue;
        if (json) {
            if (!first) buf_putc(&b, ',');
            buf_puts(&b, "\n");
            fmt_json_obj(&b, o, viewer_hides, (void *)v);
        } else {
            if (!first) buf_putc(&b, '\n');
            if (keeper && engine_is_suspended(keeper, o->id))
                buf_printf(&b, "# suspended by the game-keeper: the engine skips this rule until `nomic resume GAME %u`\n",
                           o->id);
            fmt_print_obj(&b, o, viewer_hides, (void *)v);
        }
        first = false;
        count++;
        fwrite(b.s, 1, b.len, stdout);
        buf_reset(&b);
    }
    if (json) {
        printf("\n]");
        if (keeper && keeper->nsuspended) { /* the Mechanics' list, not an attribute: the rules neither read nor set it */
            printf(",\"suspended\":[");
            for (int i = 0; i < keeper->nsuspended; i++) printf("%s%u", i ? "," : "", keeper->suspended[i]);
            printf("]");
        }
        printf("}\n");
    }
    buf_free(&b);
    return count;
}

enum { SHOW_TYPE, SHOW_ID, SHOW_AT, SHOW_JSON, SHOW_AS };
static const OptSpec show_opts[] = {
    [SHOW_TYPE] = {"--type", "T", 0, "only the objects of type T"},
    [SHOW_ID] = {"--id", "N", 0, "only the object N (exit 1 if there is none of that type)"},
    [SHOW_AT] = {"--at", "N", 0, "the state after event N"},
    [SHOW_JSON] = {"--json", NULL, 0, "as JSON"},
    [SHOW_AS] = {"--as", "ADDR", 0, "show the owner of ADDR their own private values"},
    {NULL},
};

typedef struct ShowArgs {
    long id, event; /* --id, --at: 0 when not given */
} ShowArgs;

static int show_check(CmdCall *c)
{
    ShowArgs *a = c->data;
    const OptVal *id = &c->opt[SHOW_ID], *at = &c->opt[SHOW_AT];
    if (id->set && (!(a->id = strtol(id->value, NULL, 10)) || a->id < 0)) {
        fprintf(stderr, "nomic show: --id %s: expected an objectId\n", id->value);
        return EXIT_USAGE;
    }
    if (at->set && ((a->event = strtol(at->value, NULL, 10)) < 0 || (!a->event && strcmp(at->value, "0")))) {
        fprintf(stderr, "nomic show: --at %s: expected an event number\n", at->value);
        return EXIT_USAGE;
    }
    return CMD_GO_ON;
}

/* The state after event N, in a pool of its own and its engine; false
 * (said) when it cannot be read. */
static bool state_at(Game *g, long event, Pool **at, Engine **e)
{
    long last = store_last_event(g->st);
    if (event > last) {
        fprintf(stderr, "nomic show: --at %ld: the journal has %ld events\n", event, last);
        return false;
    }
    Buf err = {0};
    *at = pool_new();
    if (!store_state_at(g->st, event, *at, &err)) {
        fprintf(stderr, "nomic show: %s\n", buf_str(&err));
        buf_free(&err);
        return false;
    }
    *e = engine_new(*at);
    return true;
}

static int show_run(CmdCall *c)
{
    const ShowArgs *a = c->data;
    const OptVal *o = c->opt;
    Game *g = c->g;
    int rc = EXIT_USAGE;
    char *as = NULL;
    Pool *at = NULL;
    Engine *e = g->eng;
    if (o[SHOW_AT].set && !state_at(g, a->event, &at, &e)) goto out;
    const Pool *p = at ? at : g->pool;
    RuleInfo *ri;
    free((engine_rules(e, &ri), ri)); /* reads the settings of that state */
    Sym type = o[SHOW_TYPE].set ? sym_cstr(o[SHOW_TYPE].value) : SYM_EMPTY;
    const char *bad, *asked = o[SHOW_AS].set && *o[SHOW_AS].value ? o[SHOW_AS].value : NULL;
    if (asked) as = game_address(g, asked, &bad); /* the form the game knows it by */
    Viewer v = {e->private_attrs, as ? as : asked};
    int n = print_objects(p, &v, type, a->id, o[SHOW_JSON].set, at ? NULL : e);
    rc = 0;
    if (a->id && !n) {
        /* a question about one object that has no answer is an error */
        if (pool_get(p, (ObjId)a->id))
            fprintf(stderr, "nomic show: object %ld is not of type %s\n", a->id, o[SHOW_TYPE].value);
        else fprintf(stderr, "nomic show: there is no object %ld (deleted, or never created)\n", a->id);
        rc = 1;
    }
out:
    free(as);
    if (e != g->eng) engine_free(e);
    if (at) pool_free(at);
    return rc;
}

const CmdSpec cmd_show = {
    .name = "show",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = show_opts,
    .doc = "print objects",
    .more = "`show --at N` shows the state after event N (the state after event 0, then each object as the\n"
            "journal's last change to it up to N left it).  Its cost grows with the changes it reads, not the\n"
            "moves' (no snapshot is written as the game goes): 2.6 to 3.4 s and 218 MB for event 400,000 of\n"
            "Engine City's (5000,100) game, 515,000 events (each object's last change is read; the earlier ones\n"
            "are only skipped).  `show --id N` on an object that does not exist says so on standard error and\n"
            "exits 1.\n"
            "\n"
            "A rule the game-keeper suspended is marked by a line `# suspended by the game-keeper: ...` before\n"
            "it, and `show --json` ends with `\"suspended\":[N,...]` while the list is not empty.\n",
    .data_size = sizeof(ShowArgs),
    .check = show_check,
    .run = show_run,
};

static int export_run(CmdCall *c)
{
    Game *g = c->g;
    RuleInfo *ri;
    free((engine_rules(g->eng, &ri), ri));
    printf("# exported from %s: %zu objects; the next objectId is %u\n\n", c->pos[0], pool_size(g->pool),
           g->pool->next_id);
    Viewer public = {g->eng->private_attrs, NULL};
    print_objects(g->pool, &public, SYM_EMPTY, 0, false, NULL);
    return 0;
}

const CmdSpec cmd_export = {
    .name = "export",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .doc = "the whole state in the object text format",
    .more = "Its output is an initial set: `nomic init COPY --ruleset ./FILE` makes a game of the same objects.\n",
    .run = export_run,
};
