/*
 * game_postman.h - the game's postman: hands the messages the rules
 * released (sendNow()) to the game's transport, as RFC 5322 messages.
 *
 * Transports (nomic config GAME transport):
 *   outbox              the messages stay in the database (nomic outbox,
 *                       GET /api/outbox); nothing is sent
 *   sendmail:/path      piped to a sendmail-compatible program
 *                       (`/path -oi -f FROM -- RCPT...`), exit 0 = taken
 *   smtp://host:port    handed to an SMTP server through libcurl
 *
 * Never lost, never sent twice: a message is claimed (leased) in the store
 * before the attempt, so two programs never send it at once; it is marked
 * delivered as soon as the transport takes it; a failed attempt is retried
 * with a doubling backoff (1 minute up to 1 hour) for three days (an SMTP
 * server's 5xx ends it at once), then kept as failed (nomic send --all tries it again).  A crash between the
 * transport taking a message and the store noting it sends it again after
 * the lease, with the same Message-ID, so the receiver can tell.
 */
#ifndef NOMIC_GAME_POSTMAN_H
#define NOMIC_GAME_POSTMAN_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"
#include "util.h"

typedef struct SendReport {
    int delivered, retrying, failed;
} SendReport;

/* Called after each attempt; r->delivery says how it went. */
typedef void (*SentFn)(void *ud, const OutRow *r);

/* Tries every message whose delivery is due at `now` (all: also those
 * waiting out a backoff, and those given up).  `game` names the game in
 * subjects.  False only when the store failed (err says why). */
bool mail_send_due(Store *st, const char *game, int64_t now, bool all, SendReport *rep, SentFn fn, void *ud,
                   Buf *err);

/* The RFC 5322 text of a message: From, To, Date, Subject, Message-ID,
 * Auto-Submitted, MIME headers, a UTF-8 text/plain body.  crlf: lines end
 * in CRLF (SMTP) rather than LF (a local program).  malloc'd. */
char *mail_format(const char *from, const char *to, const char *subject, const char *message_id, int64_t date,
                  const char *text, bool crlf);
/* The same, answering the mail whose Message-ID is in_reply_to (without
 * angle brackets; NULL: none) and whose References header was
 * `references` (or NULL): In-Reply-To and References, so that a mail
 * client threads the answer under it. */
char *mail_format_reply(const char *from, const char *to, const char *subject, const char *message_id, int64_t date,
                        const char *text, bool crlf, const char *in_reply_to, const char *references);

#endif
