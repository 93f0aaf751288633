/*
 * value.c - interned texts and their exact numeric reading.
 *
 * The intern table is open addressing over a power-of-two array of Syms;
 * each atom keeps its text, a stable FNV hash, and, for numeric texts, the
 * rational value and the canonical Sym used for equality and indexing.
 */
#include "value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct Atom {
    char *text;
    uint32_t len;
    uint64_t hash;
    Sym canon;  /* canonical numeric text, or the atom itself */
    mpq_t *num; /* NULL when the text is not a number */
} Atom;

static Atom *atoms;
static size_t natoms, atomcap;
static Sym *table; /* 0 = empty slot (Sym 0 is interned first, never looked up here) */
static size_t tablecap;
static bool ready;

static const char *predefined[SYM_PREDEFINED_COUNT] = {
    "", "T", "F", "type", "objectId", "ruleOrder", "if", "then", "runType",
    "engineSettings", "noRestart", "evaluation", "maxSteps",
    "privateAttributes", "move", "moveSender", "moveTimeStamp", "moveBatch",
    "rule", "shadow", "defaultEmail",
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

static void table_insert(Sym s)
{
    size_t mask = tablecap - 1;
    size_t i = atoms[s].hash & mask;
    while (table[i]) i = (i + 1) & mask;
    table[i] = s;
}

static void table_grow(void)
{
    free(table);
    tablecap = tablecap ? tablecap * 2 : 1024;
    table = xcalloc(tablecap, sizeof *table);
    for (Sym s = 1; s < natoms; s++) table_insert(s);
}

static Sym atom_new(const char *s, size_t n, uint64_t h)
{
    GROW(atoms, natoms, atomcap);
    Sym id = (Sym)natoms++;
    Atom *a = &atoms[id];
    a->text = xstrndup(s, n);
    a->len = (uint32_t)n;
    a->hash = h;
    a->canon = id;
    a->num = NULL;
    if (text_is_number(s, n)) {
        a->num = xmalloc(sizeof *a->num);
        mpq_init(*a->num);
        parse_number(*a->num, s, n);
    }
    if (id != 0) {
        if ((natoms + 1) * 2 > tablecap) table_grow();
        else table_insert(id);
    }
    return id;
}

void value_init(void)
{
    if (ready) return;
    ready = true;
    atom_new("", 0, hash_bytes("", 0));
    for (int i = 1; i < SYM_PREDEFINED_COUNT; i++) sym_cstr(predefined[i]);
}

void value_shutdown(void)
{
    for (size_t i = 0; i < natoms; i++) {
        free(atoms[i].text);
        if (atoms[i].num) {
            mpq_clear(*atoms[i].num);
            free(atoms[i].num);
        }
    }
    free(atoms);
    free(table);
    atoms = NULL;
    table = NULL;
    natoms = atomcap = tablecap = 0;
    ready = false;
}

Sym sym_intern(const char *s, size_t n)
{
    if (!ready) value_init();
    if (n == 0) return SYM_EMPTY;
    uint64_t h = hash_bytes(s, n);
    if (tablecap) {
        size_t mask = tablecap - 1;
        for (size_t i = h & mask; table[i]; i = (i + 1) & mask) {
            Atom *a = &atoms[table[i]];
            if (a->hash == h && a->len == n && memcmp(a->text, s, n) == 0) return table[i];
        }
    }
    Sym id = atom_new(s, n, h);
    if (atoms[id].num) {
        /* the canonical text of a number is its printed form */
        char *c = mpq_print(*atoms[id].num);
        size_t cl = strlen(c);
        Sym canon = (cl == n && memcmp(c, s, n) == 0) ? id : sym_intern(c, cl);
        free(c);
        atoms[id].canon = canon;
    }
    return id;
}

Sym sym_cstr(const char *s) { return sym_intern(s, strlen(s)); }
const char *sym_text(Sym s) { return atoms[s].text; }
size_t sym_len(Sym s) { return atoms[s].len; }
uint64_t sym_hash(Sym s) { return atoms[s].hash; }
size_t sym_count(void) { return natoms; }
bool sym_is_number(Sym s) { return atoms[s].num != NULL; }
mpq_srcptr sym_num(Sym s) { return *atoms[s].num; }
Sym sym_canon(Sym s) { return atoms[s].canon; }

Sym sym_from_mpq(mpq_srcptr q)
{
    char *c = mpq_print(q);
    Sym s = sym_cstr(c);
    free(c);
    return s;
}

Sym sym_from_long(long v)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%ld", v);
    return sym_intern(tmp, (size_t)n);
}

bool sym_to_long(Sym s, long *out)
{
    if (!sym_is_number(s)) return false;
    mpq_srcptr q = sym_num(s);
    if (mpz_cmp_ui(mpq_denref(q), 1) != 0 || !mpz_fits_slong_p(mpq_numref(q))) return false;
    *out = mpz_get_si(mpq_numref(q));
    return true;
}

bool val_eq(Sym a, Sym b)
{
    return a == b || atoms[a].canon == atoms[b].canon;
}

int val_cmp(Sym a, Sym b)
{
    if (a == b) return 0;
    if (atoms[a].num && atoms[b].num) return mpq_cmp(*atoms[a].num, *atoms[b].num);
    size_t la = atoms[a].len, lb = atoms[b].len;
    int c = memcmp(atoms[a].text, atoms[b].text, la < lb ? la : lb);
    if (c) return c;
    return la < lb ? -1 : la > lb;
}
