/*
 * cmd/send.c - nomic send: hands the messages sendNow() released to the
 * game's transport (game_postman.h), and the hand-over the other commands do
 * after their events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* cli_send_mail where mail is not linked (`nomic`, nomic.c): nomic-net's
 * `nomic send GAME` does it, its report on standard output dropped when
 * quiet (the failures are on standard error, as say_sent says them).  The
 * event is settled and the lock free: the other program takes it. */
static bool send_elsewhere(const char *path, bool all, bool quiet)
{
    char *net = cli_net_program();
    if (!net) {
        fprintf(stderr, "nomic: messages not sent: nomic-net, which sends them, is not installed beside nomic\n");
        return true; /* they wait in the outbox for the next try */
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (quiet && !freopen("/dev/null", "w", stdout)) _exit(EXIT_USAGE);
        char *argv[] = {(char *)"nomic", (char *)"send", (char *)path, all ? (char *)"--all" : NULL, NULL};
        execv(net, argv);
        _exit(EXIT_USAGE);
    }
    free(net);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return false;
    /* 1: some not sent (each said); 2: the store failed or no program */
    return WIFEXITED(status) && WEXITSTATUS(status) <= EXIT_REFUSED;
}

bool cli_send_mail(Game *g, const char *path, bool all, bool quiet, SendCount *count)
{
    if (!cli_mail_here) {
        if (count) *count = (SendCount){0, 0};
        char *transport = game_config(g, "transport");
        bool outbox = strcmp(transport, "outbox") == 0;
        free(transport);
        /* the other program loads the game again: only for a message due */
        int due = outbox ? 0 : store_outbox_due(g->st, time_now_wall(), all);
        return due == 0 || (due == 1 && send_elsewhere(path, all, quiet));
    }
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

enum { SEND_ALL };
static const OptSpec send_opts[] = {
    [SEND_ALL] = {"--all", NULL, 0, "also the messages waiting out a back-off or given up"},
    {NULL},
};

static int send_run(CmdCall *c)
{
    int rc = EXIT_USAGE;
    char *transport = game_config(c->g, "transport");
    SendCount n = {0, 0};
    if (strcmp(transport, "outbox") == 0) {
        printf("the transport is outbox: messages stay in the database (nomic outbox)\n");
        rc = 0;
    } else if (cli_send_mail(c->g, c->pos[0], c->opt[SEND_ALL].set, false, &n)) {
        if (n.delivered + n.not_sent == 0) printf("nothing to send\n");
        rc = n.not_sent ? EXIT_REFUSED : 0;
    }
    free(transport);
    return rc;
}

const CmdSpec cmd_send = {
    .name = "send",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = send_opts,
    .doc = "hand the messages sendNow() released to the transport; --all: retry even those waiting or given up",
    .more = "docs/mechanics.md says how messages wait and are retried.\n",
    .run = send_run,
};
