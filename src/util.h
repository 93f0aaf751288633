/*
 * util.h - the allocator wrapper, a growable byte buffer and small helpers
 * shared by every module.
 *
 * Memory policy: xmalloc and friends never return NULL; running out of memory
 * prints a message and aborts (one out-of-memory policy, as in Redis'
 * zmalloc).  A Buf owns its bytes; buf_free releases them, buf_take hands
 * them to the caller, who then frees them with free().
 */
#ifndef NOMIC_UTIL_H
#define NOMIC_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <stdint.h>
#include <stdbool.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* n zeroed bytes (a multiple of 64) that begin a cache line; free() them */
void *xcalloc_lines(size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#define GROW(arr, len, cap)                                                   \
    do {                                                                      \
        if ((len) >= (cap)) {                                                 \
            (cap) = (cap) ? 2 * (cap) : 8;                                    \
            (arr) = xrealloc((arr), (size_t)(cap) * sizeof *(arr));           \
        }                                                                     \
    } while (0)

typedef struct Buf {
    char *s;    /* NUL-terminated when non-NULL */
    size_t len; /* bytes used, not counting the NUL */
    size_t cap; /* bytes allocated */
} Buf;

void buf_add(Buf *b, const char *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_putc(Buf *b, char c);
/* Numbers without printf (the store writes some at every event). */
void buf_put_int(Buf *b, int64_t v);
void buf_put_hex64(Buf *b, uint64_t v); /* 16 lowercase hex digits */
void hex64(uint64_t v, char out[17]);    /* the same, NUL-terminated */
void buf_printf(Buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
const char *buf_str(Buf *b); /* never NULL */
char *buf_take(Buf *b);      /* caller frees; b is left empty */
void buf_reset(Buf *b);
void buf_free(Buf *b);

/* 64-bit FNV-1a: stable across runs and machines, for hash tables.  Not
 * keyed: anyone can find collisions, so nothing a player could steer may
 * rest on it (the state hash uses siphash24). */
uint64_t hash_bytes(const void *p, size_t n);
uint64_t hash_mix(uint64_t h); /* a strong 64-bit finaliser */

/* UTF-8: the length (1 to 4) of the well-formed sequence at s (at most n
 * bytes), or 0 when the byte there starts none (a stray continuation, an
 * overlong form, a surrogate, past U+10FFFF, cut short). */
int utf8_seq(const char *s, size_t n);
/* Appends s[0..n) with every byte that is not well-formed UTF-8 replaced
 * by U+FFFD, so the result is valid UTF-8 whatever the input was. */
void buf_add_utf8(Buf *b, const char *s, size_t n);
/* The longest prefix of s[0..n) not over max bytes that does not cut a
 * UTF-8 sequence in two. */
size_t utf8_cut(const char *s, size_t n, size_t max);
/* The prefix of s[0..n) to show when at most max bytes fit: all of it if
 * it fits, else up to the last blank before the limit (blanks before it
 * dropped), or, if none is past half the limit, utf8_cut's.  The caller
 * adds its ellipsis when the result is shorter than n. */
size_t text_cut(const char *s, size_t n, size_t max);
/* SipHash-2-4 of n bytes under a 128-bit key (key[0] is its first eight
 * bytes, little-endian): a keyed pseudo-random function, so without the key
 * no one can predict an output, let alone find two inputs that agree. */
uint64_t siphash24(const uint64_t key[2], const void *p, size_t n);
/* The same function fed in pieces: siphash24 of the pieces' concatenation,
 * without copying them into one buffer first.  Inline, so that the state
 * stays in registers: the state hash computes a term per change. */
typedef struct SipHash {
    uint64_t v0, v1, v2, v3;
    uint64_t tail; /* the bytes of a block not yet full */
    size_t len;    /* bytes fed so far */
} SipHash;

#define SIP_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

/* One SipRound; written out where it is used, not looped (-O2 keeps a
 * loop of two or four rounds a loop). */
#define SIP_ROUND(v0, v1, v2, v3)                                                                                  \
    do {                                                                                                           \
        v0 += v1, v1 = SIP_ROTL(v1, 13) ^ v0, v0 = SIP_ROTL(v0, 32);                                              \
        v2 += v3, v3 = SIP_ROTL(v3, 16) ^ v2;                                                                      \
        v0 += v3, v3 = SIP_ROTL(v3, 21) ^ v0;                                                                      \
        v2 += v1, v1 = SIP_ROTL(v1, 17) ^ v2, v2 = SIP_ROTL(v2, 32);                                              \
    } while (0)

static inline void sip_block(SipHash *h, uint64_t m)
{
    uint64_t v0 = h->v0, v1 = h->v1, v2 = h->v2, v3 = h->v3 ^ m;
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    h->v0 = v0 ^ m, h->v1 = v1, h->v2 = v2, h->v3 = v3;
}

static inline void sip_init(SipHash *h, const uint64_t key[2])
{
    h->v0 = key[0] ^ 0x736f6d6570736575ULL, h->v1 = key[1] ^ 0x646f72616e646f6dULL;
    h->v2 = key[0] ^ 0x6c7967656e657261ULL, h->v3 = key[1] ^ 0x7465646279746573ULL;
    h->tail = 0;
    h->len = 0;
}

/* n (under 8) bytes, little-endian */
static inline uint64_t sip_load_part(const unsigned char *s, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++) m |= (uint64_t)s[i] << (8 * i);
    return m;
}

static inline uint64_t sip_load8(const unsigned char *s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t m;
    memcpy(&m, s, 8);
    return m;
#else
    return sip_load_part(s, 7) | (uint64_t)s[7] << 56;
#endif
}

static inline void sip_add(SipHash *h, const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t have = h->len % 8;
    h->len += n;
    if (have) { /* complete the block begun by the piece before */
        size_t take = 8 - have < n ? 8 - have : n;
        h->tail |= sip_load_part(s, take) << (8 * have);
        s += take, n -= take;
        if (have + take < 8) return;
        sip_block(h, h->tail);
        h->tail = 0;
    }
    for (; n >= 8; s += 8, n -= 8) sip_block(h, sip_load8(s));
    if (n) h->tail = sip_load_part(s, n);
}

/* Eight bytes, x little-endian: sip_add of them, without writing them out. */
static inline void sip_add_u64(SipHash *h, uint64_t x)
{
    if (h->len % 8) {
        unsigned char b[8];
        for (int i = 0; i < 8; i++) b[i] = (unsigned char)(x >> (8 * i));
        sip_add(h, b, 8);
        return;
    }
    h->len += 8;
    sip_block(h, x);
}

static inline uint64_t sip_end(SipHash *h)
{
    sip_block(h, h->tail | (uint64_t)(h->len & 0xff) << 56);
    uint64_t v0 = h->v0, v1 = h->v1, v2 = h->v2 ^ 0xff, v3 = h->v3;
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

/* Reads a whole file (or stdin for "-"); NULL and errno on failure. */
char *read_file(const char *path, size_t *len);

/* The words of a list: spaces, tabs and line ends separate them, and
 * commas too when `commas` (lists of addresses).  Steps *p past the next
 * word, which is w[0..n); false when there is none. */
bool word_next(const char **p, const char **w, size_t *n, bool commas);
bool word_sep(char c, bool commas); /* does c separate words? */
/* Is w[0..n) one of the words of list? */
bool words_include(const char *list, const char *w, size_t n, bool commas);

/* n bytes from the kernel's generator (getrandom); false if it fails. */
bool random_bytes(void *buf, size_t n);
/* The n bytes of p as 2n lower-case hex digits, in a new string. */
char *hex_of(const void *p, size_t n);
/* SHA-256 of a text, as 64 hex digits, in a new string. */
char *sha256_hex(const char *text);

/* The number in environment variable `name` (0: unset, empty or not a
 * number), read once into *cache (which starts at -1): for test hooks
 * consulted at every event, where a getenv each time was a percent of a
 * short one.  Atomic, for the server's threads. */
long env_number_once(const char *name, _Atomic long *cache);

/* Time: seconds since 1970-01-01 UTC. */
#include <time.h>
int64_t time_now_wall(void);
/* Parses seconds ("1000") or YYYY-MM-DD[THH:MM[:SS]][Z]; false if neither. */
bool time_parse(const char *s, int64_t *out);
/* Writes YYYY-MM-DDTHH:MM:SSZ into buf (at least 32 bytes). */
void time_format(int64_t t, char *buf);
/* Prints each line of text on stdout after prefix. */
void print_indented(const char *text, const char *prefix);

#endif
