/*
 * cmd_deliver.c - nomic deliver: one RFC 5322 mail on standard input, as
 * an MTA hands it to a local delivery program (a .forward pipe, procmail,
 * Postfix or OpenSMTPD `mda`).
 *
 * Exit status, as MTAs read it (sysexits.h): 0 the mail was taken (its
 * moves applied, or refused and answered); 75 (EX_TEMPFAIL) try again
 * later: the game could not be opened or written (locked, disk full), and
 * nothing of the mail was kept, or what was kept is recognised when the
 * MTA tries again (a mail is applied at most once, by its Message-ID or
 * digest); 65 (EX_DATAERR) the mail cannot be read as mail or has no
 * usable sender: it bounces; 64 (EX_USAGE) bad usage.  A mail larger
 * than MAX_MAIL is taken and refused (answered, at most once an hour per
 * address), its header and digest journaled.
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mailin.h"

#define EX_USAGE_ 64
#define EX_DATAERR_ 65
#define EX_TEMPFAIL_ 75
#define MAX_KEY 512 /* bytes of a mail's key kept as it is; a longer one is kept as its digest */
#define MAX_MAIL (1 << 20) /* bytes (docs/limits.md): a turn's moves, even a long proposal, need far less */

static void print_one(void *ud, Game *g, const Outcome *o) { cli_print_outcome(o, ud, false); }

/* Standard input: its first MAX_MAIL bytes are kept, the rest is read
 * (the MTA wants it all taken) and only counted; *total and *sha256 are
 * of the whole. */
static char *read_stdin(size_t *kept, size_t *total, char **sha256)
{
    Buf b = {0};
    char chunk[65536];
    size_t k;
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    *total = 0;
    while ((k = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
        g_checksum_update(sum, (const guchar *)chunk, (gssize)k);
        if (b.len < MAX_MAIL) buf_add(&b, chunk, k < MAX_MAIL - b.len ? k : MAX_MAIL - b.len);
        *total += k;
    }
    *sha256 = xstrdup(g_checksum_get_string(sum));
    g_checksum_free(sum);
    *kept = b.len;
    char *s = buf_take(&b);
    return s ? s : xstrdup("");
}

/* A mail's identity, taken at most once: its Message-ID with its sender
 * (the same mail by another route, or the MTA's retry), or the digest of
 * the whole mail when it has no Message-ID. */
static char *mail_key(const MailIn *m, const char *sha256)
{
    Buf b = {0};
    if (m->message_id) buf_printf(&b, "message-id %s <%s>", m->sender, m->message_id);
    else buf_printf(&b, "sha256 %s", sha256);
    if (b.len > MAX_KEY) {
        /* a forged header may be long: the key stays small */
        char *h = sha256_hex(buf_str(&b));
        buf_reset(&b);
        buf_printf(&b, "message-id sha256 %s", h);
        free(h);
    }
    return buf_take(&b);
}

int cmd_deliver(int argc, char **argv)
{
    const char *pos[1];
    int npos;
    if (!cli_parse(argc, argv, NULL, 0, pos, 1, 1, &npos, "nomic deliver GAME")) return EX_USAGE_;
    size_t n, total;
    char *sha256;
    char *raw = read_stdin(&n, &total, &sha256);
    MailIn m;
    Buf err = {0};
    if (!mail_read(raw, n, &m, &err)) {
        fprintf(stderr, "nomic deliver: %s\n", buf_str(&err));
        buf_free(&err);
        free(raw);
        free(sha256);
        return EX_DATAERR_;
    }
    /* too large: refused unread, its header and digest journaled */
    Buf refusal = {0};
    if (total > MAX_MAIL) {
        buf_printf(&refusal, "the mail is %zu bytes; a mail to the game may hold at most %d MiB (%d bytes)", total,
                   MAX_MAIL >> 20, MAX_MAIL);
        char *summary = mail_summary_of(raw, n, total, sha256);
        free(raw);
        raw = summary;
    }
    char *key = mail_key(&m, sha256);
    int rc = EX_TEMPFAIL_;
    Game *g = cli_open(pos[0]);
    if (g) {
        int64_t now = time_now_wall();
        const char *how = m.no_text ? "it has no text/plain nor text/html part: only text is read"
                          : m.html ? "it has no text/plain part; its text/html part was read" : NULL;
        Incoming in = {VIA_MAIL, m.sender, now, m.have_time ? m.time : now, m.text, raw, m.token, m.automatic, key,
                       refusal.len ? buf_str(&refusal) : NULL, m.lines ? m.lines : (const int[]){0}, m.nlines, how,
                       m.wants_token};
        if (game_submit(g, &in, false, print_one, m.sender)) {
            rc = 0;
            cli_send_mail(g, pos[0], false, true, NULL); /* a failure waits for the next try */
        } else fprintf(stderr, "nomic deliver: the store failed: %s\n", store_error(g->st));
        game_close(g);
    }
    buf_free(&refusal);
    free(key);
    mail_free(&m);
    free(raw);
    free(sha256);
    return rc;
}
