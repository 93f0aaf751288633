/*
 * cmd/elsewhere.c - the mail and HTTP functions of deliver, send and serve, as
 * the program `nomic` links them: never called.
 *
 * GMime, libcurl, libmicrohttpd and libxml2 cost a process about 10 MiB
 * before it does anything, and most commands (replay, move, show, ...)
 * need none of them.  So `nomic` is linked without them, and runs the
 * commands that do (their rows say CMD_ELSEWHERE, nomic.c) by executing
 * nomic-net, the same command line with everything linked, before
 * reading their arguments, and has nomic-net's `send` hand over the
 * messages of a move or a tick (cli_send_mail, cmd/send.c).  These
 * definitions only let `nomic` link the three commands' specs (for help,
 * the docs and the man page).
 */
#include <stdlib.h>

#include "game_postman.h"
#include "mail_in.h"
#include "mail_mbox.h"
#include "server.h"

bool server_run_dir(const char *dir, const char *host, int port, bool proxy) { abort(); }

bool server_run(Game *g, const char *path, const char *host, int port, bool proxy) { abort(); }

bool mail_send_due(Store *st, const char *game, int64_t now, bool all, SendReport *rep, SentFn fn, void *ud,
                   Buf *err)
{
    abort();
}

bool mail_read(const char *raw, size_t n, MailIn *m, Buf *err) { abort(); }

void mail_free(MailIn *m) { abort(); }

bool mbox_each(FILE *f, size_t keep, MboxFn fn, void *ud, Buf *err) { abort(); }
