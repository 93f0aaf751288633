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
    char *t = game_config(g, "transport");
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
    bool ok = store_outbox_add(g->st, o->event, m->sender, buf_str(&b), "sent", game_delivery(g), m->time) > 0;
    buf_free(&b);
    return ok;
}
