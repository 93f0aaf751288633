/*
 * game_mechanics.h - the settings of the Mechanics (nomic config), the players'
 * tokens (nomic token), and the Mechanics' own answers.  These are kept in
 * the game's database, not in the game state: the rules neither see nor
 * change them.
 *
 * Settings and their defaults:
 *   transport   outbox | sendmail:/path/to/program | smtp://host:port
 *   mailFrom    the From address of the game's mail
 *   mailPolicy  open (any sender may move) | tokens (only with the
 *               sender's token)
 *   listen      the address `nomic serve` listens on
 *   name        the game's display name (mail subjects, the page); empty:
 *               the file's name
 *   addressCase fold (an address's local part in any case is one
 *               address) | keep
 *   tokenMailsPerHour, tokenRequestsPerClient  the ceilings on tokens
 *               mailed on request (in all, and per client IP over HTTP)
 */
#ifndef NOMIC_GAME_MECHANICS_H
#define NOMIC_GAME_MECHANICS_H

#include <stdbool.h>

#include "game.h"

typedef struct ConfigKey {
    const char *key, *fallback, *doc;
} ConfigKey;
extern const ConfigKey config_keys[]; /* ends with {0} */

/* The quota settings: their names and ceilings (their defaults are
 * config_keys'). */
typedef struct Quota {
    const char *setting;
    long ceiling;
    const char *what;
} Quota;
enum { QUOTA_EVENTS, QUOTA_WORK, QUOTA_JOURNAL, NQUOTAS };
extern const Quota quotas[NQUOTAS];

/* NULL when v is a value the quota setting `key` takes (a whole number
 * from 1 to its ceiling), else what it takes; NULL too for a key that is
 * not a quota. */
const char *quota_check_value(const char *key, const char *v);

/* Is key a setting?  If not, says so in err, listing those there are. */
bool config_known(const char *key, Buf *err);
/* A setting, or its default; malloc'd. */
char *game_config(Game *g, const char *key);
char *store_config(Store *st, const char *key);
/* The delivery state a message handed over now starts in: "kept" when the
 * transport is the outbox itself, else "pending"; NULL when the store
 * cannot read the setting. */
const char *game_delivery(Game *g);
/* Does the game send mail: is its transport other than the outbox, where
 * messages stay in the database?  Where it is not, no token is mailed on
 * request, and GET /api/game says so (sendsMail) before anyone asks. */
bool game_sends_mail(Game *g);
/* Checks and keeps a setting (value NULL: back to the default); false
 * with a message in err when the key or value is not one it takes. */
bool game_config_set(Game *g, const char *key, const char *value, Buf *err);

/* An address in the one form the Mechanics know it by (addr_canonical,
 * under the setting addressCase), malloc'd; NULL with *why when it has
 * none.  Every way in applies it: a message's sender, a token's address. */
char *game_address(Game *g, const char *addr, const char **why);

/* The game-keeper's token (nomic token): issues (or re-issues) an
 * address's token, voiding at once the old one and any token mailed on
 * request; returns it, malloc'd, or NULL if the store failed.  Only its
 * hash is kept. */
char *game_issue_token(Game *g, const char *address);
/* Is `token` the (canonical) address's: 1 yes, 0 no, -1 the store
 * failed.  A token mailed on request is valid beside the one before;
 * with `use` (a message that counts), its first use voids that one. */
int game_token_check(Game *g, const char *address, const char *token, bool use);
bool game_token_valid(Game *g, const char *address, const char *token);

/* May a token be mailed to `address` now, on request (a mail's TOKEN, POST
 * /api/token)?  Only where mail leaves the host (not transport outbox),
 * to an address the game knows (it has a token, or an object of the state
 * names it as moveSender or defaultEmail), at most once an ANSWER_PERIOD
 * per address and tokenMailsPerHour in all.  *why (malloc'd) says why
 * not. */
typedef enum TokenMail {
    TOKEN_MAIL_OK,
    TOKEN_MAIL_NO_TRANSPORT, /* transport outbox: nothing would leave */
    TOKEN_MAIL_UNKNOWN,      /* an address the game does not know */
    TOKEN_MAIL_RECENT,       /* this address had one less than an hour ago */
    TOKEN_MAIL_BUSY,         /* tokenMailsPerHour reached */
    TOKEN_MAIL_FAILED,       /* the store cannot say */
} TokenMail;
TokenMail game_token_mail_check(Game *g, const char *address, int64_t time, char **why);
/* Mails address a new token (the outbox, in event `event`'s
 * transaction), offered beside the one in use until first used; notes
 * when, for the ceilings above. */
bool game_mail_token(Game *g, const char *address, long event, int64_t time);
/* The address a token (or a token mailed and not yet used) belongs to,
 * malloc'd, or NULL. */
char *game_token_owner(Game *g, const char *token);

/* Ceilings of the token mail settings (docs/limits.md). */
#define TOKEN_MAILS_MAX 1000   /* tokenMailsPerHour */
#define TOKEN_REQUESTS_MAX 100 /* tokenRequestsPerClient */

/* The Mechanics' answer to a mail whose moves the rules ran: the moves
 * read (the object text `moves`), how it was read (`reading`: lines set
 * aside, or NULL), the outcome (applied with the event's changes to
 * objects other than moves, a line each; or no effect, and why), added to
 * the event's messages to the sender, so it goes in the same mail as the
 * rules' answers. */
void game_answer_summary(Game *g, const char *sender, const char *moves, const char *reading, Outcome *o);
/* Answers a mail the Mechanics refused: a message to its sender (and,
 * for a mail refused unread, notes when, for ANSWER_PERIOD). */
bool game_answer_refusal(Game *g, const Incoming *m, bool unread, const Outcome *o);

/* Ceilings on what one event makes the game send (docs/limits.md). */
#define MAX_EVENT_MESSAGES 1000   /* messages handed over; the rest are dropped */
#define MAX_EVENT_ADDRESSES 1000  /* distinct addresses; the rest get nothing */
#define MAX_OUT_TEXT (1 << 20)    /* bytes of one mail's text */

/* Writes to the outbox what sendNow handed over in event o: one mail per
 * address, holding that address's messages in order (addresses that get
 * the same messages share one mail), within the ceilings above; what a
 * ceiling dropped is noted in o->message. */
bool game_hand_over(Game *g, Outcome *o);

#endif
