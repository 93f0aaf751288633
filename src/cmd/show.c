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

int cmd_show(int argc, char **argv)
{
    Opt o[] = {{"--type", true}, {"--id", true}, {"--at", true}, {"--json", false}, {"--as", true}};
    const char *pos[1];
    int npos, rc = EXIT_USAGE;
    Game *g = NULL;
    char *as = NULL;
    Pool *at = NULL;
    Engine *e = NULL;
    if (!cli_parse(argc, argv, o, 5, pos, 1, 1, &npos, commands[4].usage)) goto out;
    long id = 0, event = 0;
    if (o[1].set && (!(id = strtol(o[1].value, NULL, 10)) || id < 0)) {
        fprintf(stderr, "nomic show: --id %s: expected an objectId\n", o[1].value);
        goto out;
    }
    if (o[2].set && ((event = strtol(o[2].value, NULL, 10)) < 0 || (!event && strcmp(o[2].value, "0")))) {
        fprintf(stderr, "nomic show: --at %s: expected an event number\n", o[2].value);
        goto out;
    }
    if (!(g = cli_open(pos[0]))) goto out;
    const Pool *p = g->pool;
    e = g->eng;
    if (o[2].set) {
        long last = store_last_event(g->st);
        if (event > last) {
            fprintf(stderr, "nomic show: --at %ld: the journal has %ld events\n", event, last);
            goto out;
        }
        Buf err = {0};
        at = pool_new();
        if (!store_state_at(g->st, event, at, &err)) {
            fprintf(stderr, "nomic show: %s\n", buf_str(&err));
            buf_free(&err);
            goto out;
        }
        p = at;
        e = engine_new(at);
        RuleInfo *ri;
        free((engine_rules(e, &ri), ri)); /* reads the settings of that state */
    } else {
        RuleInfo *ri;
        free((engine_rules(e, &ri), ri));
    }
    Sym type = o[0].set ? sym_cstr(o[0].value) : SYM_EMPTY;
    const char *bad;
    if (o[4].set && *o[4].value) as = game_address(g, o[4].value, &bad); /* the form the game knows it by */
    Viewer v = {e->private_attrs, as ? as : o[4].set && *o[4].value ? o[4].value : NULL};
    int n = print_objects(p, &v, type, id, o[3].set, at ? NULL : e);
    rc = 0;
    if (id && !n) {
        /* a question about one object that has no answer is an error */
        if (pool_get(p, (ObjId)id)) fprintf(stderr, "nomic show: object %ld is not of type %s\n", id, o[0].value);
        else fprintf(stderr, "nomic show: there is no object %ld (deleted, or never created)\n", id);
        rc = 1;
    }
out:
    free(as);
    if (at) {
        engine_free(e);
        pool_free(at);
    }
    game_close(g);
    cli_free_opts(o, 5);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    const char *pos[1];
    int npos;
    if (!cli_parse(argc, argv, NULL, 0, pos, 1, 1, &npos, commands[9].usage)) return EXIT_USAGE;
    Game *g = cli_open(pos[0]);
    if (!g) return EXIT_USAGE;
    RuleInfo *ri;
    free((engine_rules(g->eng, &ri), ri));
    printf("# exported from %s: %zu objects; the next objectId is %u\n\n", pos[0], pool_size(g->pool), g->pool->next_id);
    Viewer public = {g->eng->private_attrs, NULL};
    print_objects(g->pool, &public, SYM_EMPTY, 0, false, NULL);
    game_close(g);
    return 0;
}
