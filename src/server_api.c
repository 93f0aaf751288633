/*
 * server_api.c - the API's handlers that read (server_routes.c routes to
 * them): the game, its objects and rules from the views of the last
 * committed state (server_snapshot.c), the journal and the caller's
 * messages through a database connection of the request's own, and the
 * rules' reports.  Each takes the Call the router made: the views as of
 * the request, who asks, what the path's "*" matched.
 */
#include "server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mail_in.h"
#include "views.h"

/* GET /api/game: the game's fields, its time and who asks */
void api_game(const Call *k, Answer *a)
{
    const Snapshot *snap = k->snap;
    const char *you = k->you;
    answer_json(a, 200);
    Buf *b = &a->body;
    buf_printf(b, "{\"version\":1,\"time\":%lld,\"you\":", (long long)time_now_wall());
    if (you) json_string(b, you, strlen(you));
    else buf_puts(b, "null");
    buf_printf(b, ",%s}", snap->game);
}

/* GET /api/objects?type=T: every object, or those of one type */
void api_objects(const Call *k, Answer *a)
{
    answer_entries(k->s, k->snap, false, MHD_lookup_connection_value(k->c, MHD_GET_ARGUMENT_KIND, "type"), k->you, a);
}

/* GET /api/rules: in the order they run, each with its error */
void api_rules(const Call *k, Answer *a) { answer_entries(k->s, k->snap, true, NULL, k->you, a); }

/* GET /api/objects/ID */
void api_object(const Call *k, Answer *a)
{
    const Snapshot *snap = k->snap;
    const char *id = k->arg, *you = k->you;
    char *end;
    long n = strtol(id, &end, 10);
    const Entry *found = NULL;
    if (*id && !*end && n > 0 && n < 0x7fffffffL) {
        size_t lo = 0, hi = snap->nobjs;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (snap->objs[mid]->id < (ObjId)n) lo = mid + 1;
            else hi = mid;
        }
        if (lo < snap->nobjs && snap->objs[lo]->id == (ObjId)n) found = snap->objs[lo];
    }
    if (!found) {
        answer_error(a, 404, "no object %s", id);
        return;
    }
    answer_json(a, 200);
    buf_puts(&a->body, snapshot_entry_for(found, you));
}

typedef struct LogWalk {
    Buf *b;
    Viewer view;
    bool first;
    size_t input_cut, trace_cut;  /* view_event_json_cut */
    bool full;                     /* the page ended early (not an error of the store) */
} LogWalk;

static bool log_row(void *ud, const JournalRow *r)
{
    LogWalk *w = ud;
    buf_puts(w->b, w->first ? "\n" : ",\n");
    w->first = false;
    view_event_json_cut(w->b, r, &w->view, w->input_cut, w->trace_cut);
    w->full = w->b->len >= LOG_PAGE_BYTES; /* a page ends early rather than grow */
    return !w->full;
}

/* The journal up to the snapshot's event, read beside the writer; a game
 * with private attributes needs the game's reader of moves to hide them,
 * and so waits for a running event. */
static bool each_event(Server *s, const Snapshot *snap, Store *rd, long from, long to, LogWalk *w)
{
    if (to > snap->event) to = snap->event;
    if (!snap->private_attrs) return store_each_event(rd, from, to, log_row, w) || w->full;
    server_hold(s);
    w->view.private_attrs = s->g->eng->private_attrs;
    bool ok = store_each_event(rd, from, to, log_row, w) || w->full;
    server_release(s);
    return ok;
}

void api_log(const Call *k, Answer *a)
{
    Server *s = k->s;
    const Snapshot *snap = k->snap;
    Store *rd = k->rd;
    const char *you = k->you;
    long since, limit;
    if (!http_number_param(k->c, "since", 0, 0, 0x7fffffffL, &since, a) ||
        !http_number_param(k->c, "limit", LOG_PAGE, 1, LOG_PAGE_MAX, &limit, a))
        return;
    answer_json(a, 200);
    LogWalk w = {&a->body, {.address = you}, true, LOG_INPUT_CUT, LOG_TRACE_CUT};
    buf_putc(&a->body, '[');
    if (each_event(s, snap, rd, since + 1, since + limit, &w)) buf_puts(&a->body, "\n]");
    else answer_error(a, 503, "the journal cannot be read: %s", store_error(rd)); /* not a page cut short */
}

/* One event whole, but for moves or a trace too big even for that. */
void api_event(const Call *k, Answer *a)
{
    Server *s = k->s;
    const Snapshot *snap = k->snap;
    Store *rd = k->rd;
    const char *id = k->arg, *you = k->you;
    char *end;
    long n = strtol(id, &end, 10);
    if (!*id || *end || n <= 0 || n > snap->event) {
        answer_error(a, 404, "no event %s (the journal has %ld)", id, snap->event);
        return;
    }
    Buf one = {0};
    LogWalk w = {&one, {.address = you}, true, EVENT_INPUT_MAX, EVENT_TRACE_MAX};
    if (!each_event(s, snap, rd, n, n, &w)) {
        answer_error(a, 503, "the journal cannot be read: %s", store_error(rd));
        buf_free(&one);
        return;
    }
    answer_json(a, 200);
    /* log_row wrote "\n{...}" */
    if (one.len) buf_add(&a->body, one.s + 1, one.len - 1);
    buf_free(&one);
}

/* Is `addr` one of the words of the recipient list `to`?  (addressed_to
 * without interning: readers do not touch the game's texts.) */
static bool addressed_to_text(const char *to, const char *addr)
{
    return words_include(to, addr, strlen(addr), false);
}

typedef struct OutWalk {
    Buf *b;
    const char *you;
    long only;          /* one message's id, or 0: a page */
    long left;          /* messages the page may still hold */
    size_t text_cut;
    bool first;
    bool stopped;       /* the walk ended it (not an error of the store) */
    size_t *ends;       /* newest first (?last=N): where each message ends in b */
    size_t nends;
} OutWalk;

static bool outbox_row(void *ud, const OutRow *r)
{
    OutWalk *w = ud;
    bool mine = (!w->only || r->id == w->only) && addressed_to_text(r->to, w->you);
    if (mine) {
        buf_puts(w->b, w->first ? "\n" : ",\n");
        w->first = false;
        view_message_json_cut(w->b, r, w->text_cut);
        if (w->ends) w->ends[w->nends++] = w->b->len;
    }
    /* one message: only the first row; a page ends at its count, or early
     * rather than grow past its bytes */
    w->stopped = w->only || (mine && (--w->left == 0 || w->b->len >= OUTBOX_PAGE_BYTES));
    return !w->stopped;
}

/* The messages a newest-first walk wrote (each ",\n{...}" or "\n{...}"),
 * in the page oldest first. */
static void put_oldest_first(Buf *page, const Buf *walked, const size_t *ends, size_t n)
{
    for (size_t k = n; k-- > 0;) {
        size_t from = k ? ends[k - 1] : 0;
        const char *m = walked->s + from;
        size_t len = ends[k] - from;
        size_t skip = m[0] == ',' ? 2 : 1; /* its separator */
        buf_puts(page, k == n - 1 ? "\n" : ",\n");
        buf_add(page, m + skip, len - skip);
    }
}

/* The caller's messages after id `since`, a page at a time: at most
 * `limit`, ending early after the one that passes OUTBOX_PAGE_BYTES, each
 * text cut at OUTBOX_TEXT_CUT (GET /api/outbox/ID has it whole); or, with
 * ?last=N, the N newest (the same bounds), oldest first.  The rows are
 * read one at a time: a page costs its own bytes, whatever the outbox
 * holds. */
void api_outbox(const Call *k, Answer *a)
{
    Store *rd = k->rd;
    const char *you = k->you; /* never NULL: the router asks for a token */
    long since, limit, last;
    if (!http_number_param(k->c, "since", 0, 0, 0x7fffffffffffL, &since, a) ||
        !http_number_param(k->c, "limit", OUTBOX_PAGE, 1, OUTBOX_PAGE_MAX, &limit, a) ||
        !http_number_param(k->c, "last", 0, 1, OUTBOX_PAGE_MAX, &last, a))
        return;
    answer_json(a, 200);
    Buf walked = {0};
    OutWalk w = {last ? &walked : &a->body, you, 0, last ? last : limit, OUTBOX_TEXT_CUT, true, false, NULL, 0};
    if (last) w.ends = xmalloc((size_t)last * sizeof *w.ends);
    buf_putc(&a->body, '[');
    bool read = (last ? store_each_outbox_before(rd, 0x7fffffffffffL, outbox_row, &w)
                      : store_each_outbox_after(rd, since, outbox_row, &w)) ||
                w.stopped;
    if (last) put_oldest_first(&a->body, &walked, w.ends, w.nends);
    if (read) buf_puts(&a->body, "\n]");
    else answer_error(a, 503, "the outbox cannot be read: %s", store_error(rd));
    free(w.ends);
    buf_free(&walked);
}

/* One of the caller's messages, its text whole up to MESSAGE_TEXT_MAX. */
void api_message(const Call *k, Answer *a)
{
    Store *rd = k->rd;
    const char *id = k->arg, *you = k->you; /* you: never NULL, the router asks for a token */
    char *end;
    long n = strtol(id, &end, 10);
    Buf one = {0};
    OutWalk w = {&one, you, n, 1, MESSAGE_TEXT_MAX, true, false, NULL, 0};
    bool read = *id && !*end && n > 0 && n < 0x7fffffffffffL ? store_each_outbox_after(rd, n - 1, outbox_row, &w) || w.stopped
                                                              : true;
    if (!read) {
        answer_error(a, 503, "the outbox cannot be read: %s", store_error(rd));
    } else if (w.first) {
        answer_error(a, 404, "no message %s of yours", id);
    } else {
        answer_json(a, 200);
        buf_add(&a->body, one.s + 1, one.len - 1); /* outbox_row wrote "\n{...}" */
    }
    buf_free(&one);
}

/* ---- reports ---- */

/* Asks the rules for the report (a dry run: nothing is kept) and renders
 * the answer.  Under game_mu. */
static void report_answer(Server *s, const char *kind, ReportAnswer *ra)
{
    Report r = {0};
    Buf b = {0};
    atomic_store(&s->running, true);
    bool stored = report_run(s->g, kind, GAME_TIME_NOW, &r);
    atomic_store(&s->running, false);
    ra->event = s->g->known_event;
    ra->at_ms = server_now_ms();
    snprintf(ra->kind, sizeof ra->kind, "%s", kind);
    if (!stored) {
        ra->status = 503;
        buf_puts(&b, "{\"error\":");
        Buf why = {0};
        buf_printf(&why, "the game cannot be read: %s", store_error(s->g->st));
        json_string(&b, why.s, why.len);
        buf_free(&why);
        buf_puts(&b, "}");
    } else if (r.refused || !r.text.len) {
        ra->status = r.refused ? 422 : 404;
        Buf why = {0};
        if (r.refused) buf_printf(&why, "the report move was refused: %s", r.why ? r.why : "(no reason)");
        else buf_printf(&why, "the rules answered no report %s (a set's report rules answer the move subtype: report, "
                              "kind: KIND; docs/cli.md lists the shipped sets' kinds)", kind);
        buf_puts(&b, "{\"error\":");
        json_string(&b, why.s, why.len);
        buf_puts(&b, "}");
        buf_free(&why);
    } else {
        ra->status = 200;
        buf_printf(&b, "{\"kind\":\"%s\",\"event\":%ld,\"text\":", kind, ra->event);
        json_string(&b, r.text.s, r.text.len);
        buf_puts(&b, "}");
    }
    ra->body = buf_take(&b);
    report_free(&r);
}

/* The answer of `kind` kept for this event and minute, or a new one
 * asked of the rules in the place of an old one.  Under game_mu. */
static const ReportAnswer *report_kept(Server *s, const char *kind)
{
    ReportAnswer *ra = NULL;
    for (int i = 0; i < s->nreports; i++)
        if (s->reports[i].event == s->g->known_event && strcmp(s->reports[i].kind, kind) == 0 &&
            server_now_ms() - s->reports[i].at_ms < REPORT_FRESH_MS)
            ra = &s->reports[i];
    if (!ra) {
        /* a new event, or a minute, makes every kept answer old; else the oldest goes */
        if (s->nreports && (s->reports[0].event != s->g->known_event || server_now_ms() - s->reports[0].at_ms >= REPORT_FRESH_MS)) {
            for (int i = 0; i < s->nreports; i++) free(s->reports[i].body);
            s->nreports = 0;
        }
        if (s->nreports == REPORTS_KEPT) {
            free(s->reports[0].body);
            memmove(&s->reports[0], &s->reports[1], (REPORTS_KEPT - 1) * sizeof s->reports[0]);
            s->nreports--;
        }
        ra = &s->reports[s->nreports++];
        report_answer(s, kind, ra);
    }
    return ra;
}

/* GET /api/report/KIND: what `nomic report GAME KIND` prints, as of now.
 * Each kind is asked of the rules at most once per event and minute. */
void api_report(const Call *k, Answer *a)
{
    Server *s = k->s;
    const char *kind = k->arg;
    if (!report_kind_ok(kind)) {
        answer_error(a, 400, "a report kind is one word of letters, digits, - and _ (not \"%.64s\")", kind);
        return;
    }
    server_hold(s);
    snapshot_sync(s);
    const ReportAnswer *ra = report_kept(s, kind);
    a->status = ra->status;
    a->type = "application/json; charset=utf-8";
    buf_puts(&a->body, ra->body);
    server_release(s);
}
