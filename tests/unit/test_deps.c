/*
 * test_deps.c - the engine skips a rule only when no change since its last
 * test can have made it true (lang_deps.h).  The analysis is checked on small
 * conditions, and the whole mechanism against the exhaustive engine (every
 * rule tested on every pass) on long random games of the shipped sets: the
 * state, the timers and the messages must agree after every event.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "lang_deps.h"
#include "engine.h"
#include "objfmt.h"
#include "rulesets.h"
#include "util.h"

static Deps *analyse(const char *cond, Prog **keep)
{
    ParseError pe;
    Prog *p = parse_rule(cond, strlen(cond), "halt()", 6, &pe);
    if (!p) fail_msg("%s: %s", cond, pe.msg);
    *keep = p;
    return deps_analyse(p);
}

static void seedable_conjuncts(void **state)
{
    struct {
        const char *cond;
        const char *seedable; /* one letter per conjunct */
        bool timed, always, timed_other;
    } cases[] = {
        /* a join on a key: either side may come first */
        {"exists(type==\"a\" & p==%p) & exists(type==\"b\" & p==%p & objectId==%o)", "yy", false, false},
        /* the negation reads %v unbound (local to it): b may not come first */
        {"!exists(type==\"a\" & x==%v) & exists(type==\"b\" & x==%v)", "nn", false, false},
        /* %v is bound before b but b uses it in more than a key */
        {"exists(type==\"a\" & n==%v) & exists(type==\"b\" & m==%v & length(%v) > 2)", "yn", false, false},
        /* %v's text matters (juxtaposition): "5" and "5.0" would differ */
        {"exists(type==\"a\" & n==%v) & exists(type==\"b\" & m==%v) & length(%v \"x\") > 2", "ynn", false, false},
        {"exists(type==\"v\" & timeGE(expiryTime))", "y", true, false},
        /* the clock read otherwise than by timeGE: tested at every new time */
        {"exists(type==\"v\" & expiryTime < timeNow())", "y", true, false, true},
        {"exists(type==\"v\" & n==%n) & random(1, 6) == 6", "yn", false, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Prog *p;
        Deps *d = analyse(cases[i].cond, &p);
        assert_int_equal(d->nconj, (int)strlen(cases[i].seedable));
        for (int k = 0; k < d->nconj; k++)
            if (d->seedable[k] != (cases[i].seedable[k] == 'y'))
                fail_msg("%s: conjunct %d seedable %d", cases[i].cond, k + 1, d->seedable[k]);
        assert_int_equal(d->timed, cases[i].timed);
        assert_int_equal(d->timed_other, cases[i].timed_other);
        assert_int_equal(d->always, cases[i].always);
        deps_free(d);
        prog_free(p);
    }
}

static void relevant_changes(void **state)
{
    Prog *p;
    Deps *d = analyse("exists(type==\"player\" & score > 100 & nickname==%n)", &p);
    assert_int_equal(d->nreads, 1);
    const Read *r = &d->reads[0];
    Sym player = sym_cstr("player"), vote = sym_cstr("vote");
    Change score_of_player = {CHANGE_SET, 7, sym_cstr("score"), sym_cstr("3"), player};
    Change score_of_vote = {CHANGE_SET, 8, sym_cstr("score"), sym_cstr("3"), vote};
    Change other_attr = {CHANGE_SET, 7, sym_cstr("email"), SYM_EMPTY, player};
    Change became_player = {CHANGE_SET, 8, SYM_type, vote, player};
    Change was_player = {CHANGE_SET, 8, SYM_type, player, vote};
    Change created = {CHANGE_CREATE, 9, SYM_EMPTY, SYM_EMPTY, SYM_EMPTY};
    Change deleted = {CHANGE_DELETE, 7, SYM_EMPTY, SYM_EMPTY, player};
    assert_true(deps_relevant(r, &score_of_player));
    assert_false(deps_relevant(r, &score_of_vote));
    assert_false(deps_relevant(r, &other_attr));
    assert_true(deps_relevant(r, &became_player));
    assert_true(deps_relevant(r, &was_player));
    assert_false(deps_relevant(r, &created)); /* an empty object is no player yet */
    assert_true(deps_relevant(r, &deleted));
    deps_free(d);
    prog_free(p);
}

/* A changed object seeds a conjunct only if it has the conjunct's literal
 * keys when the engine takes the change (compared as the index does). */
static void seeds_need_literal_keys(void **state)
{
    Prog *p;
    Deps *d = analyse("exists(type==\"move\" & subtype==\"vote\" & propId==%p & round==2 & note==\"\")", &p);
    const Read *r = &d->reads[0];
    assert_int_equal(r->nconsts, 3); /* type, subtype, round: not %p, not "" */
    Pool *pool = pool_new();
    ObjId vote = pool_create(pool), reg = pool_create(pool), bare = pool_create(pool);
    for (ObjId id = vote; id <= reg; id++) {
        pool_set(pool, id, SYM_type, sym_cstr("move"));
        pool_set(pool, id, sym_cstr("round"), sym_cstr("2.0"));
    }
    pool_set(pool, vote, sym_cstr("subtype"), sym_cstr("vote"));
    pool_set(pool, reg, sym_cstr("subtype"), sym_cstr("register"));
    assert_true(deps_may_match(r, pool_get(pool, vote)));
    assert_false(deps_may_match(r, pool_get(pool, reg)));
    assert_false(deps_may_match(r, pool_get(pool, bare)));
    assert_false(deps_may_match(r, NULL)); /* deleted since */
    pool_free(pool);
    deps_free(d);
    prog_free(p);
}

/* A read's literal keys are compared in canonical form ("123...012" for
 * 123...012.0, too big to be stored inline), a text only the rule's
 * literal leads to: after unused texts are collected and their slots
 * reused, a matching object must still wake the rule. */
static void literal_keys_survive_collection(void **state)
{
    Game *g = unit_game("type: rule\n"
                        "if: exists(type==\"move\" & n==1234567890123456789012.0 & objectId==%o)\n"
                        "then: create(type==\"hit\" & by==%o) & delete(%o)\n"
                        "\n"
                        "type: rule\n"
                        "if: exists(type==\"move\" & objectId==%o)\n"
                        "then: delete(%o)\n");
    assert_string_equal(unit_move(g, "p@x", 1, "n: 1\n"), "no effect"); /* the first rule is now known false */
    game_collect(g, true);
    /* new texts take any slots the collection freed */
    assert_string_equal(unit_move(g, "p@x", 2, "n: 9999999999999999999999\nm: 8888888888888888888888\n"), "no effect"); /* deleted by the second rule only */
    assert_string_equal(unit_move(g, "p@x", 3, "n: 1234567890123456789012\n"), "applied");
    assert_string_not_equal(unit_attr(g, "hit", "by"), "");
    game_close(g);
}

/* ---- the differential game ---- */

static uint64_t rng_state;
static unsigned roll(unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static const char *names[] = {"ann", "bob", "cy", "dee", "ed", "flo", "gus", ""};
static const char *conds[] = {"F", "T", "exists(type==\"player\" & score > 3)", "!exists(type==\"win\")"};
static const char *thens[] = {"noop()", "send(\"x@y\", \"hi\")", "setAll(type==\"player\")(score==score+1)"};

/* One random message body: registrations, votes on open proposals (or on
 * none), rule changes of every kind, and junk. */
static void random_body(Game *g, Buf *b, const char **sender)
{
    static char who[32];
    unsigned n = roll(8);
    snprintf(who, sizeof who, "%s@x", n == 7 ? "stranger" : names[n]);
    *sender = who;
    const IdSet *open = pool_lookup(g->pool, SYM_type, sym_cstr("voteInProgress"));
    switch (roll(7)) {
    case 0:
        buf_printf(b, "subtype: register\nnickname: %s\n", names[roll(8)]);
        break;
    case 1:
    case 2:
    case 3: {
        const char *prop = "999";
        if (open && open->live) {
            uint32_t i = idset_seek(open, 0, 1);
            prop = sym_text(obj_get(pool_get(g->pool, open->ids[i]), sym_cstr("propId")));
        }
        buf_printf(b, "subtype: vote\npropId: %s\nvote: %s\n", prop, roll(5) ? (roll(2) ? "FOR" : "AGAINST") : "MAYBE");
        break;
    }
    case 4:
        buf_printf(b, "subtype: ruleChange\nruleChangeType: create\nnewif: %s\nnewthen: %s\nneworder: %u\n",
                   conds[roll(4)], thens[roll(3)], 20000 + roll(100));
        if (roll(2)) buf_printf(b, "\nsubtype: ruleChange\nruleChangeType: repeal\ntarget: %u\n", 30 + roll(10));
        break;
    case 5:
        buf_printf(b, "subtype: ruleChange\nruleChangeType: amend\ntarget: 9\nnewif: "
                      "exists(type==\"player\" & score>%u & nickname==%%n & objectId==%%o) & "
                      "!exists(type==\"win\" & who==%%o) & exists(type==\"playerList\" & listContent==%%pl)\n",
                   20 + roll(40));
        break;
    default:
        buf_printf(b, "subtype: %s\n", roll(2) ? "nonsense" : "vote");
    }
}

typedef struct Seen {
    long events, firings, sent;
} Seen;

static void count(void *ud, Game *g, const Outcome *o)
{
    Seen *s = ud;
    s->events++;
    s->firings += o->run.firings;
    s->sent += (long)o->run.sent.len;
}

static void agree(Game *a, Game *b, const Seen *sa, const Seen *sb, int step)
{
    if (a->pool->state_hash != b->pool->state_hash || a->have_timer != b->have_timer ||
        (a->have_timer && a->next_timer != b->next_timer) || a->halted != b->halted || sa->events != sb->events ||
        sa->firings != sb->firings || sa->sent != sb->sent)
        fail_msg("step %d: skipping and exhaustive engines differ (firings %ld/%ld, timer %lld/%lld)", step,
                 sa->firings, sb->firings, (long long)a->next_timer, (long long)b->next_timer);
}

static void play_against_exhaustive(const char *set, uint64_t seed, int steps, bool shadow)
{
    const char *label;
    char *text = ruleset_load(set, &label, NULL);
    assert_non_null(text);
    Game *fast = unit_game(text), *ref = unit_game(text);
    ref->eng->exhaustive = true;
    free(text);
    /* created rules such as `if: T then: setAll(...)` run away: keep the
     * rollback cheap */
    for (Game **g = (Game *[]){fast, ref, NULL}; *g; g++) {
        pool_set((*g)->pool, 1, SYM_maxSteps, sym_cstr("3000"));
        if (shadow) pool_set((*g)->pool, 1, SYM_evaluation, SYM_shadow);
        engine_invalidate((*g)->eng);
    }
    rng_state = seed;
    Seen sf = {0}, sr = {0};
    long now = 1000000;
    int step = 0;
    for (; step < steps && !fast->halted; step++) {
        now += roll(10) == 0 ? 86400 * (long)(1 + roll(12)) : (long)roll(600);
        if (roll(12) == 0) {
            assert_true(game_tick(fast, now, false, count, &sf));
            assert_true(game_tick(ref, now, false, count, &sr));
        } else {
            Buf b = {0};
            const char *sender;
            random_body(fast, &b, &sender);
            assert_true(game_move(fast, sender, now, buf_str(&b), false, count, &sf));
            assert_true(game_move(ref, sender, now, buf_str(&b), false, count, &sr));
            buf_free(&b);
        }
        agree(fast, ref, &sf, &sr, step);
        if (step % 25 == 24) game_collect(fast, true); /* freed texts must not be missed */
    }
    if (step < 50 || sf.firings < 2 * step) fail_msg("the game hardly played: %d events, %ld firings", step, sf.firings);
    game_close(fast);
    game_close(ref);
}

/* A move the engine runs and that is then rolled back as the scam search
 * does (the undo log, and the engine's knowledge restored from a memo
 * rather than dropped): the game must go on exactly as if it never ran. */
static void run_and_roll_back(Game *g, const char *sender, long now, const char *body, EngineMemo *memo)
{
    Pool *p = g->pool;
    p->logging = true;
    size_t mark = pool_mark(p);
    ObjId next = p->next_id;
    uint64_t rng[4];
    memcpy(rng, g->eng->rng, sizeof rng);
    MsgList queue = {0};
    for (size_t i = 0; i < g->eng->queue.len; i++) msg_push(&queue, g->eng->queue.m[i].to, g->eng->queue.m[i].text);
    engine_memo_save(g->eng, memo);
    FmtDoc doc = {0};
    Buf err = {0};
    if (fmt_read(body, strlen(body), "move", &doc, &err))
        for (int i = 0; i < doc.n; i++) {
            ObjId id = pool_create(p);
            pool_set(p, id, SYM_type, SYM_move);
            pool_set(p, id, SYM_moveSender, sym_cstr(sender));
            pool_set(p, id, SYM_moveTimeStamp, sym_from_long(now));
            pool_set(p, id, SYM_moveBatch, sym_from_long((long)id));
            for (int k = 0; k < doc.objs[i].n; k++) pool_set(p, id, doc.objs[i].attrs[k].name, doc.objs[i].attrs[k].value);
        }
    fmt_doc_free(&doc);
    buf_free(&err);
    EventRun er;
    engine_run(g->eng, now, &er);
    event_run_free(&er);
    pool_undo_to(p, mark);
    p->next_id = next;
    memcpy(g->eng->rng, rng, sizeof rng);
    msg_free(&g->eng->queue);
    g->eng->queue = queue;
    engine_memo_restore(g->eng, memo);
    pool_forget_undo(p);
    p->logging = false;
}

/* Before every move, another move is run and rolled back with the memo;
 * the game still agrees with the exhaustive engine at every step. */
static void rolled_back_memo_agrees_with_exhaustive(void **state)
{
    const char *label;
    char *text = ruleset_load("favor", &label, NULL);
    assert_non_null(text);
    Game *fast = unit_game(text), *ref = unit_game(text);
    ref->eng->exhaustive = true;
    free(text);
    /* a runaway stops at the same firing in both engines only by maxSteps
     * (the exhaustive one works more per firing) */
    for (Game **g = (Game *[]){fast, ref, NULL}; *g; g++) {
        pool_set((*g)->pool, 1, SYM_maxSteps, sym_cstr("3000"));
        engine_invalidate((*g)->eng);
    }
    EngineMemo *memo = engine_memo_new();
    rng_state = 99;
    Seen sf = {0}, sr = {0};
    long now = 1000000;
    int step = 0;
    for (; step < 400 && !fast->halted; step++) {
        now += roll(10) == 0 ? 86400 * (long)(1 + roll(12)) : (long)roll(600);
        Buf b = {0};
        const char *sender;
        random_body(fast, &b, &sender);
        run_and_roll_back(fast, sender, now, buf_str(&b), memo);
        buf_reset(&b);
        random_body(fast, &b, &sender);
        assert_true(game_move(fast, sender, now, buf_str(&b), false, count, &sf));
        assert_true(game_move(ref, sender, now, buf_str(&b), false, count, &sr));
        buf_free(&b);
        agree(fast, ref, &sf, &sr, step);
    }
    if (step < 50 || sf.firings < 2 * step) fail_msg("the game hardly played: %d events, %ld firings", step, sf.firings);
    engine_memo_free(memo);
    game_close(fast);
    game_close(ref);
}

static void favor_agrees_with_exhaustive(void **state)
{
    for (uint64_t seed = 1; seed <= 4; seed++) play_against_exhaustive("favor", seed * 0x9e3779b97f4a7c15ULL, 600, false);
}

static void favor_draft_agrees_with_exhaustive(void **state)
{
    play_against_exhaustive("favor-draft", 77, 600, false);
}

static void shadow_evaluation_agrees_with_exhaustive(void **state)
{
    play_against_exhaustive("favor", 5, 400, true);
}

/* A rule that deletes its objects one a firing is searched again from
 * the object it found last (engine.c, test_rule), unless a change since
 * may have given it an earlier one: here, after item 3 goes, rule 2
 * makes item 1 ready, and rule 3 must take item 1 next, not item 4.
 * The order shows in the ids of the "gone" records; the engine that
 * resumes and the exhaustive one must agree, and both take 3, 1, 4, 5. */
#define RESUME_SET                                                                                              \
    "type: engineSettings\nrunType: rule\n\n"                                                                   \
    "type: rule\nruleOrder: 1\nif: exists(type==\"move\" & objectId==%m)\nthen: delete(objectId==%m)\n\n"       \
    "type: rule\nruleOrder: 2\nif: !exists(type==\"item\" & n==3) & "                                         \
    "exists(type==\"item\" & n==1 & ready==F & objectId==%x)\nthen: set(objectId==%x)(ready==T)\n\n"          \
    "type: rule\nruleOrder: 3\nif: exists(type==\"item\" & ready==T & n==%n & objectId==%o) & "                \
    "exists(type==\"go\")\nthen: delete(objectId==%o) & create(type==\"gone\" & n==%n)\n\n"                    \
    "type: item\nn: 1\nready: F\n\ntype: item\nn: 2\nready: F\n\ntype: item\nn: 3\nready: T\n\n"             \
    "type: item\nn: 4\nready: T\n\ntype: item\nn: 5\nready: T\n"

static void resumed_search_takes_an_earlier_solution_when_one_appears(void **state)
{
    Game *fast = unit_game(RESUME_SET), *ref = unit_game(RESUME_SET);
    ref->eng->exhaustive = true;
    for (Game **g = (Game *[]){fast, ref, NULL}; *g; g++) {
        ObjId go = pool_create((*g)->pool);
        pool_set((*g)->pool, go, SYM_type, sym_cstr("go"));
        assert_string_equal(unit_move(*g, "a@x", 1000, "subtype: tick\n"), "applied");
    }
    if (fast->pool->state_hash != ref->pool->state_hash) fail_msg("the resuming and the exhaustive engine differ");
    const IdSet *gone = pool_lookup(fast->pool, SYM_type, sym_cstr("gone"));
    assert_non_null(gone);
    char order[64] = "";
    IDSET_FOREACH (gone, id) {
        size_t n = strlen(order);
        snprintf(order + n, sizeof order - n, "%s%s", n ? " " : "", sym_text(obj_get(pool_get(fast->pool, id), sym_cstr("n"))));
    }
    assert_string_equal(order, "3 1 4 5");
    game_close(fast);
    game_close(ref);
}

/* What an event is charged of its budget must not depend on what the
 * engine remembers from the events before it (rules found false and not
 * tested again): a fresh process (the command line) and a warm one (the
 * server, replay) must reach the same verdict at a budget on the edge.
 * `cold` forgets everything before each event, as a fresh process knows
 * nothing; every event's charge is compared. */
typedef struct Charges {
    long events;
    uint64_t work[8], memory[8];
    Verdict status[8];
} Charges;

static void charge(void *ud, Game *g, const Outcome *o)
{
    Charges *c = ud;
    if (c->events < 8) {
        c->work[c->events] = o->run.used.work;
        c->memory[c->events] = o->run.used.memory;
        c->status[c->events] = o->verdict;
    }
    c->events++;
}

static void charges_agree(const Charges *w, const Charges *c, int step)
{
    if (w->events != c->events) fail_msg("step %d: %ld events warm, %ld cold", step, w->events, c->events);
    for (long i = 0; i < w->events && i < 8; i++)
        if (w->work[i] != c->work[i] || w->memory[i] != c->memory[i] || w->status[i] != c->status[i])
            fail_msg("step %d, event %ld: warm charged %llu work and %llu memory (%s), cold %llu and %llu (%s)", step,
                     i, (unsigned long long)w->work[i], (unsigned long long)w->memory[i], verdict_name(w->status[i]),
                     (unsigned long long)c->work[i], (unsigned long long)c->memory[i], verdict_name(c->status[i]));
}

static void charges_do_not_depend_on_memory(const char *set, uint64_t seed, int steps, bool shadow)
{
    const char *label;
    char *text = ruleset_load(set, &label, NULL);
    assert_non_null(text);
    Game *warm = unit_game(text), *cold = unit_game(text);
    free(text);
    for (Game **g = (Game *[]){warm, cold, NULL}; *g; g++) {
        pool_set((*g)->pool, 1, SYM_maxSteps, sym_cstr("3000"));
        if (shadow) pool_set((*g)->pool, 1, SYM_evaluation, SYM_shadow);
        engine_invalidate((*g)->eng);
    }
    rng_state = seed;
    long now = 1000000, charged = 0;
    int step = 0;
    for (; step < steps && !warm->halted; step++) {
        now += roll(10) == 0 ? 86400 * (long)(1 + roll(12)) : (long)roll(600);
        Charges cw = {0}, cc = {0};
        engine_invalidate(cold->eng); /* a fresh process: nothing known */
        if (roll(12) == 0) {
            assert_true(game_tick(warm, now, false, charge, &cw));
            assert_true(game_tick(cold, now, false, charge, &cc));
        } else {
            Buf b = {0};
            const char *sender;
            random_body(warm, &b, &sender);
            assert_true(game_move(warm, sender, now, buf_str(&b), false, charge, &cw));
            assert_true(game_move(cold, sender, now, buf_str(&b), false, charge, &cc));
            buf_free(&b);
        }
        charges_agree(&cw, &cc, step);
        if (warm->pool->state_hash != cold->pool->state_hash) fail_msg("step %d: the states differ", step);
        charged += cw.events;
    }
    if (step < 50 || charged < 50) fail_msg("the game hardly played: %d steps, %ld events", step, charged);
    game_close(warm);
    game_close(cold);
}

static void charges_are_those_of_a_fresh_process(void **state)
{
    charges_do_not_depend_on_memory("favor", 11, 500, false);
    charges_do_not_depend_on_memory("favor-draft", 12, 300, false);
    charges_do_not_depend_on_memory("favor", 13, 300, true);
    charges_do_not_depend_on_memory("suber", 14, 300, false);
}

/* Rule 3 takes the move's changes in; rule 4, known false, is then
 * passed over, unread, before rule 5 fires; the firing makes a rule (the
 * order is rebuilt, the rules move) and wakes rule 4, which is then
 * tested.  That test is not the event's first look at rule 4 (the pass
 * met it), so the event pays for it, as it pays in a fresh process,
 * whose first look tested rule 4 in full. */
static void charges_agree_when_a_firing_moves_the_rules(void **state)
{
    const char *set =
        "objectId: 1\ntype: engineSettings\nrunType: rule\n\n"
        "objectId: 2\ntype: x\nn: 0\n\n"
        "objectId: 3\ntype: rule\nruleOrder: 5\n"
        "if: exists(type==\"move\" & made!=T) & exists(type==\"y\")\nthen: halt()\n\n"
        "objectId: 4\ntype: rule\nruleOrder: 10\n"
        "if: exists(type==\"x\" & n==1 & objectId==%x)\nthen: set(objectId==%x)(n==0)\n\n"
        "objectId: 5\ntype: rule\nruleOrder: 20\n"
        "if: exists(type==\"move\" & made!=T & objectId==%m) & exists(type==\"x\" & objectId==%x)\n"
        "then: set(objectId==%m)(made==T) & set(objectId==%x)(n==1) &\n"
        "      create(type==\"rule\" & ruleOrder==\"30\" & if==\"F\" & then==\"halt()\")\n";
    Game *warm = unit_game(set), *cold = unit_game(set);
    for (int step = 0; step < 4; step++) {
        Charges cw = {0}, cc = {0};
        engine_invalidate(cold->eng); /* a fresh process: nothing known */
        assert_true(game_move(warm, "a@x", 1000 + step, "subtype: poke\n", false, charge, &cw));
        assert_true(game_move(cold, "a@x", 1000 + step, "subtype: poke\n", false, charge, &cc));
        charges_agree(&cw, &cc, step);
        assert_int_equal(warm->pool->state_hash, cold->pool->state_hash);
    }
    assert_string_equal(unit_attr(warm, "x", "n"), "0"); /* rule 4 fired after each move */
    assert_int_equal(pool_lookup(warm->pool, SYM_type, sym_cstr("rule"))->live, 3 + 4);
    game_close(warm);
    game_close(cold);
}

int run_deps_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seedable_conjuncts),
        cmocka_unit_test(relevant_changes),
        cmocka_unit_test(seeds_need_literal_keys),
        cmocka_unit_test(literal_keys_survive_collection),
        cmocka_unit_test(favor_agrees_with_exhaustive),
        cmocka_unit_test(resumed_search_takes_an_earlier_solution_when_one_appears),
        cmocka_unit_test(favor_draft_agrees_with_exhaustive),
        cmocka_unit_test(shadow_evaluation_agrees_with_exhaustive),
        cmocka_unit_test(rolled_back_memo_agrees_with_exhaustive),
        cmocka_unit_test(charges_are_those_of_a_fresh_process),
        cmocka_unit_test(charges_agree_when_a_firing_moves_the_rules),
    };
    return cmocka_run_group_tests_name("deps", tests, NULL, NULL);
}
