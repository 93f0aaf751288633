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

static void print_lines(const char *text, const char *prefix)
{
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        int n = e ? (int)(e - s) : (int)strlen(s);
        printf("%s%.*s\n", prefix, n, s);
        if (!e) break;
        s = e + 1;
    }
}

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
            print_lines(shown, "    | ");
            free(shown);
        }
        if (r->trace && *r->trace) {
            printf("  trace:\n");
            print_lines(r->trace, "    ");
        }
    }
    st->first = false;
    return true;
}

int cmd_log(int argc, char **argv)
{
    Opt o[] = {{"--event", true}, {"--json", false}, {"--as", true}};
    const char *pos[1];
    int npos, rc = EXIT_USAGE;
    Game *g = NULL;
    char *as = NULL;
    if (!cli_parse(argc, argv, o, 3, pos, 1, 1, &npos, commands[5].usage)) goto out;
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
    RuleInfo *ri;
    free((engine_rules(g->eng, &ri), ri)); /* reads the private attributes */
    const char *bad;
    as = o[2].set ? game_address(g, o[2].value, &bad) : NULL; /* the form the game knows it by */
    LogState st = {o[1].set, true,
                   {.private_attrs = g->eng->private_attrs, .address = as ? as : o[2].set ? o[2].value : NULL}};
    if (st.json) printf("{\"version\":1,\"events\":[");
    store_each_event(g->st, from, to, print_event, &st);
    if (st.json) printf("\n]}\n");
    rc = 0;
out:
    free(as);
    game_close(g);
    cli_free_opts(o, 3);
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
