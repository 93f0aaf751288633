/*
 * mail_addrs.c - an address's one form, and the distinct words of a text, in
 * order, with a keyed table (mail_addrs.h).
 */
#include "mail_addrs.h"

#include <glib.h>
#include <idn2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void ascii_lower(char *s)
{
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
}

/* Lower case of a local part: UTF-8 as Unicode folds it, other bytes as
 * ASCII does. */
static char *local_lower(const char *s, size_t n)
{
    if (g_utf8_validate(s, (gssize)n, NULL)) {
        char *g = g_utf8_strdown(s, (gssize)n);
        char *r = xstrdup(g);
        g_free(g);
        return r;
    }
    char *r = xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    ascii_lower(r);
    return r;
}

static bool all_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80) return false;
    return true;
}

/* The domain's one form: lower case, internationalised labels as
 * A-labels.  NULL with *why when IDNA refuses it. */
static char *domain_canonical(const char *d, const char **why)
{
    if (all_ascii(d)) {
        char *r = xstrdup(d);
        ascii_lower(r);
        return r;
    }
    char *a = NULL;
    int rc = idn2_to_ascii_8z(d, &a, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL);
    if (rc != IDN2_OK) {
        *why = "its domain is not a valid internationalised domain name (IDNA)";
        return NULL;
    }
    char *r = xstrdup(a);
    idn2_free(a);
    ascii_lower(r);
    return r;
}

bool addr_is_canonical(const char *addr)
{
    for (const char *s = addr; *s; s++)
        if ((unsigned char)*s >= 0x80 || (*s >= 'A' && *s <= 'Z')) return false;
    return true;
}

char *addr_canonical(const char *addr, bool keep_local_case, const char **why)
{
    *why = NULL;
    if (addr_is_canonical(addr)) return xstrdup(addr);
    const char *at = strrchr(addr, '@');
    size_t nlocal = at ? (size_t)(at - addr) : strlen(addr);
    char *local;
    if (keep_local_case) {
        local = xmalloc(nlocal + 1);
        memcpy(local, addr, nlocal);
        local[nlocal] = 0;
    } else {
        local = local_lower(addr, nlocal);
    }
    if (!at) return local;
    char *domain = domain_canonical(at + 1, why);
    if (!domain) {
        free(local);
        return NULL;
    }
    size_t n = strlen(local) + 1 + strlen(domain) + 1;
    char *r = xmalloc(n);
    snprintf(r, n, "%s@%s", local, domain);
    free(local);
    free(domain);
    return r;
}

static uint64_t key[2] = {0x736f6d6570736575ULL, 0x646f72616e646f6dULL};
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* The process's key; if the kernel gives no random bytes the fixed one
 * stays (the lists are still right, only easier to slow down). */
static void key_init(void)
{
    uint64_t k[2];
    if (random_bytes(k, sizeof k)) memcpy(key, k, sizeof key);
}

static uint64_t word_hash(const char *w, size_t n) { return siphash24(key, w, n); }

static void slot_put(uint32_t *slot, size_t nslot, uint64_t h, uint32_t v)
{
    size_t mask = nslot - 1, i = (size_t)h & mask;
    while (slot[i]) i = (i + 1) & mask;
    slot[i] = v;
}

/* Room for one more word, the table at most half full. */
static void reserve(Addrs *a)
{
    GROW(a->w, a->n, a->wcap);
    if ((a->n + 1) * 2 <= a->nslot) return;
    size_t nslot = a->nslot ? 2 * a->nslot : 64;
    free(a->slot);
    a->slot = xcalloc(nslot, sizeof *a->slot);
    a->nslot = nslot;
    for (size_t i = 0; i < a->n; i++) slot_put(a->slot, nslot, a->w[i].hash, (uint32_t)i + 1);
}

static size_t find(const Addrs *a, const char *w, size_t n, uint64_t h)
{
    if (!a->nslot) return 0;
    size_t mask = a->nslot - 1;
    for (size_t i = (size_t)h & mask; a->slot[i]; i = (i + 1) & mask) {
        const struct AddrWord *x = &a->w[a->slot[i] - 1];
        if (x->hash == h && x->len == n && memcmp(a->text + x->off, w, n) == 0) return a->slot[i];
    }
    return 0;
}

size_t addrs_find(const Addrs *a, const char *w, size_t n)
{
    pthread_once(&key_once, key_init);
    return find(a, w, n, word_hash(w, n));
}

/* Adds the word at text[off..off+n) if it is new. */
static size_t add_at(Addrs *a, size_t off, size_t n)
{
    const char *w = a->text + off;
    uint64_t h = word_hash(w, n);
    size_t k = find(a, w, n, h);
    if (k) return k - 1;
    reserve(a);
    a->w[a->n] = (struct AddrWord){(uint32_t)off, (uint32_t)n, h};
    slot_put(a->slot, a->nslot, h, (uint32_t)a->n + 1);
    return a->n++;
}

static void put_text(Addrs *a, const char *s, size_t n)
{
    if (a->len + n + 1 > a->cap) {
        a->cap = a->len + n + 1 > 2 * a->cap ? a->len + n + 1 : 2 * a->cap;
        a->text = xrealloc(a->text, a->cap);
    }
    memcpy(a->text + a->len, s, n);
    a->len += n;
    a->text[a->len] = 0;
}

void addrs_append(Addrs *a, const char *s)
{
    pthread_once(&key_once, key_init);
    size_t from = a->len;
    put_text(a, s, strlen(s));
    const char *p = a->text + from, *w;
    size_t n;
    /* add_at does not move the text: p stays valid */
    while (word_next(&p, &w, &n, true)) add_at(a, (size_t)(w - a->text), n);
}

size_t addrs_add(Addrs *a, const char *w, size_t n)
{
    pthread_once(&key_once, key_init);
    size_t k = find(a, w, n, word_hash(w, n));
    if (k) return k - 1;
    /* the word goes into the text, after a separator */
    if (a->len) put_text(a, " ", 1);
    size_t off = a->len;
    put_text(a, w, n);
    return add_at(a, off, n);
}

bool addrs_extended_by(const Addrs *a, const char *t)
{
    if (strnlen(t, a->len + 1) <= a->len || memcmp(t, a->text, a->len) != 0) return false;
    return a->len == 0 || word_sep(a->text[a->len - 1], true) || word_sep(t[a->len], true);
}

void addrs_free(Addrs *a)
{
    free(a->text);
    free(a->w);
    free(a->slot);
    *a = (Addrs){0};
}
