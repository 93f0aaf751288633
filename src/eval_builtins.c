/*
 * eval_builtins.c - what each verb and function of the rule language does when
 * a rule runs: the evaluator's half of the language.  The table that
 * describes them (name, arity, kinds, flags, cost) is lang_builtins.c, built
 * from the same list, lang_builtins_list.h; handlers[] below is indexed by the
 * same BuiltinId.  Every handler meters what it costs (docs/limits.md).
 */
#include "eval_builtins.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval.h"
#include "eval_math.h"
#include "objfmt.h"
#include "pool_privacy.h"
#include "util.h"

/* ---- helpers ---- */

static Sym arg(Ctx *cx, const Node *call, int i, const Obj *cand)
{
    return eval_value(cx, call->kid[i], cand);
}

/* An argument that is read through, byte by byte (a list, a text): the
 * work of reading it is metered. */
static Sym arg_scanned(Ctx *cx, const Node *call, int i, const Obj *cand)
{
    Sym s = eval_value(cx, call->kid[i], cand);
    return meter_work(cx, sym_len(s) / 64) ? s : SYM_EMPTY;
}

/* A number a function computed: the memory of its text. */
static Sym metered_number(Ctx *cx, mpq_srcptr q)
{
    Sym r = sym_from_mpq(q);
    return meter_text(cx, sym_len(r)) ? r : SYM_EMPTY;
}

static bool arg_num(Ctx *cx, const Node *call, int i, const Obj *cand, mpq_t out)
{
    return eval_number(cx, call->kid[i], cand, out);
}

static Sym truth(bool b) { return b ? SYM_T : SYM_F; }

/* ---- functions over matches ---- */

static Sym fn_exists(Ctx *cx, const Node *call, const Obj *cand)
{
    return truth(eval_first_match(cx, call->kid[0]) != 0);
}

static Sym fn_count(Ctx *cx, const Node *call, const Obj *cand)
{
    return sym_from_long(eval_count(cx, call->kid[0]));
}

typedef enum FoldKind { FOLD_SUM, FOLD_MIN, FOLD_MAX } FoldKind;

typedef struct Fold {
    const Node *expr;
    FoldKind kind;
    mpq_t acc;     /* FOLD_SUM only: min and max keep best */
    Sym best;
    bool any;
} Fold;

static bool fold_one(Ctx *cx, const Obj *o, void *ud)
{
    Fold *f = ud;
    if (f->kind == FOLD_SUM) {
        mpq_t v;
        mpq_init(v);
        if (eval_number(cx, f->expr, o, v) && meter_number(cx, f->expr, f->acc, v)) mpq_add(f->acc, f->acc, v);
        mpq_clear(v);
    } else {
        Sym v = eval_value(cx, f->expr, o);
        if (v == SYM_EMPTY) return !cx->failed; /* absent values take no part */
        if (!f->any || (f->kind == FOLD_MIN ? val_cmp(v, f->best) < 0 : val_cmp(v, f->best) > 0)) f->best = v;
        f->any = true;
    }
    return !cx->failed;
}

static Sym fold(Ctx *cx, const Node *call, FoldKind kind)
{
    Fold f = {.expr = call->kid[1], .kind = kind, .best = SYM_EMPTY};
    if (kind == FOLD_SUM) mpq_init(f.acc); /* min and max compare values: no number is made */
    eval_each_match(cx, call->kid[0], fold_one, &f);
    Sym r = kind == FOLD_SUM && !cx->failed ? metered_number(cx, f.acc) : f.best;
    if (kind == FOLD_SUM) mpq_clear(f.acc);
    return cx->failed ? SYM_EMPTY : r;
}

/* join: the texts of a list built in one pass (a forEach of glue builds
 * it again at each object, its work growing as the square of the list). */
typedef struct Join {
    const Node *expr, *sep;
    Buf b;
    bool any;
} Join;

static bool join_one(Ctx *cx, const Obj *o, void *ud)
{
    Join *j = ud;
    Sym v = eval_value(cx, j->expr, o);
    if (cx->failed || v == SYM_EMPTY) return !cx->failed; /* absent values take no part */
    if (j->any) {
        Sym sep = j->sep ? eval_value(cx, j->sep, o) : sym_cstr(" ");
        if (cx->failed || !meter_text(cx, sym_len(sep))) return false;
        buf_add(&j->b, sym_text(sep), sym_len(sep));
    }
    if (!meter_text(cx, sym_len(v))) return false;
    buf_add(&j->b, sym_text(v), sym_len(v));
    j->any = true;
    return true;
}

static Sym fn_join(Ctx *cx, const Node *call, const Obj *cand)
{
    Join j = {.expr = call->kid[1], .sep = call->n > 2 ? call->kid[2] : NULL};
    eval_each_match(cx, call->kid[0], join_one, &j);
    Sym r = cx->failed ? SYM_EMPTY : sym_intern(buf_str(&j.b), j.b.len);
    buf_free(&j.b);
    return r;
}

static Sym fn_sum(Ctx *cx, const Node *call, const Obj *cand) { return fold(cx, call, FOLD_SUM); }
static Sym fn_min(Ctx *cx, const Node *call, const Obj *cand) { return fold(cx, call, FOLD_MIN); }
static Sym fn_max(Ctx *cx, const Node *call, const Obj *cand) { return fold(cx, call, FOLD_MAX); }

/* ---- time and chance ---- */

static Sym fn_timeNow(Ctx *cx, const Node *call, const Obj *cand)
{
    return sym_from_long((long)cx->now);
}

static Sym fn_timeCreated(Ctx *cx, const Node *call, const Obj *cand)
{
    return sym_from_long((long)cx->created);
}

/* timeNow() >= when; a false one is a timer the engine must keep. */
static Sym time_reached(Ctx *cx, long when)
{
    if (cx->now >= when) return SYM_T;
    if (!cx->have_timer || when < cx->next_timer) {
        cx->have_timer = true;
        cx->next_timer = when;
    }
    return SYM_F;
}

static Sym fn_timeGE(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym v = arg(cx, call, 0, cand);
    long when;
    if (cx->failed) return SYM_EMPTY;
    if (sym_to_long(v, &when)) return time_reached(cx, when); /* the usual case: whole seconds */
    mpq_t t;
    mpq_init(t);
    Sym r = SYM_EMPTY;
    if (arg_num(cx, call, 0, cand, t)) {
        mpz_t c;
        mpz_init(c);
        mpz_cdiv_q(c, mpq_numref(t), mpq_denref(t)); /* timers fire on whole seconds */
        r = mpz_fits_slong_p(c) ? time_reached(cx, mpz_get_si(c)) : truth(mpz_sgn(c) < 0);
        mpz_clear(c);
    }
    mpq_clear(t);
    return r;
}

/* xoshiro256** (Blackman and Vigna): small, fast, and its whole state is
 * four words kept in the game's database, so replays draw the same. */
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
uint64_t eval_rng_next(uint64_t *s)
{
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

static Sym fn_random(Ctx *cx, const Node *call, const Obj *cand)
{
    long lo, hi;
    Sym a = arg(cx, call, 0, cand), b = arg(cx, call, 1, cand);
    if (cx->failed) return SYM_EMPTY;
    if (!sym_to_long(a, &lo) || !sym_to_long(b, &hi) || lo > hi) {
        ctx_error(cx, call, "random(lo, hi) needs whole numbers with lo <= hi, not %.20s and %.20s", sym_text(a), sym_text(b));
        return SYM_EMPTY;
    }
    if (!cx->rng) {
        ctx_error(cx, call, "%s", "random() has no generator here");
        return SYM_EMPTY;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1, x;
    if (span == 0) return sym_from_long((long)eval_rng_next(cx->rng)); /* the whole range */
    uint64_t limit = UINT64_MAX - UINT64_MAX % span;
    do x = eval_rng_next(cx->rng);
    while (x >= limit); /* rejection keeps every value equally likely */
    return sym_from_long((long)((uint64_t)lo + x % span));
}

/* ---- values ---- */

static Sym fn_if(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym c = arg(cx, call, 0, cand);
    if (cx->failed) return SYM_EMPTY;
    return arg(cx, call, c == SYM_T ? 1 : 2, cand);
}

static Sym fn_least(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym a = arg(cx, call, 0, cand), b = arg(cx, call, 1, cand);
    return val_cmp(a, b) <= 0 ? a : b;
}

static Sym fn_greatest(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym a = arg(cx, call, 0, cand), b = arg(cx, call, 1, cand);
    return val_cmp(a, b) >= 0 ? a : b;
}

static Sym fn_isNumber(Ctx *cx, const Node *call, const Obj *cand)
{
    return truth(sym_is_number(arg(cx, call, 0, cand)));
}

static Sym rounding(Ctx *cx, const Node *call, const Obj *cand, int how)
{
    mpq_t x;
    mpq_init(x);
    Sym r = SYM_EMPTY;
    if (arg_num(cx, call, 0, cand, x) && meter_number(cx, call, x, NULL)) {
        int sign = mpq_sgn(x);
        mpz_t z;
        mpz_init(z);
        if (how < 0) mpz_fdiv_q(z, mpq_numref(x), mpq_denref(x));
        else if (how > 0) mpz_cdiv_q(z, mpq_numref(x), mpq_denref(x));
        else {
            /* half away from zero: floor(|x| + 1/2) with x's sign */
            mpq_t h;
            mpq_init(h);
            mpq_abs(h, x);
            mpq_set_ui(x, 1, 2);
            mpq_add(h, h, x);
            mpz_fdiv_q(z, mpq_numref(h), mpq_denref(h));
            if (sign < 0) mpz_neg(z, z);
            mpq_clear(h);
        }
        mpq_set_z(x, z);
        r = metered_number(cx, x);
        mpz_clear(z);
    }
    mpq_clear(x);
    return r;
}

static Sym fn_round(Ctx *cx, const Node *call, const Obj *cand) { return rounding(cx, call, cand, 0); }
static Sym fn_floor(Ctx *cx, const Node *call, const Obj *cand) { return rounding(cx, call, cand, -1); }
static Sym fn_ceil(Ctx *cx, const Node *call, const Obj *cand) { return rounding(cx, call, cand, 1); }

static Sym fn_abs(Ctx *cx, const Node *call, const Obj *cand)
{
    mpq_t x;
    mpq_init(x);
    Sym r = SYM_EMPTY;
    if (arg_num(cx, call, 0, cand, x) && meter_number(cx, call, x, NULL)) {
        mpq_abs(x, x);
        r = metered_number(cx, x);
    }
    mpq_clear(x);
    return r;
}

static Sym fn_length(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym s = arg_scanned(cx, call, 0, cand);
    long n = 0;
    for (const char *p = sym_text(s); *p; p++)
        if (((unsigned char)*p & 0xc0) != 0x80) n++; /* count UTF-8 characters */
    return sym_from_long(n);
}

#define MAX_PAD 1000 /* a column wider than a screen is no layout */

/* Columns for a report: text and spaces to |n| characters. */
static Sym fn_pad(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym s = arg(cx, call, 0, cand);
    long width;
    if (!sym_to_long(arg(cx, call, 1, cand), &width) || width > MAX_PAD || width < -MAX_PAD) return s;
    long n = 0;
    for (const char *p = sym_text(s); *p; p++)
        if (((unsigned char)*p & 0xc0) != 0x80) n++;
    long want = width < 0 ? -width : width;
    if (n >= want || !meter_text(cx, sym_len(s) + (size_t)(want - n))) return s;
    Buf b = {0};
    if (width < 0)
        for (long i = n; i < want; i++) buf_putc(&b, ' ');
    buf_add(&b, sym_text(s), sym_len(s));
    if (width > 0)
        for (long i = n; i < want; i++) buf_putc(&b, ' ');
    Sym r = sym_intern(b.s, b.len);
    buf_free(&b);
    return r;
}

/* A time (seconds since 1970) as people read it: 2026-01-05T00:00:00Z. */
static Sym fn_timeText(Ctx *cx, const Node *call, const Obj *cand)
{
    long t;
    if (!sym_to_long(arg(cx, call, 0, cand), &t)) return SYM_EMPTY;
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];
    if (!gmtime_r(&tt, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900) return SYM_EMPTY;
    size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return n ? sym_intern(buf, n) : SYM_EMPTY;
}

static Sym fn_timeValue(Ctx *cx, const Node *call, const Obj *cand)
{
    int64_t t;
    return time_parse(sym_text(arg(cx, call, 0, cand)), &t) ? sym_from_long((long)t) : SYM_EMPTY;
}

static Sym fn_lower(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym s = arg(cx, call, 0, cand);
    if (!meter_text(cx, sym_len(s))) return SYM_EMPTY;
    char *t = xstrndup(sym_text(s), sym_len(s));
    for (char *p = t; *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    Sym r = sym_intern(t, sym_len(s));
    free(t);
    return r;
}

static Sym fn_words(Ctx *cx, const Node *call, const Obj *cand)
{
    const char *p = sym_text(arg_scanned(cx, call, 0, cand)), *w;
    size_t n;
    long k = 0;
    while (word_next(&p, &w, &n, false)) k++;
    return sym_from_long(k);
}

static Sym fn_member(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym list = arg(cx, call, 0, cand), word = arg(cx, call, 1, cand);
    if (!meter_text(cx, sym_len(list))) return SYM_EMPTY; /* its words are interned */
    const char *p = sym_text(list), *w;
    size_t n;
    while (word_next(&p, &w, &n, false))
        if (val_eq(sym_intern(w, n), word)) return SYM_T;
    return SYM_F;
}

static Sym fn_glue(Ctx *cx, const Node *call, const Obj *cand)
{
    Buf b = {0};
    for (int i = 0; i < call->n && !cx->failed; i++) {
        Sym v = arg(cx, call, i, cand);
        if (meter_text(cx, sym_len(v))) buf_add(&b, sym_text(v), sym_len(v));
    }
    Sym r = sym_intern(buf_str(&b), b.len);
    buf_free(&b);
    return r;
}

static Sym fn_replaceWord(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym list = arg(cx, call, 0, cand), old = arg(cx, call, 1, cand), new = arg(cx, call, 2, cand);
    if (!meter_text(cx, sym_len(list))) return SYM_EMPTY; /* its words are interned */
    const char *p = sym_text(list), *w;
    size_t n;
    Buf b = {0};
    while (word_next(&p, &w, &n, false) && !cx->failed) {
        Sym word = sym_intern(w, n);
        Sym out = val_eq(word, old) ? new : word;
        if (out == SYM_EMPTY || !meter_text(cx, sym_len(out) + 1)) continue;
        if (b.len) buf_putc(&b, ' ');
        buf_add(&b, sym_text(out), sym_len(out));
    }
    Sym r = sym_intern(buf_str(&b), b.len);
    buf_free(&b);
    return r;
}

/* Text, not words: what a message needs to lay out a value of several
 * lines (replace(x, "\n", "\n    ") indents it).  The bytes read and the
 * bytes written are metered, so a short old and a long new cannot build
 * more than the event's budget allows; the search, like charsIn's, is
 * charged by the length of text times that of old. */
static const char *find_bytes(const char *p, const char *end, const char *s, size_t n)
{
    for (; (size_t)(end - p) >= n; p++)
        if (memcmp(p, s, n) == 0) return p;
    return NULL;
}

static Sym fn_replace(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym text = arg(cx, call, 0, cand), old = arg(cx, call, 1, cand), new = arg(cx, call, 2, cand);
    if (!meter_work(cx, sym_len(text) * (1 + sym_len(old) / 64)) || !meter_text(cx, sym_len(text)) ||
        old == SYM_EMPTY)
        return cx->failed ? SYM_EMPTY : text;
    const char *p = sym_text(text), *end = p + sym_len(text), *hit;
    size_t n = sym_len(old);
    Buf b = {0};
    while ((hit = find_bytes(p, end, sym_text(old), n)) != NULL && !cx->failed) {
        buf_add(&b, p, (size_t)(hit - p));
        if (meter_text(cx, sym_len(new))) buf_add(&b, sym_text(new), sym_len(new));
        p = hit + n;
    }
    buf_add(&b, p, (size_t)(end - p));
    Sym r = cx->failed ? SYM_EMPTY : sym_intern(buf_str(&b), b.len);
    buf_free(&b);
    return r;
}

static Sym fn_charsIn(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym text = arg_scanned(cx, call, 0, cand), set = arg(cx, call, 1, cand);
    if (!meter_work(cx, sym_len(text) * (1 + sym_len(set) / 64))) return SYM_EMPTY;
    const char *allowed = sym_text(set);
    for (const char *p = sym_text(text); *p; p++)
        if (!memchr(allowed, *p, sym_len(set))) return SYM_F;
    return SYM_T;
}

static Sym fn_word(Ctx *cx, const Node *call, const Obj *cand)
{
    const char *p = sym_text(arg_scanned(cx, call, 0, cand)), *w;
    long k;
    if (!sym_to_long(arg(cx, call, 1, cand), &k) || k < 1) return SYM_EMPTY;
    size_t n;
    while (word_next(&p, &w, &n, false))
        if (--k == 0) return sym_intern(w, n);
    return SYM_EMPTY;
}

/* The object and the attribute are values, not written in the rule, so a
 * condition calling it may read anything: lang_deps.c tests it on every pass. */
static Sym fn_attribute(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym id = arg(cx, call, 0, cand), name = arg(cx, call, 1, cand);
    long k;
    if (!sym_to_long(id, &k) || k < 1 || k > (long)UINT32_MAX / 2) return SYM_EMPTY;
    const Obj *o = pool_get(cx->pool, (ObjId)k);
    return o && name != SYM_EMPTY ? obj_get(o, name) : SYM_EMPTY;
}

/* MathFlag's arithmetic (eval_math.c).  All three arguments are evaluated
 * first, so a run-time error in any of them fails the rule as elsewhere. */
static Sym fn_eval(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym text = arg(cx, call, 0, cand), i = arg(cx, call, 1, cand), v = arg(cx, call, 2, cand);
    if (cx->failed) return SYM_EMPTY;
    /* an expression in the Range has at most 8 characters, so the value
     * has at most a few times the bits of i and v */
    mpq_srcptr qi = sym_is_number(i) ? sym_num(i) : NULL, qv = sym_is_number(v) ? sym_num(v) : NULL;
    if (qi && !meter_number(cx, call, qi, qi)) return SYM_EMPTY;
    if (qv && !meter_number(cx, call, qv, qv)) return SYM_EMPTY;
    Sym r = mathexpr_eval_sym(text, i, v);
    return meter_text(cx, sym_len(r)) ? r : SYM_EMPTY;
}

static Sym fn_parses(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym s = arg(cx, call, 0, cand);
    /* parsing is linear in the text; the tree it builds is freed at once */
    if (!meter_work(cx, 1 + sym_len(s) / 4) || !meter_memory(cx, 4 * (uint64_t)sym_len(s))) return SYM_EMPTY;
    /* charged as a parse whether or not the text's memo answers */
    enum { UNKNOWN, PARSES, FAILS };
    if (sym_memo(s) == UNKNOWN) {
        ParseError err;
        Prog *p = parse_rule_syms(&s, NULL, &err);
        sym_set_memo(s, p ? PARSES : FAILS);
        prog_free(p);
    }
    return truth(sym_memo(s) == PARSES);
}

/* What parses() answers F for, said as `nomic check` says it: the place in
 * text (line and column from 1) and the parser's message; "" when it parses. */
static Sym fn_parseError(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym s = arg(cx, call, 0, cand);
    if (!meter_work(cx, 1 + sym_len(s) / 4) || !meter_memory(cx, 4 * (uint64_t)sym_len(s))) return SYM_EMPTY;
    ParseError err;
    Prog *p = parse_rule_syms(&s, NULL, &err);
    bool ok = p != NULL;
    prog_free(p);
    if (ok) return SYM_EMPTY;
    char buf[sizeof err.msg + 64];
    int n = snprintf(buf, sizeof buf, "line %d, column %d: %s", err.line, err.col, err.msg);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    return meter_text(cx, len) ? sym_intern(buf, len) : SYM_EMPTY;
}

/* ---- verbs ---- */

static void do_create(Ctx *cx, const Node *call, const Obj *cand)
{
    eval_assign(cx, call->kid[0], 0, cand);
}

static void do_delete(Ctx *cx, const Node *call, const Obj *cand)
{
    ObjId id = eval_first_match(cx, call->kid[0]);
    if (id && meter_memory(cx, 48)) pool_delete(cx->pool, id);
}

typedef struct IdList {
    ObjId *ids;
    size_t len, cap;
} IdList;

static bool collect_id(Ctx *cx, const Obj *o, void *ud)
{
    IdList *l = ud;
    if (!meter_memory(cx, sizeof *l->ids)) return false;
    GROW(l->ids, l->len, l->cap);
    l->ids[l->len++] = o->id;
    return true;
}

static void do_deleteAll(Ctx *cx, const Node *call, const Obj *cand)
{
    IdList l = {0};
    eval_each_match(cx, call->kid[0], collect_id, &l);
    for (size_t i = 0; i < l.len && meter_memory(cx, 48); i++) pool_delete(cx->pool, l.ids[i]);
    free(l.ids);
}

static void do_set(Ctx *cx, const Node *call, const Obj *cand)
{
    ObjId id = eval_first_match(cx, call->kid[0]);
    if (id) eval_assign(cx, call->kid[1], id, cand);
}

static void do_setAll(Ctx *cx, const Node *call, const Obj *cand)
{
    IdList l = {0};
    eval_each_match(cx, call->kid[0], collect_id, &l);
    for (size_t i = 0; i < l.len && !cx->failed; i++)
        if (pool_get(cx->pool, l.ids[i])) eval_assign(cx, call->kid[1], l.ids[i], cand);
    free(l.ids);
}

/* forEach keeps each object's bindings: a snapshot of the slots. */
typedef struct ForEach {
    IdList ids;
    Sym *snap;
    size_t nsnap, snapcap;
    int nvars;
} ForEach;

static bool collect_each(Ctx *cx, const Obj *o, void *ud)
{
    ForEach *f = ud;
    if (!collect_id(cx, o, &f->ids) || !meter_memory(cx, (uint64_t)f->nvars * sizeof *f->snap)) return false;
    size_t need = (f->nsnap + 1) * (size_t)f->nvars;
    if (need > f->snapcap) {
        f->snapcap = need * 2;
        f->snap = xrealloc(f->snap, f->snapcap * sizeof *f->snap);
    }
    if (f->nvars) memcpy(f->snap + f->nsnap * (size_t)f->nvars, cx->vars, (size_t)f->nvars * sizeof *cx->vars);
    f->nsnap++;
    return true;
}

static void do_forEach(Ctx *cx, const Node *call, const Obj *cand)
{
    ForEach f = {.nvars = cx->prog->nvars};
    eval_each_match(cx, call->kid[0], collect_each, &f);
    Sym *outer = xmalloc((size_t)(f.nvars ? f.nvars : 1) * sizeof *outer);
    if (f.nvars) memcpy(outer, cx->vars, (size_t)f.nvars * sizeof *outer);
    size_t mark = ctx_trail_mark(cx);
    for (size_t i = 0; i < f.ids.len && !cx->failed; i++) {
        const Obj *o = pool_get(cx->pool, f.ids.ids[i]);
        if (!o) continue; /* deleted by an earlier round */
        if (f.nvars) memcpy(cx->vars, f.snap + i * (size_t)f.nvars, (size_t)f.nvars * sizeof *cx->vars);
        for (int k = 1; k < call->n && !cx->failed; k++) eval_verbs(cx, call->kid[k], o);
    }
    if (f.nvars) memcpy(cx->vars, outer, (size_t)f.nvars * sizeof *outer);
    cx->trail_len = mark;
    free(outer);
    free(f.ids.ids);
    free(f.snap);
}

/* Whether the text is its own normal form (words between single spaces,
 * nothing else), and then how many words it has: the players' list,
 * written by the rules, mostly is, and needs no copy.  Scanned with the
 * C library's string functions, which take many bytes a step: the list
 * is long. */
static bool normal_list(const char *s, size_t n, uint64_t *count)
{
    if (n == 0 || s[0] == ' ' || s[n - 1] == ' ') return false;
    if (strlen(s) != n || strcspn(s, "\t\n\r,") != n) return false;
    uint64_t c = 1;
    for (const char *p = s, *end = s + n; (p = memchr(p, ' ', (size_t)(end - p))) != NULL; p++, c++)
        if (p[1] == ' ') return false; /* p + 1 < end: the last byte is not a space */
    *count = c;
    return true;
}

/* Recipients as one normalised list: words separated by single spaces.
 * The last list is remembered with its normal form and its length, as
 * favor sends every announcement to the same list of all players. */
static Sym recipients(Ctx *cx, Sym r)
{
    if (r == cx->rcpt_in && r != SYM_EMPTY) return cx->rcpt_out;
    if (!meter_text(cx, sym_len(r))) return SYM_EMPTY;
    uint64_t count = 0;
    if (normal_list(sym_text(r), sym_len(r), &count)) {
        cx->rcpt_in = cx->rcpt_out = r;
        cx->rcpt_count = count;
        return r;
    }
    Buf b = {0};
    const char *p = sym_text(r), *w;
    size_t n;
    while (word_next(&p, &w, &n, true)) {
        if (b.len) buf_putc(&b, ' ');
        buf_add(&b, w, n);
        count++;
    }
    Sym s = sym_intern(buf_str(&b), b.len);
    buf_free(&b);
    cx->rcpt_in = r;
    cx->rcpt_out = s;
    cx->rcpt_count = count;
    return s;
}

/* A message queued for the list recipients() last made (so that
 * cx->rcpt_count is its length): deliveries are metered, one per
 * recipient, and the memory of the queue entry. */
static bool meter_message(Ctx *cx)
{
    uint64_t n = cx->rcpt_count;
    if (!meter_work(cx, 1)) return false;
    cx->meter.deliveries += n;
    if (cx->meter.deliveries > cx->meter.deliveries_max) return meter_trip(cx, "maxDeliveries");
    return meter_memory(cx, 32); /* the list itself is one shared text */
}

static void do_send(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym to = recipients(cx, arg(cx, call, 0, cand));
    /* the scam search reads no text when its goal does not: it is left
     * out where composing it could not have failed (engine.h) */
    Sym text = cx->mute_texts && call->kid[1]->sure ? SYM_EMPTY : arg(cx, call, 1, cand);
    if (!cx->failed && to != SYM_EMPTY && meter_message(cx)) msg_push(cx->queue, to, text);
}

/* A message is a publication: it is kept in the outbox, forwarded, quoted
 * in replies.  So an object sent in one never shows a private attribute,
 * not even to its owner (who reads it with show --as or a token). */
static void do_sendObject(Ctx *cx, const Node *call, const Obj *cand)
{
    Sym to = recipients(cx, arg(cx, call, 0, cand));
    ObjId id = eval_first_match(cx, call->kid[1]);
    /* muted, as do_send's: printing the object cannot fail but by the meter */
    bool mute = cx->mute_texts && call->kid[2]->sure;
    Sym header = mute ? SYM_EMPTY : arg(cx, call, 2, cand);
    if (cx->failed || to == SYM_EMPTY || !meter_message(cx)) return;
    if (mute) {
        msg_push(cx->queue, to, SYM_EMPTY);
        return;
    }
    Buf b = {0};
    buf_add(&b, sym_text(header), sym_len(header));
    buf_putc(&b, '\n');
    if (id) fmt_print_obj(&b, pool_get(cx->pool, id), publication_hides, &cx->private_attrs);
    else buf_puts(&b, "(no such object)\n");
    if (meter_text(cx, b.len)) msg_push(cx->queue, to, sym_intern(buf_str(&b), b.len));
    buf_free(&b);
}

static void do_sendNow(Ctx *cx, const Node *call, const Obj *cand)
{
    if (!meter_work(cx, cx->queue->len) || !meter_memory(cx, 16 * (uint64_t)cx->queue->len)) return;
    for (size_t i = 0; i < cx->queue->len; i++) msg_push(cx->sent, cx->queue->m[i].to, cx->queue->m[i].text);
    cx->queue->len = 0;
}

static void do_halt(Ctx *cx, const Node *call, const Obj *cand) { cx->halt = true; }

/* ---- the table ---- */

#define VERB(name, ...) [BI_##name] = {NULL, do_##name},
#define FUNC(name, ...) [BI_##name] = {fn_##name, NULL},
const Handler handlers[NBUILTINS] = {
#include "lang_builtins_list.h"
};
#undef VERB
#undef FUNC
