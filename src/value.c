/*
 * value.c - interned texts and their exact numeric reading.
 *
 * The intern table is open addressing over a power-of-two array of Syms;
 * each atom keeps its text and, for numeric texts, the canonical Sym used
 * for equality and indexing, and the rational value once arithmetic asks
 * for it.  A game holds about two texts per live object (its id, a time):
 * an atom is 24 bytes, so what is needed rarely is computed again (the
 * table's hash, when the table is rebuilt) or kept beside (the rationals).
 */
#include "value.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

/* NUM_WORD: a whole number that fits 32 bits, its value in Atom.num
 * (most numbers: ids, times, scores) until sym_num asks for a rational,
 * which makes it a NUM_SMALL; NUM_SMALL: fits 64 bits, read from its
 * digits; NUM_BIG: anything else, its rational made at once. */
typedef enum { NOT_NUMBER, NUM_WORD, NUM_SMALL, NUM_BIG } NumKind;

/* Most texts are short words, times and ids: they are kept in the atom
 * itself, and a whole number that fits 64 bits (NUM_WORD, NUM_SMALL) gets
 * its GMP rational only when arithmetic asks for it.  A game holds
 * hundreds of thousands. */
#define INLINE_TEXT 11

typedef struct Atom {
    uint32_t len;
    Sym canon;    /* canonical numeric text, or the atom itself */
    /* len < INLINE_TEXT: the text, NUL-terminated (ids, times, words);
     * longer: a malloc'd copy, its pointer's bytes stored here (at an
     * offset of 8, so that leak checkers scanning for pointers see it) */
    char t[INLINE_TEXT];
    uint8_t kind : 2;  /* NumKind */
    bool freed : 1;    /* a slot the collector emptied, waiting for reuse */
    uint8_t memo : 2;  /* sym_memo(): a caller's note on the text, 0 until set */
    uint32_t num; /* NUM_WORD: the value (as int32_t); else 1 + the place
                     of its rational in nums[], 0 while it has none (texts,
                     and a NUM_SMALL until sym_num asks) */
} Atom;

_Static_assert(sizeof(Atom) == 24 && offsetof(Atom, t) == 8, "an atom is 24 bytes, a long text's pointer aligned");

/* An immediate (value.h: a whole number from 0 to 2^31 - 1, its value in
 * the Sym) has no atom; the text sym_text gives for it is written into
 * entries that never move, found by value through an index, and all of
 * them are dropped at the next collection (no pointer sym_text gave
 * lives across one: the collector runs between events).  A game asks for
 * few of them: the numbers of its messages, the objects the journal
 * prints. */
typedef struct ImmText {
    uint32_t v;
    char t[12]; /* at most ten digits, and the NUL */
} ImmText;

#define IMM_CHUNK 1024

typedef struct ImmTexts {
    ImmText **chunks;
    size_t n, nchunks;
    uint32_t *index; /* open addressing: 0 empty, else 1 + the entry's place */
    size_t index_cap;
} ImmTexts;

/* sym_num's rationals for immediates, used in turn: a caller holds at
 * most two at once (value.h). */
#define IMM_NUMS 4

/* A table of interned texts (value.h): by default the process's; a
 * thread may use another (sym_use), one per game of a server of many, so
 * that games run at once each with texts of its own. */
struct SymTable {
    Atom *atoms;     /* by Sym */
    size_t natoms, atomcap;
    Sym *free_syms;  /* freed slots, reused by atom_new */
    size_t nfree, freecap;
    size_t live_after_gc; /* texts that survived the last collection */
    size_t long_bytes;    /* held by the texts too long for their atom */
    size_t long_after_gc; /* ... of those that survived the last collection */
    mpq_t **nums;    /* the atoms' rationals (Atom.num) */
    size_t nnums, numcap;
    uint32_t *free_nums; /* emptied places in nums[] */
    size_t nfree_nums, free_numcap;
    Sym *table; /* 0 = empty slot (Sym 0 is interned first, never looked up here) */
    size_t tablecap;
    uint64_t seed;   /* text_hash's: drawn for each table */
    uint64_t *marks; /* during a collection: a bit per atom, the texts in use ... */
    size_t nmarks;   /* ... for the atoms made before it began (a text made
                        since is in use: it is never freed by this one) */
    size_t marks_made; /* sym_mark calls of the collection under way, or of the last */
    ImmTexts imm;    /* the texts of the immediates asked for since the last collection */
    mpq_t imm_nums[IMM_NUMS]; /* the rationals of the immediates sym_num gave last */
    int imm_num_next;
    uint64_t *keyed;     /* by Sym: sym_keyed_hash under keyed_key (0: not yet) */
    size_t keyedcap;
    uint64_t keyed_key[2];
    bool keyed_on;       /* keyed_key is set */
    bool ready;
};

static SymTable process_table;
/* this thread's table: never NULL, so that a text's lookup costs one load */
static _Thread_local SymTable *current = &process_table;

static inline SymTable *tab(void) { return current; }

SymTable *sym_table_new(void)
{
    SymTable *t = xcalloc(1, sizeof *t), *was = current;
    current = t;
    value_init(); /* the predefined texts, at their places */
    current = was;
    return t;
}

void sym_use(SymTable *t) { current = t ? t : &process_table; }

SymTable *sym_current(void) { return current == &process_table ? NULL : current; }

void sym_table_free(SymTable *t)
{
    if (!t) return;
    SymTable *was = current;
    current = t;
    value_shutdown();
    current = was == t ? &process_table : was;
    free(t);
}

static const char *predefined[SYM_PREDEFINED_COUNT] = {
    "", "T", "F", "type", "objectId", "ruleOrder", "if", "then", "runType",
    "engineSettings", "noRestart", "evaluation", "maxSteps",
    "privateAttributes", "move", "moveSender", "moveTimeStamp", "moveBatch",
    "rule", "shadow", "defaultEmail", "moveIndex",
};

bool text_is_number(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-') i++;
    size_t d0 = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == d0) return false;
    if (i == n) return true;
    if (s[i] != '.' && s[i] != '/') return false;
    char sep = s[i++];
    size_t f0 = i;
    bool nonzero = false;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (s[i] != '0') nonzero = true;
        i++;
    }
    if (i == f0 || i != n) return false;
    return sep == '.' || nonzero;
}

/* Reads a text known to satisfy text_is_number into q (canonicalised). */
static void parse_number(mpq_t q, const char *s, size_t n)
{
    char *t = xstrndup(s, n);
    char *dot = strchr(t, '.');
    if (dot) {
        size_t fl = strlen(dot + 1);
        memmove(dot, dot + 1, fl + 1);
        mpz_set_str(mpq_numref(q), t, 10);
        mpz_ui_pow_ui(mpq_denref(q), 10, fl);
    } else {
        mpq_set_str(q, t, 10); /* handles "p/q" */
    }
    mpq_canonicalize(q);
    free(t);
}

char *mpq_print(mpq_srcptr q)
{
    if (mpz_cmp_ui(mpq_denref(q), 1) == 0) return mpz_get_str(NULL, 10, mpq_numref(q));
    /* exact decimal iff the denominator is 2^a 5^b */
    mpz_t d;
    mpz_init_set(d, mpq_denref(q));
    mpz_t two, five;
    mpz_init_set_ui(two, 2);
    mpz_init_set_ui(five, 5);
    unsigned long na = mpz_remove(d, d, two);
    unsigned long nb = mpz_remove(d, d, five);
    char *out;
    if (mpz_cmp_ui(d, 1) == 0) {
        unsigned long k = na > nb ? na : nb;
        mpz_t scaled, p10;
        mpz_inits(scaled, p10, NULL);
        mpz_ui_pow_ui(p10, 10, k);
        mpz_mul(scaled, mpq_numref(q), p10);
        mpz_divexact(scaled, scaled, mpq_denref(q));
        bool neg = mpz_sgn(scaled) < 0;
        mpz_abs(scaled, scaled);
        char *digits = mpz_get_str(NULL, 10, scaled);
        size_t len = strlen(digits);
        Buf b = {0};
        if (neg) buf_putc(&b, '-');
        if (len <= k) {
            buf_puts(&b, "0.");
            for (size_t i = len; i < k; i++) buf_putc(&b, '0');
            buf_puts(&b, digits);
        } else {
            buf_add(&b, digits, len - k);
            buf_putc(&b, '.');
            buf_puts(&b, digits + len - k);
        }
        free(digits);
        mpz_clears(scaled, p10, NULL);
        out = buf_take(&b);
    } else {
        out = mpq_get_str(NULL, 10, q);
    }
    mpz_clears(d, two, five, NULL);
    return out;
}

static char *long_text(const Atom *a)
{
    char *p;
    memcpy(&p, a->t, sizeof p);
    return p;
}

static const char *atom_text(const Atom *a) { return a->len < INLINE_TEXT ? a->t : long_text(a); }

/* The intern table's hash of a text: eight bytes at a time, where FNV
 * (hash_bytes) takes one, since every text a move or a rule makes is
 * looked up here (FNV was 2% of Engine City's instructions).  It only
 * places texts in this process's table: a Sym's number, and so anything
 * the game keeps or shows, does not depend on it.  Seeded at random for
 * each table, so that a player cannot choose texts that all fall in one
 * run of the table and make every lookup walk it. */
static uint64_t text_hash(const char *s, size_t n)
{
    uint64_t h = tab()->seed ^ 0x9e3779b97f4a7c15ULL ^ n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    if (n >= 4) { /* the last 4 to 7 bytes as two words that may overlap */
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + n - 4, 4);
        w = (uint64_t)hi << 32 | lo;
    } else { /* 0 to 3 bytes: the first, the middle and the last */
        w = n ? (uint64_t)(unsigned char)s[0] << 16 | (uint64_t)(unsigned char)s[n / 2] << 8 | (unsigned char)s[n - 1] : 0;
    }
    return hash_mix(h ^ w);
}

static uint64_t atom_hash(const Atom *a) { return text_hash(atom_text(a), a->len); }

static void table_insert(Sym s, uint64_t h)
{
    SymTable *tb = tab();
    size_t mask = tb->tablecap - 1;
    size_t i = h & mask;
    while (tb->table[i]) i = (i + 1) & mask;
    tb->table[i] = s;
}

static void table_rebuild(size_t cap)
{
    SymTable *tb = tab();
    free(tb->table);
    tb->tablecap = cap;
    tb->table = xcalloc(tb->tablecap, sizeof *tb->table);
    for (Sym s = 1; s < tb->natoms; s++)
        if (!tb->atoms[s].freed) table_insert(s, atom_hash(&tb->atoms[s]));
}

/* Takes s (whose text hashes to h) out of the table, moving back the
 * entries after it that probed past its slot (linear probing keeps no
 * tombstones): a collection that frees a few texts among many live ones
 * costs what it frees, not a new table. */
static void table_remove(Sym s, uint64_t h)
{
    SymTable *tb = tab();
    size_t mask = tb->tablecap - 1, hole = h & mask;
    while (tb->table[hole] != s) hole = (hole + 1) & mask;
    for (size_t j = (hole + 1) & mask; tb->table[j]; j = (j + 1) & mask) {
        size_t home = atom_hash(&tb->atoms[tb->table[j]]) & mask;
        /* the entry at j may fill the hole unless its home lies cyclically in (hole, j] */
        bool stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
        if (stays) continue;
        tb->table[hole] = tb->table[j];
        hole = j;
    }
    tb->table[hole] = 0;
}

static void table_grow(void) { table_rebuild(tab()->tablecap ? tab()->tablecap * 2 : 1024); }

/* The two digits of each number below 100, for int64_text. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

/* v in decimal into b (at least 21 bytes, NUL added): its length.  What
 * "%lld" prints, without printf's cost: numbers are printed at every
 * object made (its id), every sum, and every term of the state hash
 * that holds an immediate.  Two digits a step, from the last. */
static size_t int64_text(char *b, int64_t v)
{
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t digits = 1;
    for (uint64_t t = m; t >= 10; t /= 10) digits++;
    size_t n = (size_t)(v < 0) + digits;
    if (v < 0) b[0] = '-';
    b[n] = 0;
    char *d = b + n;
    for (; m >= 100; m /= 100) memcpy(d -= 2, digit_pairs + 2 * (m % 100), 2);
    if (m >= 10) memcpy(d - 2, digit_pairs + 2 * m, 2);
    else d[-1] = (char)('0' + m);
    return n;
}

static bool is_imm(Sym s) { return s & SYM_IMMEDIATE; }
static uint32_t imm_value(Sym s) { return s & ~SYM_IMMEDIATE; }

/* The immediate a text is, or 0 when it is none: the digits of a whole
 * number below 2^31 as the printing rule writes it (no sign, no leading
 * zero), so that every text has one Sym. */
static Sym imm_of_text(const char *s, size_t n)
{
    if (n == 0 || n > 10 || (s[0] == '0' && n > 1)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return v < SYM_IMMEDIATE ? (Sym)(SYM_IMMEDIATE | v) : 0;
}

/* The digits of v: from its bit length, without a division (the state's
 * size is counted in bytes at every change, and ids and times are
 * immediates). */
static size_t imm_len(uint32_t v)
{
    static const uint32_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
    uint32_t w = v | 1; /* as many digits as v (no power of ten but 1 is odd), and not 0 */
    uint32_t bits = 32 - (uint32_t)__builtin_clz(w);
    uint32_t d = bits * 1233 >> 12; /* 1233 / 4096 ~ log10(2): w has d or d + 1 digits */
    return d + (w >= pow10[d]);
}

static void imm_index_put(ImmTexts *it, uint32_t v, uint32_t ref)
{
    size_t mask = it->index_cap - 1, i = hash_mix(v) & mask;
    while (it->index[i]) i = (i + 1) & mask;
    it->index[i] = ref;
}

static ImmText *imm_entry(const ImmTexts *it, size_t k) { return &it->chunks[k / IMM_CHUNK][k % IMM_CHUNK]; }

static const char *imm_text(uint32_t v)
{
    ImmTexts *it = &tab()->imm;
    if (it->index_cap) {
        size_t mask = it->index_cap - 1;
        for (size_t i = hash_mix(v) & mask; it->index[i]; i = (i + 1) & mask) {
            ImmText *e = imm_entry(it, it->index[i] - 1);
            if (e->v == v) return e->t;
        }
    }
    if ((it->n + 1) * 2 > it->index_cap) {
        free(it->index);
        it->index_cap = it->index_cap ? 2 * it->index_cap : 256;
        it->index = xcalloc(it->index_cap, sizeof *it->index);
        for (size_t k = 0; k < it->n; k++) imm_index_put(it, imm_entry(it, k)->v, (uint32_t)k + 1);
    }
    if (it->n == it->nchunks * IMM_CHUNK) {
        it->chunks = xrealloc(it->chunks, (it->nchunks + 1) * sizeof *it->chunks);
        it->chunks[it->nchunks++] = xmalloc(IMM_CHUNK * sizeof **it->chunks);
    }
    ImmText *e = imm_entry(it, it->n);
    e->v = v;
    int64_text(e->t, v);
    imm_index_put(it, v, (uint32_t)++it->n);
    return e->t;
}

static void imm_texts_free(ImmTexts *it)
{
    for (size_t c = 0; c < it->nchunks; c++) free(it->chunks[c]);
    free(it->chunks);
    free(it->index);
    memset(it, 0, sizeof *it);
}

/* A whole number written with digits only (and a minus) that fits 64 bits. */
static bool small_integer(const char *s, size_t n, int64_t *out)
{
    size_t i = s[0] == '-';
    if (n - i > 18) return false;
    int64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = s[0] == '-' ? -v : v;
    return true;
}

/* A new rational, owned by atom a. */
static mpq_t *num_new(Atom *a)
{
    SymTable *tb = tab();
    uint32_t at;
    if (tb->nfree_nums) {
        at = tb->free_nums[--tb->nfree_nums];
    } else {
        GROW(tb->nums, tb->nnums, tb->numcap);
        at = (uint32_t)tb->nnums++;
    }
    tb->nums[at] = xmalloc(sizeof *tb->nums[at]);
    mpq_init(*tb->nums[at]);
    a->num = at + 1;
    return tb->nums[at];
}

static bool is_small(const Atom *a) { return a->kind == NUM_WORD || a->kind == NUM_SMALL; }

/* The value of a NUM_WORD, or of a NUM_SMALL read from its digits (which
 * small_integer accepted when the atom was made). */
static int64_t small_value(const Atom *a)
{
    if (a->kind == NUM_WORD) return (int32_t)a->num;
    const char *t = atom_text(a);
    int64_t v = 0;
    for (uint32_t i = t[0] == '-'; i < a->len; i++) v = v * 10 + (t[i] - '0');
    return t[0] == '-' ? -v : v;
}

static Sym atom_new(const char *s, size_t n, uint64_t h)
{
    SymTable *tb = tab();
    Sym id;
    if (tb->nfree) {
        id = tb->free_syms[--tb->nfree];
    } else {
        if (tb->natoms >= SYM_NEVER) {
            fprintf(stderr, "nomic: too many texts at once (%zu)\n", tb->natoms);
            abort();
        }
        GROW(tb->atoms, tb->natoms, tb->atomcap);
        id = (Sym)tb->natoms++;
    }
    /* made while a collection marks: in use (a slot past the marks is) */
    if (tb->marks && id < tb->nmarks) tb->marks[id / 64] |= 1ULL << (id % 64);
    if (id < tb->keyedcap) tb->keyed[id] = 0; /* (a slot reused: another text) */
    Atom *a = &tb->atoms[id];
    memset(a, 0, sizeof *a);
    if (n < INLINE_TEXT) {
        memcpy(a->t, s, n);
        a->t[n] = 0;
    } else {
        char *copy = xstrndup(s, n);
        memcpy(a->t, &copy, sizeof copy);
        tb->long_bytes += n + 1;
    }
    a->len = (uint32_t)n;
    a->canon = id;
    int64_t small;
    if (text_is_number(s, n)) {
        if (small_integer(s, n, &small)) {
            a->kind = small >= INT32_MIN && small <= INT32_MAX ? NUM_WORD : NUM_SMALL;
            if (a->kind == NUM_WORD) a->num = (uint32_t)(int32_t)small;
        } else {
            a->kind = NUM_BIG;
            parse_number(*num_new(a), s, n);
        }
    }
    if (id != 0) {
        if ((tb->natoms + 1) * 2 > tb->tablecap) table_grow();
        else table_insert(id, h);
    }
    return id;
}

static void atom_free(Atom *a)
{
    SymTable *tb = tab();
    if (a->len >= INLINE_TEXT) {
        free(long_text(a));
        tb->long_bytes -= a->len + 1;
    }
    if (a->num && a->kind != NUM_WORD) {
        mpq_t **q = &tb->nums[a->num - 1];
        mpq_clear(**q);
        free(*q);
        *q = NULL;
        GROW(tb->free_nums, tb->nfree_nums, tb->free_numcap);
        tb->free_nums[tb->nfree_nums++] = a->num - 1;
    }
    memset(a, 0, sizeof *a);
    a->freed = true;
}

size_t sym_count(void) { return tab()->natoms - tab()->nfree; }

/* Due when the texts have more than doubled since the last collection,
 * counted or weighed: a game that makes few texts but long ones (a list
 * of every player, made again by each event that names them all) would
 * otherwise keep every copy until the count of short ones came due.  The
 * slacks spare a small game a collection at every event; a collection
 * costs a pass over what lives, so beyond them it comes once the dead
 * match the living, and its cost per text made stays bounded.  What lives
 * is weighed by the marks the last collection made (every attribute of
 * every object, where the live texts may be few and short): the dead bytes
 * waited for are a byte per mark, so that a large pool whose messages die
 * at once is not marked whole for every 256 KiB of them (at (2000,100),
 * 92 collections of 2.4 million marks each), while what waits stays an
 * eighth of what the marks stand for (an attribute holds 8 bytes, and a
 * mark is made for its name and for its value).  A quarter of a byte per
 * mark kept (1000,50)'s peak memory within a quarter of CLIPS's while the
 * index held every name's keys; since it holds only the names looked up
 * (pool.c), a byte per mark costs (1000,50) 0.2 MB and saves (2000,100) a
 * quarter of its cache misses (bench/README.md). */
#define GC_SLACK_TEXTS 16384 /* 384 KiB of atoms */
#define GC_SLACK_BYTES (256u * 1024)

bool sym_gc_due(void)
{
    SymTable *tb = tab();
    size_t slack_bytes = tb->marks_made > GC_SLACK_BYTES ? tb->marks_made : GC_SLACK_BYTES;
    /* the digits of immediates written since count as texts: the
     * collection drops them */
    return sym_count() + tb->imm.n > 2 * tb->live_after_gc + GC_SLACK_TEXTS ||
           tb->long_bytes > 2 * tb->long_after_gc + slack_bytes;
}

void sym_gc_begin(void)
{
    /* the marks apart from the atoms: marking every attribute of a large
     * pool writes a few kilobytes that stay in cache, not a bit in each of
     * a few megabytes of atoms */
    SymTable *tb = tab();
    free(tb->marks);
    tb->nmarks = tb->natoms;
    tb->marks_made = 0;
    tb->marks = xcalloc(tb->nmarks / 64 + 1, sizeof *tb->marks);
    for (size_t i = 0; i < SYM_PREDEFINED_COUNT && i < tb->nmarks; i++) tb->marks[i / 64] |= 1ULL << (i % 64);
}

static bool is_marked(const SymTable *tb, size_t s)
{
    return s >= tb->nmarks || (tb->marks[s / 64] >> (s % 64) & 1);
}

void sym_mark(Sym s)
{
    SymTable *tb = tab();
    assert(tb->marks);
    tb->marks_made++;
    if (s < tb->nmarks) tb->marks[s / 64] |= 1ULL << (s % 64); /* an immediate is past them */
}

/* A number in use keeps its canonical text (sym_canon): one pass over the
 * marks, before any text is freed, since a canon may sit on either side. */
static void mark_canons(SymTable *tb)
{
    for (size_t w = 0; w <= tb->nmarks / 64; w++)
        for (uint64_t bits = tb->marks[w]; bits; bits &= bits - 1) {
            size_t s = w * 64 + (size_t)__builtin_ctzll(bits);
            const Atom *a = &tb->atoms[s];
            if (a->kind != NOT_NUMBER && a->canon != s && a->canon < tb->nmarks)
                tb->marks[a->canon / 64] |= 1ULL << (a->canon % 64);
        }
}

size_t sym_gc_end(void)
{
    SymTable *tb = tab();
    mark_canons(tb);
    imm_texts_free(&tb->imm);
    /* few dead among many live: each taken out of the table; else a new
     * table, which costs the live */
    size_t dead = 0;
    for (size_t i = SYM_PREDEFINED_COUNT; i < tb->natoms; i++) dead += !is_marked(tb, i) && !tb->atoms[i].freed;
    bool rebuild = dead * 4 > sym_count();
    for (size_t i = SYM_PREDEFINED_COUNT; i < tb->natoms; i++) {
        Atom *a = &tb->atoms[i];
        if (is_marked(tb, i) || a->freed) continue;
        if (!rebuild) table_remove((Sym)i, atom_hash(a));
        atom_free(a);
        GROW(tb->free_syms, tb->nfree, tb->freecap);
        tb->free_syms[tb->nfree++] = (Sym)i;
    }
    if (rebuild) table_rebuild(tb->tablecap);
    free(tb->marks);
    tb->marks = NULL;
    tb->live_after_gc = sym_count();
    tb->long_after_gc = tb->long_bytes;
    return dead;
}

void value_init(void)
{
    SymTable *tb = tab();
    if (tb->ready) return;
    tb->ready = true;
    for (int i = 0; i < IMM_NUMS; i++) mpq_init(tb->imm_nums[i]);
    if (!random_bytes(&tb->seed, sizeof tb->seed)) tb->seed = (uint64_t)(uintptr_t)tb ^ (uint64_t)time(NULL);
    atom_new("", 0, text_hash("", 0));
    for (int i = 1; i < SYM_PREDEFINED_COUNT; i++) sym_cstr(predefined[i]);
}

void value_shutdown(void)
{
    SymTable *tb = tab();
    for (size_t i = 0; i < tb->natoms; i++) atom_free(&tb->atoms[i]);
    free(tb->atoms);
    free(tb->table);
    free(tb->marks);
    free(tb->free_syms);
    free(tb->nums);
    free(tb->free_nums);
    imm_texts_free(&tb->imm);
    free(tb->keyed);
    for (int i = 0; i < IMM_NUMS; i++) mpq_clear(tb->imm_nums[i]);
    memset(tb, 0, sizeof *tb); /* empty, and ready for value_init */
}

Sym sym_intern(const char *s, size_t n)
{
    SymTable *tb = tab();
    if (!tb->ready) value_init();
    if (n == 0) return SYM_EMPTY;
    Sym imm = imm_of_text(s, n);
    if (imm) return imm;
    uint64_t h = text_hash(s, n);
    if (tb->tablecap) {
        size_t mask = tb->tablecap - 1;
        for (size_t i = h & mask; tb->table[i]; i = (i + 1) & mask) {
            Atom *a = &tb->atoms[tb->table[i]];
            if (a->len == n && memcmp(atom_text(a), s, n) == 0) return tb->table[i];
        }
    }
    Sym id = atom_new(s, n, h);
    Atom *a = &tb->atoms[id];
    if (a->kind != NOT_NUMBER) {
        /* the canonical text of a number is its printed form */
        char tmp[24], *c = tmp;
        if (is_small(a)) int64_text(tmp, small_value(a));
        else c = mpq_print(*tb->nums[a->num - 1]);
        size_t cl = strlen(c);
        Sym canon = (cl == n && memcmp(c, s, n) == 0) ? id : sym_intern(c, cl);
        if (c != tmp) free(c);
        tb->atoms[id].canon = canon; /* atoms may have moved */
    }
    return id;
}

Sym sym_cstr(const char *s) { return sym_intern(s, strlen(s)); }

/* an immediate keeps no note: whatever a caller notes of a number's text
 * it finds again at once */
unsigned sym_memo(Sym s) { return is_imm(s) ? 0 : tab()->atoms[s].memo; }
void sym_set_memo(Sym s, unsigned v)
{
    if (!is_imm(s)) tab()->atoms[s].memo = v & 3;
}

/* A Sym names an immediate, or a text interned and not yet collected (value.h). */
#define ASSERT_LIVE(s) assert(is_imm(s) || ((s) < tab()->natoms && !tab()->atoms[(s)].freed))

const char *sym_text(Sym s)
{
    ASSERT_LIVE(s);
    return is_imm(s) ? imm_text(imm_value(s)) : atom_text(&tab()->atoms[s]);
}
size_t sym_len(Sym s) { return is_imm(s) ? imm_len(imm_value(s)) : tab()->atoms[s].len; }
uint64_t sym_hash(Sym s) { return hash_bytes(sym_text(s), sym_len(s)); }
bool sym_is_number(Sym s) { return is_imm(s) || tab()->atoms[s].kind != NOT_NUMBER; }

/* The table keeps the keyed hash of each text it was asked for, under one
 * key at a time: a table serves one game (sym_use), or a process's games
 * one after the other, and a new key empties what it kept.  An immediate
 * has no atom to keep it with, and its number is mixed with the key
 * instead (docs/formats.md): SipHash of its digits was 2% of Engine
 * City's instructions (ids and times are immediates). */
static __attribute__((noinline)) uint64_t keyed_hash_computed(SymTable *tb, Sym s, const uint64_t key[2])
{
    if (!tb->keyed_on || tb->keyed_key[0] != key[0] || tb->keyed_key[1] != key[1]) {
        if (tb->keyed) memset(tb->keyed, 0, tb->keyedcap * sizeof *tb->keyed);
        tb->keyed_key[0] = key[0];
        tb->keyed_key[1] = key[1];
        tb->keyed_on = true;
    }
    if (s >= tb->keyedcap) {
        size_t cap = tb->atomcap > s ? tb->atomcap : (size_t)s + 1;
        tb->keyed = xrealloc(tb->keyed, cap * sizeof *tb->keyed);
        memset(tb->keyed + tb->keyedcap, 0, (cap - tb->keyedcap) * sizeof *tb->keyed);
        tb->keyedcap = cap;
    }
    uint64_t h = tb->keyed[s];
    if (h) return h;
    ASSERT_LIVE(s);
    const Atom *a = &tb->atoms[s];
    h = siphash24(key, atom_text(a), a->len);
    tb->keyed[s] = h; /* (a hash of 0 is computed each time: one text in 2^64) */
    return h;
}

/* (The kept hash is the common case: the slow path and its checks stay
 * out of the way of the state hash's terms.) */
uint64_t sym_keyed_hash(Sym s, const uint64_t key[2])
{
    SymTable *tb = tab();
    if (is_imm(s)) return hash_mix(hash_mix(((uint64_t)imm_value(s) | (uint64_t)4 << 32) ^ key[1]) + key[0]);
    if (s < tb->keyedcap && tb->keyed[s] && tb->keyed_on && tb->keyed_key[0] == key[0] && tb->keyed_key[1] == key[1])
        return tb->keyed[s];
    return keyed_hash_computed(tb, s, key);
}

size_t sym_digits(Sym s, char *b)
{
    assert(is_imm(s));
    return int64_text(b, imm_value(s));
}

mpq_srcptr sym_num(Sym s)
{
    SymTable *tb = tab();
    if (is_imm(s)) {
        mpq_t *q = &tb->imm_nums[tb->imm_num_next++ % IMM_NUMS];
        mpq_set_ui(*q, imm_value(s), 1);
        return *q;
    }
    Atom *a = &tb->atoms[s];
    if (a->kind == NUM_WORD) {
        int32_t v = (int32_t)a->num;
        a->kind = NUM_SMALL;
        mpz_set_si(mpq_numref(*num_new(a)), v);
    } else if (!a->num) {
        mpz_set_si(mpq_numref(*num_new(a)), (long)small_value(a));
    }
    return *tb->nums[a->num - 1];
}

/* The value of an immediate or of a whole number that fits 64 bits. */
static bool small_of(const SymTable *tb, Sym s, int64_t *out)
{
    if (is_imm(s)) {
        *out = imm_value(s);
        return true;
    }
    if (!is_small(&tb->atoms[s])) return false;
    *out = small_value(&tb->atoms[s]);
    return true;
}

int num_cmp(Sym a, Sym b)
{
    SymTable *tb = tab();
    int64_t x, y;
    if (small_of(tb, a, &x) && small_of(tb, b, &y)) return x < y ? -1 : x > y;
    return mpq_cmp(sym_num(a), sym_num(b));
}
Sym sym_canon(Sym s) { return is_imm(s) ? s : tab()->atoms[s].canon; }

Sym sym_from_mpq(mpq_srcptr q)
{
    char *c = mpq_print(q);
    Sym s = sym_cstr(c);
    free(c);
    return s;
}

Sym sym_from_long(long v) { return sym_from_int64(v); }

Sym sym_from_int64(int64_t v)
{
    if (v >= 0 && v < (int64_t)SYM_IMMEDIATE) return (Sym)(SYM_IMMEDIATE | (uint64_t)v);
    char tmp[24];
    return sym_intern(tmp, int64_text(tmp, v));
}

bool sym_small_int(Sym s, int64_t *out) { return small_of(tab(), s, out); }

bool sym_to_long(Sym s, long *out)
{
    int64_t v;
    if (small_of(tab(), s, &v)) {
        *out = (long)v;
        return true;
    }
    if (!sym_is_number(s)) return false;
    mpq_srcptr q = sym_num(s);
    if (mpz_cmp_ui(mpq_denref(q), 1) != 0 || !mpz_fits_slong_p(mpq_numref(q))) return false;
    *out = mpz_get_si(mpq_numref(q));
    return true;
}

bool val_eq(Sym a, Sym b) { return a == b || sym_canon(a) == sym_canon(b); }

int val_cmp(Sym a, Sym b)
{
    if (a == b) return 0;
    if (sym_is_number(a) && sym_is_number(b)) return num_cmp(a, b);
    size_t la = sym_len(a), lb = sym_len(b);
    int c = memcmp(sym_text(a), sym_text(b), la < lb ? la : lb);
    if (c) return c;
    return la < lb ? -1 : la > lb;
}
