/*
 * game.c - a game's lifetime (game.h): made (init) or opened from its
 * file, its own state beside the pool (the meta keys) kept in the store,
 * and the texts the open games share.  The lowest of the game's files: it
 * calls none of the others.  The lock between programs is game_lock.c's;
 * one event's life is game_event.c's; a message's way in (policies,
 * copies, tokens, prose, time, timers) is game_submit.c's.
 */
#include "game.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "game_int.h"
#include "objfmt.h"
#include "rulesets.h"

const char *verdict_name(Verdict s)
{
    static const char *const names[] = {
        [VERDICT_APPLIED] = "applied", [VERDICT_NO_EFFECT] = "no effect", [VERDICT_REFUSED] = "refused",
        [VERDICT_LOOP] = "loop",       [VERDICT_HALTED] = "halted",
    };
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void outcome_free(Outcome *o)
{
    free(o->message);
    event_run_free(&o->run);
    code_notes_free(&o->code);
    free(o->changes);
    free(o->scam_pending);
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

/* Every open game: the games of one table of interned texts share it (the
 * process's, unless a server of many games gave each its own: value.h),
 * so the collector must see what each of them holds.  The list is the
 * process's, under its lock: a server opens a game while others run. */
static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;
static Game **open_games;
static size_t nopen, opencap;

Game *game_new(void)
{
    Game *g = xcalloc(1, sizeof *g);
    g->syms = sym_current();
    g->pool = pool_new();
    g->eng = engine_new(g->pool);
    pthread_mutex_lock(&open_mu);
    GROW(open_games, nopen, opencap);
    open_games[nopen++] = g;
    pthread_mutex_unlock(&open_mu);
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
    pthread_mutex_lock(&open_mu);
    for (size_t i = 0; i < nopen; i++)
        if (open_games[i] == g) open_games[i] = open_games[--nopen];
    if (!nopen) {
        free(open_games);
        open_games = NULL;
        opencap = 0;
    }
    pthread_mutex_unlock(&open_mu);
    engine_free(g->eng);
    pool_free(g->pool);
    store_close(g->st);
    free(g->last_mover);
    free(g->winner_note);
    sugar_free(g->sugar);
    recipient_list_free(g->last_list);
    free(g->dirty);
    free(g->unsaved.last_mover);
    free(g);
}

void recipient_list_free(RecipientList *r)
{
    if (!r) return;
    addrs_free(&r->addrs);
    buf_free(&r->to);
    free(r);
}

char *game_upgrade_note(Game *g, const char *path)
{
    const char *kept, *from = store_upgraded_from(g->st, &kept);
    if (!from) return NULL;
    Buf b = {0};
    buf_printf(&b, "%s was a game of format %s: upgraded to format %s, the one this build writes", path, from,
               store_format());
    if (kept)
        buf_printf(&b, "; the file as it was is kept as %s (the build that made it opens that copy; delete it once the "
                       "game plays)",
                   kept);
    return buf_take(&b);
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

/* The game's own state, in one meta row, key "state", written with each
 * event's outcome: "settled=N next_id=N halted=0|1 next_timer=T|-
 * rng=H,H,H,H last_mover=ADDRESS" (the address last: it runs to the end).
 * One statement per event; it was one per value (settled, next_id,
 * last_mover ... : three on most events).  A game made before keeps those
 * keys until its next event writes the row and deletes them. */
static const char *const legacy_meta[] = {"settled", "rng", "next_id", "halted", "next_timer", "last_mover"};

static void state_row(const Game *g, long settled, StateRow *r)
{
    r->settled = settled;
    r->next_id = g->pool->next_id;
    r->halted = g->halted;
    r->have_timer = g->have_timer;
    r->next_timer = g->next_timer;
    memcpy(r->rng, g->eng->rng, sizeof r->rng);
    r->last_mover = g->last_mover;
}

static void state_text(const StateRow *r, Buf *b)
{
    buf_puts(b, "settled=");
    buf_put_int(b, r->settled);
    buf_puts(b, " next_id=");
    buf_put_int(b, r->next_id);
    buf_puts(b, r->halted ? " halted=1 next_timer=" : " halted=0 next_timer=");
    if (r->have_timer) buf_put_int(b, r->next_timer);
    else buf_putc(b, '-');
    for (int i = 0; i < 4; i++) {
        buf_puts(b, i ? "," : " rng=");
        buf_put_hex64(b, r->rng[i]);
    }
    buf_puts(b, " last_mover=");
    if (r->last_mover) buf_puts(b, r->last_mover);
}

static bool write_state(Game *g, const StateRow *r)
{
    Buf b = {0};
    state_text(r, &b);
    bool ok = store_meta_set(g->st, "state", buf_str(&b));
    buf_free(&b);
    return ok;
}

/* Writes the game's state as event `settled` leaves it, in that event's
 * transaction: false when a write failed, and the event then fails whole
 * (a generator state that replay would not match is never committed).
 * In a group, the row waits for the group's end (game_state_kept): a
 * statement per event was 4% of a stream's instructions, and only the
 * last event's row is ever read. */
/* ---- the timer's back-off ----
 *
 * A timer whose event runs past the budget is undone whole, so the rules
 * leave the timer where it was, due: tried again at once, it would run
 * away again, twice a second on a server, each time journaled.  So the
 * Mechanics wait before the next try, twice as long each time.  The count
 * and the time of the next try are a meta key of their own,
 * "timer_backoff" = "FAILS RETRY" (absent: none), written in the
 * transaction of the timer event that changed them: the store then
 * always agrees with its journal, a restart finds it, and an ordinary
 * event does not write it.  It is not game state: replay feeds the
 * journal's timer events at their own times and needs none of it. */

int64_t game_timer_due(const Game *g)
{
    return g->timer_fails && g->timer_retry > g->next_timer ? g->timer_retry : g->next_timer;
}

static int64_t backoff_wait(int fails)
{
    int64_t wait = TIMER_BACKOFF_FIRST;
    for (int i = 1; i < fails && wait < TIMER_BACKOFF_MAX; i++) wait *= 2;
    return wait < TIMER_BACKOFF_MAX ? wait : TIMER_BACKOFF_MAX;
}

void game_timer_backoff(Game *g, Outcome *o)
{
    if (!o->ran || o->run.status != RUN_RUNAWAY) {
        if (g->timer_fails) game_timer_backoff_clear(g);
        return;
    }
    /* from when it was tried, not from when it was due: a timer due long
     * ago would otherwise be tried again at once, several times */
    int64_t from = g->clock > o->time ? g->clock : o->time, wait = backoff_wait(++g->timer_fails);
    g->timer_retry = from + wait;
    g->backoff_unsaved = true;
    char at[32];
    time_format(g->timer_retry, at);
    Buf b = {0};
    buf_printf(&b, "%s; the timer is tried again at %s, in %lld minute%s (its event ran past the budget %d time%s in a "
                   "row: the wait doubles each time, at most a day; `nomic suspend` sets a rule aside)",
               o->message ? o->message : "refused", at, (long long)(wait / 60), wait == 60 ? "" : "s", g->timer_fails,
               g->timer_fails == 1 ? "" : "s");
    free(o->message);
    o->message = buf_take(&b);
}

void game_timer_backoff_clear(Game *g)
{
    g->timer_fails = 0;
    g->timer_retry = 0;
    g->backoff_unsaved = true;
}

static bool write_backoff(Game *g)
{
    if (!g->timer_fails) return store_meta_delete(g->st, "timer_backoff");
    char v[48];
    snprintf(v, sizeof v, "%d %" PRId64, g->timer_fails, g->timer_retry);
    return store_meta_set(g->st, "timer_backoff", v);
}

/* ---- the rules the game-keeper set aside (game_suspend.c) ----
 * The meta key "suspended": their ids, ascending, apart by a space. */

bool game_save_suspended(Game *g)
{
    if (!g->st) return true;
    if (!g->eng->nsuspended) return store_meta_delete(g->st, "suspended");
    Buf b = {0};
    for (int i = 0; i < g->eng->nsuspended; i++) {
        if (i) buf_putc(&b, ' ');
        buf_put_int(&b, g->eng->suspended[i]);
    }
    bool ok = store_meta_set(g->st, "suspended", buf_str(&b));
    buf_free(&b);
    return ok;
}

static void load_suspended(Game *g, const char *v)
{
    ObjId *ids = NULL;
    size_t n = 0, cap = 0;
    for (char *end; *v; v = end) {
        unsigned long id = strtoul(v, &end, 10);
        if (end == v) break;
        GROW(ids, n, cap);
        ids[n++] = (ObjId)id;
    }
    engine_set_suspended(g->eng, ids, (int)n);
    free(ids);
}

bool game_save_state(Game *g, long settled)
{
    bool ok = true;
    if (g->backoff_unsaved) ok = write_backoff(g);
    if (ok) g->backoff_unsaved = false;
    if (!store_in_group(g->st)) {
        StateRow r;
        state_row(g, settled, &r);
        ok = write_state(g, &r);
    }
    for (size_t i = 0; ok && g->legacy_meta && i < sizeof legacy_meta / sizeof *legacy_meta; i++)
        ok = store_meta_delete(g->st, legacy_meta[i]);
    if (ok) g->legacy_meta = false;
    if (ok && g->winner_note) ok = store_meta_set(g->st, "loop_winner", g->winner_note);
    return ok;
}

void game_state_kept(Game *g, long settled)
{
    if (!store_in_group(g->st)) return;
    StateRow r;
    state_row(g, settled, &r);
    char *kept = g->unsaved.last_mover;
    if (!r.last_mover) {
        free(kept);
        kept = NULL;
    } else if (!kept || strcmp(kept, r.last_mover) != 0) {
        free(kept);
        kept = xstrdup(r.last_mover);
    }
    r.last_mover = kept;
    g->unsaved = r;
    g->state_unsaved = true;
}

/* The state row a group's events left unwritten, written: before the
 * group's commit, and before anything reads the row within the group
 * (loading the game again after an event that failed). */
bool game_state_flush(Game *g)
{
    if (!g->state_unsaved) return true;
    bool ok = write_state(g, &g->unsaved);
    if (ok) g->state_unsaved = false;
    return ok;
}

/* The group's writes are gone: so is what it left unwritten. */
void game_state_unsaved_drop(Game *g)
{
    free(g->unsaved.last_mover);
    g->unsaved.last_mover = NULL;
    g->state_unsaved = false;
}

/* Reads a "state" row (state_text) into the game and *settled; false if
 * it is not one. */
static bool parse_state(Game *g, const char *v, long *settled, ObjId *next)
{
    unsigned next_id;
    int halted, used = 0;
    char timer[24];
    if (sscanf(v, "settled=%ld next_id=%u halted=%d next_timer=%23s rng=%" SCNx64 ",%" SCNx64 ",%" SCNx64
                  ",%" SCNx64 " last_mover=%n",
               settled, &next_id, &halted, timer, &g->eng->rng[0], &g->eng->rng[1], &g->eng->rng[2], &g->eng->rng[3],
               &used) != 8 ||
        !used)
        return false;
    *next = (ObjId)next_id;
    g->halted = halted == 1;
    g->have_timer = strcmp(timer, "-") != 0;
    g->next_timer = g->have_timer ? strtoll(timer, NULL, 10) : 0;
    free(g->last_mover);
    g->last_mover = v[used] ? xstrdup(v + used) : NULL;
    return true;
}

/* The meta value of key (malloc'd), or NULL when unset.  Once a read
 * failed (*failed), nothing more is read. */
static char *meta_text(Game *g, const char *key, bool *failed)
{
    char *v = NULL;
    if (*failed) return NULL;
    int got = store_meta_read(g->st, key, &v);
    if (got < 0) *failed = true;
    if (got > 0) return v;
    free(v);
    return NULL;
}

/* The same state in the keys of a game made before the "state" row. */
static void load_legacy_meta(Game *g, long *settled, ObjId *next, bool *failed)
{
    char *v;
    if ((v = meta_text(g, "settled", failed))) *settled = strtol(v, NULL, 10);
    free(v);
    if ((v = meta_text(g, "rng", failed)))
        sscanf(v, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64, &g->eng->rng[0], &g->eng->rng[1], &g->eng->rng[2],
               &g->eng->rng[3]);
    free(v);
    if ((v = meta_text(g, "next_id", failed))) *next = (ObjId)strtoul(v, NULL, 10);
    free(v);
    if ((v = meta_text(g, "halted", failed))) g->halted = strcmp(v, "1") == 0;
    free(v);
    if ((v = meta_text(g, "next_timer", failed))) {
        g->have_timer = *v != 0;
        g->next_timer = g->have_timer ? strtoll(v, NULL, 10) : 0;
    }
    free(v);
    if ((v = meta_text(g, "last_mover", failed)) && *v) {
        free(g->last_mover);
        g->last_mover = v;
        v = NULL;
    }
    free(v);
    g->legacy_meta = true;
}

/* The game's own state, and the last event settled (known_event); *next,
 * the number its next object takes (the pool, loaded after, may have
 * passed it).  False (store_error says why) when it cannot be read. */
static bool load_meta(Game *g, ObjId *next)
{
    bool failed = false;
    long settled = 0;
    g->legacy_meta = false;
    char *v = meta_text(g, "state", &failed);
    if (v && !parse_state(g, v, &settled, next)) {
        char why[160];
        snprintf(why, sizeof why, "the game's meta row \"state\" does not read as settled=N next_id=N ...: \"%.80s\"", v);
        store_set_error(g->st, why);
        failed = true;
    }
    if (!v && !failed) load_legacy_meta(g, &settled, next, &failed);
    free(v);
    g->known_event = settled;
    g->timer_fails = 0;
    g->timer_retry = 0;
    g->backoff_unsaved = false;
    if ((v = meta_text(g, "timer_backoff", &failed)) &&
        sscanf(v, "%d %" SCNd64, &g->timer_fails, &g->timer_retry) != 2)
        g->timer_fails = 0;
    free(v);
    if ((v = meta_text(g, "suspended", &failed))) load_suspended(g, v);
    free(v);
    if ((v = meta_text(g, "seed", &failed))) g->seed = strtoull(v, NULL, 10);
    free(v);
    if ((v = meta_text(g, "created", &failed))) g->eng->created = strtoll(v, NULL, 10);
    free(v);
    g->move_index_from = (v = meta_text(g, "move_index_from", &failed)) ? strtol(v, NULL, 10) : 0;
    free(v);
    if ((v = meta_text(g, "sugar", &failed)) && *v) {
        Buf err = {0};
        g->sugar = sugar_parse(v, "sugar", &err); /* checked when it was set */
        buf_free(&err);
    }
    free(v);
    return !failed;
}

char *game_export_pool(const Pool *p)
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

/* A dry run draws from a throwaway generator: were it the game's, `try`
 * would show the numbers the next real events will draw. */
void game_throwaway_rng(Game *g)
{
    uint64_t x = random_seed();
    for (int i = 0; i < 4; i++) g->eng->rng[i] = splitmix(&x);
}

/* A new game's start in its store (in the caller's transaction): the
 * objects after its initial sets, the snapshot of event 0, the state. */
static bool write_start(Game *g)
{
    bool ok = true;
    Buf b = {0};
    for (uint32_t i = idset_seek(&g->pool->all, 0, 1); ok && i < g->pool->all.len; i = idset_seek(&g->pool->all, i + 1, 0)) {
        buf_reset(&b);
        fmt_print_obj(&b, pool_get(g->pool, g->pool->all.ids[i]), NULL, NULL);
        ok = store_put_object(g->st, g->pool->all.ids[i], buf_str(&b));
    }
    buf_free(&b);
    /* the objects table is then up to date with event 0 (checkpoints) */
    ok = ok && store_meta_set(g->st, "objects_at", "0");
    char *snap = game_export_pool(g->pool);
    ok = ok && store_put_snapshot(g->st, 0, snap);
    free(snap);
    return ok && game_save_state(g, 0);
}

Game *game_init(const char *path, const char **sets, int nsets, bool have_seed, uint64_t seed, int64_t time,
                bool force, Buf *err)
{
    Game *g = game_new();
    seed_rng(g, have_seed ? seed : random_seed());
    /* random even when the seed is given: a seed may be guessed, the key
     * must not be */
    uint64_t key[2] = {random_seed(), random_seed()};
    pool_set_hash_key(g->pool, key, POOL_HASH_VERSION);
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
            goto failed;
        }
        bool loaded = game_load_set(g, label, text, err);
        free(text);
        if (!loaded) goto failed;
    }
    if (sugar.len && !(g->sugar = sugar_parse(buf_str(&sugar), "sugar", err))) goto failed;
    g->st = store_open(path, true, force, err);
    if (!g->st) goto failed;
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
    snprintf(v, sizeof v, "%d", POOL_HASH_VERSION);
    ok = ok && store_meta_set(g->st, "hash_version", v);
    g->eng->created = time;
    snprintf(v, sizeof v, "%" PRId64, time);
    ok = ok && store_meta_set(g->st, "created", v);
    g->move_index_from = 1;
    ok = ok && store_meta_set(g->st, "move_index_from", "1");
    ok = ok && store_meta_set(g->st, "sugar", buf_str(&sugar));
    ok = ok && write_start(g);
    if (ok && store_commit(g->st)) {
        buf_free(&sugar);
        return g;
    }
    buf_printf(err, "%s: %s", path, store_error(g->st));
failed:
    buf_free(&sugar);
    game_close(g);
    return NULL;
}


/* The last event whose outcome is committed: the state the objects are in
 * (the journal may hold a later one, received and being processed); -1
 * when the store failed. */
long game_settled_event(Store *st)
{
    char *v;
    int got = store_meta_read(st, "state", &v);
    if (got == 0) { /* a game made before the state row */
        free(v);
        got = store_meta_read(st, "settled", &v);
    }
    long n = got > 0 ? strtol(v + (strncmp(v, "settled=", 8) == 0 ? 8 : 0), NULL, 10) : got;
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
 * zeros (and the hashes it journaled before do not replay).  A game made
 * before the hash had versions has none either: it keeps version 1. */
static bool load_hash_key(Game *g, Buf *err)
{
    uint64_t key[2] = {0, 0};
    char *v;
    int got = store_meta_read(g->st, "hash_key", &v);
    if (got > 0 && sscanf(v, "%16" SCNx64 "%16" SCNx64, &key[0], &key[1]) != 2) key[0] = key[1] = 0;
    free(v);
    long version = 1;
    int got_version = store_meta_read(g->st, "hash_version", &v);
    if (got < 0 || got_version < 0) {
        free(v);
        buf_printf(err, "%s", store_error(g->st));
        return false;
    }
    char *end = NULL;
    if (got_version > 0) version = strtol(v, &end, 10);
    bool number = got_version == 0 || (end != v && *end == 0);
    if (!number || version < 1) {
        buf_printf(err, "the game's meta hash_version reads \"%.40s\": not a version of the state hash", v);
    } else if (version > POOL_HASH_VERSION) {
        buf_printf(err, "the game's state hash is of version %ld, and this build knows versions 1 to %d: "
                        "a newer build made the game",
                   version, POOL_HASH_VERSION);
    }
    free(v);
    if (!number || version < 1 || version > POOL_HASH_VERSION) return false;
    pool_set_hash_key(g->pool, key, (int)version);
    return true;
}

/* ---- checkpoints of the objects table ----
 *
 * An event writes its changes; writing the objects it touched too cost a
 * statement per object and, as they lie all over the table, a page of the
 * log at almost every event.  The table is brought up to date once the
 * changes since its last checkpoint are twice as many as the objects (and
 * at least CHECKPOINT_MIN_CHANGES): each object changed since is written
 * once, then, however often it changed, which is at most half a write per
 * change.  Loading applies the changes after the checkpoint to what the
 * table holds: a scan of at most about twice the pool's size in changes,
 * and a text read per object they touched (the loading of the table
 * itself reads one per object).  A checkpoint is written in the
 * transaction of the event (or the group) after which it is due: all of
 * it, with objects_at, or none. */

/* Fewer changes than this never make a checkpoint: a small pool would
 * otherwise have one every few events. */
#define CHECKPOINT_MIN_CHANGES 1024

/* An object changed since the last checkpoint; born: made since (so not
 * in the table). */
struct Dirty {
    ObjId id;
    bool born;
};

void game_object_changed(Game *g, ObjId id, bool born)
{
    if (!g->st) return;
    GROW(g->dirty, g->ndirty, g->dirty_cap);
    g->dirty[g->ndirty++] = (struct Dirty){id, born};
    g->changes_since++;
}

/* the changes applied at loading (the object may be in the table) */
static void note_applied(void *ud, ObjId id, long changes)
{
    Game *g = ud;
    game_object_changed(g, id, false);
    g->changes_since += changes - 1;
}

static int cmp_dirty(const void *a, const void *b)
{
    ObjId x = ((const struct Dirty *)a)->id, y = ((const struct Dirty *)b)->id;
    return x < y ? -1 : x > y;
}

bool game_objects_checkpoint(Game *g, long settled)
{
    size_t live = g->pool->all.live;
    long due = CHECKPOINT_MIN_CHANGES > 2 * (long)live ? CHECKPOINT_MIN_CHANGES : 2 * (long)live;
    if (!g->st || !g->ndirty || g->changes_since < due) return true;
    qsort(g->dirty, g->ndirty, sizeof *g->dirty, cmp_dirty);
    bool ok = true;
    Buf b = {0};
    for (size_t i = 0, k; ok && i < g->ndirty; i = k) {
        ObjId id = g->dirty[i].id;
        bool born = false;
        for (k = i; k < g->ndirty && g->dirty[k].id == id; k++) born |= g->dirty[k].born;
        const Obj *obj = pool_get(g->pool, id);
        if (obj) {
            buf_reset(&b);
            fmt_print_obj(&b, obj, NULL, NULL);
            ok = store_put_object(g->st, id, buf_str(&b));
        } else if (!born) { /* (made and deleted since: never in the table) */
            ok = store_delete_object(g->st, id);
        }
    }
    buf_free(&b);
    char at[24];
    snprintf(at, sizeof at, "%ld", settled);
    if (ok && (ok = store_meta_set(g->st, "objects_at", at))) g->ndirty = 0, g->changes_since = 0;
    return ok;
}

/* The changes after the objects table's checkpoint, applied to the pool
 * loaded from it (a game of format 3 has no objects_at: none). */
static bool load_changes_since_checkpoint(Game *g, Buf *err)
{
    g->ndirty = 0;
    g->changes_since = 0;
    bool failed = false;
    char *v = meta_text(g, "objects_at", &failed);
    long at = v ? strtol(v, NULL, 10) : g->known_event;
    free(v);
    if (failed) {
        buf_puts(err, store_error(g->st));
        return false;
    }
    return at >= g->known_event || store_apply_changes(g->st, at, g->known_event, g->pool, note_applied, g, err);
}

/* The pool, the game's own state and the messages waiting for sendNow,
 * as the store has them. */
bool game_load(Game *g, Buf *err)
{
    /* one read transaction: the objects, the meta and the queue as one
     * committed event left them, whatever another program writes meanwhile */
    if (!store_begin_read(g->st)) {
        buf_printf(err, "%s", store_error(g->st));
        return false;
    }
    bool ok = load_hash_key(g, err);
    ObjId next = 0;
    if (ok && !(ok = load_meta(g, &next))) buf_printf(err, "%s", store_error(g->st));
    ok = ok && store_load_objects(g->st, g->pool, err) && load_changes_since_checkpoint(g, err);
    if (ok) {
        if (next > g->pool->next_id) g->pool->next_id = next;
        engine_invalidate(g->eng);
        if (!(ok = store_each_queued(g->st, queue_row, g))) buf_printf(err, "%s", store_error(g->st));
        g->queue_stored_empty = ok && g->eng->queue.len == 0;
    }
    /* a read transaction: its end can fail only as the reads did */
    if (!store_commit(g->st) && ok) {
        buf_printf(err, "%s", store_error(g->st));
        ok = false;
    }
    return ok;
}

/* Frees the interned texts that nothing uses any more (the messages of old
 * events, the times of processed moves), once they outnumber or outweigh
 * the live ones (sym_gc_due):
 * a game's memory follows its state, not its history.  Between events the
 * pools and engines of the open games are the only holders of Syms
 * (value.h). */
void game_collect(Game *g, bool force)
{
    if (!force && !sym_gc_due()) return;
    /* the games of this thread's table: the others' are other threads' */
    SymTable *t = sym_current();
    pthread_mutex_lock(&open_mu);
    for (size_t i = 0; i < nopen; i++)
        if (open_games[i]->syms == t) pool_compact(open_games[i]->pool);
    sym_gc_begin();
    for (size_t i = 0; i < nopen; i++) {
        if (open_games[i]->syms != t) continue;
        pool_mark_syms(open_games[i]->pool);
        engine_mark_syms(open_games[i]->eng);
        /* the kept recipient list is known by its Sym: freed, the
         * number could come back naming another text */
        if (open_games[i]->last_list) sym_mark(open_games[i]->last_list->list);
    }
    sym_gc_end();
    pthread_mutex_unlock(&open_mu);
}

/* game_init_copy: each initial set of `from`, loaded and kept. */
typedef struct CopySets {
    Game *g;
    Buf *err;
} CopySets;

static bool copy_set(void *ud, const char *label, const char *text)
{
    CopySets *c = ud;
    return game_load_set(c->g, label, text, c->err) && store_add_initial(c->g->st, label, text);
}

Game *game_init_copy(const char *path, Game *from, bool force, Buf *err)
{
    static const char *const keys[] = {"seed",    "seed_salt",       "seed_commitment", "seed_revealed",
                                       "hash_key", "hash_version",   "created",         "move_index_from",
                                       "sugar"};
    Game *g = game_memory(from->seed);
    pool_set_hash_key(g->pool, from->pool->hash_key, from->pool->hash_version);
    g->eng->created = from->eng->created;
    g->move_index_from = from->move_index_from;
    g->st = store_open(path, true, force, err);
    if (!g->st) goto failed;
    CopySets cs = {g, err};
    bool ok = store_begin(g->st) && store_each_initial(from->st, copy_set, &cs);
    for (size_t i = 0; ok && i < sizeof keys / sizeof *keys; i++) {
        char *v = NULL;
        int got = store_meta_read(from->st, keys[i], &v);
        ok = got >= 0 && (got == 0 || store_meta_set(g->st, keys[i], v));
        free(v);
    }
    ok = ok && write_start(g);
    if (ok && store_commit(g->st)) return g;
    if (!err->len) buf_printf(err, "%s: %s", path, store_error(g->st));
failed:
    game_close(g);
    return NULL;
}
