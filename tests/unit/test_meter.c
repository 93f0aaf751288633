/*
 * test_meter.c - an event's budget (docs/limits.md): each hostile rule
 * ends in a bounded number of steps, is rolled back whole with a reason
 * naming the limit and the rule, and the game goes on; numbers too large
 * to compute are a run-time error of the rule; settings above the
 * ceilings are held to them.
 */
#include <string.h>

#include "unit.h"

#define HEAD "type: engineSettings\nrunType: rule\n"

/* Plays one move; returns its status and keeps its message in msg. */
static const char *play(Game *g, const char *sender, long time, const char *body, char *msg, size_t n)
{
    static char status[32];
    Outcome o = {0};
    assert_true(game_event_move(g, sender, time, time, body, false, &o));
    snprintf(status, sizeof status, "%s", verdict_name(o.verdict));
    snprintf(msg, n, "%s", o.message ? o.message : "");
    outcome_free(&o);
    return status;
}

/* Every hostile rule below fires on a move of subtype "go" and leaves the
 * pool as it was when refused; a move of subtype "hello" then still
 * works (rule 3 of each set). */
#define HELLO "\n\ntype: rule\nruleOrder: 0\nif: exists(type==\"move\" & subtype==\"hello\" & objectId==%m)\n" \
              "then: create(type==\"greeting\") & delete(%m)\n"

static void assert_refused_then_fine(Game *g, const char *limit, const char *rule)
{
    char msg[400];
    size_t before = pool_size(g->pool);
    assert_string_equal(play(g, "evil@x", 10, "subtype: go\n", msg, sizeof msg), "refused");
    if (!strstr(msg, limit) || !strstr(msg, rule)) fail_msg("'%s' does not name %s and %s", msg, limit, rule);
    assert_int_equal(pool_size(g->pool), before);
    assert_string_equal(play(g, "good@x", 11, "subtype: hello\n", msg, sizeof msg), "applied");
    assert_int_equal(pool_size(g->pool), before + 1);
}

static void doubling_text(void **state)
{
    Game *g = unit_game(HEAD "\ntype: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & subtype==\"go\") & exists(type==\"t\" & v==%v & objectId==%o)\n"
                             "then: set(%o)(v==glue(%v, %v) & n==n+1)\n\ntype: t\nv: ab\nn: 0" HELLO);
    assert_refused_then_fine(g, "maxMemory", "rule 2 ");
    game_close(g);
}

static void doubling_objects(void **state)
{
    Game *g = unit_game(HEAD "\ntype: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & subtype==\"go\")\n"
                             "then: forEach(type==\"x\")(create(type==\"x\"))\n\ntype: x" HELLO);
    assert_refused_then_fine(g, "maxMemory", "rule 2 ");
    game_close(g);
}

static void endless_scan_under_a_small_budget(void **state)
{
    /* a move that counts to a million, one firing at a time: maxWork,
     * set low here, trips long before maxSteps */
    Game *g = unit_game(HEAD "maxWork: 20000\n\ntype: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & subtype==\"go\") & exists(type==\"c\" & n<1000000 & n==%n & objectId==%o)\n"
                             "then: set(%o)(n==%n+1)\n\ntype: c\nn: 0" HELLO);
    assert_refused_then_fine(g, "maxWork (20000 units of work", "rule 2 ");
    assert_string_equal(unit_attr(g, "c", "n"), "0");
    game_close(g);
}

static void deliveries(void **state)
{
    Game *g = unit_game(HEAD "maxDeliveries: 50\n\ntype: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & subtype==\"go\") & exists(type==\"c\" & n<100 & n==%n & objectId==%o)\n"
                             "then: set(%o)(n==%n+1) & send(\"a@x b@x c@x\", \"again\")\n\ntype: c\nn: 0" HELLO);
    assert_refused_then_fine(g, "maxDeliveries", "rule 2 ");
    game_close(g);
}

static void squaring_numbers(void **state)
{
    /* squaring stops with a run-time error before the number has more
     * than maxNumberDigits digits: the rule no longer fires, the event
     * settles, and the number is the last one within the limit */
    Game *g = unit_game(HEAD "maxNumberDigits: 1000\n\ntype: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & subtype==\"go\") & exists(type==\"s\" & v==%v & objectId==%o)\n"
                             "then: set(%o)(v==%v*%v)\n\ntype: s\nv: 3" HELLO);
    char msg[400];
    assert_string_equal(play(g, "evil@x", 10, "subtype: go\n", msg, sizeof msg), "applied");
    size_t digits = strlen(unit_attr(g, "s", "v"));
    /* 3^(2^k): 3^1024 has 489 digits, 3^2048 has 978, 3^4096 would
     * have 1955 */
    assert_int_equal(digits, 978);
    game_close(g);
}

static void settings_held_to_the_ceilings(void **state)
{
    Game *g = unit_game(HEAD "maxSteps: 1000000000000\nmaxMemory: lots\n\ntype: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & subtype==\"go\" & objectId==%m)\nthen: delete(%m)\n");
    Outcome o = {0};
    assert_true(game_event_move(g, "p@x", 10, 10, "subtype: go\n", false, &o));
    const char *t = buf_str(&o.run.trace);
    if (!strstr(t, "maxSteps 1000000000000 is above the Mechanics' ceiling; 10000000 applies"))
        fail_msg("no note of the ceiling in: %s", t);
    if (!strstr(t, "maxMemory \"lots\" is not a positive whole number")) fail_msg("no note of the bad value in: %s", t);
    assert_int_equal(g->eng->limit[LIMIT_STEPS], limits[LIMIT_STEPS].ceiling);
    assert_int_equal(g->eng->limit[LIMIT_MEMORY], limits[LIMIT_MEMORY].dflt);
    outcome_free(&o);
    game_close(g);
}

int run_meter_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doubling_text),
        cmocka_unit_test(doubling_objects),
        cmocka_unit_test(endless_scan_under_a_small_budget),
        cmocka_unit_test(deliveries),
        cmocka_unit_test(squaring_numbers),
        cmocka_unit_test(settings_held_to_the_ceilings),
    };
    return cmocka_run_group_tests_name("meter", tests, NULL, NULL);
}
