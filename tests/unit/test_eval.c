/*
 * test_eval.c - evaluation and the engine cycle, through a game in memory:
 * backtracking and the lowest-objectId solution, locals, aggregates,
 * set's read-then-write, setAll/deleteAll/forEach, run-time errors,
 * restart, noRestart, loop and runaway; whole numbers at the edges of
 * 64 bits.
 */
#include <string.h>

#include "unit.h"

#define HEAD "type: engineSettings\nrunType: rule\n\n"

static void backtracking_lowest_id(void **state)
{
    Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & objectId==%m) & exists(type==\"a\" & k==%k & objectId==%x) &\n"
                             "    exists(type==\"b\" & k==%k & objectId==%y)\n"
                             "then: create(type==\"pick\" & x==%x & y==%y) & delete(%m)\n\n"
                             "type: a\nk: 1\n\ntype: a\nk: 2\n\ntype: a\nk: 3\n\n"
                             "type: b\nk: 3\n\ntype: b\nk: 2\n");
    assert_string_equal(unit_move(g, "p@x", 10, "subtype: go\n"), "applied");
    /* a=3 (k 1) has no b; a=4 (k 2) meets b=7 */
    assert_string_equal(unit_attr(g, "pick", "x"), "4");
    assert_string_equal(unit_attr(g, "pick", "y"), "7");
    game_close(g);
}

static void aggregates_and_locals(void **state)
{
    Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & objectId==%m) & !exists(type==\"n\" & v>100)\n"
                             "then: create(type==\"r\" & c==count(type==\"n\") & s==sum(type==\"n\")(v) &\n"
                             "    lo==min(type==\"n\")(v) & hi==max(type==\"n\")(v) & avg==sum(type==\"n\")(v)/count(type==\"n\") &\n"
                             "    none==count(type==\"n\" & v==%nobody) & w==words(\"a b  c\") & m==member(\"a b c\", \"b\")) &\n"
                             "    delete(%m)\n\n"
                             "type: n\nv: 1/3\n\ntype: n\nv: 2\n\ntype: n\nv: -0.5\n");
    assert_string_equal(unit_move(g, "p@x", 10, "subtype: go\n"), "applied");
    assert_string_equal(unit_attr(g, "r", "c"), "3");
    assert_string_equal(unit_attr(g, "r", "s"), "11/6");
    assert_string_equal(unit_attr(g, "r", "lo"), "-0.5");
    assert_string_equal(unit_attr(g, "r", "hi"), "2");
    assert_string_equal(unit_attr(g, "r", "avg"), "11/18");
    /* %nobody is unbound on entry: local to the count, it binds to each v */
    assert_string_equal(unit_attr(g, "r", "none"), "3");
    assert_string_equal(unit_attr(g, "r", "w"), "3");
    assert_string_equal(unit_attr(g, "r", "m"), "T");
    game_close(g);
}

static void join_lists_in_one_pass(void **state)
{
    Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & objectId==%m)\n"
                             "then: create(type==\"r\" & all==join(type==\"n\")(name) & big==join(type==\"n\" & v>1)(glue(name, \"=\", v), \", \") &\n"
                             "    none==join(type==\"n\" & v>100)(name) & sep==join(type==\"n\")(v, if(v==\"3\", \"|\", \"+\"))) &\n"
                             "    delete(%m)\n\n"
                             "type: n\nname: carol\nv: 3\n\ntype: n\nv: 2\n\ntype: n\nname: alice\nv: 1\n\ntype: n\nname: bob\nv: 5\n");
    assert_string_equal(unit_move(g, "p@x", 10, "subtype: go\n"), "applied");
    /* ascending id; an object without the attribute takes no part */
    assert_string_equal(unit_attr(g, "r", "all"), "carol alice bob");
    assert_string_equal(unit_attr(g, "r", "big"), "carol=3, =2, bob=5");
    assert_string_equal(unit_attr(g, "r", "none"), "");
    /* the separator is the next object's: read before it is added */
    assert_string_equal(unit_attr(g, "r", "sep"), "3+2+1+5");
    game_close(g);
}

static void set_reads_before_writing(void **state)
{
    Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & objectId==%m) & exists(type==\"pair\" & objectId==%p)\n"
                             "then: set(%p)(a==b & b==a & n==n+1) & delete(%m)\n\n"
                             "type: pair\na: 1\nb: 2\nn: 0\n");
    unit_move(g, "p@x", 10, "subtype: swap\n");
    assert_string_equal(unit_attr(g, "pair", "a"), "2");
    assert_string_equal(unit_attr(g, "pair", "b"), "1");
    assert_string_equal(unit_attr(g, "pair", "n"), "1");
    game_close(g);
}

static void set_all_delete_all_for_each(void **state)
{
    Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & subtype==\"go\" & objectId==%m)\n"
                             "then: setAll(type==\"c\")(seen==T) & forEach(type==\"c\" & objectId==%c)(create(type==\"copy\" & of==%c))\n"
                             "    & deleteAll(type==\"c\" & v>1) & delete(%m)\n\n"
                             "type: c\nv: 1\n\ntype: c\nv: 2\n\ntype: c\nv: 3\n");
    unit_move(g, "p@x", 10, "subtype: go\n");
    const IdSet *copies = pool_lookup(g->pool, SYM_type, sym_cstr("copy"));
    assert_non_null(copies);
    assert_int_equal(copies->live, 3);
    const IdSet *cs = pool_lookup(g->pool, SYM_type, sym_cstr("c"));
    assert_int_equal(cs->live, 1);
    assert_string_equal(unit_attr(g, "c", "seen"), "T");
    game_close(g);
}

static void runtime_error_undoes_the_rule(void **state)
{
    Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & subtype==\"div\" & d==%d & objectId==%m)\n"
                             "then: create(type==\"before\") & create(type==\"q\" & v==1/%d) & delete(%m)\n\n"
                             "type: rule\nruleOrder: 2\n"
                             "if: exists(type==\"move\" & objectId==%m)\nthen: set(%m)(type==\"leftover\")\n");
    Outcome o = {0};
    assert_true(game_event_move(g, "p@x", 10, 10, "subtype: div\nd: 0\n", false, &o));
    assert_non_null(strstr(buf_str(&o.run.trace), "division by zero"));
    outcome_free(&o);
    const IdSet *before = pool_lookup(g->pool, SYM_type, sym_cstr("before"));
    assert_true(!before || before->live == 0);
    const IdSet *l = pool_lookup(g->pool, SYM_type, sym_cstr("leftover"));
    assert_true(l && l->live == 1);
    game_close(g);
}

/* parseError(text) says why parses(text) is F, where and as the parser
 * says it, and is "" exactly when parses(text) is T. */
static void parse_error_says_why(void **state)
{
    static const struct {
        const char *code, *ok, *err;
    } cases[] = {
        {"exists(type==\"x\" & n>1)", "T", ""},
        {"set(%o)(a==1) & halt()", "T", ""},
        {"exists(", "F", "line 1, column 8: expected a condition or a value at the end of the text"},
        {"a = 1", "F", "line 1, column 3: a single '=' is not a comparison: use == near \"=\""},
        {"exists(a==1))", "F", "line 1, column 13: unbalanced ')' near \")\""},
        {"", "F", "line 1, column 1: expected a condition or a verb, found nothing at the end of the text"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                                 "if: exists(type==\"move\" & code==%c & objectId==%m)\n"
                                 "then: create(type==\"r\" & ok==parses(%c) & err==parseError(%c)) & delete(%m)\n");
        char body[256];
        snprintf(body, sizeof body, "subtype: go\ncode: %s\n", cases[i].code);
        assert_string_equal(unit_move(g, "p@x", 10, body), "applied");
        assert_string_equal(unit_attr(g, "r", "ok"), cases[i].ok);
        assert_string_equal(unit_attr(g, "r", "err"), cases[i].err);
        game_close(g);
    }
    /* past the hard limits (docs/limits.md), as parses() */
    char deep[300] = "subtype: go\ncode: ";
    size_t n = strlen(deep);
    memset(deep + n, '!', 257);
    strcpy(deep + n + 257, "T\n");
    Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & code==%c & objectId==%m)\n"
                             "then: create(type==\"r\" & ok==parses(%c) & err==parseError(%c)) & delete(%m)\n");
    assert_string_equal(unit_move(g, "p@x", 10, deep), "applied");
    assert_string_equal(unit_attr(g, "r", "ok"), "F");
    assert_non_null(strstr(unit_attr(g, "r", "err"), "nested more than 256 deep"));
    game_close(g);
}

/* Rule 2 (order 0) notices n == 1; rule 3 (order 1) counts n up to 3.
 * With a restart after each change, rule 2 runs while n is 1; with
 * noRestart on rule 3, rule 3 is re-tested at once and counts on to 3
 * before rule 2 runs again, so rule 2 never sees 1. */
static Game *counting_game(bool norestart)
{
    char set[1024];
    snprintf(set, sizeof set,
             HEAD "type: rule\nruleOrder: 0\n"
                  "if: exists(type==\"k\" & n==1) & exists(type==\"log\" & saw!=T & objectId==%%l)\n"
                  "then: set(%%l)(saw==T)\n\n"
                  "type: rule\nruleOrder: 1\n%s"
                  "if: exists(type==\"move\") & exists(type==\"k\" & n<3 & n==%%n & objectId==%%k)\n"
                  "then: set(%%k)(n==%%n+1)\n\n"
                  "type: k\nn: 0\n\ntype: log\n",
             norestart ? "noRestart: T\n" : "");
    Game *g = unit_game(set);
    unit_move(g, "p@x", 10, "subtype: go\n");
    assert_string_equal(unit_attr(g, "k", "n"), "3");
    return g;
}

static void restart_and_no_restart(void **state)
{
    Game *g = counting_game(false);
    assert_string_equal(unit_attr(g, "log", "saw"), "T");
    game_close(g);
    g = counting_game(true);
    assert_string_equal(unit_attr(g, "log", "saw"), "");
    game_close(g);
}

static void loop_and_runaway(void **state)
{
    Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                             "if: exists(type==\"light\" & on!=T & objectId==%l) & exists(type==\"move\")\nthen: set(%l)(on==T)\n\n"
                             "type: rule\nruleOrder: 2\nif: exists(type==\"light\" & on==T & objectId==%l)\nthen: set(%l)(on==F)\n\n"
                             "type: light\non: F\n");
    assert_string_equal(unit_move(g, "p@x", 10, "subtype: flip\n"), "loop");
    assert_true(g->halted);
    assert_string_equal(unit_move(g, "q@x", 11, "subtype: flip\n"), "refused");
    game_close(g);

    g = unit_game("type: engineSettings\nrunType: rule\nmaxSteps: 100\n\n"
                  "type: rule\nruleOrder: 1\nif: exists(type==\"move\") & exists(type==\"c\" & n==%n & objectId==%c)\n"
                  "then: set(%c)(n==%n+1)\n\ntype: c\nn: 0\n");
    ObjId next = g->pool->next_id;
    assert_string_equal(unit_move(g, "p@x", 10, "subtype: count\n"), "refused");
    assert_string_equal(unit_attr(g, "c", "n"), "0");       /* rolled back */
    assert_int_equal(g->pool->next_id, next);                /* the move too */
    const IdSet *moves = pool_lookup(g->pool, SYM_type, SYM_move);
    assert_true(!moves || moves->live == 0);
    game_close(g);
}

/* Whole numbers are computed in 64 bits when they fit and as rationals
 * when they do not: the results are the same texts either way, at the
 * edges of the 64 bits too. */
static void whole_numbers_at_64_bits(void **state)
{
    static const char *cases[][2] = {
        {"999999999999999999 + 999999999999999999", "1999999999999999998"},
        {"922337203685477580 * 10 + 7", "9223372036854775807"},         /* INT64_MAX */
        {"922337203685477580 * 10 + 8", "9223372036854775808"},         /* INT64_MAX + 1 */
        {"-922337203685477580 * 10 - 8", "-9223372036854775808"},       /* INT64_MIN */
        {"-922337203685477580 * 10 - 9", "-9223372036854775809"},       /* INT64_MIN - 1 */
        {"(-922337203685477580 * 10 - 8) * -1", "9223372036854775808"}, /* INT64_MIN * -1 */
        {"(-922337203685477580 * 10 - 8) / -1", "9223372036854775808"},
        {"-(-922337203685477580 * 10 - 8)", "9223372036854775808"},
        {"999999999999999999 * 9", "8999999999999999991"},
        {"999999999999999999 * 10", "9999999999999999990"},             /* overflows 64 bits */
        {"-999999999999999999 * 10", "-9999999999999999990"},
        {"999999999999999999 * 999999999999999999", "999999999999999998000000000000000001"},
        {"-999999999999999999 - 999999999999999999", "-1999999999999999998"},
        {"12 / 4", "3"},
        {"-12 / 4", "-3"},
        {"12 / -5", "-2.4"},
        {"7 / 3", "7/3"},
        {"0 / -3", "0"},
        {"-(0)", "0"},
        {"-(-5)", "5"},
        {"5.0 + 3", "8"},
        {"1/2 + 1/2", "1"},
    };
    size_t n = sizeof cases / sizeof *cases;
    Buf rules = {0};
    buf_puts(&rules, HEAD "type: rule\nruleOrder: 1\nif: exists(type==\"move\" & objectId==%m)\nthen: delete(%m)");
    for (size_t i = 0; i < n; i++) {
        char line[200];
        snprintf(line, sizeof line, " & create(type==\"r%zu\" & v==%s)", i, cases[i][0]);
        buf_puts(&rules, line);
    }
    buf_puts(&rules, "\n");
    Game *g = unit_game(buf_str(&rules));
    assert_string_equal(unit_move(g, "p@x", 10, "subtype: go\n"), "applied");
    for (size_t i = 0; i < n; i++) {
        char type[16];
        snprintf(type, sizeof type, "r%zu", i);
        const char *got = unit_attr(g, type, "v");
        if (strcmp(got, cases[i][1]) != 0) fail_msg("%s gave %s, not %s", cases[i][0], got, cases[i][1]);
    }
    game_close(g);
    buf_free(&rules);
}

/* Comparing numbers compares values, whether kept in 64 bits or not. */
static void comparing_huge_and_small(void **state)
{
    Sym big = sym_cstr("99999999999999999999"), small = sym_cstr("5"), max18 = sym_cstr("999999999999999999");
    Sym min19 = sym_cstr("-9223372036854775808"), neg = sym_cstr("-999999999999999999");
    int64_t v;
    assert_true(sym_small_int(max18, &v) && v == 999999999999999999LL);
    assert_true(sym_small_int(neg, &v) && v == -999999999999999999LL);
    assert_false(sym_small_int(big, &v));
    assert_false(sym_small_int(sym_cstr("5.0"), &v));
    assert_true(val_cmp(big, small) > 0 && val_cmp(small, big) < 0);
    assert_true(val_cmp(max18, big) < 0 && val_cmp(min19, neg) < 0 && val_cmp(neg, min19) > 0);
    assert_true(val_cmp(sym_cstr("5.0"), small) == 0 && val_eq(sym_cstr("5.0"), small));
    assert_string_equal(sym_text(sym_from_int64(INT64_MIN)), "-9223372036854775808");
    assert_string_equal(sym_text(sym_from_int64(INT64_MAX)), "9223372036854775807");
    assert_string_equal(sym_text(sym_from_int64(0)), "0");
    assert_string_equal(sym_text(sym_from_int64(-7)), "-7");
    assert_true(sym_from_int64(INT64_MIN) == min19);
}

static void reserved_attributes_refused(void **state)
{
    Game *g = unit_game(HEAD);
    assert_string_equal(unit_move(g, "p@x", 10, "subtype: x\nmoveBatch: 7\n"), "refused");
    assert_string_equal(unit_move(g, "p@x", 10, "objectId: 9\nsubtype: x\n"), "refused");
    assert_string_equal(unit_move(g, "p@x", 10, "subtype: x\n"), "no effect"); /* the move is kept, and nothing else changes */
    assert_string_equal(unit_attr(g, "move", "moveSender"), "p@x");
    assert_string_equal(unit_attr(g, "move", "moveTimeStamp"), "10");
    game_close(g);
}

/* The units of work a move cost, and its verdict in *status. */
static uint64_t move_work(Game *g, long time, const char *body, char *status)
{
    Outcome o = {0};
    assert_true(game_event_move(g, "p@x", time, time, body, false, &o));
    strcpy(status, verdict_name(o.verdict));
    uint64_t work = o.run.used.work + o.run.used.first_work;
    outcome_free(&o);
    return work;
}

/* set(objectId==X) and delete(objectId==X) take their object by its id:
 * the object the search of `type=="a" & objectId==X` finds, nothing for an
 * id that names no object, a text, a number past any id or "" (an absent
 * attribute), and one unit for the key, as the search charges each key. */
static void targets_by_id(void **state)
{
    const char *sets[] = {"set(objectId==%t)(hit==T)", "set(type==\"a\" & objectId==%t)(hit==T)", "delete(objectId==%t)"};
    Game *g[3];
    for (int i = 0; i < 3; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 HEAD "type: rule\nruleOrder: 1\nif: exists(type==\"move\" & target==%%t & objectId==%%m)\n"
                      "then: %s & delete(%%m)\n\ntype: a\n",
                 sets[i]);
        g[i] = unit_game(text);
    }
    const IdSet *a = pool_lookup(g[0]->pool, SYM_type, sym_cstr("a"));
    assert_non_null(a);
    char real[64];
    snprintf(real, sizeof real, "subtype: x\ntarget: %u\n", a->ids[a->head]);
    const char *bodies[] = {"subtype: x\ntarget: abc\n", "subtype: x\ntarget: 99999999999999999999\n",
                            "subtype: x\ntarget: -3\n", "subtype: x\ntarget: 1000\n", "subtype: x\n", real};
    uint64_t by_id = 0;
    for (int b = 0; b < 6; b++) {
        char st[3][32];
        uint64_t w[3];
        for (int i = 0; i < 3; i++) w[i] = move_work(g[i], 10 + b, bodies[b], st[i]);
        assert_string_equal(st[0], st[1]);
        assert_string_equal(st[0], st[2]);
        if (strstr(bodies[b], "target")) { /* one key less than the search's two */
            assert_int_equal(w[0] + 1, w[1]);
            by_id = w[0];
        } else { /* objectId=="" is no key: every object is tried, as before */
            assert_true(w[0] > by_id);
        }
        if (b < 5) {
            assert_string_equal(unit_attr(g[0], "a", "hit"), "");
            assert_string_equal(unit_attr(g[2], "a", "type"), "a");
        }
    }
    assert_string_equal(unit_attr(g[0], "a", "hit"), "T");
    assert_string_equal(unit_attr(g[1], "a", "hit"), "T");
    assert_string_equal(unit_attr(g[2], "a", "type"), ""); /* deleted */
    for (int i = 0; i < 3; i++) game_close(g[i]);
}

/* The largest immediate (2^31 - 1) is a value like any other: a variable
 * bound to it is bound, in a key, a binding and a comparison. */
static void largest_immediate_binds(void **state)
{
    Game *g = unit_game(HEAD "type: rule\nruleOrder: 1\n"
                             "if: exists(type==\"move\" & objectId==%m) & exists(type==\"n\" & v==%v) &\n"
                             "    exists(type==\"n\" & v==%v & objectId==%o) & %v==2147483647 & %w==%v\n"
                             "then: create(type==\"r\" & v==%v & w==%w & o==%o & next==%v+1) & delete(%m)\n\n"
                             "type: n\nv: 2147483647\n");
    assert_string_equal(unit_move(g, "p@x", 10, "subtype: go\n"), "applied");
    assert_string_equal(unit_attr(g, "r", "v"), "2147483647");
    assert_string_equal(unit_attr(g, "r", "w"), "2147483647");
    assert_string_equal(unit_attr(g, "r", "next"), "2147483648");
    assert_string_equal(unit_attr(g, "r", "o"), "3");
    game_close(g);
}

int run_eval_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backtracking_lowest_id),
        cmocka_unit_test(aggregates_and_locals),
        cmocka_unit_test(join_lists_in_one_pass),
        cmocka_unit_test(set_reads_before_writing),
        cmocka_unit_test(set_all_delete_all_for_each),
        cmocka_unit_test(runtime_error_undoes_the_rule),
        cmocka_unit_test(parse_error_says_why),
        cmocka_unit_test(restart_and_no_restart),
        cmocka_unit_test(loop_and_runaway),
        cmocka_unit_test(reserved_attributes_refused),
        cmocka_unit_test(targets_by_id),
        cmocka_unit_test(whole_numbers_at_64_bits),
        cmocka_unit_test(comparing_huge_and_small),
        cmocka_unit_test(largest_immediate_binds),
    };
    return cmocka_run_group_tests_name("evaluation and engine", tests, NULL, NULL);
}
