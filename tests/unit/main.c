/*
 * main.c - runs every group of unit tests; the exit status is the number
 * of failed tests.
 */
#include "unit.h"

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

int main(void)
{
    int failed = 0;
    failed += run_value_tests();
    failed += run_objfmt_tests();
    failed += run_lang_tests();
    failed += run_eval_tests();
    failed += run_store_tests();
    failed += run_deps_tests();
    failed += run_mathexpr_tests();
    failed += run_pool_tests();
    failed += run_idset_tests();
    failed += run_meter_tests();
    failed += run_hash_tests();
    failed += run_sugar_tests();
    failed += run_mailin_tests();
    failed += run_fault_tests();
    return failed;
}
