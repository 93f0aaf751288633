/*
 * game_mechanics.c - settings of the Mechanics, tokens, and the Mechanics' own
 * answers (game_mechanics.h).
 */
#include "game_mechanics.h"

#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mail_addrs.h"

const ConfigKey config_keys[] = {
    {"transport", "outbox",
     "where sendNow() hands the messages: outbox (kept in the database), sendmail:/path/to/program, "
     "smtp://host:port"},
    {"mailFrom", "nomic@localhost", "the From address of the game's mail"},
    {"mailPolicy", "open", "open: any sender may move; tokens: a move counts only with its sender's token"},
    {"listen", "127.0.0.1:8080", "the address nomic serve GAME listens on (nomic serve DIR: its --listen)"},
    {"address", "",
     "the address mail for the game is sent to: nomic deliver DIR takes a mail into the game of DIR whose address it "
     "is (empty: none)"},
    {"name", "", "the game's display name, in mail subjects and on the page (default: the file's name)"},
    {"quotaEvents", "600", "events one sender (an address, or an HTTP client's IP) may have run in an hour"},
    {"quotaWork", "1000000000", "units of work one sender's events may cost in an hour"},
    {"quotaJournal", "16777216", "bytes one sender's events may add to the journal in an hour"},
    {"addressCase", "fold",
     "fold: an address's local part is compared in any case (Alice@ and alice@ are one player); keep: as written"},
    {"tokenMailsPerHour", "20", "tokens mailed on request in an hour, to all addresses together (0 to 1000)"},
    {"tokenRequestsPerClient", "10", "requests for a token (POST /api/token) one client IP may make in an hour (0 to 100)"},
    {0},
};

static const ConfigKey *find_key(const char *key)
{
    for (const ConfigKey *k = config_keys; k->key; k++)
        if (strcmp(k->key, key) == 0) return k;
    return NULL;
}

/* The ceilings keep one sender's hour within what a small host gives a
 * stranger: 500 events at the ceiling of maxWork, or a gigabyte of
 * journal.  The defaults (config_keys, above) let a player move all
 * day and a rule designer try heavy rules. */
const Quota quotas[NQUOTAS] = {
    [QUOTA_EVENTS] = {"quotaEvents", 100000, "events run"},
    [QUOTA_WORK] = {"quotaWork", 250000000000, "units of work"},
    [QUOTA_JOURNAL] = {"quotaJournal", 1L << 30, "bytes of journal"},
};

const char *quota_check_value(const char *key, const char *v)
{
    for (int i = 0; i < NQUOTAS; i++) {
        if (strcmp(key, quotas[i].setting) != 0) continue;
        char *end;
        long long n = strtoll(v, &end, 10);
        if (*v && !*end && n >= 1 && n <= quotas[i].ceiling) return NULL;
        static _Thread_local char why[80];
        snprintf(why, sizeof why, "a whole number from 1 to %ld", quotas[i].ceiling);
        return why;
    }
    return NULL;
}

bool config_known(const char *key, Buf *err)
{
    if (find_key(key)) return true;
    buf_printf(err, "%s is not a setting (", key);
    for (const ConfigKey *k = config_keys; k->key; k++) buf_printf(err, "%s%s", k == config_keys ? "" : ", ", k->key);
    buf_puts(err, ")");
    return false;
}

char *store_config(Store *st, const char *key)
{
    char *v = st ? store_config_get(st, key) : NULL;
    if (v) return v;
    const ConfigKey *k = find_key(key);
    return xstrdup(k ? k->fallback : "");
}

char *game_config(Game *g, const char *key) { return store_config(g->st, key); }

const char *game_delivery(Game *g)
{
    char *t = NULL;
    /* a setting that cannot be read is not taken for the default */
    if (g->st && store_config_read(g->st, "transport", &t) < 0) return NULL;
    if (!t) t = game_config(g, "transport");
    bool kept = strcmp(t, "outbox") == 0;
    free(t);
    return kept ? "kept" : "pending";
}

bool game_sends_mail(Game *g)
{
    char *t = game_config(g, "transport");
    bool sends = strcmp(t, "outbox") != 0;
    free(t);
    return sends;
}

static bool valid_host_port(const char *s)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s) return false;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    return *end == 0 && port > 0 && port < 65536;
}

/* Is v a whole number from 0 to max? */
static bool count_at_most(const char *v, long max)
{
    char *end;
    long n = strtol(v, &end, 10);
    return *v >= '0' && *v <= '9' && *end == 0 && n >= 0 && n <= max;
}

/* NULL, or why the value does not fit the key. */
static const char *check_value(const char *key, const char *v)
{
    if (strcmp(key, "addressCase") == 0) return strcmp(v, "fold") == 0 || strcmp(v, "keep") == 0 ? NULL : "fold or keep";
    if (strcmp(key, "tokenMailsPerHour") == 0)
        return count_at_most(v, TOKEN_MAILS_MAX) ? NULL : "a whole number from 0 to 1000";
    if (strcmp(key, "tokenRequestsPerClient") == 0)
        return count_at_most(v, TOKEN_REQUESTS_MAX) ? NULL : "a whole number from 0 to 100";
    if (strcmp(key, "transport") == 0) {
        if (strcmp(v, "outbox") == 0) return NULL;
        if (strncmp(v, "sendmail:", 9) == 0) return v[9] == '/' ? NULL : "sendmail: takes an absolute path";
        if (strncmp(v, "smtp://", 7) == 0) return valid_host_port(v + 7) ? NULL : "smtp:// takes host:port";
        return "outbox, sendmail:/path/to/program or smtp://host:port";
    }
    if (strcmp(key, "mailPolicy") == 0)
        return strcmp(v, "open") == 0 || strcmp(v, "tokens") == 0 ? NULL : "open or tokens";
    if (strcmp(key, "listen") == 0) return valid_host_port(v) ? NULL : "host:port, such as 127.0.0.1:8080";
    if (strcmp(key, "name") == 0) {
        if (strlen(v) > 100) return "a name of at most 100 bytes";
        for (const unsigned char *p = (const unsigned char *)v; *p; p++)
            if (*p < 0x20 || *p == 0x7f) return "a name without control characters";
        return NULL;
    }
    if (strncmp(key, "quota", 5) == 0) return quota_check_value(key, v);
    if (strcmp(key, "address") == 0)
        return !*v || (strchr(v, '@') && !strpbrk(v, " \t\r\n<>,")) ? NULL : "a bare mail address, such as game@example.org";
    if (strcmp(key, "mailFrom") == 0)
        return strchr(v, '@') && !strpbrk(v, " \t\r\n<>") ? NULL : "a bare mail address, such as game@example.org";
    return NULL;
}

bool game_config_set(Game *g, const char *key, const char *value, Buf *err)
{
    if (!config_known(key, err)) return false;
    const char *why = value ? check_value(key, value) : NULL;
    if (why) {
        buf_printf(err, "%s %s: expected %s", key, value, why);
        return false;
    }
    if (!store_config_set(g->st, key, value)) {
        buf_printf(err, "%s", store_error(g->st));
        return false;
    }
    return true;
}

/* ---- addresses ---- */

char *game_address(Game *g, const char *addr, const char **why)
{
    if (addr_is_canonical(addr)) { /* the setting changes nothing then */
        *why = NULL;
        return xstrdup(addr);
    }
    char *how = game_config(g, "addressCase");
    char *a = addr_canonical(addr, strcmp(how, "keep") == 0, why);
    free(how);
    return a;
}

/* ---- tokens ---- */

/* A new token: its text (malloc'd) and, in *hash, its SHA-256. */
static char *new_token(char **hash)
{
    unsigned char r[16];
    *hash = NULL;
    if (!random_bytes(r, sizeof r)) return NULL;
    char *token = hex_of(r, sizeof r);
    *hash = sha256_hex(token);
    return token;
}

char *game_issue_token(Game *g, const char *address)
{
    const char *why;
    char *a = game_address(g, address, &why);
    if (!a) return NULL;
    char *h, *token = new_token(&h);
    /* the game-keeper's token voids at once the one before, and any offer */
    bool ok = token && store_token_set(g->st, a, h, (int64_t)time_now_wall()) && store_token_offer_drop(g->st, a);
    free(h);
    free(a);
    if (!ok) {
        free(token);
        return NULL;
    }
    return token;
}

/* Do the two hex digests match?  Every byte is compared: the time taken
 * says nothing about the hash. */
static bool same_hash(const char *want, const char *got)
{
    size_t n = strlen(want);
    unsigned diff = strlen(got) != n;
    for (size_t i = 0; i < n && got[i]; i++) diff |= (unsigned char)(want[i] ^ got[i]);
    return diff == 0;
}

int game_token_check(Game *g, const char *address, const char *token, bool use)
{
    if (!token || !*token || !g->st) return 0;
    char *want = NULL, *offer = NULL, *got = sha256_hex(token);
    int rc = store_token_read(g->st, address, &want);
    if (rc > 0 && same_hash(want, got)) rc = 1;
    else if (rc >= 0) {
        rc = store_token_offer_read(g->st, address, &offer);
        if (rc > 0 && !same_hash(offer, got)) rc = 0;
        /* the offer's first use makes it the token, voiding the old */
        if (rc > 0 && use && !store_token_offer_take(g->st, address)) rc = -1;
    }
    free(want);
    free(offer);
    free(got);
    return rc;
}

bool game_token_valid(Game *g, const char *address, const char *token)
{
    return game_token_check(g, address, token, false) > 0;
}

char *game_token_owner(Game *g, const char *token)
{
    if (!token || !*token || !g->st) return NULL;
    char *h = sha256_hex(token);
    char *who = store_token_owner(g->st, h);
    free(h);
    return who;
}

/* Does the game know the address: a token or an offer, or an object of
 * the state that names it as its sender or its owner (moveSender,
 * defaultEmail: the owners pool_privacy.c knows)?  1, 0, or -1. */
static int address_known(Game *g, const char *address)
{
    int rc = store_token_known(g->st, address);
    if (rc) return rc;
    Sym a = sym_cstr(address);
    const IdSet *by = pool_lookup(g->pool, SYM_moveSender, a), *own = pool_lookup(g->pool, SYM_defaultEmail, a);
    return (by && by->live) || (own && own->live);
}

TokenMail game_token_mail_check(Game *g, const char *address, int64_t time, char **why)
{
    Buf b = {0}, key = {0};
    *why = NULL;
    char *most = game_config(g, "tokenMailsPerHour");
    TokenMail r = TOKEN_MAIL_OK;
    int known;
    int64_t last;
    long sent;
    buf_printf(&key, "token %s", address);
    if (!game_sends_mail(g)) {
        /* what the player can do first, as the page says it; then why,
         * for the keeper */
        r = TOKEN_MAIL_NO_TRANSPORT;
        buf_puts(&b, "this game sends no mail yet: ask the keeper for your token (nomic token GAME ADDRESS); "
                     "its transport is the outbox, so nothing leaves the host");
    } else if ((known = address_known(g, address)) <= 0) {
        r = known < 0 ? TOKEN_MAIL_FAILED : TOKEN_MAIL_UNKNOWN;
        buf_printf(&b, "%s is not an address this game knows (no token, no object of the game names it): no token "
                       "is mailed there; ask the game-keeper (nomic token GAME ADDRESS)",
                   address);
    } else if ((last = store_answered_at(g->st, buf_str(&key))) < 0) {
        r = TOKEN_MAIL_FAILED;
    } else if (last > 0 && time - last < ANSWER_PERIOD) {
        r = TOKEN_MAIL_RECENT;
        buf_printf(&b, "a token was mailed to %s less than %d minutes ago; not again yet", address, ANSWER_PERIOD / 60);
    } else if ((sent = store_answers_since(g->st, "token ", time - ANSWER_PERIOD + 1)) < 0) {
        r = TOKEN_MAIL_FAILED;
    } else if (sent >= strtol(most, NULL, 10)) {
        r = TOKEN_MAIL_BUSY;
        buf_printf(&b, "the game mailed %ld tokens in the last hour, the most it mails (tokenMailsPerHour %s); "
                       "ask again later",
                   sent, most);
    }
    free(most);
    buf_free(&key);
    *why = buf_take(&b);
    return r;
}

bool game_mail_token(Game *g, const char *address, long event, int64_t time)
{
    char *h, *token = new_token(&h);
    if (!token) return false;
    char *name = game_config(g, "name");
    Buf b = {0}, key = {0};
    buf_printf(&b, "Your token%s%s is\n\n    %s\n\n", *name ? " for " : "", name, token);
    buf_puts(&b, "Under mailPolicy tokens a move counts only with its sender's token: write the line\n\n"
                 "    token: ");
    buf_printf(&b, "%s\n\nin each mail of moves (over HTTP: Authorization: Bearer %s).\n"
                   "Keep it to yourself. Your token before this one, if you had one, counts until you first use\n"
                   "this one, and no longer then. A mail with the line TOKEN asks for a new one.\n",
               token, token);
    buf_printf(&key, "token %s", address);
    const char *delivery = game_delivery(g);
    /* an offer: the token in use stays valid until this one is used */
    bool ok = delivery && store_token_offer_set(g->st, address, h, time) &&
              store_outbox_add(g->st, event, address, buf_str(&b), "sent", delivery, time) > 0 &&
              store_answered(g->st, buf_str(&key), time);
    free(token);
    free(h);
    free(name);
    buf_free(&b);
    buf_free(&key);
    return ok;
}

/* ---- answers ---- */

#define SUMMARY_CHANGES 12 /* changes told one by one; the rest are counted */

/* The event's changes to objects other than moves, a line each. */
static void tell_changes(const Pool *p, Buf *b)
{
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    int told = 0, more = 0;
    for (size_t i = 0; i < p->undo_len; i++) {
        ObjId id = p->undo[i].id;
        if (g_hash_table_contains(seen, GUINT_TO_POINTER(id))) continue;
        g_hash_table_add(seen, GUINT_TO_POINTER(id));
        const Obj *now = pool_get(p, id);
        const Obj *was = NULL;
        bool created = false;
        for (size_t k = i; k < p->undo_len; k++)
            if (p->undo[k].id == id) {
                if (p->undo[k].kind == UNDO_CREATE && k == i) created = true;
                if (p->undo[k].kind == UNDO_DELETE && !was) was = p->undo[k].saved;
            }
        const Obj *o = now ? now : was;
        Sym type = o ? obj_get(o, SYM_type) : SYM_EMPTY;
        if (type == SYM_move || (!now && created)) continue; /* the moves, and what came and went */
        if (told == SUMMARY_CHANGES) {
            more++;
            continue;
        }
        const char *t = *sym_text(type) ? sym_text(type) : "object";
        if (!now) buf_printf(b, "  deleted %s %u\n", t, id);
        else if (created) buf_printf(b, "  created %s %u\n", t, id);
        else {
            buf_printf(b, "  changed %s %u:", t, id);
            int names = 0;
            for (size_t k = i; k < p->undo_len && names < 6; k++)
                if (p->undo[k].id == id && p->undo[k].kind == UNDO_SET) {
                    buf_printf(b, " %s", sym_text(p->undo[k].name));
                    names++;
                }
            buf_putc(b, '\n');
        }
        told++;
    }
    if (more) buf_printf(b, "  and %d more\n", more);
    if (!told && !more) buf_puts(b, "  (no object besides the moves)\n");
    g_hash_table_destroy(seen);
}

void game_answer_summary(Game *g, const char *sender, const char *moves, const char *reading, Outcome *o)
{
    Buf b = {0};
    int n = 0;
    for (const char *p = moves; *p;) {
        const char *end = strstr(p, "---\n");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len) {
            n++;
            if (n <= 20) {
                buf_printf(&b, "  %d. ", n);
                for (size_t k = 0; k < len && k < 300; k++) buf_puts(&b, p[k] == '\n' ? (k + 1 < len ? "; " : "") : (char[2]){p[k], 0});
                buf_putc(&b, '\n');
            }
        }
        p += len + (end ? 4 : 0);
    }
    /* the outcome first: what happened and why */
    Buf head = {0};
    if (o->verdict == VERDICT_NO_EFFECT) {
        /* the event's message: "no effect: REASON" and the rules' lines,
         * then the note of the lines set aside, told below instead */
        const char *msg = o->message ? o->message : "no effect";
        size_t len = strlen(msg), rl = reading ? strlen(reading) : 0;
        if (rl && len > rl && strcmp(msg + len - rl, reading) == 0) {
            len -= rl;
            while (len && strchr(" \n;", msg[len - 1])) len--;
        }
        if (strncmp(msg, "no effect: ", 11) == 0) {
            msg += 11;
            len -= 11;
        }
        buf_printf(&head, "No effect: %.*s", (int)len, msg);
        buf_putc(&head, '\n');
    } else {
        buf_printf(&head, "%s: the rules took your mail's move%s, %ld rule firing%s. What changed:\n",
                   o->verdict == VERDICT_HALTED ? "Applied, and the game has ended" : "Applied", n == 1 ? "" : "s",
                   o->run.firings, o->run.firings == 1 ? "" : "s");
        tell_changes(g->pool, &head);
    }
    buf_printf(&head, "\nThe game read your mail as %d move%s:\n", n, n == 1 ? "" : "s");
    buf_add(&head, b.s, b.len);
    if (n > 20) buf_printf(&head, "  ... and %d more\n", n - 20);
    if (reading) {
        buf_printf(&head, "\nNot read as moves (a move is a line of one of the game's forms, or `name: value` lines):\n"
                          "  %s\n", reading);
    }
    msg_push(&o->run.sent, sym_cstr(sender), sym_intern(head.s, head.len));
    buf_free(&head);
    buf_free(&b);
}

bool game_answer_refusal(Game *g, const Incoming *m, bool unread, const Outcome *o)
{
    if (!g->st) return true;
    Buf b = {0};
    buf_printf(&b, "Refused (nothing of your mail was applied): %s\n", o->message ? o->message : "it was refused");
    if (g->sugar) {
        buf_puts(&b, "\nMoves may be written as lines such as:\n");
        sugar_describe(g->sugar, &b);
        buf_puts(&b, "or as name: value lines in the object format.\n");
    }
    const char *delivery = game_delivery(g);
    bool ok = delivery && store_outbox_add(g->st, o->event, m->sender, buf_str(&b), "sent", delivery, m->time) > 0;
    if (ok && unread) ok = store_answered(g->st, m->sender, m->time);
    buf_free(&b);
    return ok;
}

/* ---- hand-over: one mail per address per event ---- */

/* A recipient list (game.h) is read once.  Rules mostly send to one list
 * (the players), so the last long one read is kept in the game: handing
 * over a message to the same list then costs nothing per player, and to a
 * list that extends it (a registration adds an address at the end) only
 * the new addresses. */

/* Appends text to the list, and the addresses it brings to `to`. */
static void list_append(RecipientList *r, const char *text)
{
    size_t had = r->addrs.n;
    addrs_append(&r->addrs, text);
    for (size_t i = had; i < r->addrs.n && i < MAX_EVENT_ADDRESSES; i++) {
        if (r->to.len) buf_putc(&r->to, ' ');
        buf_add(&r->to, addrs_word(&r->addrs, i), addrs_word_len(&r->addrs, i));
    }
}

static RecipientList *recipient_list_read(Sym list)
{
    RecipientList *r = xcalloc(1, sizeof *r);
    r->list = list;
    list_append(r, sym_text(list));
    return r;
}

/* A list of fewer addresses is read again when needed: cheap, where
 * keeping it would put out the players' list (a reply to the mover
 * between two announcements). */
#define KEEP_LIST_MIN 16

/* The list `list`: the one the game keeps (extended if `list` extends
 * it), or read, and then kept if it is long (*owned false), or the
 * caller's to free (*owned true). */
static RecipientList *list_get(Game *g, Sym list, bool *owned)
{
    *owned = false;
    RecipientList *kept = g->last_list;
    if (kept && kept->list == list) return kept;
    const char *text = sym_text(list);
    if (kept && addrs_extended_by(&kept->addrs, text)) {
        list_append(kept, text + kept->addrs.len);
        kept->list = list;
        return kept;
    }
    RecipientList *r = recipient_list_read(list);
    if (r->addrs.n < KEEP_LIST_MIN) {
        *owned = true;
        return r;
    }
    recipient_list_free(g->last_list);
    g->last_list = r;
    return r;
}

/* The text of one mail: the messages `which` (indexes, in order), each
 * after the first under a line that says which it is; past MAX_OUT_TEXT
 * the rest are left out, and the mail says so. */
static char *mail_text(const MsgList *sent, const size_t *which, size_t count, size_t *left_out)
{
    Buf b = {0};
    *left_out = 0;
    for (size_t k = 0; k < count; k++) {
        const char *t = sym_text(sent->m[which[k]].text);
        size_t n = strlen(t);
        if (k && b.len + n + 256 > MAX_OUT_TEXT) { /* room for the notes */
            *left_out = count - k;
            buf_printf(&b, "\n\n[%zu more message%s of this event left out: a mail from the game holds at most %d KiB]\n",
                       *left_out, *left_out == 1 ? "" : "s", MAX_OUT_TEXT >> 10);
            break;
        }
        if (k) buf_printf(&b, "\n\n-------- message %zu of %zu --------\n\n", k + 1, count);
        if (n <= MAX_OUT_TEXT) {
            buf_add(&b, t, n);
            continue;
        }
        /* one message larger than a mail: its start, and a line that says so */
        size_t cut = MAX_OUT_TEXT - 512;
        while (cut > 0 && ((unsigned char)t[cut] & 0xC0) == 0x80) cut--; /* not inside a UTF-8 character */
        buf_add(&b, t, cut);
        buf_printf(&b, "\n\n[this message is cut here: a mail from the game holds at most %d KiB]\n", MAX_OUT_TEXT >> 10);
    }
    return buf_take(&b);
}

/* The event's mails, one per set of addresses that get the same messages.
 * Built per distinct list, not per message: an event that sends a
 * hundred messages to the players reads the players once. */
typedef struct Mail {
    Buf to;
    size_t *which, count;
} Mail;

typedef struct HandOver {
    const MsgList *sent;
    size_t nmsg;
    Sym *lists;      /* the distinct lists, in order of first appearance */
    size_t nlists;
    uint32_t *of;    /* message i goes to lists[of[i]] */
    Mail *mail;
    size_t nmail;
    size_t dropped;  /* addresses past MAX_EVENT_ADDRESSES */
} HandOver;

static void distinct_lists(HandOver *h)
{
    GHashTable *at = g_hash_table_new(g_direct_hash, g_direct_equal); /* list -> index + 1 */
    size_t cap = 0;
    h->of = xmalloc(h->nmsg * sizeof *h->of);
    for (size_t i = 0; i < h->nmsg; i++) {
        gpointer key = GUINT_TO_POINTER(h->sent->m[i].to), v = g_hash_table_lookup(at, key);
        if (!v) {
            GROW(h->lists, h->nlists, cap);
            h->lists[h->nlists++] = h->sent->m[i].to;
            v = GSIZE_TO_POINTER(h->nlists);
            g_hash_table_insert(at, key, v);
        }
        h->of[i] = (uint32_t)(GPOINTER_TO_SIZE(v) - 1);
    }
    g_hash_table_destroy(at);
}

/* Every message to the one list there is: one mail. */
static void one_list_mail(Game *g, HandOver *h)
{
    bool owned;
    RecipientList *r = list_get(g, h->lists[0], &owned);
    size_t n = r->addrs.n;
    if (!n) {
        if (owned) recipient_list_free(r);
        return;
    }
    h->dropped = n > MAX_EVENT_ADDRESSES ? n - MAX_EVENT_ADDRESSES : 0;
    h->mail = xcalloc(1, sizeof *h->mail);
    h->nmail = 1;
    buf_add(&h->mail[0].to, r->to.s, r->to.len);
    h->mail[0].which = xmalloc(h->nmsg * sizeof(size_t));
    for (size_t i = 0; i < h->nmsg; i++) h->mail[0].which[i] = i;
    h->mail[0].count = h->nmsg;
    if (owned) recipient_list_free(r);
}

/* The list of the event's with the longest text (the players', mostly):
 * the one kept in the game between events. */
static size_t longest_list(const HandOver *h)
{
    size_t best = 0, len = 0;
    for (size_t j = 0; j < h->nlists; j++) {
        size_t n = strlen(sym_text(h->lists[j]));
        if (n > len) best = j, len = n;
    }
    return best;
}

/* The event's addresses, each with a row of bits (one per list it is on):
 * the first MAX_EVENT_ADDRESSES distinct ones, in the order the lists name
 * them; the others are counted as dropped.  An address of the longest
 * list is known by its place there, the others by their place in `others`,
 * so the longest list is walked once and no address is looked up in it
 * but the other lists'. */
typedef struct EventAddrs {
    size_t w;              /* words of a row */
    const Addrs *longest;
    Addrs others;          /* the addresses on no longest list, as met */
    uint32_t *at_longest;  /* per address of the longest list: 0 not met, AT_DROPPED, or 1 + its place here */
    size_t past;           /* from this place of the longest list on, every address not met is dropped */
    uint32_t *at_others;
    size_t others_cap;
    const Addrs **src;     /* per address here: the list holding it, and its index there */
    uint32_t *idx;
    uint64_t *rows;        /* w words per address */
    size_t n, cap, dropped;
} EventAddrs;

#define AT_DROPPED UINT32_MAX

/* An address met on list j: *at is its mark. */
static void meet(EventAddrs *e, uint32_t *at, const Addrs *src, size_t i, size_t j)
{
    if (!*at) {
        if (e->n == MAX_EVENT_ADDRESSES) {
            e->dropped++;
            *at = AT_DROPPED;
            return;
        }
        if (e->n == e->cap) {
            e->cap = e->cap ? 2 * e->cap : 64;
            e->src = xrealloc(e->src, e->cap * sizeof *e->src);
            e->idx = xrealloc(e->idx, e->cap * sizeof *e->idx);
            e->rows = xrealloc(e->rows, e->cap * e->w * sizeof *e->rows);
        }
        e->src[e->n] = src;
        e->idx[e->n] = (uint32_t)i;
        memset(e->rows + e->n * e->w, 0, e->w * sizeof *e->rows);
        *at = (uint32_t)++e->n;
    }
    if (*at != AT_DROPPED) e->rows[(*at - 1) * e->w + j / 64] |= (uint64_t)1 << (j % 64);
}

/* The addresses of a list other than the longest, in its order. */
static void meet_list(EventAddrs *e, Sym list, size_t j)
{
    const char *s = sym_text(list), *a;
    size_t n;
    while (word_next(&s, &a, &n, true)) {
        size_t k = addrs_find(e->longest, a, n);
        if (k) {
            if (k - 1 < e->past || e->at_longest[k - 1]) meet(e, &e->at_longest[k - 1], e->longest, k - 1, j);
            continue;
        }
        size_t i = addrs_add(&e->others, a, n);
        if (i >= e->others_cap) {
            size_t cap = e->others_cap ? 2 * e->others_cap : 64;
            e->at_others = xrealloc(e->at_others, cap * sizeof *e->at_others);
            memset(e->at_others + e->others_cap, 0, (cap - e->others_cap) * sizeof *e->at_others);
            e->others_cap = cap;
        }
        meet(e, &e->at_others[i], &e->others, i, j);
    }
}

/* Several lists: each address gets the messages of the lists it is on,
 * and the addresses with one row share a mail, the mails in order of
 * their first address. */
static void many_list_mails(Game *g, HandOver *h)
{
    size_t longest = longest_list(h);
    bool owned;
    RecipientList *big = list_get(g, h->lists[longest], &owned);
    EventAddrs e = {.w = (h->nlists + 63) / 64, .longest = &big->addrs, .past = SIZE_MAX};
    e.at_longest = xcalloc(big->addrs.n + 1, sizeof *e.at_longest);
    for (size_t j = 0; j < h->nlists; j++) {
        if (j != longest) {
            meet_list(&e, h->lists[j], j);
            continue;
        }
        /* past the ceiling, the addresses no list before named are
         * dropped: counted, not marked (lists after this one know them
         * by their place) */
        size_t k = 0;
        for (; k < big->addrs.n && e.n < MAX_EVENT_ADDRESSES; k++) meet(&e, &e.at_longest[k], &big->addrs, k, j);
        e.past = k;
        for (; k < big->addrs.n; k++) {
            if (!e.at_longest[k]) e.dropped++;
            else meet(&e, &e.at_longest[k], &big->addrs, k, j);
        }
    }
    h->dropped = e.dropped;
    /* open addressing on the rows: slot -> mail index + 1 */
    size_t w = e.w, tcap = 16, mcap = 0, *first = NULL;
    while (tcap < 2 * e.n) tcap *= 2;
    size_t *slot = xcalloc(tcap, sizeof *slot);
    for (size_t a = 0; a < e.n; a++) {
        const uint64_t *row = e.rows + a * w;
        uint64_t hash = 0;
        for (size_t k = 0; k < w; k++) hash = hash_mix(hash ^ row[k]);
        size_t i = (size_t)hash & (tcap - 1), m;
        while ((m = slot[i]) && memcmp(e.rows + first[m - 1] * w, row, w * sizeof *row) != 0) i = (i + 1) & (tcap - 1);
        if (!m) {
            if (h->nmail == mcap) {
                mcap = mcap ? 2 * mcap : 8;
                h->mail = xrealloc(h->mail, mcap * sizeof *h->mail);
                first = xrealloc(first, mcap * sizeof *first);
            }
            first[h->nmail] = a;
            Mail *x = &h->mail[h->nmail++];
            *x = (Mail){{0}, xmalloc(h->nmsg * sizeof(size_t)), 0};
            for (size_t k = 0; k < h->nmsg; k++)
                if (row[h->of[k] / 64] >> (h->of[k] % 64) & 1) x->which[x->count++] = k;
            slot[i] = m = h->nmail;
        }
        Buf *to = &h->mail[m - 1].to;
        if (to->len) buf_putc(to, ' ');
        buf_add(to, addrs_word(e.src[a], e.idx[a]), addrs_word_len(e.src[a], e.idx[a]));
    }
    free(slot);
    free(first);
    free(e.rows);
    free(e.src);
    free(e.idx);
    free(e.at_longest);
    free(e.at_others);
    addrs_free(&e.others);
    if (owned) recipient_list_free(big);
}

/* Adds what a ceiling dropped to the event's journal message. */
static void note(Outcome *o, const char *text)
{
    Buf b = {0};
    if (o->message) buf_printf(&b, "%s; ", o->message);
    buf_puts(&b, text);
    free(o->message);
    o->message = buf_take(&b);
}

bool game_hand_over(Game *g, Outcome *o)
{
    const MsgList *sent = &o->run.sent;
    if (!sent->len) return true;
    HandOver h = {sent, sent->len < MAX_EVENT_MESSAGES ? sent->len : MAX_EVENT_MESSAGES};
    distinct_lists(&h);
    if (h.nlists == 1) one_list_mail(g, &h);
    else many_list_mails(g, &h);
    const char *delivery = game_delivery(g);
    bool ok = delivery != NULL;
    size_t left_out = 0, dropped = h.dropped;
    for (size_t i = 0; i < h.nmail; i++) {
        size_t lo;
        char *text = ok ? mail_text(sent, h.mail[i].which, h.mail[i].count, &lo) : NULL;
        if (ok) {
            left_out += lo;
            ok = store_outbox_add(g->st, o->event, buf_str(&h.mail[i].to), text, "sent", delivery, o->time) > 0;
        }
        free(text);
        buf_free(&h.mail[i].to);
        free(h.mail[i].which);
    }
    free(h.mail);
    free(h.lists);
    free(h.of);
    char t[160];
    if (sent->len > h.nmsg) {
        snprintf(t, sizeof t, "%zu messages not sent: one event sends at most %d", sent->len - h.nmsg, MAX_EVENT_MESSAGES);
        note(o, t);
    }
    if (dropped) {
        snprintf(t, sizeof t, "%zu addresses sent nothing: one event mails at most %d addresses", dropped,
                 MAX_EVENT_ADDRESSES);
        note(o, t);
    }
    if (left_out) {
        snprintf(t, sizeof t, "%zu message%s left out of %s mail: a mail holds at most %d KiB", left_out,
                 left_out == 1 ? "" : "s", left_out == 1 ? "its" : "their", MAX_OUT_TEXT >> 10);
        note(o, t);
    }
    return ok;
}
