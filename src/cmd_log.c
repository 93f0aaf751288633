/*
 * cmd_log.c - nomic log and nomic outbox: the journal and the messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "objfmt.h"
#include "views.h"

typedef struct LogState {
    bool json;
    bool first;
} LogState;

static bool print_event(void *ud, const EventRow *r)
{
    LogState *st = ud;
    if (st->json) {
        Buf b = {0};
        buf_puts(&b, st->first ? "\n" : ",\n");
        View keeper = {.keeper = true};
        view_event_json(&b, r, &keeper);
        fwrite(b.s, 1, b.len, stdout);
        buf_free(&b);
    } else {
        char when[32];
        time_format(r->time, when);
        printf("event %ld  %s  %s  %s%s%s\n", r->n, r->kind, when, r->status, r->sender ? "  from " : "",
               r->sender ? r->sender : "");
        if (r->message) printf("  %s\n", r->message);
        if (r->input && *r->input) {
            printf("  input:\n");
            for (const char *s = r->input; *s;) {
                const char *e = strchr(s, '\n');
                int n = e ? (int)(e - s) : (int)strlen(s);
                printf("    | %.*s\n", n, s);
                if (!e) break;
                s = e + 1;
            }
        }
        if (r->trace && *r->trace) {
            printf("  trace:\n");
            for (const char *s = r->trace; *s;) {
                const char *e = strchr(s, '\n');
                int n = e ? (int)(e - s) : (int)strlen(s);
                printf("    %.*s\n", n, s);
                if (!e) break;
                s = e + 1;
            }
        }
    }
    st->first = false;
    return true;
}

int cmd_log(int argc, char **argv)
{
    Opt o[] = {{"--event", true}, {"--json", false}};
    const char *pos[1];
    int npos, rc = EXIT_USAGE;
    Game *g = NULL;
    if (!cli_parse(argc, argv, o, 2, pos, 1, 1, &npos, commands[5].usage)) goto out;
    long from = 1, to = 0x7fffffffL;
    if (o[0].set) {
        from = to = strtol(o[0].value, NULL, 10);
        if (from <= 0) {
            fprintf(stderr, "nomic log: --event %s: expected an event number\n", o[0].value);
            goto out;
        }
    }
    if (!(g = cli_open(pos[0]))) goto out;
    if (o[0].set && from > store_last_event(g->st)) {
        fprintf(stderr, "nomic log: there is no event %ld\n", from);
        rc = EXIT_REFUSED;
        goto out;
    }
    LogState st = {o[1].set, true};
    if (st.json) printf("{\"version\":1,\"events\":[");
    store_each_event(g->st, from, to, print_event, &st);
    if (st.json) printf("\n]}\n");
    rc = 0;
out:
    game_close(g);
    cli_free_opts(o, 2);
    return rc;
}

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

int cmd_outbox(int argc, char **argv)
{
    Opt o[] = {{"--json", false}};
    const char *pos[1];
    int npos;
    if (!cli_parse(argc, argv, o, 1, pos, 1, 1, &npos, commands[6].usage)) return EXIT_USAGE;
    Game *g = cli_open(pos[0]);
    if (!g) return EXIT_USAGE;
    LogState st = {o[0].set, true};
    if (st.json) printf("{\"version\":1,\"messages\":[");
    store_each_outbox(g->st, print_message, &st);
    if (st.json) printf("\n]}\n");
    game_close(g);
    return 0;
}
