/*
 * mechanics.c - settings of the Mechanics, tokens, and the Mechanics' own
 * answers (mechanics.h).
 */
#include "mechanics.h"

#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const ConfigKey config_keys[] = {
    {"transport", "outbox",
     "where sendNow() hands the messages: outbox (kept in the database), sendmail:/path/to/program, "
     "smtp://host:port"},
    {"mailFrom", "nomic@localhost", "the From address of the game's mail"},
    {"mailPolicy", "open", "open: any sender may move; tokens: a move counts only with its sender's token"},
    {"listen", "127.0.0.1:8080", "the address nomic serve listens on"},
    {0},
};

static const ConfigKey *find_key(const char *key)
{
    for (const ConfigKey *k = config_keys; k->key; k++)
        if (strcmp(k->key, key) == 0) return k;
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

static bool valid_host_port(const char *s)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s) return false;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    return *end == 0 && port > 0 && port < 65536;
}

/* NULL, or why the value does not fit the key. */
static const char *check_value(const char *key, const char *v)
{
    if (strcmp(key, "transport") == 0) {
        if (strcmp(v, "outbox") == 0) return NULL;
        if (strncmp(v, "sendmail:", 9) == 0) return v[9] == '/' ? NULL : "sendmail: takes an absolute path";
        if (strncmp(v, "smtp://", 7) == 0) return valid_host_port(v + 7) ? NULL : "smtp:// takes host:port";
        return "outbox, sendmail:/path/to/program or smtp://host:port";
    }
    if (strcmp(key, "mailPolicy") == 0)
        return strcmp(v, "open") == 0 || strcmp(v, "tokens") == 0 ? NULL : "open or tokens";
    if (strcmp(key, "listen") == 0) return valid_host_port(v) ? NULL : "host:port, such as 127.0.0.1:8080";
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

/* ---- tokens ---- */

static char *hash_token(const char *token)
{
    gchar *h = g_compute_checksum_for_string(G_CHECKSUM_SHA256, token, -1);
    char *out = xstrdup(h);
    g_free(h);
    return out;
}

char *game_issue_token(Game *g, const char *address)
{
    unsigned char r[16];
    int fd = open("/dev/urandom", O_RDONLY);
    bool ok = fd >= 0 && read(fd, r, sizeof r) == (ssize_t)sizeof r;
    if (fd >= 0) close(fd);
    if (!ok) return NULL;
    char token[2 * sizeof r + 1];
    for (size_t i = 0; i < sizeof r; i++) snprintf(token + 2 * i, 3, "%02x", r[i]);
    char *h = hash_token(token);
    ok = store_token_set(g->st, address, h, (int64_t)time_now_wall());
    free(h);
    return ok ? xstrdup(token) : NULL;
}

bool game_token_valid(Game *g, const char *address, const char *token)
{
    if (!token || !*token || !g->st) return false;
    char *want = store_token_hash(g->st, address);
    if (!want) return false;
    char *got = hash_token(token);
    /* compare every byte: the time taken says nothing about the hash */
    size_t n = strlen(want);
    unsigned diff = strlen(got) != n;
    for (size_t i = 0; i < n && got[i]; i++) diff |= (unsigned char)(want[i] ^ got[i]);
    free(want);
    free(got);
    return diff == 0;
}

char *game_token_owner(Game *g, const char *token)
{
    if (!token || !*token || !g->st) return NULL;
    char *h = hash_token(token);
    char *who = store_token_owner(g->st, h);
    free(h);
    return who;
}

/* ---- answers ---- */

bool game_answer_refusal(Game *g, const Incoming *m, const Outcome *o)
{
    if (!g->st) return true;
    Buf b = {0};
    buf_printf(&b, "Your message was not applied: %s\n", o->message ? o->message : "refused");
    if (g->sugar) {
        buf_puts(&b, "\nMoves may be written as lines such as:\n");
        sugar_describe(g->sugar, &b);
        buf_puts(&b, "or as name: value lines in the object format.\n");
    }
    const char *delivery = game_delivery(g);
    bool ok = delivery && store_outbox_add(g->st, o->event, m->sender, buf_str(&b), "sent", delivery, m->time) > 0;
    if (ok && g->answer_unread) ok = store_answered(g->st, m->sender, m->time);
    buf_free(&b);
    return ok;
}

/* ---- hand-over: one mail per address per event ---- */

/* One address's share of an event's messages: their indexes, in order. */
typedef struct Share {
    char *addr;
    Buf idx;     /* "3,7,9": also the key that groups addresses */
    int count;
    size_t last; /* the last message added (a message naming an address twice reaches it once) */
} Share;

/* The distinct addresses of the messages (words, commas allowed), each
 * with the indexes of its messages; past MAX_EVENT_ADDRESSES the others
 * are counted in *dropped. */
static Share *share_out(const MsgList *sent, size_t nmsg, size_t *nshares, size_t *dropped)
{
    /* address -> its share's index + 1, or 0 when dropped */
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, free, NULL);
    Share *sh = NULL;
    size_t len = 0, cap = 0;
    *dropped = 0;
    for (size_t i = 0; i < nmsg; i++) {
        for (const char *s = sym_text(sent->m[i].to); *s;) {
            while (*s && strchr(" ,\t\r\n", *s)) s++;
            const char *w = s;
            while (*s && !strchr(" ,\t\r\n", *s)) s++;
            if (s == w) continue;
            char *addr = xstrndup(w, (size_t)(s - w));
            gpointer v;
            if (!g_hash_table_lookup_extended(seen, addr, NULL, &v)) {
                if (len < MAX_EVENT_ADDRESSES) {
                    GROW(sh, len, cap);
                    sh[len] = (Share){xstrdup(addr), {0}, 0, 0};
                    v = GSIZE_TO_POINTER(++len);
                } else {
                    (*dropped)++;
                    v = GSIZE_TO_POINTER(0);
                }
                g_hash_table_insert(seen, addr, v);
            } else {
                free(addr);
            }
            Share *x = v ? &sh[GPOINTER_TO_SIZE(v) - 1] : NULL;
            if (!x || (x->count && x->last == i)) continue;
            buf_printf(&x->idx, "%s%zu", x->count ? "," : "", i);
            x->count++;
            x->last = i;
        }
    }
    g_hash_table_destroy(seen);
    *nshares = len;
    return sh;
}

/* The text of one mail: the messages of `idx`, in order, each after the
 * first under a line that says which it is; past MAX_OUT_TEXT the rest
 * are left out, and the mail says so. */
static char *mail_text(const MsgList *sent, const char *idx, int count, size_t *left_out)
{
    Buf b = {0};
    int k = 0;
    *left_out = 0;
    for (const char *p = idx; *p; k++) {
        size_t i = strtoul(p, (char **)&p, 10);
        if (*p == ',') p++;
        const char *t = sym_text(sent->m[i].text);
        size_t n = strlen(t);
        if (k && b.len + n + 256 > MAX_OUT_TEXT) { /* room for the notes */
            *left_out = (size_t)(count - k);
            buf_printf(&b, "\n\n[%zu more message%s of this event left out: a mail from the game holds at most %d KiB]\n",
                       *left_out, *left_out == 1 ? "" : "s", MAX_OUT_TEXT >> 10);
            break;
        }
        if (k) buf_printf(&b, "\n\n-------- message %d of %d --------\n\n", k + 1, count);
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
    const MsgList *sent = &o->er.sent;
    if (!sent->len) return true;
    size_t nmsg = sent->len < MAX_EVENT_MESSAGES ? sent->len : MAX_EVENT_MESSAGES, nsh, dropped;
    Share *sh = share_out(sent, nmsg, &nsh, &dropped);
    const char *delivery = game_delivery(g);
    bool ok = delivery != NULL;
    size_t left_out = 0;
    /* addresses that get the same messages share one mail */
    GHashTable *done = g_hash_table_new(g_str_hash, g_str_equal);
    for (size_t i = 0; ok && i < nsh; i++) {
        if (g_hash_table_contains(done, buf_str(&sh[i].idx))) continue;
        g_hash_table_add(done, (gpointer)buf_str(&sh[i].idx));
        Buf to = {0};
        for (size_t j = i; j < nsh; j++)
            if (strcmp(buf_str(&sh[j].idx), buf_str(&sh[i].idx)) == 0) {
                if (to.len) buf_putc(&to, ' ');
                buf_puts(&to, sh[j].addr);
            }
        size_t lo;
        char *text = mail_text(sent, buf_str(&sh[i].idx), sh[i].count, &lo);
        left_out += lo;
        ok = store_outbox_add(g->st, o->event, buf_str(&to), text, "sent", delivery, o->time) > 0;
        free(text);
        buf_free(&to);
    }
    g_hash_table_destroy(done);
    for (size_t i = 0; i < nsh; i++) {
        free(sh[i].addr);
        buf_free(&sh[i].idx);
    }
    free(sh);
    char t[160];
    if (sent->len > nmsg) {
        snprintf(t, sizeof t, "%zu messages not sent: one event sends at most %d", sent->len - nmsg, MAX_EVENT_MESSAGES);
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
