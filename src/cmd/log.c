/*
 * cmd/log.c - nomic log and nomic outbox: the journal and the messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game_mechanics.h"
#include "objfmt.h"
#include "views.h"

typedef struct LogState {
    bool json;
    bool first;
    Viewer view; /* who reads: private attributes of moves show only to their sender */
} LogState;

static bool print_event(void *ud, const JournalRow *r)
{
    LogState *st = ud;
    if (st->json) {
        Buf b = {0};
        buf_puts(&b, st->first ? "\n" : ",\n");
        view_event_json(&b, r, &st->view);
        fwrite(b.s, 1, b.len, stdout);
        buf_free(&b);
    } else {
        char when[32];
        time_format(r->time, when);
        printf("event %ld  %s  %s  %s%s%s\n", r->n, r->kind, when, r->status, r->sender ? "  from " : "",
               r->sender ? r->sender : "");
        if (r->message) printf("  %s\n", view_refusal(r, &st->view));
        if (r->input && *r->input) {
            printf("  input:\n");
            char *shown = view_moves(r->input, r->sender, &st->view);
            print_indented(shown, "    | ");
            free(shown);
        }
        Buf sc = {0};
        view_scam_check_text(&sc, r);
        fputs(buf_str(&sc), stdout);
        buf_free(&sc);
        if (r->trace && *r->trace) {
            printf("  trace:\n");
            print_indented(r->trace, "    ");
        }
    }
    st->first = false;
    return true;
}

enum { LOG_EVENT, LOG_JSON, LOG_AS };
static const OptSpec log_opts[] = {
    [LOG_EVENT] = {"--event", "N", 0, "only event N"},
    [LOG_JSON] = {"--json", NULL, 0, "as JSON"},
    [LOG_AS] = {"--as", "ADDR", 0, "show the sender of ADDR their own private values and refusals"},
    {NULL},
};

typedef struct LogArgs {
    long from, to; /* the events shown */
} LogArgs;

static int log_check(CmdCall *c)
{
    LogArgs *a = c->data;
    const OptVal *event = &c->opt[LOG_EVENT];
    a->from = 1, a->to = 0x7fffffffL;
    if (event->set) {
        a->from = a->to = strtol(event->value, NULL, 10);
        if (a->from <= 0) {
            fprintf(stderr, "nomic log: --event %s: expected an event number\n", event->value);
            return EXIT_USAGE;
        }
    }
    return CMD_GO_ON;
}

static int log_run(CmdCall *c)
{
    const LogArgs *a = c->data;
    const OptVal *o = c->opt;
    Game *g = c->g;
    if (o[LOG_EVENT].set && a->from > store_last_event(g->st)) {
        fprintf(stderr, "nomic log: there is no event %ld\n", a->from);
        return EXIT_REFUSED;
    }
    RuleInfo *ri;
    free((engine_rules(g->eng, &ri), ri)); /* reads the private attributes */
    const char *bad, *asked = o[LOG_AS].set ? o[LOG_AS].value : NULL;
    char *as = asked ? game_address(g, asked, &bad) : NULL; /* the form the game knows it by */
    LogState st = {o[LOG_JSON].set, true, {.private_attrs = g->eng->private_attrs, .address = as ? as : asked}};
    if (st.json) printf("{\"version\":1,\"events\":[");
    store_each_event(g->st, a->from, a->to, print_event, &st);
    if (st.json) printf("\n]}\n");
    free(as);
    return 0;
}

const CmdSpec cmd_log = {
    .name = "log",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = log_opts,
    .doc = "the journal: events, outcomes, traces",
    .data_size = sizeof(LogArgs),
    .check = log_check,
    .run = log_run,
};

static bool print_message(void *ud, const OutRow *r)
{
    LogState *st = ud;
    if (st->json) {
        Buf b = {0};
        buf_puts(&b, st->first ? "\n" : ",\n");
        view_message_json(&b, r);
        fwrite(b.s, 1, b.len, stdout);
        buf_free(&b);
    } else {
        char when[32];
        time_format(strcmp(r->state, "queued") ? r->sent_at : r->queued_at, when);
        printf("message %ld  event %ld  %s %s", r->id, r->event, r->state, when);
        if (r->delivery && strcmp(r->delivery, "kept")) {
            printf("  %s", r->delivery);
            if (r->attempts) printf(" (%d attempt%s)", r->attempts, r->attempts == 1 ? "" : "s");
        }
        printf("\n  to: %s\n", r->to);
        if (r->message_id) printf("  message-id: <%s>\n", r->message_id);
        if (r->error) printf("  error: %s\n", r->error);
        for (const char *s = r->text; *s;) {
            const char *e = strchr(s, '\n');
            int n = e ? (int)(e - s) : (int)strlen(s);
            printf("  | %.*s\n", n, s);
            if (!e) break;
            s = e + 1;
        }
    }
    st->first = false;
    return true;
}

enum { OUTBOX_JSON };
static const OptSpec outbox_opts[] = {
    [OUTBOX_JSON] = {"--json", NULL, 0, "as JSON"},
    {NULL},
};

static int outbox_run(CmdCall *c)
{
    LogState st = {c->opt[OUTBOX_JSON].set, true};
    if (st.json) printf("{\"version\":1,\"messages\":[");
    store_each_outbox(c->g->st, print_message, &st);
    if (st.json) printf("\n]}\n");
    return 0;
}

const CmdSpec cmd_outbox = {
    .name = "outbox",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = outbox_opts,
    .doc = "every message: recipients, time, state, text",
    .run = outbox_run,
};
