/*
 * game_submit.c - a message's way in (game.h): the mail already taken, the
 * game's mailPolicy, a request for a token, the moves read among a mail's
 * prose, the game's time going forward, the timers due first; then the
 * message as one event (game_event.c).
 */
#include "game_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game_billing.h"
#include "mail_in.h"
#include "game_mechanics.h"
#include "move_prose.h"

static bool run_due_timers(Game *g, int64_t time, bool dry, OutcomeFn fn, void *ud);

/* Does the message pass the game's mailPolicy?  NULL, or why not;
 * *failed when the store cannot say (the message is then not taken: a
 * policy that cannot be read is never taken for the default). */
static char *policy_refusal(Game *g, const Incoming *m, bool dry, bool *failed)
{
    *failed = false;
    if (m->via == VIA_CLI) return NULL;
    char *policy = NULL;
    if (g->st && store_config_read(g->st, "mailPolicy", &policy) < 0) {
        *failed = true;
        return NULL;
    }
    if (!policy) policy = game_config(g, "mailPolicy");
    char *why = NULL;
    /* a message that counts uses its token: a token mailed on request
     * then voids the one before (a dry run uses nothing) */
    int valid = strcmp(policy, "tokens") == 0 ? game_token_check(g, m->sender, m->token, !dry) : 1;
    if (valid < 0) {
        /* a token that cannot be looked up is neither valid nor invalid */
        *failed = true;
        free(policy);
        return NULL;
    }
    if (!valid)
        why = xstrdup(m->token ? "the token given is not this sender's: the move was not applied"
                               : "this game takes moves only with the sender's token (a `token:` line in a mail, "
                                 "Authorization: Bearer over HTTP): the move was not applied");
    free(policy);
    return why;
}

static bool submit_locked(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud);

bool game_submit(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud)
{
    Buf err = {0};
    bool ok = game_lock(g, &err);
    buf_free(&err);
    if (!ok) return false;
    ok = submit_locked(g, m, dry, fn, ud);
    game_unlock(g);
    return ok;
}

/* A mail already taken (an MTA's retry, a copy by another route): why it
 * is not applied again, or NULL.  *failed: the store could not say. */
static char *copy_of_taken(Game *g, const Incoming *m, bool dry, bool *failed)
{
    *failed = false;
    if (!m->key || !g->st || dry) return NULL;
    long n = store_mail_seen(g->st, m->key);
    if (n <= 0) {
        *failed = n < 0;
        return NULL;
    }
    Buf b = {0};
    buf_printf(&b, "a copy of the mail taken as event %ld (the same Message-ID and sender, or, without a "
                   "Message-ID, the same mail byte for byte): not applied again",
               n);
    return buf_take(&b);
}

/* May the sender of a mail refused unread (no token, too large) be
 * answered now?  Once an ANSWER_PERIOD; if not, `why` says so.  *failed:
 * the store cannot say. */
static bool may_answer_unread(Game *g, const Incoming *m, char **why, bool *failed)
{
    int64_t last = g->st ? store_answered_at(g->st, m->sender) : 0;
    *failed = last < 0;
    if (last <= 0 || m->time - last >= ANSWER_PERIOD) return true;
    Buf b = {0};
    buf_printf(&b, "%s (not answered: this address had an answer about a refused mail less than %d minutes ago)",
               *why, ANSWER_PERIOD / 60);
    free(*why);
    *why = buf_take(&b);
    return false;
}

/* A line `TOKEN`: the event mails the sender's address a new token, if
 * game_token_mail_check allows (mail leaves the host, the game knows the
 * address, the hourly ceilings).  The token mailed voids the one before
 * only when first used, so a forged From can neither take a player's
 * token away nor make the game a mail cannon.  Returns the event's note;
 * NULL when the store cannot say.  *token_to: the address the event
 * mails a token, if it does. */
static char *token_request(Game *g, const Incoming *m, const char **token_to)
{
    char *why;
    TokenMail r = game_token_mail_check(g, m->sender, m->time, &why);
    if (r == TOKEN_MAIL_FAILED) {
        free(why);
        return NULL;
    }
    Buf b = {0};
    if (r == TOKEN_MAIL_OK) {
        *token_to = m->sender;
        buf_printf(&b, "TOKEN: a new token is mailed to %s (the one before, if any, counts until this one is first "
                       "used)",
                   m->sender);
    } else {
        buf_printf(&b, "TOKEN: %s", why);
    }
    free(why);
    return buf_take(&b);
}

#define ASIDE_SHOWN 10 /* lines set aside quoted one by one; the rest are counted */
#define ASIDE_QUOTED 40 /* bytes of a line set aside quoted: its start, enough to recognise it */

/* One line set aside, "line N: TEXT" or "line N: TEXT\tWHY" (move_prose.h),
 * by its number and its start; with its reason when the sugar gave one
 * (+aside: an act the game does not support). */
static void aside_line(const char *p, size_t n, Buf *b)
{
    long line = strtol(p + 5, NULL, 10);
    const char *text = strstr(p, ": "), *tab = memchr(p, '\t', n);
    text = text && text < p + n ? text + 2 : p + n;
    const char *end = tab && tab > text ? tab : p + n;
    size_t tn = (size_t)(end - text), cut = text_cut(text, tn, ASIDE_QUOTED);
    buf_printf(b, "line %ld (\"%.*s%s\")", line, (int)cut, text, cut < tn ? " ..." : "");
    if (tab) buf_printf(b, ": %.*s; it was not counted", (int)(p + n - tab - 1), tab + 1);
    else buf_puts(b, " was set aside as prose");
}

/* The lines set aside, one a line, each line after the first begun with
 * `indent`: first every one the sugar gave a reason for (what the sender
 * most needs to hear), then the others, at most ASIDE_SHOWN. */
static void aside_lines(const ProseRead *pr, const char *indent, Buf *b)
{
    int shown = 0, plain = 0;
    for (int pass = 0; pass < 2; pass++)
        for (const char *p = (pr->aside.s ? pr->aside.s : ""); *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            bool reason = memchr(p, '\t', n) != NULL;
            if (reason == (pass == 0) && (reason || plain++ < ASIDE_SHOWN)) {
                if (shown++) buf_printf(b, "\n%s", indent);
                aside_line(p, n, b);
            }
            p += n + (nl != NULL);
        }
    if (pr->naside > shown)
        buf_printf(b, "\n%s(and %d more line%s set aside as prose)", indent, pr->naside - shown,
                   pr->naside - shown == 1 ? "" : "s");
}

/* Why a mail with no move is refused: what was read, and what was set
 * aside, and why. */
static char *no_move_in_mail(const Incoming *m, const ProseRead *pr)
{
    Buf b = {0};
    buf_puts(&b, "no move found in the mail");
    if (m->how) buf_printf(&b, " (%s)", m->how);
    if (pr->naside) {
        buf_puts(&b, pr->nreasons == pr->naside ? ":\n  " : ": no line has a move's form or is a `name: value` line\n  ");
        aside_lines(pr, "  ", &b);
    }
    return buf_take(&b);
}

/* The note an event read from a mail carries: the lines set aside, each
 * quoted by its start, a line each (the event's message indents every
 * line after its first). */
static char *set_aside_note(const ProseRead *pr)
{
    if (!pr->naside) return NULL;
    Buf b = {0};
    aside_lines(pr, "  ", &b);
    return buf_take(&b);
}

int game_last_time(Game *g, int64_t *t)
{
    *t = INT64_MIN;
    return g->st ? store_last_time(g->st, t) : 0;
}

int game_time_refusal(Game *g, int64_t time, char **why)
{
    int64_t last;
    *why = NULL;
    if (game_last_time(g, &last) < 0) return -1;
    if (time >= last) return 0;
    char at[32], then[32];
    time_format(time, at);
    time_format(last, then);
    Buf b = {0};
    buf_printf(&b, "%s is before the last event, at %s: the game's time goes forward only (nothing was kept)", at,
               then);
    *why = buf_take(&b);
    return 1;
}

/* The time GAME_TIME_NOW stands for, under the lock; false when the
 * journal cannot be read. */
static bool time_now_locked(Game *g, int64_t *now)
{
    int64_t last;
    *now = time_now_wall();
    if (game_last_time(g, &last) < 0) return false;
    if (*now < last) *now = last;
    return true;
}

/* A refusal that is no event (nothing journaled): its outcome, for the
 * caller's answer.  Takes why. */
static void refused_unjournaled(Game *g, const char *kind, int64_t time, char *why, bool over, OutcomeFn fn, void *ud)
{
    Outcome o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.time = time;
    o.verdict = VERDICT_REFUSED;
    o.over_quota = over;
    o.message = why;
    if (fn) fn(ud, g, &o);
    outcome_free(&o);
}

/* A message refused and only counted (game_billing.h). */
static void counted_only(Game *g, const Incoming *m, const char *why, bool over, OutcomeFn fn, void *ud)
{
    Buf b = {0};
    buf_printf(&b, "%s (counted in the sender's tally for this hour, not journaled again)", why);
    refused_unjournaled(g, "move", m->time, buf_take(&b), over, fn, ud);
}

/* Bills a message from outside (game_billing.h): over a quota, *why says so
 * and *over is set; a message refused unread or over quota is counted,
 * and *counted set when it need not be journaled (not the first of the
 * hour).  False when the store failed. */
static bool bill_message(Game *g, const Incoming *m, const Payers *pay, bool unread, char **why, bool *over,
                         bool *counted)
{
    *over = *counted = false;
    if (!*why) {
        int rc = billing_over(g, pay, m->time, why);
        if (rc < 0) return false;
        *over = unread = rc == 1;
    }
    if (!unread) return true;
    int first = billing_refused(g, pay, m->time, *why);
    *counted = first == 0;
    return first >= 0;
}


/* The message with its sender in the one form the Mechanics know it by
 * (game_address): *m as it is, or `own` (its sender in *canon, to free).
 * A sender without one is refused unread, saying why. */
static const Incoming *canonical_sender(Game *g, const Incoming *m, Incoming *own, char **canon, char **refusal)
{
    const char *why;
    *refusal = NULL;
    *canon = game_address(g, m->sender, &why);
    if (*canon && strcmp(*canon, m->sender) == 0) return m;
    *own = *m;
    if (*canon) {
        own->sender = *canon;
        return own;
    }
    Buf b = {0};
    buf_printf(&b, "the sender's address %s: %s", m->sender, why);
    *refusal = buf_take(&b);
    if (!own->refusal) own->refusal = *refusal;
    return own;
}

static bool submit_read(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud);

static bool submit_locked(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud)
{
    Incoming own;
    char *canon, *refusal;
    bool ok = submit_read(g, canonical_sender(g, m, &own, &canon, &refusal), dry, fn, ud);
    free(canon);
    free(refusal);
    return ok;
}

static bool submit_event(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud);

/* The message at the game's time, after the timers due by then. */
static bool submit_read(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud)
{
    Incoming forward, now;
    /* a journal that cannot be read fails the message (an MTA tries
     * again later) rather than take it at a time it cannot check */
    if (m->time == GAME_TIME_NOW) {
        now = *m;
        if (!time_now_locked(g, &now.time)) return false;
        m = &now;
    }
    char *late;
    if (game_time_refusal(g, m->time, &late) < 0) return false;
    if (late && m->via != VIA_CLI) {
        /* the wall clock stepped back: a mail or a request is not lost
         * for that, it happens at the last event's time */
        forward = *m;
        (void)game_last_time(g, &forward.time); /* read just above */
        if (forward.stamp == 0) forward.stamp = m->time;
        m = &forward;
        free(late);
        late = NULL;
    }
    if (late) {
        /* a time given on the command line: refused, nothing journaled */
        refused_unjournaled(g, "move", m->time, late, false, fn, ud);
        return true;
    }
    if (!dry && !run_due_timers(g, m->time, false, fn, ud)) return false;
    return submit_event(g, m, dry, fn, ud);
}

/* The message as one event: what the Mechanics make of it (a copy, its
 * token, mailPolicy, the quotas, its moves read, its answer) goes into
 * the event's input, and the event is run.  One way out, at `done`. */
static bool submit_event(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud)
{
    bool ok = false, failed, copy, unread, billed, over = false, counted = false, token_asked, token_only = false;
    bool answer, misread = false; /* misread: a line started like a move but did not read */
    char *why, *reading = NULL, *note = NULL, *summary = NULL;
    const char *text = m->body, *token_to = NULL;
    Payers pay = {0};
    Buf moves = {0}, err = {0};
    ProseRead pr = {0};
    why = copy_of_taken(g, m, dry, &failed);
    if (failed) goto done;
    copy = why != NULL;
    if (!why && m->refusal) why = xstrdup(m->refusal);
    /* a mail asking for its sender's token needs none; its moves, if it
     * has any, do (below) */
    token_asked = !why && m->wants_token && m->via != VIA_CLI && !m->automatic && !dry && g->st;
    if (!why && !token_asked) {
        why = policy_refusal(g, m, dry, &failed);
        if (failed) goto done;
    }
    unread = why && !copy;
    billed = !dry && m->via != VIA_CLI && g->st;
    if (billed) {
        payers_of(m, &pay);
        if (!bill_message(g, m, &pay, unread, &why, &over, &counted)) goto done;
        unread = unread || over;
        if (counted) {
            counted_only(g, m, why, over, fn, ud);
            ok = true;
            goto done;
        }
    }
    if (!why && m->lines) {
        MailText mt = {m->body, m->lines, m->nlines, m->quotes, m->qlines, m->nquotes, m->subject};
        if (!prose_read(g->sugar, &mt, &pr, &err)) why = buf_take(&err), misread = true;
        else if (!pr.nmoves) why = no_move_in_mail(m, &pr);
        else {
            text = buf_str(&pr.moves);
            reading = set_aside_note(&pr);
        }
    } else if (!why && g->sugar) {
        if (sugar_expand(g->sugar, m->body, &moves, &err)) text = buf_str(&moves);
        else why = buf_take(&err);
    }
    if (token_asked) {
        note = token_request(g, m, &token_to);
        if (!note) goto done;
        if (misread) { /* the token goes all the same; the answer says what did not read */
            /* without the sender's token (under mailPolicy tokens) that
             * answer is one about a mail refused unread: at most one an
             * hour, or TOKEN and a bad line would aim the game's mail */
            char *policy = policy_refusal(g, m, true, &failed);
            unread = policy != NULL;
            free(policy);
            if (failed) goto done;
            Buf b = {0};
            buf_printf(&b, "%s\n%s", why, note);
            free(why);
            why = buf_take(&b);
        } else if (!pr.nmoves) { /* the TOKEN line alone: its answer is the token's mail */
            free(why);
            why = note;
            note = NULL;
            token_only = true;
        } else {
            if (!why) why = policy_refusal(g, m, dry, &failed);
            if (failed) goto done;
            unread = why != NULL;
            Buf b = {0};
            buf_printf(&b, "%s%s%s", reading ? reading : "", reading ? "\n  " : "", note);
            free(reading);
            reading = buf_take(&b);
        }
    }
    /* the journal keeps what was received when it differs from the moves;
     * of a mail refused unread only its header and a digest (a stranger
     * cannot fill the disk), of a copy nothing */
    const char *got = m->raw ? m->raw : m->body;
    summary = unread && !m->refusal ? mail_summary(got, strlen(got)) : NULL;
    /* a refused mail is answered in the event's own transaction; a copy
     * never (its first was), one refused unread at most once a period */
    answer = m->via == VIA_MAIL && !m->automatic && !copy && !token_only;
    if (answer && unread) answer = may_answer_unread(g, m, &why, &failed);
    if (failed) goto done;
    EventInput in = {
        .kind = "move",
        .sender = m->sender,
        .time = m->time,
        .stamp = m->stamp ? m->stamp : m->time,
        .moves = why ? NULL : text,
        .why = why,
        .raw = copy ? NULL : summary ? summary : m->raw ? m->raw : !why && strcmp(text, m->body) == 0 ? NULL : m->body,
        /* only a mail that was read is known by its key: a forged one
         * refused unread cannot take the place of the real mail it
         * imitates */
        .key = copy || unread ? NULL : m->key,
        .dry = dry,
        .public_view = m->public_view,
        .answer = answer ? m : NULL,
        .answer_unread = unread,
        .reading = reading,
        .summing = answer && !why && m->lines ? text : NULL,
        .token_to = token_to,
        .payers = billed && !why ? &pay : NULL,
    };
    Outcome o;
    ok = game_event(g, &in, &o);
    o.over_quota = over;
    if (fn && ok) fn(ud, g, &o); /* a failed event is not reported as if it had happened */
    outcome_free(&o);
done:
    free(why);
    free(note);
    free(reading);
    free(summary);
    prose_free(&pr);
    buf_free(&moves);
    buf_free(&err);
    payers_free(&pay);
    return ok;
}

/* Runs the timers due at or before `time`, each as its own event. */
static bool run_due_timers(Game *g, int64_t time, bool dry, OutcomeFn fn, void *ud)
{
    g->clock = time; /* a back-off counts from it */
    for (int guard = 0; guard < 100000 && !g->halted && g->have_timer && game_timer_due(g) <= time; guard++) {
        Outcome o;
        /* while the timer backs off, the try happens when the wait ends
         * (its time goes forward); else when the rules' timer is due */
        int64_t at = game_timer_due(g), last;
        /* nor before the last event (a keeper's suspend, moves since a
         * try that ran away): the game's time goes forward only */
        if (game_last_time(g, &last) < 0) return false;
        if (at < last) at = last;
        EventInput tick = {.kind = "tick", .time = at, .stamp = at, .dry = dry};
        bool ok = game_event(g, &tick, &o);
        if (fn && ok) fn(ud, g, &o);
        bool stuck = !o.run.have_timer || o.run.next_timer <= at;
        outcome_free(&o);
        if (!ok) return false;
        if (dry) break; /* a dry run cannot advance past its own undone timer */
        if (stuck && g->have_timer && g->next_timer <= at) break;
    }
    return true;
}

bool game_move(Game *g, const char *sender, int64_t time, const char *body, bool dry, OutcomeFn fn, void *ud)
{
    Incoming m = {VIA_CLI, sender, time, 0, body, NULL, NULL, false};
    return game_submit(g, &m, dry, fn, ud);
}

/* With no timer known (the rules of a new game have not run yet), a dry
 * run at `time` finds the first one; if the rules would already change
 * something, that is a timer due now. */
static void probe_timer(Game *g, int64_t time)
{
    if (g->have_timer || g->halted) return;
    Outcome o;
    EventInput probe = {.kind = "tick", .time = time, .stamp = time, .dry = true};
    if (game_event(g, &probe, &o) && o.ran) {
        if (o.run.status != RUN_RUNAWAY) {
            g->have_timer = o.run.have_timer;
            g->next_timer = o.run.next_timer;
        }
        if (o.run.changing_firings > 0) {
            g->have_timer = true;
            g->next_timer = time;
        }
    }
    outcome_free(&o);
}

bool game_tick(Game *g, int64_t time, bool dry, OutcomeFn fn, void *ud)
{
    Buf err = {0};
    bool ok = game_lock(g, &err);
    buf_free(&err);
    if (!ok) return false;
    char *late = NULL;
    ok = false;
    if ((time == GAME_TIME_NOW && !time_now_locked(g, &time)) || game_time_refusal(g, time, &late) < 0) goto done;
    if (late) {
        refused_unjournaled(g, "tick", time, late, false, fn, ud);
        ok = true;
        goto done;
    }
    probe_timer(g, time);
    ok = run_due_timers(g, time, dry, fn, ud);
done:
    game_unlock(g);
    return ok;
}

