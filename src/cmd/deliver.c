/*
 * cmd/deliver.c - nomic deliver: one RFC 5322 mail on standard input, as
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
 *
 * With --mbox FILE, every mail of a mailbox (a list's archive, the mails
 * an MTA kept while the game was down) is taken the same way, in groups
 * of MBOX_GROUP mails or of the mails taken in MBOX_GROUP_MS, whichever
 * ends first, each group one transaction made durable by one fsync
 * (game_group_begin).  A group holds the game's lock: bounding it by time
 * keeps every other writer's wait (a mail, a move, the server's clock)
 * to about a second plus one event, far below LOCK_WAIT_MS, however heavy
 * each mail's event is.  Exit: 0 every mail taken; 65 some could not be
 * read as mail (each is said, and the others are taken); 75 the store failed,
 * and the mails from the group it failed in on were not kept (run the
 * command again: a mail already taken is recognised and not applied
 * twice).
 */
#include <errno.h>
#include <glib.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "scams_check.h"
#include "host.h"
#include "mail_in.h"
#include "mail_mbox.h"
#include "game_mechanics.h"

#define EX_USAGE_ 64
#define EX_DATAERR_ 65
#define EX_NOUSER_ 67
#define EX_TEMPFAIL_ 75
#define MAX_KEY 512 /* bytes of a mail's key kept as it is; a longer one is kept as its digest */
#define MAX_MAIL (1 << 20) /* bytes (docs/limits.md): a turn's moves, even a long proposal, need far less */
#define MBOX_GROUP 64      /* mails of a mailbox per transaction and fsync */
#define MBOX_GROUP_MS 1000 /* ... or the mails taken in this time, whichever ends first */
#define MBOX_YIELD_MS 30   /* the lock left free between groups, once every MBOX_GROUP_MS: a
                              writer waiting for it polls every 10 ms (store_lock) */

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
 * (in the form the game knows it by) and the digest of its text as read
 * (the same mail by another route, or the MTA's retry), or the digest of
 * the whole mail when it has no Message-ID.  A mail under the same
 * Message-ID and sender with another text is another mail: a forgery
 * carrying the Message-ID of a player's next mail cannot take its place. */
static char *mail_key(Game *g, const MailIn *m, const char *sha256)
{
    Buf b = {0};
    if (m->message_id) {
        const char *why;
        char *who = game_address(g, m->sender, &why);
        char *text = sha256_hex(m->text ? m->text : "");
        buf_printf(&b, "message-id %s <%s> text %s", who ? who : m->sender, m->message_id, text);
        free(who);
        free(text);
    } else {
        buf_printf(&b, "sha256 %s", sha256);
    }
    if (b.len > MAX_KEY) {
        /* a forged header may be long: the key stays small */
        char *h = sha256_hex(buf_str(&b));
        buf_reset(&b);
        buf_printf(&b, "message-id sha256 %s", h);
        free(h);
    }
    return buf_take(&b);
}

/* Takes one mail that reads as mail into the open game: 0 taken (its
 * moves applied, or refused and answered), EX_TEMPFAIL_ the store failed
 * (said on stderr).  raw: the first n of the mail's `total` bytes. */
static int take_mail(Game *g, const MailIn *m, const char *raw, size_t n, size_t total, const char *sha256,
                     const char *who)
{
    /* too large: refused unread, its header and digest journaled */
    Buf refusal = {0};
    char *summary = NULL;
    if (total > MAX_MAIL) {
        buf_printf(&refusal, "the mail is %zu bytes; a mail to the game may hold at most %d MiB (%d bytes)", total,
                   MAX_MAIL >> 20, MAX_MAIL);
        summary = mail_summary_of(raw, n, total, sha256);
    }
    char *key = mail_key(g, m, sha256);
    int64_t now = time_now_wall();
    const char *how = m->no_text ? "it has no text/plain nor text/html part: only text is read"
                      : m->html ? "it has no text/plain part; its text/html part was read" : NULL;
    Incoming in = {VIA_MAIL, m->sender, now, m->have_time ? m->time : now, m->text, summary ? summary : raw,
                   m->token, m->automatic, key, refusal.len ? buf_str(&refusal) : NULL,
                   m->lines ? m->lines : (const int[]){0}, m->nlines, how, m->wants_token};
    in.quotes = m->quotes;
    in.qlines = m->qlines;
    in.nquotes = m->nquotes;
    in.subject = m->subject;
    int rc = 0;
    const char *bad;
    char *canon = game_address(g, m->sender, &bad); /* the replies are to the address's one form */
    /* a proposal the mail opens is checked once it is on disk (scams_check.h) */
    ScamChecks checks = {0};
    scam_checks_install(g, scam_checks_hook, &checks);
    if (!game_submit(g, &in, false, print_one, canon ? canon : m->sender)) {
        fprintf(stderr, "%s: the store failed: %s\n", who, store_error(g->st));
        rc = EX_TEMPFAIL_;
    }
    scam_checks_install(g, NULL, NULL);
    scam_checks_finish(&checks, g);
    buf_free(&refusal);
    free(summary);
    free(key);
    free(canon);
    return rc;
}

/* ---- --mbox: a mailbox, in groups ---- */

typedef struct Import {
    Game *g;
    long first, last;  /* the mails of the group open now (first 0: none open) */
    int64_t begun_ms;  /* when it began (the monotonic clock) */
    int64_t yielded_ms; /* when the lock was last left free for others */
    long unreadable;
    int rc;
    Buf err;
} Import;

/* Ends the group open now: its mails are then on disk. */
static bool import_commit(Import *im)
{
    if (!im->first) return true;
    long first = im->first;
    im->first = 0;
    if (game_group_end(im->g, &im->err)) return true;
    fprintf(stderr,
            "nomic deliver: mails %ld to %ld (above) were not kept: %s; run the command again for them (a mail "
            "already taken is recognised, not applied twice)\n",
            first, im->last, buf_str(&im->err));
    im->rc = EX_TEMPFAIL_;
    return false;
}

static int64_t monotonic_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The group open now is full: MBOX_GROUP mails, or MBOX_GROUP_MS since it
 * began. */
static bool group_full(const Import *im, long index)
{
    return im->first && (index - im->first >= MBOX_GROUP || monotonic_ms() - im->begun_ms >= MBOX_GROUP_MS);
}

static bool import_one(void *ud, const MboxMail *mm)
{
    Import *im = ud;
    if (group_full(im, mm->index)) {
        if (!import_commit(im)) return false;
        if (monotonic_ms() - im->yielded_ms >= MBOX_GROUP_MS) {
            /* another writer waiting gets its turn before the next group */
            struct timespec pause = {0, MBOX_YIELD_MS * 1000000L};
            nanosleep(&pause, NULL);
            im->yielded_ms = monotonic_ms();
        }
    }
    if (!im->first) {
        buf_reset(&im->err);
        if (!game_group_begin(im->g, &im->err)) {
            fprintf(stderr, "nomic deliver: mail %ld: %s\n", mm->index, buf_str(&im->err));
            im->rc = EX_TEMPFAIL_;
            return false;
        }
        im->first = mm->index;
        im->begun_ms = monotonic_ms();
    }
    im->last = mm->index;
    printf("mail %ld (line %ld of the mailbox):\n", mm->index, mm->line);
    MailIn m;
    Buf err = {0};
    if (!mail_read(mm->head, mm->kept, &m, &err)) {
        printf("  not taken: %s\n", buf_str(&err));
        im->unreadable++;
        buf_free(&err);
        return true;
    }
    char who[64];
    snprintf(who, sizeof who, "nomic deliver: mail %ld", mm->index);
    int rc = take_mail(im->g, &m, mm->head, mm->kept, mm->total, mm->sha256, who);
    mail_free(&m);
    if (rc) {
        /* what the group took before this mail may still be kept */
        if (import_commit(im))
            fprintf(stderr,
                    "nomic deliver: the mails before mail %ld are kept; run the command again for the rest (a "
                    "mail already taken is recognised, not applied twice)\n",
                    mm->index);
        im->rc = rc;
        return false;
    }
    return true;
}

enum { DELIVER_MBOX, DELIVER_TO };
static const OptSpec deliver_opts[] = {
    [DELIVER_MBOX] = {"--mbox", "FILE", 0, "every mail of the mailbox FILE (- : standard input), in groups"},
    [DELIVER_TO] = {"--to", "ADDRESS", 0, "DIR: the mail's recipient, to take it into the game of that address"},
    {NULL},
};

typedef struct DeliverArgs {
    FILE *mbox;      /* --mbox */
    char *raw;       /* or the one mail: its first n of total bytes, */
    size_t n, total;
    char *sha256;    /* the digest of the whole, */
    MailIn m;        /* and as read */
    bool read;       /* m holds it */
    char *game;      /* DIR: the game it is for */
} DeliverArgs;

/* ---- DIR: the game a mail is for ---- */

/* The recipients to route by, best first: --to; else the envelope
 * recipient an MTA gives its delivery program (Postfix's local delivery
 * and OpenSMTPD's mda set ORIGINAL_RECIPIENT and RECIPIENT); else, only
 * when the MTA gives none, what it wrote into the mail (Delivered-To,
 * X-Original-To).  A header is the sender's to forge, so it is never
 * read when the MTA said who the mail is for. */
static int recipients(const CmdCall *c, const MailIn *m, const char *to[2])
{
    int n = 0;
    if (c->opt[DELIVER_TO].set) {
        to[n++] = c->opt[DELIVER_TO].value;
        return n;
    }
    const char *env[] = {"ORIGINAL_RECIPIENT", "RECIPIENT"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(env[i]);
        if (v && *v && (n == 0 || strcasecmp(v, to[0]) != 0)) to[n++] = v;
    }
    if (n == 0 && m->delivered_to) to[n++] = m->delivered_to;
    return n;
}

/* Which game of DIR the mail is for: CMD_GO_ON with a->game, or the exit
 * status, having said why: 67 (EX_NOUSER) a mail for no game of DIR, which
 * the MTA bounces; 75 when it cannot be told (the MTA keeps the mail). */
static int route_mail(CmdCall *c, DeliverArgs *a)
{
    const char *to[2];
    int n = recipients(c, &a->m, to);
    if (n == 0) {
        fprintf(stderr,
                "nomic deliver: %s is a directory of games, and nothing says which one the mail is for: give --to "
                "ADDRESS (Postfix's pipe: --to ${recipient}), or have the MTA set ORIGINAL_RECIPIENT or write "
                "Delivered-To\n",
                c->pos[0]);
        return EX_TEMPFAIL_;
    }
    char *first_why = NULL;
    int rc = EX_NOUSER_;
    for (int i = 0; i < n && rc == EX_NOUSER_; i++) {
        char *why;
        int found = host_find_address(c->pos[0], to[i], &a->game, &why);
        if (found > 0) rc = CMD_GO_ON;
        else if (found < 0) rc = EX_TEMPFAIL_;
        if (rc != EX_NOUSER_ || !first_why) {
            free(first_why);
            first_why = why;
        } else {
            free(why);
        }
    }
    if (rc == CMD_GO_ON) c->pos[0] = a->game; /* the game cli_run opens */
    else fprintf(stderr, "nomic deliver: %s\n", first_why);
    free(first_why);
    return rc;
}

/* The mailbox opened, or the one mail read, before the game opens. */
static int deliver_check(CmdCall *c)
{
    DeliverArgs *a = c->data;
    const OptVal *mbox = &c->opt[DELIVER_MBOX];
    bool dir = host_is_dir(c->pos[0]);
    if (mbox->set && dir) {
        fprintf(stderr, "nomic deliver: --mbox takes a game, not a directory: %s\n", c->pos[0]);
        return EX_USAGE_;
    }
    if (c->opt[DELIVER_TO].set && !dir) {
        fprintf(stderr, "nomic deliver: --to routes a mail among the games of a directory; %s is not one\n", c->pos[0]);
        return EX_USAGE_;
    }
    if (mbox->set) {
        a->mbox = strcmp(mbox->value, "-") == 0 ? stdin : fopen(mbox->value, "rb");
        if (!a->mbox) {
            fprintf(stderr, "nomic deliver: %s: %s\n", mbox->value, strerror(errno));
            return EX_USAGE_;
        }
        return CMD_GO_ON;
    }
    a->raw = read_stdin(&a->n, &a->total, &a->sha256);
    Buf err = {0};
    if (!(a->read = mail_read(a->raw, a->n, &a->m, &err))) {
        fprintf(stderr, "nomic deliver: %s\n", buf_str(&err));
        buf_free(&err);
        return EX_DATAERR_;
    }
    return dir ? route_mail(c, a) : CMD_GO_ON;
}

static int deliver_mbox(Game *g, const char *game, FILE *f, const char *path)
{
    Import im = {.g = g, .yielded_ms = monotonic_ms()};
    Buf err = {0};
    if (!mbox_each(f, MAX_MAIL, import_one, &im, &err)) {
        fprintf(stderr, "nomic deliver: %s: %s\n", path, buf_str(&err));
        if (!im.rc) im.rc = EX_DATAERR_;
    }
    if (!import_commit(&im) || im.rc == EX_TEMPFAIL_) im.rc = EX_TEMPFAIL_;
    else if (!im.rc && im.unreadable) im.rc = EX_DATAERR_;
    /* the answers of what was kept; a failure waits for `nomic send` */
    cli_send_mail(g, game, false, true, NULL);
    buf_free(&err);
    buf_free(&im.err);
    return im.rc;
}

static int deliver_run(CmdCall *c)
{
    DeliverArgs *a = c->data;
    if (a->mbox) return deliver_mbox(c->g, c->pos[0], a->mbox, c->opt[DELIVER_MBOX].value);
    /* the game named: in a directory of games, the keeper reads which one failed in the MTA's log */
    char *who = g_strdup_printf("nomic deliver: %s", c->pos[0]);
    int rc = take_mail(c->g, &a->m, a->raw, a->n, a->total, a->sha256, who);
    g_free(who);
    if (rc == 0) cli_send_mail(c->g, c->pos[0], false, true, NULL); /* a failure waits for the next try */
    return rc;
}

static void deliver_cleanup(CmdCall *c)
{
    DeliverArgs *a = c->data;
    if (a->mbox && a->mbox != stdin) fclose(a->mbox);
    if (a->read) mail_free(&a->m);
    free(a->raw);
    free(a->sha256);
    free(a->game);
}

const CmdSpec cmd_deliver = {
    .name = "deliver",
    .args = "GAME|DIR",
    .minpos = 1,
    .maxpos = 1,
    .opts = deliver_opts,
    .doc = "take one RFC 5322 mail on stdin, as an MTA's delivery program; --mbox: every mail of a mailbox",
    .more = "It is an MTA's delivery program (a .forward pipe, procmail, Postfix or OpenSMTPD `mda`); with\n"
            "`--mbox`, every mail of a mailbox is taken, in groups of 64 mails (or 1 s) per fsync.  It has exit\n"
            "statuses of its own, the ones MTAs read: 0 taken, 75 try again later (the game could not be opened\n"
            "or written), 65 not a usable mail, 67 a mail for no game of DIR, 64 bad usage.  docs/mechanics.md.\n"
            "\n"
            "Given a directory DIR of games (as `nomic serve DIR` serves), it takes the mail into the game of DIR\n"
            "whose `address` setting is the mail's recipient: `--to ADDRESS` (Postfix's pipe: `--to\n"
            "${recipient}`); without it, the envelope recipient the MTA gives (`ORIGINAL_RECIPIENT`, `RECIPIENT`:\n"
            "Postfix's local delivery, OpenSMTPD's `mda`), or, when it gives none, the mail's `Delivered-To` or\n"
            "`X-Original-To`.  One MTA rule then serves every game of the host; the game named as the address's\n"
            "local part (`spring.db` for `spring@...`) is found first, at once.  A mail for no game is refused\n"
            "with exit 67 (EX_NOUSER, the MTA bounces it); two games of one address, or a game that cannot be\n"
            "read, give 75 (the MTA keeps the mail): never the wrong game.  docs/hosting.md.\n",
    .bad_usage = EX_USAGE_,
    .bad_game = EX_TEMPFAIL_,
    .data_size = sizeof(DeliverArgs),
    .check = deliver_check,
    .run = deliver_run,
    .cleanup = deliver_cleanup,
};
