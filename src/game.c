/*
 * game.c - events: journal, run, commit (game.h).
 *
 * Test hooks, read from the environment, for the suites that check what
 * happens when an event goes wrong (docs/mechanics.md): NOMIC_TEST_CRASH_EVENT=N
 * aborts the program while it runs event N, NOMIC_TEST_STALL_EVENT=N[:S] makes
 * it wait S seconds (60) there, to be killed or to have its disk filled;
 * store.c's NOMIC_TEST_FAIL_COMMIT=N
 * makes the commit of event N fail as a full disk would.
 */
#include "game.h"
#include "mechanics.h"
#include "mailin.h"

#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objfmt.h"
#include "prose.h"
#include "rulesets.h"

const char *outcome_name(EventOutcome s)
{
    static const char *const names[] = {
        [OUTCOME_APPLIED] = "applied", [OUTCOME_NO_EFFECT] = "no effect", [OUTCOME_REFUSED] = "refused",
        [OUTCOME_LOOP] = "loop",       [OUTCOME_HALTED] = "halted",
    };
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void outcome_free(Outcome *o)
{
    free(o->message);
    event_result_free(&o->er);
    code_notes_free(&o->code);
    memset(o, 0, sizeof *o);
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void seed_rng(Game *g, uint64_t seed)
{
    g->seed = seed;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) g->eng->rng[i] = splitmix(&x);
}

/* Every open game: the interned texts are shared by the whole process, so
 * the collector must see what each of them holds. */
static Game **open_games;
static size_t nopen, opencap;

static Game *game_new(void)
{
    Game *g = xcalloc(1, sizeof *g);
    g->pool = pool_new();
    g->eng = engine_new(g->pool);
    GROW(open_games, nopen, opencap);
    open_games[nopen++] = g;
    return g;
}

Game *game_memory(uint64_t seed)
{
    Game *g = game_new();
    seed_rng(g, seed);
    return g;
}

void game_close(Game *g)
{
    if (!g) return;
    for (size_t i = 0; i < nopen; i++)
        if (open_games[i] == g) open_games[i] = open_games[--nopen];
    if (!nopen) {
        free(open_games);
        open_games = NULL;
        opencap = 0;
    }
    engine_free(g->eng);
    pool_free(g->pool);
    store_close(g->st);
    free(g->last_mover);
    free(g->fired);
    free(g->winner_note);
    sugar_free(g->sugar);
    free(g);
}

char *game_file_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return xstrndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

bool addressed_to(Sym to, const char *addr)
{
    return words_include(sym_text(to), addr, strlen(addr), false);
}

/* ---- initial sets ---- */

bool game_load_set(Game *g, const char *label, const char *text, Buf *err)
{
    FmtDoc doc = {0};
    bool ok = fmt_read(text, strlen(text), label, &doc, err);
    for (int i = 0; ok && i < doc.n; i++) {
        const FmtObj *fo = &doc.objs[i];
        ObjId id;
        if (fo->objectId) {
            if ((ObjId)fo->objectId < g->pool->next_id) {
                buf_printf(err, "%s:%d:1: objectId %ld is already taken (the next free id is %u)", label, fo->line,
                           fo->objectId, g->pool->next_id);
                ok = false;
                break;
            }
            id = (ObjId)fo->objectId;
            if (!pool_create_at(g->pool, id)) {
                buf_printf(err, "%s:%d:1: objectId %ld is beyond the last id an object may have", label, fo->line,
                           fo->objectId);
                ok = false;
                break;
            }
        } else {
            id = pool_create(g->pool);
        }
        for (int k = 0; k < fo->n; k++) pool_set(g->pool, id, fo->attrs[k].name, fo->attrs[k].value);
    }
    fmt_doc_free(&doc);
    engine_invalidate(g->eng);
    return ok;
}

/* ---- persistence of the game's own state ---- */

/* The game's own state, in the event's transaction: false when a write
 * failed, and the event then fails whole (a generator state that replay
 * would not match is never committed). */
static bool save_meta(Game *g)
{
    char v[128];
    snprintf(v, sizeof v, "%016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64, g->eng->rng[0], g->eng->rng[1],
             g->eng->rng[2], g->eng->rng[3]);
    bool ok = store_meta_set(g->st, "rng", v);
    snprintf(v, sizeof v, "%u", g->pool->next_id);
    ok = ok && store_meta_set(g->st, "next_id", v);
    ok = ok && store_meta_set(g->st, "halted", g->halted ? "1" : "0");
    if (g->have_timer) snprintf(v, sizeof v, "%" PRId64, g->next_timer);
    else v[0] = 0;
    ok = ok && store_meta_set(g->st, "next_timer", v);
    ok = ok && store_meta_set(g->st, "last_mover", g->last_mover ? g->last_mover : "");
    if (g->winner_note) ok = ok && store_meta_set(g->st, "loop_winner", g->winner_note);
    return ok;
}

static bool load_meta(Game *g)
{
    char *v;
    int got;
    if ((got = store_meta_read(g->st, "rng", &v)) > 0)
        sscanf(v, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64, &g->eng->rng[0], &g->eng->rng[1], &g->eng->rng[2],
               &g->eng->rng[3]);
    free(v);
    if (got >= 0 && (got = store_meta_read(g->st, "next_id", &v)) > 0) {
        unsigned long n = strtoul(v, NULL, 10);
        if (n > g->pool->next_id) g->pool->next_id = (ObjId)n;
    }
    free(v);
    if (got >= 0 && (got = store_meta_read(g->st, "halted", &v)) > 0) g->halted = strcmp(v, "1") == 0;
    free(v);
    if (got >= 0 && (got = store_meta_read(g->st, "next_timer", &v)) > 0) {
        g->have_timer = *v != 0;
        g->next_timer = g->have_timer ? strtoll(v, NULL, 10) : 0;
    }
    free(v);
    if (got >= 0 && (got = store_meta_read(g->st, "last_mover", &v)) > 0 && *v) {
        g->last_mover = v;
        v = NULL;
    }
    free(v);
    if (got >= 0 && (got = store_meta_read(g->st, "seed", &v)) > 0) g->seed = strtoull(v, NULL, 10);
    free(v);
    if (got >= 0 && (got = store_meta_read(g->st, "created", &v)) > 0) g->eng->created = strtoll(v, NULL, 10);
    free(v);
    if (got >= 0 && (got = store_meta_read(g->st, "sugar", &v)) > 0) {
        Buf err = {0};
        g->sugar = *v ? sugar_parse(v, "sugar", &err) : NULL; /* checked when it was set */
        buf_free(&err);
    }
    free(v);
    return got >= 0;
}

static char *export_pool(const Pool *p)
{
    Buf b = {0};
    for (uint32_t i = idset_seek(&p->all, 0, 1); i < p->all.len; i = idset_seek(&p->all, i + 1, 0)) {
        if (b.len) buf_putc(&b, '\n');
        fmt_print_obj(&b, pool_get(p, p->all.ids[i]), NULL, NULL);
    }
    return buf_take(&b);
}

/* The published commitment to the generator's seed: the SHA-256 of a text
 * naming the seed and a random salt (so a small seed cannot be found by
 * trying them all).  `nomic reveal` gives both; anyone can recompute it. */
char *game_commitment(uint64_t seed, const char *salt)
{
    char text[96];
    snprintf(text, sizeof text, "nomic seed %" PRIu64 " salt %s", seed, salt);
    return sha256_hex(text);
}

static uint64_t random_seed(void)
{
    uint64_t s = 0;
    if (!random_bytes(&s, sizeof s)) s = 0;
    return s ? s : (uint64_t)time_now_wall() * 6364136223846793005ULL + (uint64_t)getpid();
}

Game *game_init(const char *path, const char **sets, int nsets, bool have_seed, uint64_t seed, int64_t time,
                bool force, Buf *err)
{
    Game *g = game_new();
    seed_rng(g, have_seed ? seed : random_seed());
    /* random even when the seed is given: a seed may be guessed, the key
     * must not be */
    uint64_t key[2] = {random_seed(), random_seed()};
    pool_set_hash_key(g->pool, key);
    Buf sugar = {0};
    for (int i = 0; i < nsets; i++) {
        const char *label;
        char *sug = NULL;
        char *text = ruleset_load(sets[i], &label, &sug);
        if (sug) {
            if (sugar.len) buf_putc(&sugar, '\n');
            buf_puts(&sugar, sug);
            free(sug);
        }
        if (!text) {
            buf_printf(err, "--ruleset %s: not a shipped set (", sets[i]);
            for (const ShippedSet *s = shipped_sets; s->name; s++)
                buf_printf(err, "%s%s", s == shipped_sets ? "" : ", ", s->name);
            buf_puts(err, ") and not a readable file");
            buf_free(&sugar);
            game_close(g);
            return NULL;
        }
        bool ok = game_load_set(g, label, text, err);
        free(text);
        if (!ok) {
            buf_free(&sugar);
            game_close(g);
            return NULL;
        }
    }
    if (sugar.len && !(g->sugar = sugar_parse(buf_str(&sugar), "sugar", err))) {
        buf_free(&sugar);
        game_close(g);
        return NULL;
    }
    g->st = store_open(path, true, force, err);
    if (!g->st) {
        buf_free(&sugar);
        game_close(g);
        return NULL;
    }
    bool ok = store_begin(g->st);
    for (int i = 0; ok && i < nsets; i++) {
        const char *label;
        char *text = ruleset_load(sets[i], &label, NULL);
        ok = text && store_add_initial(g->st, label, text);
        free(text);
    }
    char v[32];
    snprintf(v, sizeof v, "%" PRIu64, g->seed);
    ok = ok && store_meta_set(g->st, "seed", v);
    char salt[33];
    snprintf(salt, sizeof salt, "%016" PRIx64 "%016" PRIx64, random_seed(), random_seed());
    char *commitment = game_commitment(g->seed, salt);
    ok = ok && store_meta_set(g->st, "seed_salt", salt) && store_meta_set(g->st, "seed_commitment", commitment);
    free(commitment);
    char hk[33];
    snprintf(hk, sizeof hk, "%016" PRIx64 "%016" PRIx64, key[0], key[1]);
    ok = ok && store_meta_set(g->st, "hash_key", hk);
    g->eng->created = time;
    snprintf(v, sizeof v, "%" PRId64, time);
    ok = ok && store_meta_set(g->st, "created", v);
    ok = ok && store_meta_set(g->st, "sugar", buf_str(&sugar));
    buf_free(&sugar);
    for (uint32_t i = idset_seek(&g->pool->all, 0, 1); ok && i < g->pool->all.len; i = idset_seek(&g->pool->all, i + 1, 0))
        ok = store_put_object(g->st, pool_get(g->pool, g->pool->all.ids[i]));
    char *snap = export_pool(g->pool);
    ok = ok && store_put_snapshot(g->st, 0, snap);
    free(snap);
    ok = ok && save_meta(g);
    if (!ok || !store_commit(g->st)) {
        buf_printf(err, "%s: %s", path, store_error(g->st));
        game_close(g);
        return NULL;
    }
    return g;
}

static bool recover(Game *g);

/* The last event whose outcome is committed: the state the objects are in
 * (the journal may hold a later one, received and being processed); -1
 * when the store failed. */
static long settled_event(Store *st)
{
    char *v;
    int got = store_meta_read(st, "settled", &v);
    long n = got > 0 ? strtol(v, NULL, 10) : got;
    free(v);
    return n;
}

static bool queue_row(void *ud, const OutRow *r)
{
    Game *g = ud;
    if (strcmp(r->state, "queued") == 0) msg_push(&g->eng->queue, sym_cstr(r->to), sym_cstr(r->text));
    return true;
}

/* The key of the state hash, kept private in the meta like the seed.  A
 * game made before there was one has none: its hash is then keyed with
 * zeros (and the hashes it journaled before do not replay). */
static bool load_hash_key(Game *g)
{
    uint64_t key[2] = {0, 0};
    char *v;
    int got = store_meta_read(g->st, "hash_key", &v);
    if (got > 0 && sscanf(v, "%16" SCNx64 "%16" SCNx64, &key[0], &key[1]) != 2) key[0] = key[1] = 0;
    free(v);
    pool_set_hash_key(g->pool, key);
    return got >= 0;
}

/* The pool, the game's own state and the messages waiting for sendNow,
 * as the store has them. */
static bool load_game(Game *g, Buf *err)
{
    /* one read transaction: the objects, the meta and the queue as one
     * committed event left them, whatever another program writes meanwhile */
    if (!store_begin_read(g->st)) {
        buf_printf(err, "%s", store_error(g->st));
        return false;
    }
    bool ok = load_hash_key(g);
    if (!ok) buf_printf(err, "%s", store_error(g->st));
    ok = ok && store_load_objects(g->st, g->pool, err);
    if (ok) {
        g->known_event = settled_event(g->st);
        engine_invalidate(g->eng);
        if (!(ok = g->known_event >= 0 && load_meta(g) && store_each_queued(g->st, queue_row, g)))
            buf_printf(err, "%s", store_error(g->st));
    }
    /* a read transaction: its end can fail only as the reads did */
    if (!store_commit(g->st) && ok) {
        buf_printf(err, "%s", store_error(g->st));
        ok = false;
    }
    return ok;
}

Game *game_open(const char *path, Buf *err)
{
    Store *st = store_open(path, false, false, err);
    if (!st) return NULL;
    Game *g = game_new();
    g->st = st;
    if (!load_game(g, err)) {
        game_close(g);
        return NULL;
    }
    /* an event left half done is finished by whoever next takes the lock;
     * if another program holds it, that program is busy with it */
    bool ok = true;
    if (store_lock(st, 0)) {
        ok = recover(g);
        store_unlock(st);
    }
    if (!ok) {
        buf_printf(err, "%s: %s", path, store_error(st));
        game_close(g);
        return NULL;
    }
    return g;
}

/* Loads the game again from the store, when another program wrote it. */
static bool game_reload(Game *g, Buf *err)
{
    engine_free(g->eng);
    pool_free(g->pool);
    sugar_free(g->sugar);
    free(g->last_mover);
    g->sugar = NULL;
    g->last_mover = NULL;
    g->pool = pool_new();
    g->eng = engine_new(g->pool);
    g->halted = g->have_timer = false;
    g->reload = false;
    if (load_game(g, err) && recover(g)) return true;
    if (!err->len) buf_puts(err, store_error(g->st));
    g->reload = true; /* what was loaded in part is not the game */
    return false;
}

/* Another connection wrote the database: a new event means a new state;
 * otherwise only the sugar can have changed (settings and tokens are read
 * when used, and the outbox's deliveries are no part of the game). */
static bool game_refresh(Game *g, Buf *err)
{
    long settled = settled_event(g->st);
    if (settled < 0) {
        buf_puts(err, store_error(g->st));
        return false;
    }
    if (g->reload || settled != g->known_event) return game_reload(g, err);
    char *v;
    if (store_meta_read(g->st, "sugar", &v) < 0) {
        buf_puts(err, store_error(g->st));
        return false;
    }
    sugar_free(g->sugar);
    g->sugar = v && *v ? sugar_parse(v, "sugar", err) : NULL;
    free(v);
    return true;
}

bool game_lock(Game *g, Buf *err)
{
    if (!g->st) return true;
    if (!store_lock(g->st, LOCK_WAIT_MS)) {
        buf_puts(err, store_error(g->st));
        return false;
    }
    if ((g->reload || store_changed_elsewhere(g->st)) && !game_refresh(g, err)) {
        store_unlock(g->st);
        return false;
    }
    return true;
}

void game_unlock(Game *g)
{
    if (g->st) store_unlock(g->st);
}

/* ---- one event ---- */

static int cmp_id(const void *a, const void *b)
{
    ObjId x = *(const ObjId *)a, y = *(const ObjId *)b;
    return x < y ? -1 : x > y;
}

static void hex_hash(uint64_t h, char out[17]) { snprintf(out, 17, "%016" PRIx64, h); }

/* Is the test hook `name` set to this event? */
static bool test_hook(const char *name, long event)
{
    const char *v = getenv(name);
    return v && *v && event > 0 && strtol(v, NULL, 10) == event;
}

/* NOMIC_TEST_STALL_EVENT=N:SECONDS, or 60 seconds. */
static unsigned stall_seconds(void)
{
    const char *colon = strchr(getenv("NOMIC_TEST_STALL_EVENT"), ':');
    long s = colon ? strtol(colon + 1, NULL, 10) : 60;
    return s > 0 && s < 3600 ? (unsigned)s : 60;
}

/* Writes the event's outcome and effects in one transaction. */
static bool commit_event(Game *g, Outcome *o)
{
    if (!g->st) return true;
    Store *st = g->st;
    if (o->failed_read) { /* store_error says which */
        g->reload = true;
        return false;
    }
    bool ok = store_begin(st);
    if (o->ran && o->er.status != EV_RUNAWAY) {
        Pool *p = g->pool;
        ObjId *ids = xmalloc((p->undo_len ? p->undo_len : 1) * sizeof *ids);
        for (size_t i = 0; i < p->undo_len; i++) ids[i] = p->undo[i].id;
        qsort(ids, p->undo_len, sizeof *ids, cmp_id);
        Buf b = {0};
        for (size_t i = 0; ok && i < p->undo_len; i++) {
            if (i && ids[i] == ids[i - 1]) continue;
            const Obj *obj = pool_get(p, ids[i]);
            if (obj) {
                buf_reset(&b);
                fmt_print_obj(&b, obj, NULL, NULL);
                ok = store_put_object(st, obj) && store_put_change(st, o->event, ids[i], buf_str(&b));
            } else {
                ok = store_delete_object(st, ids[i]) && store_put_change(st, o->event, ids[i], NULL);
            }
        }
        buf_free(&b);
        free(ids);
        /* the outbox: what sendNow handed over, and what still waits */
        if (g->summing && g->answering && o->status != OUTCOME_REFUSED && o->status != OUTCOME_LOOP)
            game_answer_summary(g, g->answering->sender, g->summing, g->reading, o);
        ok = ok && store_outbox_drop_queued(st) && game_hand_over(g, o);
        for (size_t i = 0; ok && i < g->eng->queue.len; i++)
            ok = store_outbox_add(st, o->event, sym_text(g->eng->queue.m[i].to), sym_text(g->eng->queue.m[i].text),
                                  "queued", NULL, o->time) > 0;
        /* a snapshot once the changes since the last one outnumber the
         * objects: writing the pool then costs O(1) per change */
        g->changes_since_snapshot += p->undo_len;
        if (ok && g->changes_since_snapshot >= SNAPSHOT_MIN_CHANGES &&
            g->changes_since_snapshot >= pool_size(p)) {
            g->changes_since_snapshot = 0;
            char *snap = export_pool(p);
            ok = store_put_snapshot(st, o->event, snap);
            free(snap);
        }
    }
    if (ok && o->status == OUTCOME_REFUSED && g->answering) ok = game_answer_refusal(g, g->answering, o);
    if (ok && g->token_to) ok = game_mail_token(g, g->token_to, o->event, o->time);
    if (ok) {
        save_meta(g);
        char n[32];
        snprintf(n, sizeof n, "%ld", o->event);
        ok = store_meta_set(st, "settled", n);
    }
    if (ok) {
        const char *trace = o->ran ? buf_str(&o->er.trace) : NULL;
        const char *tj = o->ran ? buf_str(&o->er.trace_json) : NULL;
        ok = store_event_outcome(st, o->event, outcome_name(o->status), o->message, trace, tj, o->ran && o->er.status != EV_RUNAWAY ? o->hash : NULL);
    }
    if (!ok || !store_commit(st)) {
        store_rollback(st);
        /* the pool, the generator and the queue in memory hold an event
         * the store did not keep: the game is loaded again before the next
         * event, which finishes this one (recover) */
        g->reload = true;
        return false;
    }
    g->known_event = o->event;
    return true;
}

static const Sym *reserved_attrs(int *n)
{
    static Sym r[4];
    r[0] = SYM_type;
    r[1] = SYM_moveSender;
    r[2] = SYM_moveTimeStamp;
    r[3] = SYM_moveBatch;
    *n = 4;
    return r;
}

/* Checks a parsed move body; a message saying what is wrong, or NULL. */
static char *validate_moves(const FmtDoc *doc)
{
    if (doc->n == 0) return xstrdup("no move found in the message (write attributes as name: value lines)");
    if (doc->n > MAX_MOVES) {
        Buf b = {0};
        buf_printf(&b, "the message holds %d moves; a message may hold at most %d", doc->n, MAX_MOVES);
        return buf_take(&b);
    }
    int nr;
    const Sym *res = reserved_attrs(&nr);
    Buf b = {0};
    for (int i = 0; i < doc->n; i++) {
        const FmtObj *fo = &doc->objs[i];
        if (fo->objectId) buf_printf(&b, "move %d (line %d): objectId is assigned by the engine; ", i + 1, fo->line);
        for (int k = 0; k < fo->n; k++)
            for (int r = 0; r < nr; r++)
                if (fo->attrs[k].name == res[r])
                    buf_printf(&b, "move %d (line %d): %s is set by the Mechanics, not by the sender; ", i + 1,
                               fo->attrs[k].pos[0].line, sym_text(res[r]));
    }
    if (!b.len) return NULL;
    b.len -= 2;
    b.s[b.len] = 0;
    return buf_take(&b);
}

/* What an event may change besides the pool's objects, kept to put back
 * when the event is undone: a runaway, or any dry run (`try`, the timer
 * probe).  Nothing that is not journaled may move the counters that
 * replay repeats (next_id, the generator) nor what the meta keeps (the
 * timer, halted, the last mover, the loop's winner). */
typedef struct Saved {
    size_t mark;
    ObjId next_id;   /* shadow firings reserve ids that a runaway never uses */
    uint64_t rng[4];
    MsgList queue;
    bool halted, have_timer;
    int64_t next_timer;
    char *last_mover, *winner_note;
} Saved;

static void copy_queue(MsgList *to, const MsgList *from)
{
    *to = (MsgList){0};
    for (size_t i = 0; i < from->len; i++) msg_push(to, from->m[i].to, from->m[i].text);
}

static void save_state(Game *g, Saved *s)
{
    g->pool->logging = true;
    s->mark = pool_mark(g->pool);
    s->next_id = g->pool->next_id;
    memcpy(s->rng, g->eng->rng, sizeof s->rng);
    copy_queue(&s->queue, &g->eng->queue);
    s->halted = g->halted;
    s->have_timer = g->have_timer;
    s->next_timer = g->next_timer;
    s->last_mover = g->last_mover ? xstrdup(g->last_mover) : NULL;
    s->winner_note = g->winner_note ? xstrdup(g->winner_note) : NULL;
}

/* A dry run draws from a throwaway generator: were it the game's, `try`
 * would show the numbers the next real events will draw. */
static void throwaway_rng(Game *g)
{
    uint64_t x = random_seed();
    for (int i = 0; i < 4; i++) g->eng->rng[i] = splitmix(&x);
}

/* Undoes the event's effects on the pool, the counters and the queue.  It
 * may run twice (a dry run that runs away): the saved queue is copied, not
 * moved. */
static void restore_state(Game *g, Saved *s)
{
    pool_undo_to(g->pool, s->mark);
    g->pool->next_id = s->next_id;
    memcpy(g->eng->rng, s->rng, sizeof s->rng);
    msg_free(&g->eng->queue);
    copy_queue(&g->eng->queue, &s->queue);
    engine_invalidate(g->eng);
}

/* After a dry run, the game's own state too is as it was.  (A real event
 * that runs away keeps its sender as the last mover, as before.) */
static void restore_meta(Game *g, Saved *s)
{
    g->halted = s->halted;
    g->have_timer = s->have_timer;
    g->next_timer = s->next_timer;
    free(g->last_mover);
    g->last_mover = s->last_mover;
    free(g->winner_note);
    g->winner_note = s->winner_note;
    s->last_mover = s->winner_note = NULL;
}

static void saved_free(Saved *s)
{
    msg_free(&s->queue);
    free(s->last_mover);
    free(s->winner_note);
}

static void loop_meta_rule(Game *g, Outcome *o)
{
    const char *who = g->last_mover ? g->last_mover : "(nobody has moved)";
    Buf b = {0};
    buf_printf(&b, "The game state repeated within one event: a verifiable loop. By the meta-rule the last player "
                   "to submit a move, %s, wins, and the game has halted.", who);
    free(o->message);
    o->message = xstrdup(buf_str(&b));
    free(g->winner_note);
    g->winner_note = xstrdup(who);
    char *all = g->st ? store_all_senders(g->st) : NULL;
    if (g->st && !all) o->failed_read = true; /* the notice would miss players: the event fails */
    Sym to = sym_cstr(all && *all ? all : who);
    msg_push(&o->er.sent, to, sym_intern(buf_str(&b), b.len));
    free(all);
    buf_free(&b);
    g->halted = true;
}

/* Runs the rules on the pool as the event left it and settles the outcome. */
/* Notes a rule that fired (the engine's hook), for engine_why_not. */
static void note_fired(void *ud, ObjId rule, const Prog *p, const Sym *vars, bool changed)
{
    Game *g = ud;
    for (size_t i = 0; i < g->nfired; i++)
        if (g->fired[i] == rule) return;
    if (g->nfired == 64) return; /* enough to tell a move's readers */
    GROW(g->fired, g->nfired, g->fired_cap);
    g->fired[g->nfired++] = rule;
}

static EventOutcome settle(Game *g, Outcome *o, Saved *sv, bool dry)
{
    if (!dry && test_hook("NOMIC_TEST_CRASH_EVENT", o->event)) abort();
    if (!dry && test_hook("NOMIC_TEST_STALL_EVENT", o->event)) sleep(stall_seconds());
    g->nfired = 0;
    bool noting = !g->eng->hook; /* (a benchmark may hold the hook) */
    if (noting) {
        g->eng->hook = note_fired;
        g->eng->hook_ud = g;
    }
    engine_run(g->eng, o->time, &o->er);
    if (noting) g->eng->hook = NULL;
    o->ran = true;
    EventOutcome status = OUTCOME_APPLIED;
    if (o->er.status == EV_RUNAWAY) {
        restore_state(g, sv);
        o->message = xstrdup(o->er.message);
        return OUTCOME_REFUSED;
    }
    if (o->er.status == EV_LOOP) {
        loop_meta_rule(g, o);
        status = OUTCOME_LOOP;
    } else if (o->er.halt && !dry) {
        g->halted = true;
        o->message = xstrdup("halt(): the game has ended; later moves are refused");
        status = OUTCOME_HALTED;
    }
    g->have_timer = o->er.have_timer;
    g->next_timer = o->er.next_timer;
    hex_hash(pool_public_hash(g->pool), o->hash);
    return status;
}

static bool finish(Game *g, Outcome *o, Saved *sv, EventOutcome status, bool dry)
{
    bool ok = true;
    o->status = status;
    if (dry) {
        restore_state(g, sv);
        restore_meta(g, sv);
    } else {
        ok = commit_event(g, o);
    }
    saved_free(sv);
    pool_forget_undo(g->pool);
    g->pool->logging = false;
    return ok;
}

/* Did the rules change nothing but the moves themselves (ids first ..
 * first + n - 1), from undo mark `mark` on? */
static bool only_moves_changed(const Pool *p, size_t mark, ObjId first, int n)
{
    for (size_t i = mark; i < p->undo_len; i++)
        if (p->undo[i].id < first || p->undo[i].id >= first + (ObjId)n) return false;
    return true;
}

#define WHY_MAX_MOVES 3 /* moves of a message explained */

/* A move that changed nothing: why, as the rules read it (engine_why_not),
 * in the event's message.  A move the rules deleted is put back for the
 * reading, then taken out again: nothing of the game changes. */
static void explain_no_effect(Game *g, Outcome *o, const FmtDoc *doc, size_t run_mark, ObjId first, Sym from,
                              Sym when, Sym batch)
{
    Buf b = {0};
    buf_puts(&b, "no effect: the rules changed nothing but the move itself");
    for (int i = 0; i < doc->n && i < WHY_MAX_MOVES; i++) {
        ObjId id = first + (ObjId)i;
        size_t mark = pool_mark(g->pool);
        ObjId next = g->pool->next_id;
        if (!pool_get(g->pool, id)) {
            /* as it was when the rules deleted it (they may have marked it) */
            const Obj *was = NULL;
            for (size_t u = run_mark; u < g->pool->undo_len; u++)
                if (g->pool->undo[u].kind == UNDO_DELETE && g->pool->undo[u].id == id) was = g->pool->undo[u].saved;
            id = pool_create(g->pool);
            pool_set(g->pool, id, SYM_type, SYM_move);
            pool_set(g->pool, id, SYM_moveSender, from);
            pool_set(g->pool, id, SYM_moveTimeStamp, when);
            pool_set(g->pool, id, SYM_moveBatch, batch);
            for (int k = 0; k < doc->objs[i].n; k++)
                pool_set(g->pool, id, doc->objs[i].attrs[k].name, doc->objs[i].attrs[k].value);
            for (uint32_t k = 0; was && k < was->n; k++)
                if (was->attrs[k].name != SYM_objectId) pool_set(g->pool, id, was->attrs[k].name, was->attrs[k].value);
        }
        if (doc->n > 1) buf_printf(&b, "\nmove %d:", i + 1);
        Buf why = {0};
        engine_why_not(g->eng, o->time, id, g->fired, g->nfired, &why);
        for (const char *p = buf_str(&why); *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            buf_printf(&b, "\n  %.*s", (int)n, p);
            p += n + (nl != NULL);
        }
        buf_free(&why);
        if (pool_mark(g->pool) != mark) {
            pool_undo_to(g->pool, mark);
            g->pool->next_id = next;
            engine_invalidate(g->eng);
        }
    }
    if (doc->n > WHY_MAX_MOVES) buf_printf(&b, "\n(%d more moves not explained)", doc->n - WHY_MAX_MOVES);
    char *old = o->message;
    o->message = old ? NULL : buf_take(&b);
    if (old) {
        Buf c = {0};
        buf_printf(&c, "%s; %s", buf_str(&b), old);
        o->message = buf_take(&c);
        free(old);
    }
    buf_free(&b);
}

/* The check of the moves' rule code, to their sender, after what the
 * rules sent (an event undone whole answers with its refusal only). */
static void answer_code_notes(Outcome *o, const char *sender)
{
    char *text = o->status == OUTCOME_REFUSED ? NULL : code_notes_text(&o->code);
    if (text) msg_push(&o->er.sent, sym_cstr(sender), sym_cstr(text));
    free(text);
}

/* Turns a message body into move objects and runs the rules. */
static EventOutcome process_move(Game *g, const char *sender, int64_t time, int64_t stamp, const char *body, bool dry, Outcome *o,
                                Saved *sv)
{
    FmtDoc doc = {0};
    Buf err = {0};
    EventOutcome status = OUTCOME_REFUSED;
    if (g->halted) {
        o->message = xstrdup("the game has ended; no more moves are accepted");
    } else if (!fmt_read(body, strlen(body), "move", &doc, &err)) {
        o->message = buf_take(&err);
    } else if ((o->message = validate_moves(&doc))) {
    } else {
        free(g->last_mover);
        g->last_mover = xstrdup(sender);
        /* the code is checked against the settings as the move finds them */
        code_check_moves(g->pool, &doc, &o->code);
        Sym from = sym_cstr(sender), when = sym_from_long((long)stamp);
        Sym batch = SYM_EMPTY;
        ObjId first = 0;
        for (int i = 0; i < doc.n; i++) {
            ObjId id = pool_create(g->pool);
            if (i == 0) first = id;
            if (i == 0) batch = pool_get(g->pool, id)->idsym; /* the batch is named by its first move */
            pool_set(g->pool, id, SYM_type, SYM_move);
            pool_set(g->pool, id, SYM_moveSender, from);
            pool_set(g->pool, id, SYM_moveTimeStamp, when);
            pool_set(g->pool, id, SYM_moveBatch, batch);
            for (int k = 0; k < doc.objs[i].n; k++)
                pool_set(g->pool, id, doc.objs[i].attrs[k].name, doc.objs[i].attrs[k].value);
        }
        size_t mark = pool_mark(g->pool);
        status = settle(g, o, sv, dry);
        if (status == OUTCOME_APPLIED && only_moves_changed(g->pool, mark, first, doc.n)) {
            status = OUTCOME_NO_EFFECT;
            explain_no_effect(g, o, &doc, mark, first, from, when, batch);
        }
        answer_code_notes(o, sender);
    }
    fmt_doc_free(&doc);
    buf_free(&err);
    return status;
}

/* Frees the interned texts that nothing uses any more (the messages of old
 * events, the times of processed moves), once they outnumber the live ones:
 * a game's memory follows its state, not its history.  Between events the
 * pools and engines of the open games are the only holders of Syms
 * (value.h). */
void game_collect(Game *g, bool force)
{
    if (!force && !sym_gc_due()) return;
    for (size_t i = 0; i < nopen; i++) pool_compact(open_games[i]->pool);
    sym_gc_begin();
    for (size_t i = 0; i < nopen; i++) {
        pool_mark_syms(open_games[i]->pool);
        engine_mark_syms(open_games[i]->eng);
    }
    sym_gc_end();
}

static bool run_due_timers(Game *g, int64_t time, bool dry, OutcomeFn fn, void *ud);

/* Journals a received message, with its key (a mail's identity, or NULL)
 * in the same transaction: a mail is either journaled and known, or
 * neither.  Its number, or -1. */
static long journal_message(Store *st, const char *sender, int64_t time, int64_t stamp, const char *moves,
                            const char *raw, const char *key)
{
    if (!key) return store_journal_received(st, "move", time, sender, moves, raw, stamp);
    if (!store_begin(st)) return -1;
    long n = store_journal_received(st, "move", time, sender, moves, raw, stamp);
    if (n > 0 && store_mail_taken(st, key, n) && store_commit(st)) return n;
    store_rollback(st);
    return -1;
}

/* Adds a note of the Mechanics to the event's message. */
static void note_outcome(Outcome *o, const char *text)
{
    Buf b = {0};
    if (o->message) buf_printf(&b, "%s%s", o->message, strchr(o->message, '\n') ? "\n" : "; ");
    buf_puts(&b, text);
    free(o->message);
    o->message = buf_take(&b);
}

/* The journal's record of a message or a timer before it runs, committed
 * without waiting for the disk: nothing is acknowledged until the event's
 * outcome is committed, and that commit's fsync takes this one down with
 * it.  One fsync per event, not two.  Its number, or -1. */
static long journal_lazily(Game *g, const char *kind, const char *sender, int64_t time, int64_t stamp,
                           const char *moves, const char *raw, const char *key)
{
    if (!store_sync_commits(g->st, false)) return -1;
    long n = strcmp(kind, "tick") == 0 ? store_journal_received(g->st, "tick", time, NULL, NULL, NULL, time)
                                       : journal_message(g->st, sender, time, stamp, moves, raw, key);
    /* an outcome committed without waiting would be acknowledged unsafe:
     * the event does not run then (unless the caller syncs itself) */
    if (!g->defer_sync && !store_sync_commits(g->st, true)) return -1;
    return n;
}

/* One message as an event.  moves: the object text to run (NULL: the
 * Mechanics refused the message, for the reason `why`, which is taken);
 * key: the mail's identity, kept with it, or NULL. */
static bool event_message(Game *g, const char *sender, int64_t time, int64_t stamp, const char *moves,
                          const char *raw, const char *key, char *why, bool dry, Outcome *o)
{
    game_collect(g, false);
    memset(o, 0, sizeof *o);
    o->kind = "move";
    o->time = time;
    if (g->st && !dry) {
        o->event = journal_lazily(g, "move", sender, time, stamp, moves, raw, key);
        if (o->event < 0) {
            free(why);
            return false;
        }
    }
    Saved sv;
    save_state(g, &sv);
    if (dry) throwaway_rng(g);
    EventOutcome status = OUTCOME_REFUSED;
    if (moves) {
        status = process_move(g, sender, time, stamp, moves, dry, o, &sv);
        if (status != OUTCOME_REFUSED && g->reading) note_outcome(o, g->reading);
    } else {
        o->message = why;
    }
    return finish(g, o, &sv, status, dry);
}

bool game_event_move(Game *g, const char *sender, int64_t time, int64_t stamp, const char *body, bool dry, Outcome *o)
{
    return event_message(g, sender, time, stamp, body, NULL, NULL, NULL, dry, o);
}

/* Does the message pass the game's mailPolicy?  NULL, or why not;
 * *failed when the store cannot say (the message is then not taken: a
 * policy that cannot be read is never taken for the default). */
static char *policy_refusal(Game *g, const Incoming *m, bool *failed)
{
    *failed = false;
    if (m->via == VIA_CLI) return NULL;
    char *policy = NULL;
    if (g->st && store_config_read(g->st, "mailPolicy", &policy) < 0) {
        *failed = true;
        return NULL;
    }
    if (!policy) policy = game_config(g, "mailPolicy");
    char *why = NULL;
    char *hash = NULL;
    if (strcmp(policy, "tokens") == 0 && g->st && m->token && store_token_read(g->st, m->sender, &hash) < 0) {
        /* a token that cannot be looked up is neither valid nor invalid */
        *failed = true;
        free(policy);
        return NULL;
    }
    free(hash);
    if (strcmp(policy, "tokens") == 0 && !game_token_valid(g, m->sender, m->token))
        why = xstrdup(m->token ? "the token given is not this sender's: the move was not applied"
                               : "this game takes moves only with the sender's token (a `token:` line in a mail, "
                                 "Authorization: Bearer over HTTP): the move was not applied");
    free(policy);
    return why;
}

static bool submit_locked(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud);

bool game_submit(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud)
{
    Buf err = {0};
    bool ok = game_lock(g, &err);
    buf_free(&err);
    if (!ok) return false;
    ok = submit_locked(g, m, dry, fn, ud);
    game_unlock(g);
    return ok;
}

/* A mail already taken (an MTA's retry, a copy by another route): why it
 * is not applied again, or NULL.  *failed: the store could not say. */
static char *copy_of_taken(Game *g, const Incoming *m, bool dry, bool *failed)
{
    *failed = false;
    if (!m->key || !g->st || dry) return NULL;
    long n = store_mail_seen(g->st, m->key);
    if (n <= 0) {
        *failed = n < 0;
        return NULL;
    }
    Buf b = {0};
    buf_printf(&b, "a copy of the mail taken as event %ld (the same Message-ID and sender, or, without a "
                   "Message-ID, the same mail byte for byte): not applied again",
               n);
    return buf_take(&b);
}

/* May the sender of a mail refused unread (no token, too large) be
 * answered now?  Once an ANSWER_PERIOD; if not, `why` says so.  *failed:
 * the store cannot say. */
static bool may_answer_unread(Game *g, const Incoming *m, char **why, bool *failed)
{
    int64_t last = g->st ? store_answered_at(g->st, m->sender) : 0;
    *failed = last < 0;
    if (last <= 0 || m->time - last >= ANSWER_PERIOD) return true;
    Buf b = {0};
    buf_printf(&b, "%s (not answered: this address had an answer about a refused mail less than %d minutes ago)",
               *why, ANSWER_PERIOD / 60);
    free(*why);
    *why = buf_take(&b);
    return false;
}

/* A line `TOKEN`: the event mails the sender's address a new token, at
 * most once an ANSWER_PERIOD per address (a forged From cannot make the
 * game void a player's token over and over, nor mail it without end).
 * Returns the event's note. */
static char *token_request(Game *g, const Incoming *m)
{
    Buf key = {0}, b = {0};
    buf_printf(&key, "token %s", m->sender);
    int64_t last = store_answered_at(g->st, buf_str(&key));
    if (last > 0 && m->time - last < ANSWER_PERIOD) {
        buf_printf(&b, "TOKEN: a token was mailed to %s less than %d minutes ago; not again yet", m->sender,
                   ANSWER_PERIOD / 60);
    } else {
        g->token_to = m->sender;
        buf_printf(&b, "TOKEN: a new token is mailed to %s (the one before, if any, no longer counts)", m->sender);
    }
    buf_free(&key);
    return buf_take(&b);
}

/* Why a mail with no move is refused: what was read, and what was set aside. */
static char *no_move_in_mail(const Incoming *m, const ProseRead *pr)
{
    Buf b = {0};
    buf_puts(&b, "no move found in the mail");
    if (m->how) buf_printf(&b, " (%s)", m->how);
    if (pr->naside) {
        buf_printf(&b, "; %d line%s read as prose and set aside:\n", pr->naside, pr->naside == 1 ? "" : "s");
        /* the first few are enough to recognise the mail */
        const char *p = (pr->aside.s ? pr->aside.s : "");
        for (int k = 0; *p && k < 5; k++) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
            buf_puts(&b, "  ");
            buf_add(&b, p, n);
            p += n;
        }
        if (pr->naside > 5) buf_printf(&b, "  (and %d more)\n", pr->naside - 5);
        if (b.s[b.len - 1] == '\n') b.s[--b.len] = 0;
    }
    return buf_take(&b);
}

/* The note an event read from a mail carries: the lines set aside. */
static char *set_aside_note(const ProseRead *pr)
{
    if (!pr->naside) return NULL;
    Buf b = {0};
    buf_printf(&b, "%d line%s of the mail set aside as prose (line", pr->naside, pr->naside == 1 ? "" : "s");
    int k = 0;
    for (const char *p = (pr->aside.s ? pr->aside.s : ""); *p && k < 20; k++) {
        buf_printf(&b, "%s %ld", k ? "," : pr->naside > 1 ? "s" : "", strtol(p + 5, NULL, 10));
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    buf_puts(&b, k < pr->naside ? ", ...)" : ")");
    return buf_take(&b);
}

int64_t game_last_time(Game *g)
{
    long n = g->st ? store_last_event(g->st) : 0;
    EventRow r;
    if (n <= 0 || store_event_get(g->st, n, &r) != 1) return INT64_MIN;
    int64_t t = r.time;
    event_row_free(&r);
    return t;
}

char *game_time_refusal(Game *g, int64_t time)
{
    int64_t last = game_last_time(g);
    if (time >= last) return NULL;
    char at[32], then[32];
    time_format(time, at);
    time_format(last, then);
    Buf b = {0};
    buf_printf(&b, "%s is before the last event, at %s: the game's time goes forward only (nothing was kept)", at,
               then);
    return buf_take(&b);
}

/* The time GAME_TIME_NOW stands for, under the lock. */
static int64_t time_now_locked(Game *g)
{
    int64_t now = time_now_wall(), last = game_last_time(g);
    return now < last ? last : now;
}

static bool submit_locked(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud)
{
    Incoming forward, now;
    if (m->time == GAME_TIME_NOW) {
        now = *m;
        now.time = time_now_locked(g);
        m = &now;
    }
    char *late = game_time_refusal(g, m->time);
    if (late && m->via != VIA_CLI) {
        /* the wall clock stepped back: a mail or a request is not lost
         * for that, it happens at the last event's time */
        forward = *m;
        forward.time = game_last_time(g);
        if (forward.stamp == 0) forward.stamp = m->time;
        m = &forward;
        free(late);
        late = NULL;
    }
    if (late) {
        /* a time given on the command line: refused, nothing journaled */
        Outcome o;
        memset(&o, 0, sizeof o);
        o.kind = "move";
        o.time = m->time;
        o.status = OUTCOME_REFUSED;
        o.message = late;
        if (fn) fn(ud, g, &o);
        outcome_free(&o);
        return true;
    }
    if (!dry && !run_due_timers(g, m->time, false, fn, ud)) return false;
    bool failed;
    char *why = copy_of_taken(g, m, dry, &failed);
    if (failed) return false;
    bool copy = why != NULL, unread = false;
    if (!why && m->refusal) why = xstrdup(m->refusal);
    /* a mail asking for its sender's token needs none; its moves, if it
     * has any, do (below) */
    bool token_asked = !why && m->wants_token && m->via != VIA_CLI && !m->automatic && !dry && g->st;
    if (!why && !token_asked) {
        why = policy_refusal(g, m, &failed);
        if (failed) return false;
    }
    unread = why && !copy;
    Buf moves = {0}, err = {0};
    const char *text = m->body;
    ProseRead pr = {0};
    char *reading = NULL;
    bool misread = false; /* a line started like a move but did not read */
    if (!why && m->lines) {
        if (!prose_read(g->sugar, m->body, m->lines, m->nlines, &pr, &err)) why = buf_take(&err), misread = true;
        else if (!pr.nmoves) why = no_move_in_mail(m, &pr);
        else {
            text = buf_str(&pr.moves);
            reading = set_aside_note(&pr);
        }
    } else if (!why && g->sugar) {
        if (sugar_expand(g->sugar, m->body, &moves, &err)) text = buf_str(&moves);
        else why = buf_take(&err);
    }
    bool token_only = false;
    if (token_asked) {
        char *note = token_request(g, m);
        if (misread) { /* the token goes all the same; the answer says what did not read */
            Buf b = {0};
            buf_printf(&b, "%s\n%s", why, note);
            free(why);
            free(note);
            why = buf_take(&b);
        } else if (!pr.nmoves) { /* the TOKEN line alone: its answer is the token's mail */
            free(why);
            why = note;
            token_only = true;
        } else {
            if (!why) why = policy_refusal(g, m, &failed);
            if (failed) {
                free(note);
                free(reading);
                prose_free(&pr);
                buf_free(&moves);
                buf_free(&err);
                return false;
            }
            unread = why != NULL;
            Buf b = {0};
            buf_printf(&b, "%s%s%s", reading ? reading : "", reading ? "; " : "", note);
            free(reading);
            reading = buf_take(&b);
            free(note);
        }
    }
    /* the journal keeps what was received when it differs from the moves;
     * of a mail refused unread only its header and a digest (a stranger
     * cannot fill the disk), of a copy nothing */
    const char *got = m->raw ? m->raw : m->body;
    char *summary = unread && !m->refusal ? mail_summary(got, strlen(got)) : NULL;
    const char *raw = copy ? NULL : summary ? summary : m->raw ? m->raw : !why && strcmp(text, m->body) == 0 ? NULL : m->body;
    Outcome o;
    /* a refused mail is answered in the event's own transaction; a copy
     * never (its first was), one refused unread at most once a period */
    bool answer = m->via == VIA_MAIL && !m->automatic && !copy && !token_only;
    if (answer && unread) answer = may_answer_unread(g, m, &why, &failed);
    if (failed) {
        free(why);
        free(summary);
        free(reading);
        prose_free(&pr);
        buf_free(&moves);
        buf_free(&err);
        return false;
    }
    g->answering = answer ? m : NULL;
    g->answer_unread = unread;
    g->reading = reading;
    g->summing = answer && !why && m->lines ? text : NULL;
    bool ok = event_message(g, m->sender, m->time, m->stamp ? m->stamp : m->time, why ? NULL : text, raw,
                            copy ? NULL : m->key, why, dry, &o);
    g->answering = NULL;
    g->answer_unread = false;
    g->reading = NULL;
    g->token_to = NULL;
    g->summing = NULL;
    free(reading);
    prose_free(&pr);
    if (fn && ok) fn(ud, g, &o); /* a failed event is not reported as if it had happened */
    outcome_free(&o);
    free(summary);
    buf_free(&moves);
    buf_free(&err);
    return ok;
}

bool game_event_tick(Game *g, int64_t time, bool dry, Outcome *o)
{
    game_collect(g, false);
    memset(o, 0, sizeof *o);
    o->kind = "tick";
    o->time = time;
    if (g->st && !dry) {
        o->event = journal_lazily(g, "tick", NULL, time, time, NULL, NULL, NULL);
        if (o->event < 0) return false;
    }
    Saved sv;
    save_state(g, &sv);
    if (dry) throwaway_rng(g);
    EventOutcome status;
    if (g->halted) {
        o->message = xstrdup("the game has ended; timers no longer run");
        status = OUTCOME_REFUSED;
    } else {
        status = settle(g, o, &sv, dry);
    }
    return finish(g, o, &sv, status, dry);
}

/* Runs the timers due at or before `time`, each as its own event. */
static bool run_due_timers(Game *g, int64_t time, bool dry, OutcomeFn fn, void *ud)
{
    for (int guard = 0; guard < 100000 && !g->halted && g->have_timer && g->next_timer <= time; guard++) {
        Outcome o;
        int64_t at = g->next_timer;
        bool ok = game_event_tick(g, at, dry, &o);
        if (fn && ok) fn(ud, g, &o);
        bool stuck = !o.er.have_timer || o.er.next_timer <= at;
        outcome_free(&o);
        if (!ok) return false;
        if (dry) break; /* a dry run cannot advance past its own undone timer */
        if (stuck && g->have_timer && g->next_timer <= at) break;
    }
    return true;
}

bool game_move(Game *g, const char *sender, int64_t time, const char *body, bool dry, OutcomeFn fn, void *ud)
{
    Incoming m = {VIA_CLI, sender, time, 0, body, NULL, NULL, false};
    return game_submit(g, &m, dry, fn, ud);
}

/* With no timer known (the rules of a new game have not run yet), a dry
 * run at `time` finds the first one; if the rules would already change
 * something, that is a timer due now. */
static void probe_timer(Game *g, int64_t time)
{
    if (g->have_timer || g->halted) return;
    Outcome o;
    if (game_event_tick(g, time, true, &o) && o.ran) {
        if (o.er.status != EV_RUNAWAY) {
            g->have_timer = o.er.have_timer;
            g->next_timer = o.er.next_timer;
        }
        if (o.er.changing_firings > 0) {
            g->have_timer = true;
            g->next_timer = time;
        }
    }
    outcome_free(&o);
}

bool game_tick(Game *g, int64_t time, bool dry, OutcomeFn fn, void *ud)
{
    Buf err = {0};
    bool ok = game_lock(g, &err);
    buf_free(&err);
    if (!ok) return false;
    if (time == GAME_TIME_NOW) time = time_now_locked(g);
    char *late = game_time_refusal(g, time);
    if (late) {
        Outcome o;
        memset(&o, 0, sizeof o);
        o.kind = "tick";
        o.time = time;
        o.status = OUTCOME_REFUSED;
        o.message = late;
        if (fn) fn(ud, g, &o);
        outcome_free(&o);
        game_unlock(g);
        return true;
    }
    probe_timer(g, time);
    ok = run_due_timers(g, time, dry, fn, ud);
    game_unlock(g);
    return ok;
}

/* How many times the program has tried to run event n (0: none recorded):
 * the meta key "attempts" holds "N TRIES" for the event being recovered. */
static int attempts_of(Store *st, long n)
{
    char *v;
    long event = 0;
    int tries = 0;
    int got = store_meta_read(st, "attempts", &v);
    if (got < 0) tries = -1;
    else if (!got || sscanf(v, "%ld %d", &event, &tries) != 2 || event != n) tries = 0;
    free(v);
    return tries;
}

/* The engine died twice on this event (a crash, the OOM killer): it is
 * journaled as refused, its sender is told, and the game goes on. */
static bool set_aside(Game *g, const EventRow *r, Outcome *o)
{
    o->message = xstrdup("the engine failed on this event twice; it was set aside (nothing of it was applied)");
    Incoming m = {VIA_MAIL, r->sender ? r->sender : "", r->time, r->stamp, "", NULL, NULL, false, NULL, NULL};
    g->answering = r->sender && *r->sender && strcmp(r->kind, "move") == 0 ? &m : NULL;
    /* a timer the engine died on waits for the next event's run of the
     * rules, rather than being tried again at once, forever */
    if (strcmp(r->kind, "tick") == 0) g->have_timer = false;
    Saved sv;
    save_state(g, &sv);
    bool ok = store_event_set_aside(g->st, r->n) && finish(g, o, &sv, OUTCOME_REFUSED, false);
    g->answering = NULL;
    return ok;
}

/* A move journaled but never settled (the program stopped in between) is
 * processed now, exactly once, under its journal number.  Each try is
 * counted first: the program that died on it may die on it again, and a
 * second death sets it aside (poison events never stop a game). */
static bool recover(Game *g)
{
    long n = store_last_event(g->st);
    EventRow r;
    if (n < 0) return false;
    int got = n ? store_event_get(g->st, n, &r) : 0;
    if (got <= 0) return got == 0;
    bool ok = true;
    if (strcmp(r.status, "received") == 0) {
        Outcome o;
        memset(&o, 0, sizeof o);
        o.event = n;
        o.time = r.time;
        o.kind = strcmp(r.kind, "tick") == 0 ? "tick" : "move";
        /* the tries begun so far, all failed; the first was by the
         * program that journaled it */
        int tries = attempts_of(g->st, n);
        bool failed = tries < 0;
        if (tries < 1) tries = 1;
        char v[64];
        snprintf(v, sizeof v, "%ld %d", n, tries + 1);
        if (failed) {
            ok = false;
        } else if (tries >= 2) {
            ok = set_aside(g, &r, &o);
        } else if (!store_meta_set(g->st, "attempts", v)) {
            ok = false;
        } else {
            Saved sv;
            save_state(g, &sv);
            EventOutcome status;
            if (strcmp(r.kind, "tick") == 0) {
                status = OUTCOME_REFUSED;
                if (g->halted) o.message = xstrdup("the game has ended; timers no longer run");
                else status = settle(g, &o, &sv, false);
            } else {
                status = process_move(g, r.sender ? r.sender : "", r.time, r.stamp, r.input ? r.input : "", false, &o, &sv);
            }
            ok = finish(g, &o, &sv, status, false);
        }
        outcome_free(&o);
    }
    event_row_free(&r);
    return ok;
}
