/*
 * game_billing.c - who pays for what a game is sent (game_billing.h): the tallies
 * of each sender per hour, the quotas, and the refusals counted rather
 * than journaled.
 */
#include "game_billing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game_mechanics.h"

#define HOUR 3600
#define TALLIES_KEPT 48 /* hours of tallies kept */


void payers_of(const Incoming *m, Payers *p)
{
    memset(p, 0, sizeof *p);
    p->who[p->n++] = xstrdup(m->sender);
    if (m->client) {
        Buf b = {0};
        buf_printf(&b, "ip %s", m->client); /* no address holds a space */
        p->who[p->n++] = buf_take(&b);
    }
    const char *got = m->raw ? m->raw : m->body;
    p->input = got ? strlen(got) : 0;
}

void payers_free(Payers *p)
{
    for (int i = 0; i < p->n; i++) free(p->who[i]);
    p->n = 0;
}

/* A quota as the game sets it; a value out of bounds (nomic config refuses
 * one) reads as the default. */
static int64_t quota_of(Game *g, int q)
{
    char *v = game_config(g, quotas[q].setting);
    if (quota_check_value(quotas[q].setting, v)) {
        free(v);
        v = store_config(NULL, quotas[q].setting);
    }
    int64_t n = strtoll(v, NULL, 10);
    free(v);
    return n;
}

int billing_over(Game *g, const Payers *p, int64_t time, char **why)
{
    *why = NULL;
    if (!g->st) return 0;
    int64_t limit[NQUOTAS];
    for (int q = 0; q < NQUOTAS; q++) limit[q] = quota_of(g, q);
    for (int i = 0; i < p->n; i++) {
        SenderTally t;
        if (store_tally_read(g->st, p->who[i], time / HOUR, &t) < 0) return -1;
        int64_t used[NQUOTAS] = {t.events, t.work, t.bytes};
        for (int q = 0; q < NQUOTAS; q++) {
            if (used[q] < limit[q]) continue;
            char next[32];
            time_format((time / HOUR + 1) * HOUR, next);
            Buf b = {0};
            bool ip = strncmp(p->who[i], "ip ", 3) == 0;
            buf_printf(&b, "over quota: %s %s had %lld %s this hour (%s %lld, nomic config); the message was not run; "
                           "the count starts again at %s",
                       ip ? "requests without a token from" : "the sender", ip ? p->who[i] + 3 : p->who[i],
                       (long long)used[q], quotas[q].what, quotas[q].setting, (long long)limit[q], next);
            *why = buf_take(&b);
            return 1;
        }
    }
    return 0;
}

int billing_refused(Game *g, const Payers *p, int64_t time, const char *why)
{
    if (!g->st) return 1;
    bool first = true;
    bool ok = store_begin(g->st);
    /* a stranger's request names an address it has not proven: its IP
     * alone is counted, or spraying addresses would make a row each */
    for (int i = p->n > 1 ? 1 : 0; ok && i < p->n; i++) {
        SenderTally t;
        int rc = store_tally_read(g->st, p->who[i], time / HOUR, &t);
        ok = rc >= 0;
        if (t.refused) first = false;
        SenderTally one = {.refused = 1};
        ok = ok && store_tally_add(g->st, p->who[i], time / HOUR, &one, why);
    }
    if (!ok || !store_commit(g->st)) {
        store_rollback(g->st);
        return -1;
    }
    return first ? 1 : 0;
}

bool billing_charge(Game *g, const Payers *p, const Outcome *o)
{
    if (!g->st) return true;
    SenderTally d = {.events = 1, .bytes = (int64_t)p->input};
    if (o->ran) {
        d.work = (int64_t)(o->run.used.work + o->run.used.first_work);
        d.bytes += (int64_t)(o->run.trace.len + o->run.trace_json.len);
    }
    if (o->message) d.bytes += (int64_t)strlen(o->message);
    int64_t hour = o->time / HOUR;
    bool ok = true;
    for (int i = 0; ok && i < p->n; i++) ok = store_tally_add(g->st, p->who[i], hour, &d, NULL);
    /* the hours no quota reads any more go, now and then */
    if (ok && o->event % 256 == 0) ok = store_tallies_prune(g->st, hour - TALLIES_KEPT);
    return ok;
}
