/*
 * util.c - allocation with one out-of-memory policy, byte buffers, hashing
 * and whole-file reading.
 */
#include "util.h"

#include <errno.h>
#include <glib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "nomic: out of memory (%zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory(n * size);
    return p;
}

void *xcalloc_lines(size_t n)
{
    void *p = aligned_alloc(64, n ? n : 64);
    if (!p) out_of_memory(n);
    return memset(p, 0, n);
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

static void buf_reserve(Buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
}

void buf_add(Buf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    if (n) memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void buf_puts(Buf *b, const char *s) { buf_add(b, s, strlen(s)); }
void buf_putc(Buf *b, char c) { buf_add(b, &c, 1); }

void buf_put_int(Buf *b, int64_t v)
{
    char d[24];
    size_t n = sizeof d;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do d[--n] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0) d[--n] = '-';
    buf_add(b, d + n, sizeof d - n);
}

void hex64(uint64_t v, char out[17])
{
    for (int i = 15; i >= 0; i--, v >>= 4) out[i] = "0123456789abcdef"[v & 15];
    out[16] = 0;
}

void buf_put_hex64(Buf *b, uint64_t v)
{
    char d[17];
    hex64(v, d);
    buf_add(b, d, 16);
}

/* Formats into the room the buffer has (at least 64 bytes) and only when
 * that is short, again into room made to measure: one vsnprintf for most
 * texts, not one to measure and one to write. */
void buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    buf_reserve(b, 64);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->s + b->len, room, fmt, aq);
    va_end(aq);
    if (n < 0) {
        b->s[b->len] = 0;
        return;
    }
    if ((size_t)n >= room) {
        buf_reserve(b, (size_t)n);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    }
    b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *buf_str(Buf *b) { return b->s ? b->s : ""; }

char *buf_take(Buf *b)
{
    char *s = b->s ? b->s : xstrdup("");
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void buf_reset(Buf *b)
{
    b->len = 0;
    if (b->s) b->s[0] = 0;
}

void buf_free(Buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

uint64_t hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* ---- SipHash-2-4 (Aumasson and Bernstein), as in its reference code ---- */

#define SIPROUND SIP_ROUND(v0, v1, v2, v3) /* util.h's, which the pieces share */

/* Little-endian whatever the machine: the hashes are kept in the journal. */
static inline uint64_t load_le(const unsigned char *s, size_t n)
{
    uint64_t m = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&m, s, n);
#else
    for (size_t i = 0; i < n; i++) m |= (uint64_t)s[i] << (8 * i);
#endif
    return m;
}

uint64_t siphash24(const uint64_t key[2], const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL, v1 = key[1] ^ 0x646f72616e646f6dULL;
    uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL, v3 = key[1] ^ 0x7465646279746573ULL;
    size_t full = n - n % 8;
    for (size_t i = 0; i <= full; i += 8) {
        /* the last block: the bytes left and the length in the top byte */
        uint64_t m = i < full ? load_le(s + i, 8) : load_le(s + i, n % 8) | (uint64_t)(n & 0xff) << 56;
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return NULL;
    Buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_add(&b, chunk, n);
    int err = ferror(f);
    if (f != stdin) fclose(f);
    if (err) {
        buf_free(&b);
        errno = EIO;
        return NULL;
    }
    if (len) *len = b.len;
    return buf_take(&b);
}

int64_t time_now_wall(void) { return (int64_t)time(NULL); }

long env_number_once(const char *name, _Atomic long *cache)
{
    long n = atomic_load_explicit(cache, memory_order_relaxed);
    if (n < 0) {
        const char *v = getenv(name);
        n = v && *v ? strtol(v, NULL, 10) : 0;
        if (n < 0) n = 0;
        atomic_store_explicit(cache, n, memory_order_relaxed);
    }
    return n;
}

bool time_parse(const char *s, int64_t *out)
{
    char *end;
    if (*s && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
        long long v = strtoll(s, &end, 10);
        if (*end == 0) {
            *out = v;
            return true;
        }
    }
    int y, mo, d, h = 0, mi = 0, se = 0, n = 0;
    if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3) return false;
    const char *p = s + n;
    if (*p == 'T' || *p == ' ') {
        int m = 0;
        if (sscanf(p + 1, "%2d:%2d%n", &h, &mi, &m) != 2) return false;
        p += 1 + m;
        if (*p == ':') {
            if (sscanf(p + 1, "%2d%n", &se, &m) != 1) return false;
            p += 1 + m;
        }
    }
    if (*p == 'Z') p++;
    if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = se};
    *out = (int64_t)timegm(&tm);
    return true;
}

void time_format(int64_t t, char *buf)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- UTF-8 ---- */

int utf8_seq(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (!n) return 0;
    if (u[0] < 0x80) return 1;
    int len;
    unsigned lo = 0x80, hi = 0xBF; /* the range of the second byte */
    if (u[0] >= 0xC2 && u[0] <= 0xDF) len = 2;
    else if (u[0] >= 0xE0 && u[0] <= 0xEF) {
        len = 3;
        if (u[0] == 0xE0) lo = 0xA0;      /* overlong */
        else if (u[0] == 0xED) hi = 0x9F; /* surrogates */
    } else if (u[0] >= 0xF0 && u[0] <= 0xF4) {
        len = 4;
        if (u[0] == 0xF0) lo = 0x90;      /* overlong */
        else if (u[0] == 0xF4) hi = 0x8F; /* past U+10FFFF */
    } else return 0;
    if ((size_t)len > n || u[1] < lo || u[1] > hi) return 0;
    for (int i = 2; i < len; i++)
        if (u[i] < 0x80 || u[i] > 0xBF) return 0;
    return len;
}

void buf_add_utf8(Buf *b, const char *s, size_t n)
{
    size_t start = 0, i = 0;
    while (i < n) {
        int k = utf8_seq(s + i, n - i);
        if (k) {
            i += (size_t)k;
            continue;
        }
        buf_add(b, s + start, i - start);
        buf_puts(b, "\xEF\xBF\xBD");
        start = ++i;
    }
    buf_add(b, s + start, i - start);
}

size_t utf8_cut(const char *s, size_t n, size_t max)
{
    if (n <= max) return n;
    size_t i = max;
    /* back over continuation bytes to the start of the sequence cut */
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
    return i;
}

size_t text_cut(const char *s, size_t n, size_t max)
{
    if (n <= max) return n;
    size_t i = max;
    while (i > max / 2 && s[i] != ' ' && s[i] != '\t') i--;
    if (i <= max / 2) return utf8_cut(s, n, max);
    while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) i--;
    return i;
}

bool random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = getrandom(p, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

char *hex_of(const void *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = p;
    char *r = xmalloc(2 * n + 1);
    for (size_t i = 0; i < n; i++) {
        r[2 * i] = digits[b[i] >> 4];
        r[2 * i + 1] = digits[b[i] & 15];
    }
    r[2 * n] = 0;
    return r;
}

char *sha256_hex(const char *text)
{
    gchar *h = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
    char *r = xstrdup(h);
    g_free(h);
    return r;
}

bool word_sep(char c, bool commas) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || (commas && c == ','); }

bool word_next(const char **p, const char **w, size_t *n, bool commas)
{
    const char *s = *p;
    while (*s && word_sep(*s, commas)) s++;
    if (!*s) return false;
    *w = s;
    while (*s && !word_sep(*s, commas)) s++;
    *n = (size_t)(s - *w);
    *p = s;
    return true;
}

bool words_include(const char *list, const char *w, size_t n, bool commas)
{
    const char *x;
    size_t k;
    while (word_next(&list, &x, &k, commas))
        if (k == n && memcmp(x, w, n) == 0) return true;
    return false;
}

void print_indented(const char *text, const char *prefix)
{
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        int n = e ? (int)(e - s) : (int)strlen(s);
        printf("%s%.*s\n", prefix, n, s);
        if (!e) break;
        s = e + 1;
    }
}
