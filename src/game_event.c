/*
 * game_event.c - one event's life (game.h): the journal's record of what came
 * in, the moves made objects, the rules run to quiescence, the outcome
 * settled (applied, no effect, refused, loop, halted) and committed with
 * the changes, the outbox and the answers in one transaction; a dry run
 * undone instead.  And the recovery of an event a crash left unsettled.
 *
 * Test hooks, read from the environment, for the suites that check what
 * happens when an event goes wrong (docs/mechanics.md): NOMIC_TEST_CRASH_EVENT=N
 * aborts the program while it runs event N, NOMIC_TEST_STALL_EVENT=N[:S] makes
 * it wait S seconds (60) there, to be killed or to have its disk filled;
 * store.c's NOMIC_TEST_FAIL_COMMIT=N
 * makes the commit of event N fail as a full disk would.
 */
#include "game_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "game_billing.h"
#include "move_code.h"
#include "game_mechanics.h"
#include "objfmt.h"
#include "pool_privacy.h"

/* ---- one event ---- */

/* An object the event touched, and whether the event made it. */
typedef struct Touched {
    ObjId id;
    bool born;
} Touched;

static int cmp_touched(const void *a, const void *b)
{
    ObjId x = ((const Touched *)a)->id, y = ((const Touched *)b)->id;
    return x < y ? -1 : x > y;
}

/* The objects the event's undo records touched, each once, by id; *n
 * their number.  The caller frees. */
static Touched *touched_objects(const Pool *p, size_t *n)
{
    Touched *t = xmalloc((p->undo_len ? p->undo_len : 1) * sizeof *t);
    for (size_t i = 0; i < p->undo_len; i++) t[i] = (Touched){p->undo[i].id, p->undo[i].kind == UNDO_CREATE};
    if (p->undo_len > 32) {
        qsort(t, p->undo_len, sizeof *t, cmp_touched);
    } else { /* most events: sorted in place, without qsort's calls */
        for (size_t i = 1; i < p->undo_len; i++) {
            Touched x = t[i];
            size_t j = i;
            for (; j > 0 && t[j - 1].id > x.id; j--) t[j] = t[j - 1];
            t[j] = x;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < p->undo_len; i++) {
        if (k && t[k - 1].id == t[i].id) t[k - 1].born |= t[i].born;
        else t[k++] = t[i];
    }
    *n = k;
    return t;
}

/* the test hooks' events, read once (env_number_once) */
static _Atomic long crash_event = -1, stall_event = -1;

/* NOMIC_TEST_STALL_EVENT=N:SECONDS, or 60 seconds. */
static unsigned stall_seconds(void)
{
    const char *colon = strchr(getenv("NOMIC_TEST_STALL_EVENT"), ':');
    long s = colon ? strtol(colon + 1, NULL, 10) : 60;
    return s > 0 && s < 3600 ? (unsigned)s : 60;
}

/* The event's changes, for its journal row (store.h: a record per
 * object, in id order), each noted for the objects table's checkpoint.
 * An object the event made and deleted, a move most often, has none: no
 * state after an event holds it. */
static void changes_text(Game *g, Buf *b)
{
    size_t n;
    Touched *t = touched_objects(g->pool, &n);
    for (size_t i = 0; i < n; i++) {
        const Obj *obj = pool_get(g->pool, t[i].id);
        if (!obj && t[i].born) continue;
        if (b->len) buf_putc(b, '\n');
        if (obj) {
            fmt_print_obj(b, obj, NULL, NULL);
        } else {
            buf_puts(b, "deleted: ");
            buf_put_int(b, t[i].id);
            buf_putc(b, '\n');
        }
        game_object_changed(g, t[i].id, t[i].born);
    }
    free(t);
}

/* Writes the event's outcome and effects in one transaction. */
static bool commit_event(Game *g, const EventInput *in, Outcome *o)
{
    if (!g->st) {
        if (g->keep_changes && o->ran && o->run.status != RUN_RUNAWAY) {
            Buf b = {0};
            changes_text(g, &b);
            o->changes = b.len ? buf_take(&b) : NULL;
            buf_free(&b);
        }
        return true;
    }
    Store *st = g->st;
    if (o->failed_read) { /* store_error says which */
        g->reload = true;
        return false;
    }
    bool ok = store_begin(st);
    Buf changes = {0};
    if (o->ran && o->run.status != RUN_RUNAWAY) {
        changes_text(g, &changes);
        if (g->keep_changes && changes.len) o->changes = xstrdup(buf_str(&changes));
        /* the objects table has them at its checkpoint (game.c), a
         * group's at its end (game_group_end) */
        ok = ok && (store_in_group(st) || game_objects_checkpoint(g, o->event));
        /* the outbox: what sendNow handed over, and what still waits */
        if (in->summing && in->answer && o->verdict != VERDICT_REFUSED && o->verdict != VERDICT_LOOP)
            game_answer_summary(g, in->answer->sender, in->summing, in->reading, o);
        ok = ok && (g->queue_stored_empty || store_outbox_drop_queued(st)) && game_hand_over(g, o);
        for (size_t i = 0; ok && i < g->eng->queue.len; i++)
            ok = store_outbox_add(st, o->event, sym_text(g->eng->queue.m[i].to), sym_text(g->eng->queue.m[i].text),
                                  "queued", NULL, o->time) > 0;
    }
    if (ok && o->verdict == VERDICT_REFUSED && in->answer) ok = game_answer_refusal(g, in->answer, in->answer_unread, o);
    if (ok && in->token_to) ok = game_mail_token(g, in->token_to, o->event, o->time);
    if (ok && in->payers) ok = billing_charge(g, in->payers, o);
    ok = ok && game_save_state(g, o->event);
    if (ok) {
        const char *trace = o->ran ? buf_str(&o->run.trace) : NULL;
        const char *tj = o->ran ? buf_str(&o->run.trace_json) : NULL;
        char *code = code_notes_journal(&o->code);
        ok = store_event_outcome(st, o->event, verdict_name(o->verdict), o->message, trace, tj,
                                 o->ran && o->run.status != RUN_RUNAWAY ? o->hash : NULL, code,
                                 changes.len ? buf_str(&changes) : NULL);
        free(code);
    }
    /* a proposal opened: its scam check is pending until it has run (scams_check.h) */
    if (ok && g->on_opened && g->opened && o->ran && o->run.status != RUN_RUNAWAY && o->verdict != VERDICT_REFUSED &&
        (o->scam_pending = g->opened(g)))
        ok = store_event_scam_check(st, o->event, o->scam_pending);
    buf_free(&changes);
    if (!ok || !store_commit(st)) {
        store_rollback(st);
        /* the pool, the generator and the queue in memory hold an event
         * the store did not keep: the game is loaded again before the next
         * event, which finishes this one (recover) */
        g->reload = true;
        return false;
    }
    g->known_event = o->event;
    game_state_kept(g, o->event);
    if (o->ran && o->run.status != RUN_RUNAWAY) g->queue_stored_empty = g->eng->queue.len == 0;
    return true;
}

static const Sym *reserved_attrs(int *n)
{
    static const Sym r[] = {SYM_type, SYM_moveSender, SYM_moveTimeStamp, SYM_moveBatch, SYM_moveIndex};
    *n = 5;
    return r;
}

/* Checks a parsed move body; a message saying what is wrong, or NULL. */
static char *validate_moves(const FmtDoc *doc)
{
    if (doc->n == 0) return xstrdup("no move found in the message (write attributes as name: value lines)");
    if (doc->n > MAX_MOVES) {
        Buf b = {0};
        buf_printf(&b, "the message holds %d moves; a message may hold at most %d", doc->n, MAX_MOVES);
        return buf_take(&b);
    }
    int nr;
    const Sym *res = reserved_attrs(&nr);
    Buf b = {0};
    for (int i = 0; i < doc->n; i++) {
        const FmtObj *fo = &doc->objs[i];
        if (fo->objectId) buf_printf(&b, "move %d (line %d): objectId is assigned by the engine; ", i + 1, fo->line);
        for (int k = 0; k < fo->n; k++)
            for (int r = 0; r < nr; r++)
                if (fo->attrs[k].name == res[r])
                    buf_printf(&b, "move %d (line %d): %s is set by the Mechanics, not by the sender; ", i + 1,
                               fo->attrs[k].pos0.line, sym_text(res[r]));
    }
    if (!b.len) return NULL;
    b.len -= 2;
    b.s[b.len] = 0;
    return buf_take(&b);
}

/* What an event may change besides the pool's objects, kept to put back
 * when the event is undone: a runaway, or any dry run (`try`, the timer
 * probe).  Nothing that is not journaled may move the counters that
 * replay repeats (next_id, the generator) nor what the meta keeps (the
 * timer, halted, the last mover, the loop's winner). */
typedef struct Saved {
    size_t mark;
    ObjId next_id;   /* shadow firings reserve ids that a runaway never uses */
    uint64_t rng[4];
    MsgList queue;
    bool halted, have_timer;
    int64_t next_timer;
    char *last_mover, *winner_note;
} Saved;

/* One event as it runs, on the stack of the function that runs it (Lua
 * keeps a call's CallInfo apart from its lua_State): the game, the
 * event's input, what to put back if it is undone, and the rules that
 * fired (for engine_why_not). */
#define FIRED_MAX 64 /* enough to tell a move's readers */
typedef struct EventCtx {
    Game *g;
    const EventInput *in;
    Saved sv;
    ObjId fired[FIRED_MAX];
    size_t nfired;
} EventCtx;

static void copy_queue(MsgList *to, const MsgList *from)
{
    *to = (MsgList){0};
    for (size_t i = 0; i < from->len; i++) msg_push(to, from->m[i].to, from->m[i].text);
}

static void save_state(Game *g, Saved *s)
{
    g->pool->logging = true;
    pool_fresh_open(g->pool); /* closed when the rules are done (settle, finish) */
    s->mark = pool_mark(g->pool);
    s->next_id = g->pool->next_id;
    memcpy(s->rng, g->eng->rng, sizeof s->rng);
    copy_queue(&s->queue, &g->eng->queue);
    s->halted = g->halted;
    s->have_timer = g->have_timer;
    s->next_timer = g->next_timer;
    s->last_mover = g->last_mover ? xstrdup(g->last_mover) : NULL;
    s->winner_note = g->winner_note ? xstrdup(g->winner_note) : NULL;
}

/* Undoes the event's effects on the pool, the counters and the queue.  It
 * may run twice (a dry run that runs away): the saved queue is copied, not
 * moved. */
static void restore_state(Game *g, Saved *s)
{
    pool_undo_to(g->pool, s->mark);
    g->pool->next_id = s->next_id;
    memcpy(g->eng->rng, s->rng, sizeof s->rng);
    msg_free(&g->eng->queue);
    copy_queue(&g->eng->queue, &s->queue);
    engine_invalidate(g->eng);
}

/* After a dry run, the game's own state too is as it was.  (A real event
 * that runs away keeps its sender as the last mover, as before.) */
static void restore_meta(Game *g, Saved *s)
{
    g->halted = s->halted;
    g->have_timer = s->have_timer;
    g->next_timer = s->next_timer;
    free(g->last_mover);
    g->last_mover = s->last_mover;
    free(g->winner_note);
    g->winner_note = s->winner_note;
    s->last_mover = s->winner_note = NULL;
}

/* A dry run a request triggers (`try`, a report) and the "no effect"
 * explanation play on what `viewer` may see (NULL: the public): every
 * private value of what the viewer does not own reads "" (privacy_blank).
 * Under the caller's undo mark, which rolls it back with the rest; the
 * engine forgets what it knew of the state it did not see. */
static void view_as(Game *g, const char *viewer)
{
    if (privacy_blank(g->pool, viewer)) engine_invalidate(g->eng);
}

static void saved_free(Saved *s)
{
    msg_free(&s->queue);
    free(s->last_mover);
    free(s->winner_note);
}

static void loop_meta_rule(Game *g, Outcome *o)
{
    const char *who = g->last_mover ? g->last_mover : "(nobody has moved)";
    Buf b = {0};
    buf_printf(&b, "The game state repeated within one event: a verifiable loop. By the meta-rule the last player "
                   "to submit a move, %s, wins, and the game has halted.", who);
    free(o->message);
    o->message = xstrdup(buf_str(&b));
    free(g->winner_note);
    g->winner_note = xstrdup(who);
    char *all = g->st ? store_all_senders(g->st) : NULL;
    if (g->st && !all) o->failed_read = true; /* the notice would miss players: the event fails */
    Sym to = sym_cstr(all && *all ? all : who);
    msg_push(&o->run.sent, to, sym_intern(buf_str(&b), b.len));
    free(all);
    buf_free(&b);
    g->halted = true;
}

/* Notes a rule that fired (the engine's hook), for engine_why_not. */
static void note_fired(void *ud, ObjId rule, const Prog *p, const Sym *vars, bool changed)
{
    EventCtx *c = ud;
    for (size_t i = 0; i < c->nfired; i++)
        if (c->fired[i] == rule) return;
    if (c->nfired == FIRED_MAX) return;
    c->fired[c->nfired++] = rule;
}

/* Runs the rules on the pool as the event left it and settles the outcome. */
static Verdict settle(EventCtx *c, Outcome *o)
{
    Game *g = c->g;
    bool dry = c->in->dry;
    if (!dry && o->event > 0 && o->event == env_number_once("NOMIC_TEST_CRASH_EVENT", &crash_event)) abort();
    if (!dry && o->event > 0 && o->event == env_number_once("NOMIC_TEST_STALL_EVENT", &stall_event))
        sleep(stall_seconds());
    c->nfired = 0;
    bool noting = !g->eng->hook; /* (a benchmark may hold the hook) */
    if (noting) {
        g->eng->hook = note_fired;
        g->eng->hook_ud = c;
    }
    engine_run(g->eng, o->time, &o->run);
    pool_fresh_close(g->pool); /* the keyed hash, from here on */
    if (noting) g->eng->hook = NULL;
    o->ran = true;
    Verdict status = VERDICT_APPLIED;
    if (o->run.status == RUN_RUNAWAY) {
        restore_state(g, &c->sv);
        o->message = xstrdup(o->run.message);
        return VERDICT_REFUSED;
    }
    if (o->run.status == RUN_LOOP) {
        loop_meta_rule(g, o);
        status = VERDICT_LOOP;
    } else if (o->run.halt && !dry) {
        g->halted = true;
        o->message = xstrdup("halt(): the game has ended; later moves are refused");
        status = VERDICT_HALTED;
    }
    g->have_timer = o->run.have_timer;
    g->next_timer = o->run.next_timer;
    hex64(pool_public_hash(g->pool), o->hash);
    return status;
}

static bool finish(EventCtx *c, Outcome *o, Verdict status)
{
    Game *g = c->g;
    bool ok = true;
    pool_fresh_close(g->pool); /* (an event refused before its rules ran) */
    o->verdict = status;
    if (c->in->dry) {
        restore_state(g, &c->sv);
        restore_meta(g, &c->sv);
    } else {
        ok = commit_event(g, c->in, o);
    }
    saved_free(&c->sv);
    pool_forget_undo(g->pool);
    g->pool->logging = false;
    /* the check starts from the state the event left, once it is on disk */
    if (ok && !c->in->dry && o->scam_pending && g->on_opened)
        g->on_opened(g->on_opened_ud, g, o->event, o->time, o->scam_pending);
    return ok;
}

/* Did the rules change nothing but the moves themselves (ids first ..
 * first + n - 1), from undo mark `mark` on? */
static bool only_moves_changed(const Pool *p, size_t mark, ObjId first, int n)
{
    for (size_t i = mark; i < p->undo_len; i++)
        if (p->undo[i].id < first || p->undo[i].id >= first + (ObjId)n) return false;
    return true;
}

#define WHY_MAX_MOVES 3 /* moves of a message explained */

/* A move that changed nothing: why, as the rules read it (engine_why_not),
 * in the event's message.  A move the rules deleted is put back for the
 * reading, then taken out again: nothing of the game changes. */
static void explain_no_effect(const EventCtx *c, Outcome *o, const FmtDoc *doc, size_t run_mark, ObjId first, Sym from,
                              Sym when, Sym batch)
{
    Game *g = c->g;
    Buf b = {0};
    buf_puts(&b, "no effect: ");
    size_t head = b.len;
    buf_puts(&b, doc->n > 1 ? "the rules changed nothing but the moves themselves"
                            : "the rules changed nothing but the move itself");
    int explained = g->unexplained ? 0 : doc->n < WHY_MAX_MOVES ? doc->n : WHY_MAX_MOVES;
    for (int i = 0; i < explained; i++) {
        ObjId id = first + (ObjId)i;
        size_t mark = pool_mark(g->pool);
        ObjId next = g->pool->next_id;
        if (!pool_get(g->pool, id)) {
            /* as it was when the rules deleted it (they may have marked it) */
            const Obj *was = NULL;
            for (size_t u = run_mark; u < g->pool->undo_len; u++)
                if (g->pool->undo[u].kind == UNDO_DELETE && g->pool->undo[u].id == id) was = g->pool->undo[u].saved;
            id = pool_create(g->pool);
            pool_set(g->pool, id, SYM_type, SYM_move);
            pool_set(g->pool, id, SYM_moveSender, from);
            pool_set(g->pool, id, SYM_moveTimeStamp, when);
            pool_set(g->pool, id, SYM_moveBatch, batch);
            if (!g->unindexed) pool_set(g->pool, id, SYM_moveIndex, sym_from_long(i + 1));
            for (int k = 0; k < doc->objs[i].n; k++)
                pool_set(g->pool, id, doc->objs[i].attrs[k].name, doc->objs[i].attrs[k].value);
            for (uint32_t k = 0; was && k < obj_n(was); k++)
                if (obj_name(was, k) != SYM_objectId) pool_set(g->pool, id, obj_name(was, k), obj_value(was, k));
        }
        /* read as the mover may (their own secrets, nobody else's), with a
         * throwaway generator: an explanation is no oracle of another's
         * private value nor of the game's next draws */
        if (c->in->public_view) {
            /* anyone may claim the address: the public view, and the move
             * as its sender wrote it, which the sender knows */
            view_as(g, NULL);
            for (int k = 0; k < doc->objs[i].n; k++)
                pool_set(g->pool, id, doc->objs[i].attrs[k].name, doc->objs[i].attrs[k].value);
        } else {
            view_as(g, sym_text(from));
        }
        uint64_t rng[4];
        memcpy(rng, g->eng->rng, sizeof rng);
        game_throwaway_rng(g);
        Buf why = {0}, reason = {0};
        engine_why_not(g->eng, o->time, id, c->fired, c->nfired, &reason, &why);
        memcpy(g->eng->rng, rng, sizeof rng);
        /* the reason, in the words of the rule nearest to taking the
         * move, first: for one move in place of the generic words */
        if (doc->n > 1) {
            buf_printf(&b, "\nmove %d:", i + 1);
            if (reason.len) buf_printf(&b, " %s", buf_str(&reason));
        } else if (reason.len) {
            b.len = head;
            buf_puts(&b, buf_str(&reason));
        }
        buf_free(&reason);
        for (const char *p = buf_str(&why); *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            buf_printf(&b, "\n  %.*s", (int)n, p);
            p += n + (nl != NULL);
        }
        buf_free(&why);
        /* undone: the pool is as it was, and the engine hears of the
         * changes and their undoing as of any others (what it knows of
         * the rules stays true), unless the view blanked values */
        if (pool_mark(g->pool) != mark) {
            pool_undo_to(g->pool, mark);
            g->pool->next_id = next;
        }
    }
    if (explained && doc->n > explained) buf_printf(&b, "\n(%d more moves not explained)", doc->n - WHY_MAX_MOVES);
    char *old = o->message;
    o->message = old ? NULL : buf_take(&b);
    if (old) {
        Buf both = {0};
        buf_printf(&both, "%s; %s", buf_str(&b), old);
        o->message = buf_take(&both);
        free(old);
    }
    buf_free(&b);
}

/* The check of the moves' rule code, to their sender, after what the
 * rules sent (an event undone whole answers with its refusal only). */
static void answer_code_notes(Outcome *o, const char *sender)
{
    char *text = o->verdict == VERDICT_REFUSED ? NULL : code_notes_text(&o->code);
    if (text) msg_push(&o->run.sent, sym_cstr(sender), sym_cstr(text));
    free(text);
}

int move_mechanics(Attr *a, Sym from, Sym when, Sym batch, int index)
{
    int n = 0;
    a[n++] = (Attr){SYM_type, SYM_move};
    a[n++] = (Attr){SYM_moveSender, from};
    a[n++] = (Attr){SYM_moveTimeStamp, when};
    a[n++] = (Attr){SYM_moveBatch, batch};
    if (index) a[n++] = (Attr){SYM_moveIndex, sym_from_long(index)};
    return n;
}

/* One move of a message as an object: the Mechanics' attributes, then the
 * move's own (validate_moves refused any of the Mechanics' names). */
static ObjId create_move(Pool *p, const FmtObj *m, Sym from, Sym when, Sym batch, int index)
{
    enum { LOCAL = 32 };
    size_t room = MOVE_MECHANICS + (size_t)m->n;
    Attr local[LOCAL], *a = room <= LOCAL ? local : xmalloc(room * sizeof *a);
    int n = move_mechanics(a, from, when, batch, index);
    for (int k = 0; k < m->n; k++) a[n++] = (Attr){m->attrs[k].name, m->attrs[k].value};
    ObjId id = pool_create_with(p, a, (uint32_t)n);
    if (a != local) free(a);
    return id;
}

/* Turns a message body into move objects and runs the rules. */
static Verdict process_move(EventCtx *c, Outcome *o)
{
    Game *g = c->g;
    const char *sender = c->in->sender ? c->in->sender : "", *body = c->in->moves;
    FmtDoc doc = {0};
    Buf err = {0};
    Verdict status = VERDICT_REFUSED;
    if (g->halted) {
        o->message = xstrdup("the game has ended; no more moves are accepted");
    } else if (!fmt_read(body, strlen(body), "move", &doc, &err)) {
        o->message = buf_take(&err);
    } else if ((o->message = validate_moves(&doc))) {
    } else {
        free(g->last_mover);
        g->last_mover = xstrdup(sender);
        /* the code is checked against the settings as the move finds them */
        code_check_moves(g->pool, &doc, &o->code);
        Sym from = sym_cstr(sender), when = sym_from_long((long)c->in->stamp);
        Sym batch = SYM_EMPTY;
        ObjId first = 0;
        for (int i = 0; i < doc.n; i++) {
            if (i == 0) batch = sym_from_long((long)g->pool->next_id); /* the batch is named by its first move */
            ObjId id = create_move(g->pool, &doc.objs[i], from, when, batch, g->unindexed ? 0 : i + 1);
            if (i == 0) first = id;
        }
        o->code.first_move = (long)first; /* the notes name the moves they are about */
        size_t mark = pool_mark(g->pool);
        status = settle(c, o);
        if (status == VERDICT_APPLIED && only_moves_changed(g->pool, mark, first, doc.n)) {
            status = VERDICT_NO_EFFECT;
            explain_no_effect(c, o, &doc, mark, first, from, when, batch);
        }
        answer_code_notes(o, sender);
    }
    fmt_doc_free(&doc);
    buf_free(&err);
    return status;
}



/* Journals a received message, with its key (a mail's identity, or NULL)
 * in the same transaction: a mail is either journaled and known, or
 * neither.  Its number, or -1. */
static long journal_message(Store *st, const EventInput *in)
{
    if (!in->key) return store_journal_received(st, "move", in->time, in->sender, in->moves, in->raw, in->stamp);
    if (!store_begin(st)) return -1;
    long n = store_journal_received(st, "move", in->time, in->sender, in->moves, in->raw, in->stamp);
    if (n > 0 && store_mail_taken(st, in->key, n) && store_commit(st)) return n;
    store_rollback(st);
    return -1;
}

/* Adds a note of the Mechanics to the event's message. */
static void note_outcome(Outcome *o, const char *text)
{
    Buf b = {0};
    if (o->message) buf_printf(&b, "%s%s", o->message, strchr(o->message, '\n') || strchr(text, '\n') ? "\n  " : "; ");
    buf_puts(&b, text);
    free(o->message);
    o->message = buf_take(&b);
}

/* The journal's record of a message or a timer before it runs, committed
 * without waiting for the disk: nothing is acknowledged until the event's
 * outcome is committed, and that commit's fsync takes this one down with
 * it.  One fsync per event, not two.  Its number, or -1. */
static long journal_lazily(Game *g, const EventInput *in, bool tick)
{
    if (!store_sync_commits(g->st, false)) return -1;
    long n = tick ? store_journal_received(g->st, "tick", in->time, NULL, NULL, NULL, in->time)
             : strcmp(in->kind, "check") == 0 ? store_journal_received(g->st, "check", in->time, NULL, in->moves, NULL, in->time)
                                               : journal_message(g->st, in);
    if (n > 0 && !game_index_moves_from(g, n)) return -1;
    /* an outcome committed without waiting would be acknowledged unsafe:
     * the event does not run then (unless the caller syncs itself) */
    if (!g->defer_sync && !store_sync_commits(g->st, true)) return -1;
    return n;
}

/* Moves carry moveIndex from the first event a build that sets it runs:
 * the events before were journaled, and their hashes taken, without it,
 * and a replay must give them back as they were (game_replay.c). */
bool game_index_moves_from(Game *g, long n)
{
    if (g->move_index_from) return true;
    char v[32];
    snprintf(v, sizeof v, "%ld", n);
    if (!store_meta_set(g->st, "move_index_from", v)) return false;
    g->move_index_from = n;
    return true;
}

/* A timer event's run: none once the game has ended; its back-off after. */
static Verdict run_tick(EventCtx *c, Outcome *o)
{
    Verdict status = VERDICT_REFUSED;
    if (c->g->halted) o->message = xstrdup("the game has ended; timers no longer run");
    else status = settle(c, o);
    if (!c->in->dry) game_timer_backoff(c->g, o);
    return status;
}

/* A scam check's answer offered to the rules (scams_check.h): an object
 * of type scamCheck per entry, made as a move is (they are the
 * Mechanics' input, as a move is a player's), then the rules. */
static Verdict run_check(EventCtx *c, Outcome *o)
{
    Game *g = c->g;
    if (g->halted) {
        o->message = xstrdup("the game has ended; no more checks are offered");
        return VERDICT_REFUSED;
    }
    FmtDoc doc = {0};
    Buf err = {0};
    const char *body = c->in->moves ? c->in->moves : "";
    if (!fmt_read(body, strlen(body), "check", &doc, &err)) {
        o->message = buf_take(&err);
        return VERDICT_REFUSED;
    }
    buf_free(&err);
    Sym type = sym_cstr("scamCheck");
    for (int i = 0; i < doc.n; i++) {
        ObjId id = pool_create(g->pool);
        for (int k = 0; k < doc.objs[i].n; k++)
            pool_set(g->pool, id, doc.objs[i].attrs[k].name, doc.objs[i].attrs[k].value);
        pool_set(g->pool, id, SYM_type, type); /* whatever the text said */
    }
    fmt_doc_free(&doc);
    return settle(c, o);
}

/* A message's run: its moves, or the Mechanics' refusal of it. */
static Verdict run_message(EventCtx *c, Outcome *o)
{
    if (!c->in->moves) {
        o->message = c->in->why ? xstrdup(c->in->why) : NULL;
        return VERDICT_REFUSED;
    }
    Verdict status = process_move(c, o);
    if (status != VERDICT_REFUSED && c->in->reading) note_outcome(o, c->in->reading);
    return status;
}

bool game_event(Game *g, const EventInput *in, Outcome *o)
{
    bool tick = strcmp(in->kind, "tick") == 0, check = strcmp(in->kind, "check") == 0;
    game_collect(g, false);
    memset(o, 0, sizeof *o);
    o->kind = tick ? "tick" : check ? "check" : "move";
    o->time = in->time;
    if (g->st && !in->dry) {
        o->event = journal_lazily(g, in, tick);
        if (o->event < 0) return false;
    }
    EventCtx c = {.g = g, .in = in};
    save_state(g, &c.sv);
    if (in->dry) {
        game_throwaway_rng(g);
        /* only a request runs a dry move: it sees what its sender may */
        if (!tick) view_as(g, in->public_view ? NULL : in->sender);
    }
    return finish(&c, o, tick ? run_tick(&c, o) : check ? run_check(&c, o) : run_message(&c, o));
}

bool game_event_move(Game *g, const char *sender, int64_t time, int64_t stamp, const char *body, bool dry, Outcome *o)
{
    EventInput in = {.kind = "move", .sender = sender, .time = time, .stamp = stamp, .moves = body, .dry = dry};
    return game_event(g, &in, o);
}

/* How many times the program has tried to run event n (0: none recorded):
 * the meta key "attempts" holds "N TRIES" for the event being recovered. */
static int attempts_of(Store *st, long n)
{
    char *v;
    long event = 0;
    int tries = 0;
    int got = store_meta_read(st, "attempts", &v);
    if (got < 0) tries = -1;
    else if (!got || sscanf(v, "%ld %d", &event, &tries) != 2 || event != n) tries = 0;
    free(v);
    return tries;
}

/* The engine died twice on this event (a crash, the OOM killer): it is
 * journaled as refused, its sender is told, and the game goes on. */
static bool set_aside(Game *g, const JournalRow *r, Outcome *o)
{
    o->message = xstrdup("the engine failed on this event twice; it was set aside (nothing of it was applied)");
    Incoming m = {VIA_MAIL, r->sender ? r->sender : "", r->time, r->stamp, "", NULL, NULL, false, NULL, NULL};
    EventInput in = {.kind = r->kind, .sender = r->sender, .time = r->time, .stamp = r->stamp};
    in.answer = r->sender && *r->sender && strcmp(r->kind, "move") == 0 ? &m : NULL;
    /* a timer the engine died on waits for the next event's run of the
     * rules, rather than being tried again at once, forever */
    if (strcmp(r->kind, "tick") == 0) g->have_timer = false;
    EventCtx c = {.g = g, .in = &in};
    save_state(g, &c.sv);
    if (store_event_set_aside(g->st, r->n)) return finish(&c, o, VERDICT_REFUSED);
    pool_fresh_close(g->pool);
    saved_free(&c.sv);
    return false;
}

/* The journaled event run again, under its journal number. */
static bool run_again(Game *g, const JournalRow *r, Outcome *o)
{
    EventInput in = {.kind = r->kind, .sender = r->sender ? r->sender : "", .time = r->time, .stamp = r->stamp,
                     .moves = r->input ? r->input : ""};
    EventCtx c = {.g = g, .in = &in};
    save_state(g, &c.sv);
    return finish(&c, o, strcmp(r->kind, "tick") == 0    ? run_tick(&c, o)
                         : strcmp(r->kind, "check") == 0 ? run_check(&c, o)
                                                         : process_move(&c, o));
}

/* A move journaled but never settled (the program stopped in between) is
 * processed now, exactly once, under its journal number.  Each try is
 * counted first: the program that died on it may die on it again, and a
 * second death sets it aside (poison events never stop a game). */
bool game_recover(Game *g)
{
    long n = store_last_event(g->st);
    /* zeroed: store_event_get fills it when it returns 1, but GCC's
     * link-time inlining cannot see that and warns */
    JournalRow r = {0};
    if (n < 0) return false;
    int got = n ? store_event_get(g->st, n, &r) : 0;
    if (got <= 0) return got == 0;
    bool ok = true;
    if (strcmp(r.status, "received") == 0) {
        Outcome o;
        memset(&o, 0, sizeof o);
        o.event = n;
        o.time = r.time;
        o.kind = strcmp(r.kind, "tick") == 0 ? "tick" : strcmp(r.kind, "check") == 0 ? "check" : "move";
        /* the tries begun so far, all failed; the first was by the
         * program that journaled it */
        int tries = attempts_of(g->st, n);
        bool failed = tries < 0;
        if (tries < 1) tries = 1;
        char v[64];
        snprintf(v, sizeof v, "%ld %d", n, tries + 1);
        if (failed) ok = false;
        else if (tries >= 2) ok = set_aside(g, &r, &o);
        else ok = store_meta_set(g->st, "attempts", v) && game_index_moves_from(g, n) && run_again(g, &r, &o);
        outcome_free(&o);
    }
    journal_row_free(&r);
    return ok;
}
