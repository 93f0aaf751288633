/*
 * main.c - runs every group of unit tests; the exit status is the number
 * of failed tests.
 */
#include "unit.h"

#include <string.h>

Game *unit_game(const char *set)
{
    Game *g = game_memory(42);
    Buf err = {0};
    if (!game_load_set(g, "test", set, &err)) fail_msg("the set does not load: %s", buf_str(&err));
    buf_free(&err);
    return g;
}

const char *unit_move(Game *g, const char *sender, long time, const char *body)
{
    static char status[32];
    Outcome o = {0};
    assert_true(game_event_move(g, sender, time, time, body, false, &o));
    snprintf(status, sizeof status, "%s", verdict_name(o.verdict));
    outcome_free(&o);
    return status;
}

const char *unit_attr(Game *g, const char *type, const char *name)
{
    const IdSet *s = pool_lookup(g->pool, SYM_type, sym_cstr(type));
    if (!s) return "";
    uint32_t i = idset_seek(s, 0, 1);
    if (i >= s->len) return "";
    return sym_text(obj_get(pool_get(g->pool, s->ids[i]), sym_cstr(name)));
}

/* The groups, by name: `unit [NAME...]` runs those named (all when none),
 * `unit --except NAME...` all but those, so that make check can run the
 * slow fault injection beside the rest. */
static const struct {
    const char *name;
    int (*run)(void);
} groups[] = {
    {"value", run_value_tests},     {"objfmt", run_objfmt_tests}, {"lang", run_lang_tests},
    {"eval", run_eval_tests},       {"store", run_store_tests},   {"deps", run_deps_tests},
    {"mathexpr", run_mathexpr_tests}, {"pool", run_pool_tests},   {"idset", run_idset_tests},
    {"meter", run_meter_tests},     {"hash", run_hash_tests},     {"sugar", run_sugar_tests}, {"phrase", run_phrase_tests},
    {"mailin", run_mailin_tests},   {"faults", run_fault_tests},
};

static bool named(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0) return true;
    return false;
}

int main(int argc, char **argv)
{
    bool except = argc > 1 && strcmp(argv[1], "--except") == 0;
    int failed = 0, ran = 0;
    for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
        if (argc > 1 && named(argc, argv, groups[i].name) == except) continue;
        failed += groups[i].run();
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "unit: no such group\n");
        return 1;
    }
    return failed;
}
