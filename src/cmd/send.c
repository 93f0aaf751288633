/*
 * cmd/send.c - nomic send: hands the messages sendNow() released to the
 * game's transport (game_postman.h), and the hand-over the other commands do
 * after their events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game_postman.h"
#include "game_mechanics.h"

static void say_sent(void *ud, const OutRow *r)
{
    bool *quiet = ud;
    char when[32];
    if (strcmp(r->delivery, "delivered") == 0) {
        if (!*quiet) printf("message %ld to %s: delivered <%s>\n", r->id, r->to, r->message_id);
    } else if (strcmp(r->delivery, "failed") == 0) {
        fprintf(stderr, "nomic: message %ld to %s not sent (%s); given up after %d attempts (nomic send --all "
                        "tries again)\n", r->id, r->to, r->error, r->attempts);
    } else {
        time_format(r->next_try, when);
        fprintf(stderr, "nomic: message %ld to %s not sent (%s); attempt %d, next at %s\n", r->id, r->to, r->error,
                r->attempts, when);
    }
}

bool cli_send_mail(Game *g, const char *path, bool all, bool quiet, SendCount *count)
{
    char *name = game_file_name(path);
    SendReport rep;
    Buf err = {0};
    bool ok = mail_send_due(g->st, name, time_now_wall(), all, &rep, say_sent, &quiet, &err);
    if (!ok) fprintf(stderr, "nomic: the store failed while sending: %s\n", buf_str(&err));
    if (count) *count = (SendCount){rep.delivered, rep.retrying + rep.failed};
    buf_free(&err);
    free(name);
    return ok;
}

int cmd_send(int argc, char **argv)
{
    Opt o[] = {{"--all", false}};
    const char *pos[1];
    int npos, rc = EXIT_USAGE;
    Game *g = NULL;
    if (!cli_parse(argc, argv, o, 1, pos, 1, 1, &npos, "nomic send GAME [--all]")) goto out;
    if (!(g = cli_open(pos[0]))) goto out;
    char *transport = game_config(g, "transport");
    SendCount n = {0, 0};
    if (strcmp(transport, "outbox") == 0) {
        printf("the transport is outbox: messages stay in the database (nomic outbox)\n");
        rc = 0;
    } else if (cli_send_mail(g, pos[0], o[0].set, false, &n)) {
        if (n.delivered + n.not_sent == 0) printf("nothing to send\n");
        rc = n.not_sent ? EXIT_REFUSED : 0;
    }
    free(transport);
out:
    game_close(g);
    cli_free_opts(o, 1);
    return rc;
}
