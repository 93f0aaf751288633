/*
 * cmd_deliver.c - nomic deliver: one RFC 5322 mail on standard input, as
 * an MTA hands it to a local delivery program (a .forward pipe, procmail,
 * Postfix or OpenSMTPD `mda`).
 *
 * Exit status, as MTAs read it (sysexits.h): 0 the mail was taken (its
 * moves applied, or refused and answered); 75 (EX_TEMPFAIL) try again
 * later: the game could not be opened or written (locked, disk full), and
 * nothing of the mail was kept; 65 (EX_DATAERR) the mail cannot be read as
 * mail or has no usable sender: it bounces; 64 (EX_USAGE) bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mailin.h"

#define EX_USAGE_ 64
#define EX_DATAERR_ 65
#define EX_TEMPFAIL_ 75
#define MAX_MAIL (8 << 20) /* bytes; a move never needs more */

static void print_one(void *ud, Game *g, const Outcome *o) { cli_print_outcome(o, ud, false); }

static char *read_stdin(size_t *n, bool *too_big)
{
    Buf b = {0};
    char chunk[65536];
    size_t k;
    *too_big = false;
    while ((k = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
        if (b.len + k > MAX_MAIL) {
            *too_big = true;
            break;
        }
        buf_add(&b, chunk, k);
    }
    *n = b.len;
    char *s = buf_take(&b);
    return s ? s : xstrdup("");
}

int cmd_deliver(int argc, char **argv)
{
    const char *pos[1];
    int npos;
    if (!cli_parse(argc, argv, NULL, 0, pos, 1, 1, &npos, "nomic deliver GAME")) return EX_USAGE_;
    size_t n;
    bool too_big;
    char *raw = read_stdin(&n, &too_big);
    if (too_big) {
        fprintf(stderr, "nomic deliver: the mail is larger than %d MiB\n", MAX_MAIL >> 20);
        free(raw);
        return EX_DATAERR_;
    }
    MailIn m;
    Buf err = {0};
    if (!mail_read(raw, n, &m, &err)) {
        fprintf(stderr, "nomic deliver: %s\n", buf_str(&err));
        buf_free(&err);
        free(raw);
        return EX_DATAERR_;
    }
    int rc = EX_TEMPFAIL_;
    Game *g = cli_open(pos[0]);
    if (g) {
        int64_t now = time_now_wall();
        Incoming in = {VIA_MAIL, m.sender, now, m.have_time ? m.time : now, m.text, raw, m.token, m.automatic};
        if (game_submit(g, &in, false, print_one, m.sender)) {
            rc = 0;
            cli_send_mail(g, pos[0], false, true, NULL); /* a failure waits for the next try */
        } else fprintf(stderr, "nomic deliver: the store failed: %s\n", store_error(g->st));
        game_close(g);
    }
    mail_free(&m);
    free(raw);
    return rc;
}
