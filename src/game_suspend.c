/*
 * game_suspend.c - the game-keeper's way out of a rule that stops the game
 * (game.h game_suspend): `nomic suspend GAME RULE_ID` sets a rule aside,
 * `nomic resume GAME RULE_ID` takes it back.
 *
 * A rule whose condition holds for every later event and whose then runs
 * past the budget undoes every event, a repeal of it included: the
 * players cannot get out by play.  Taking it out of the engine's run order
 * is a Mechanics' act, like the budget that undid the events: it decides
 * nothing of the game (the rule stays as it is, in the state, for the
 * players to repeal or fix by play), and so it is not in the state
 * either, where the rules could read or change it.  It is an event of its
 * own in the journal, kind "suspend" or "resume", input "rule: N", with
 * the state hash it leaves (the same as before: no object changes), so
 * that `nomic log` and the page show it and `nomic replay` honours it; the
 * list itself is the meta key "suspended" (game.c), written in the
 * event's transaction.
 */
#include "game_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds (on) or removes rule `id` on the engine's list. */
static void set_suspended(Game *g, ObjId id, bool on)
{
    Engine *e = g->eng;
    ObjId *ids = xmalloc((size_t)(e->nsuspended + 1) * sizeof *ids);
    int n = 0;
    for (int i = 0; i < e->nsuspended; i++)
        if (e->suspended[i] != id) ids[n++] = e->suspended[i];
    if (on) ids[n++] = id;
    engine_set_suspended(e, ids, n);
    free(ids);
}

/* Why rule `id` cannot be suspended (on) or resumed, or NULL. */
static char *refusal(Game *g, ObjId id, bool on)
{
    RuleInfo *ri;
    free((engine_rules(g->eng, &ri), ri)); /* reads the runType */
    const Obj *o = pool_get(g->pool, id);
    bool listed = engine_is_suspended(g->eng, id);
    Buf b = {0};
    if (!o && !(listed && !on)) {
        buf_printf(&b, "there is no object %u (deleted, or never created): nothing was kept", id);
    } else if (o && obj_get(o, SYM_type) != g->eng->run_type && !listed) {
        Sym t = obj_get(o, SYM_type);
        buf_printf(&b, "object %u is not a rule (its type is \"%s\"; the rules are the objects of type \"%s\"): nothing was kept",
                   id, sym_text(t), sym_text(g->eng->run_type));
    } else if (on && listed) {
        buf_printf(&b, "rule %u is suspended already (`nomic resume` takes it back): nothing was kept", id);
    } else if (!on && !listed) {
        buf_printf(&b, "rule %u is not suspended: nothing was kept", id);
    }
    return b.len ? buf_take(&b) : NULL;
}

/* What the event says it did. */
static char *what_it_did(Game *g, ObjId id, bool on)
{
    const Obj *o = pool_get(g->pool, id);
    Buf b = {0};
    if (on)
        buf_printf(&b, "rule %u (ruleOrder %s) is suspended by the game-keeper: the engine skips it until `nomic resume`; "
                       "the players may repeal or fix it by play meanwhile",
                   id, sym_text(obj_get(o, SYM_ruleOrder)));
    else if (!o || obj_get(o, SYM_type) != g->eng->run_type)
        buf_printf(&b, "rule %u is no longer in the game (the players repealed it while it was suspended): taken off "
                       "the list of suspended rules; nothing to resume",
                   id);
    else
        buf_printf(&b, "rule %u (ruleOrder %s) is resumed by the game-keeper: the engine runs it again", id,
                   sym_text(obj_get(o, SYM_ruleOrder)));
    return buf_take(&b);
}

/* Sets rule `id` aside or takes it back, as event o; the timer's
 * back-off starts again (what made the timer run away may be gone). */
static void apply(Game *g, ObjId id, bool on, Outcome *o)
{
    o->message = what_it_did(g, id, on);
    set_suspended(g, id, on);
    if (g->timer_fails) game_timer_backoff_clear(g);
    o->verdict = VERDICT_APPLIED;
    hex64(pool_public_hash(g->pool), o->hash);
}

/* The event in the journal and the list in the meta, in one transaction. */
static bool keep(Game *g, ObjId id, Outcome *o)
{
    Store *st = g->st;
    char input[32];
    snprintf(input, sizeof input, "rule: %u", id);
    bool ok = store_begin(st);
    long n = ok ? store_journal_received(st, o->kind, o->time, NULL, input, NULL, o->time) : -1;
    o->event = n > 0 ? n : 0;
    ok = n > 0 && game_save_suspended(g) && game_save_state(g, n) &&
         store_event_outcome(st, n, verdict_name(o->verdict), o->message, NULL, NULL, o->hash, NULL, NULL) &&
         store_commit(st);
    if (!ok) {
        store_rollback(st);
        g->reload = true; /* memory holds a list the store did not keep */
        return false;
    }
    g->known_event = n;
    game_state_kept(g, n);
    return true;
}

bool game_suspend(Game *g, ObjId rule, bool on, OutcomeFn fn, void *ud)
{
    Buf err = {0};
    bool ok = game_lock(g, &err);
    buf_free(&err);
    if (!ok) return false;
    int64_t last;
    Outcome o;
    memset(&o, 0, sizeof o);
    o.kind = on ? "suspend" : "resume";
    o.time = time_now_wall();
    /* the game's time goes forward: never before the last event */
    if (game_last_time(g, &last) < 0) {
        ok = false;
        goto done;
    }
    if (o.time < last) o.time = last;
    char *why = refusal(g, rule, on);
    if (why) {
        o.verdict = VERDICT_REFUSED;
        o.message = why;
    } else {
        apply(g, rule, on, &o);
        ok = !g->st || keep(g, rule, &o);
    }
    if (ok && fn) fn(ud, g, &o);
done:
    outcome_free(&o);
    game_unlock(g);
    return ok;
}

bool game_event_keeper(Game *g, const EventInput *in, Outcome *o)
{
    memset(o, 0, sizeof *o);
    bool on = strcmp(in->kind, "suspend") == 0;
    o->kind = on ? "suspend" : "resume";
    o->time = in->time;
    unsigned long id = 0;
    if (!in->moves || sscanf(in->moves, "rule: %lu", &id) != 1 || !id) {
        o->verdict = VERDICT_REFUSED;
        o->message = xstrdup("not a rule's id");
        return true;
    }
    apply(g, (ObjId)id, on, o);
    return !g->st || keep(g, (ObjId)id, o); /* a corrected game (replay --strike --into) keeps it */
}
