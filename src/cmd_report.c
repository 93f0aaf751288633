/*
 * cmd_report.c - nomic report: what a game-keeper posts (the standings,
 * the Proposal Pool, the Assessor's resolutions), printed from the state.
 *
 * The layouts are the set's, not the command's: it asks the rules, in a
 * dry run that keeps nothing, with one move `subtype: report`, `kind:
 * KIND` from the address `report`, and prints the text they answer to
 * that address.  A player who sends the same move (REPORT KIND in the
 * shipped sets' sugar) gets the same text by mail.  Nothing here knows any
 * game: a set without report rules answers nothing, and the command says so.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define REPORTER "report"

typedef struct Report {
    Buf text;     /* what the rules answered, messages separated by a blank line */
    bool refused; /* the move was refused (the message says why) */
    char *why;
} Report;

/* The answer to the report move itself (timers due first run too, and
 * are undone with it). */
static void collect(void *ud, Game *g, const Outcome *o)
{
    Report *r = ud;
    if (strcmp(o->kind, "move") != 0) return;
    r->refused = o->status == OUTCOME_REFUSED;
    if (o->message) r->why = xstrdup(o->message);
    if (!o->ran) return;
    const MsgList *lists[2] = {&o->er.sent, &g->eng->queue};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < lists[k]->len; i++) {
            const Message *m = &lists[k]->m[i];
            if (!addressed_to(m->to, REPORTER)) continue;
            if (r->text.len) buf_puts(&r->text, "\n");
            buf_add(&r->text, sym_text(m->text), sym_len(m->text));
            if (sym_len(m->text) && sym_text(m->text)[sym_len(m->text) - 1] != '\n') buf_puts(&r->text, "\n");
        }
}

/* A kind is one word: it goes into the move as a value. */
static bool kind_ok(const char *k)
{
    if (!*k || strlen(k) > 64) return false;
    for (const char *p = k; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_') return false;
    return true;
}

int cmd_report(int argc, char **argv)
{
    Opt o[] = {{"--time", true}};
    const char *pos[2];
    int npos, rc = EXIT_USAGE;
    const char *usage = "nomic report GAME KIND [--time T]";
    int64_t t;
    Game *g = NULL;
    Report r = {0};
    if (!cli_parse(argc, argv, o, 1, pos, 2, 2, &npos, usage) || !cli_time(&o[0], &t)) goto out;
    if (!kind_ok(pos[1])) {
        fprintf(stderr, "nomic report: a kind is one word of letters, digits, - and _ (not \"%s\")\nusage: %s\n", pos[1],
                usage);
        goto out;
    }
    if (!(g = cli_open(pos[0]))) goto out;
    Buf body = {0};
    buf_printf(&body, "subtype: report\nkind: %s\n", pos[1]);
    bool stored = game_move(g, REPORTER, t, buf_str(&body), true, collect, &r);
    buf_free(&body);
    if (!stored) {
        fprintf(stderr, "nomic report: the store failed: %s\n", store_error(g->st));
        goto out;
    }
    rc = EXIT_REFUSED;
    if (r.refused) fprintf(stderr, "nomic report: the report move was refused: %s\n", r.why ? r.why : "(no reason)");
    else if (!r.text.len)
        fprintf(stderr, "nomic report: the rules answered no report %s (a set's report rules answer the move "
                        "subtype: report, kind: KIND; docs/cli.md lists the shipped sets' kinds)\n", pos[1]);
    else {
        fputs(buf_str(&r.text), stdout);
        rc = 0;
    }
out:
    buf_free(&r.text);
    free(r.why);
    game_close(g);
    cli_free_opts(o, 1);
    return rc;
}
