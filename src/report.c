/*
 * report.c - a game-keeper's report asked of the set's rules (report.h).
 *
 * Nothing here knows any game: a set without report rules answers nothing,
 * and the caller says so.
 */
#include "report.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The answer to the report move itself (timers due first run too, and
 * are undone with it). */
static void collect(void *ud, Game *g, const Outcome *o)
{
    Report *r = ud;
    if (strcmp(o->kind, "move") != 0) return;
    r->refused = o->verdict == VERDICT_REFUSED;
    if (o->message) r->why = xstrdup(o->message);
    if (!o->ran) return;
    const MsgList *lists[2] = {&o->run.sent, &g->eng->queue};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < lists[k]->len; i++) {
            const Message *m = &lists[k]->m[i];
            if (!addressed_to(m->to, REPORT_SENDER)) continue;
            if (r->text.len) buf_puts(&r->text, "\n");
            buf_add(&r->text, sym_text(m->text), sym_len(m->text));
            if (sym_len(m->text) && sym_text(m->text)[sym_len(m->text) - 1] != '\n') buf_puts(&r->text, "\n");
        }
}

bool report_kind_ok(const char *kind)
{
    if (!*kind || strlen(kind) > REPORT_KIND_MAX) return false;
    for (const char *p = kind; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_') return false;
    return true;
}

bool report_run(Game *g, const char *kind, int64_t t, Report *r)
{
    Buf body = {0};
    buf_printf(&body, "subtype: report\nkind: %s\n", kind);
    Incoming m = {VIA_CLI, REPORT_SENDER, t, 0, buf_str(&body), NULL, NULL, false};
    m.public_view = true; /* a report is for everyone: no address's private values, whoever holds "report" */
    bool stored = game_submit(g, &m, true, collect, r);
    buf_free(&body);
    return stored;
}

void report_free(Report *r)
{
    buf_free(&r->text);
    free(r->why);
    r->why = NULL;
}
