/*
 * server_snapshot.c - the views readers answer from (server_int.h).
 *
 * Why readers never wait for an event: the game's pool, engine and
 * interned texts belong to one thread at a time (game_mu), and an event
 * may hold them for seconds.  So after each change the thread that made it
 * renders the views (the game, its objects, its rules) into a Snapshot of
 * plain strings, swapped under a short lock and reference-counted, so that
 * a swap never frees what a slow client is still being sent.  Only the
 * objects the pool saw change since the last snapshot are rendered again:
 * the others' entries are shared (each reference-counted), so an event
 * costs what it changed, not what the state holds, and readers holding
 * older snapshots pin only the entries changed since.  This is
 * simpler than reading the objects table beside the writer, which would
 * need the rules' notion of private attributes on another thread.  The
 * journal and the outbox need no game: they are read through database
 * connections of their own, SQLite's WAL letting them read beside the
 * writer, up to the snapshot's event.
 */
#include "server_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game_mechanics.h"
#include "host.h"
#include "objfmt.h"
#include "scams_proposal.h"
#include "views.h"

static char *sym_dup(Sym v) { return v == SYM_EMPTY ? NULL : xstrndup(sym_text(v), sym_len(v)); }

static void put_error(Buf *b, const char *error)
{
    b->s[--b->len] = 0; /* the closing brace: the error goes in */
    buf_puts(b, ",\"error\":");
    if (error) json_string(b, error, strlen(error));
    else buf_puts(b, "null");
    buf_putc(b, '}');
}

static Entry *entry_new(const Obj *o, Engine *eng, bool is_rule, const char *error)
{
    Entry *e = xcalloc(1, sizeof *e);
    atomic_init(&e->refs, 1);
    Viewer public = {eng->private_attrs, NULL};
    Buf pub = {0}, full = {0};
    fmt_json_obj(&pub, o, viewer_hides, &public);
    fmt_json_obj(&full, o, NULL, NULL);
    if (is_rule) {
        put_error(&pub, error);
        put_error(&full, error);
        e->error = error ? xstrdup(error) : NULL;
    }
    e->id = o->id;
    e->type = sym_dup(obj_get(o, SYM_type));
    e->owner[0] = sym_dup(obj_get(o, SYM_moveSender));
    e->owner[1] = sym_dup(obj_get(o, SYM_defaultEmail));
    bool same = pub.len == full.len && memcmp(pub.s, full.s, pub.len) == 0;
    e->pub = buf_take(&pub);
    if (same) buf_free(&full);
    else e->full = buf_take(&full);
    return e;
}

static Entry *entry_share(Entry *e)
{
    atomic_fetch_add(&e->refs, 1);
    return e;
}

static void entry_put(Entry *e)
{
    if (atomic_fetch_sub(&e->refs, 1) != 1) return;
    free(e->type);
    free(e->pub);
    free(e->full);
    free(e->owner[0]);
    free(e->owner[1]);
    free(e->error);
    free(e);
}

/* What `you` (NULL: the public) may see of e: as viewer_hides says. */
const char *snapshot_entry_for(const Entry *e, const char *you)
{
    bool owner = you && ((e->owner[0] && strcmp(you, e->owner[0]) == 0) || (e->owner[1] && strcmp(you, e->owner[1]) == 0));
    return owner && e->full ? e->full : e->pub;
}

static void entries_free(Entry **list, size_t n)
{
    for (size_t i = 0; i < n; i++) entry_put(list[i]);
    free(list);
}

void snapshot_free(Snapshot *n)
{
    if (!n) return;
    entries_free(n->objs, n->nobjs);
    entries_free(n->rules, n->nrules);
    free(n->game);
    free(n->summary);
    free(n->private_words);
    free(n);
}

/* The commitment to the generator's seed, and once `nomic reveal` has
 * published it, the seed and salt to check it with and the key of the
 * published state hashes. */
static void seed_fields(Buf *b, Game *g)
{
    char *commitment = store_meta_get(g->st, "seed_commitment"), *revealed = store_meta_get(g->st, "seed_revealed");
    buf_puts(b, ",\"seedCommitment\":");
    if (commitment) json_string(b, commitment, strlen(commitment));
    else buf_puts(b, "null");
    char *salt = revealed ? store_meta_get(g->st, "seed_salt") : NULL;
    if (revealed) buf_printf(b, ",\"seed\":\"%" PRIu64 "\"", g->seed);
    if (salt) {
        buf_puts(b, ",\"seedSalt\":");
        json_string(b, salt, strlen(salt));
    }
    char *key = revealed ? store_meta_get(g->st, "hash_key") : NULL;
    if (key) {
        buf_puts(b, ",\"hashKey\":");
        json_string(b, key, strlen(key));
        buf_printf(b, ",\"hashVersion\":%d", g->pool->hash_version);
    }
    free(key);
    free(commitment);
    free(revealed);
    free(salt);
}

static void sugar_field(Buf *b, Game *g)
{
    buf_puts(b, ",\"sugar\":[");
    if (!g->sugar) {
        buf_putc(b, ']');
        return;
    }
    Buf forms = {0};
    sugar_describe(g->sugar, &forms);
    bool first = true;
    for (char *line = forms.s, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        size_t n = next ? (size_t)(next - line) : strlen(line);
        if (next) next++;
        while (n && (*line == ' ')) line++, n--;
        if (!n) continue;
        if (!first) buf_putc(b, ',');
        first = false;
        json_string(b, line, n);
    }
    buf_free(&forms);
    buf_putc(b, ']');
}

/* /api/game but its time and its caller: "name":...,"sendsMail":...,"sugar":[...],"proposalView":... */
static char *game_fields(Server *s)
{
    Game *g = s->g;
    Buf b = {0};
    buf_puts(&b, "\"name\":");
    char *display = game_config(g, "name"); /* the game's display name, or its file's */
    const char *name = *display ? display : s->name;
    json_string(&b, name, strlen(name));
    free(display);
    /* one of the games of a directory: the page links to the list of them */
    buf_printf(&b, ",\"site\":%s", s->site->dir ? "true" : "false");
    buf_printf(&b, ",\"event\":%ld,\"halted\":%s,\"nextTimer\":", g->known_event, g->halted ? "true" : "false");
    if (g->have_timer) buf_printf(&b, "%lld", (long long)g->next_timer);
    else buf_puts(&b, "null");
    char *policy = game_config(g, "mailPolicy");
    buf_puts(&b, ",\"mailPolicy\":");
    json_string(&b, policy, strlen(policy));
    free(policy);
    /* read with the other settings when the views are made, not per
     * request: the page says there is no mail before anyone asks for a
     * token by mail */
    buf_printf(&b, ",\"sendsMail\":%s", game_sends_mail(g) ? "true" : "false");
    /* the rules the game-keeper set aside (nomic suspend): the engine skips them */
    buf_puts(&b, ",\"suspended\":[");
    for (int i = 0; i < g->eng->nsuspended; i++) buf_printf(&b, "%s%u", i ? "," : "", g->eng->suspended[i]);
    buf_putc(&b, ']');
    seed_fields(&b, g);
    sugar_field(&b, g);
    buf_puts(&b, ",\"proposalView\":"); /* the set's proposals as the page reads them */
    proposal_view_json(&b, g->pool, g->eng->private_attrs);
    return buf_take(&b);
}

/* One game's line of GET /api/games (a site of many games): its name and
 * path, its display name, its sets, its players (the objects of type
 * player, the shipped sets' word), its events and the time of the last,
 * its open proposals (as its proposalView declares them; null when it
 * does not say), halted. */
static char *game_summary(Server *s)
{
    Game *g = s->g;
    Buf b = {0};
    buf_puts(&b, "{\"name\":");
    json_string(&b, s->name, strlen(s->name));
    buf_puts(&b, ",\"path\":");
    char path[HOST_NAME_MAX_LEN + 3];
    snprintf(path, sizeof path, "/%s/", s->name);
    json_string(&b, path, strlen(path));
    char *display = game_config(g, "name");
    buf_puts(&b, ",\"title\":");
    json_string(&b, *display ? display : s->name, strlen(*display ? display : s->name));
    free(display);
    const IdSet *players = pool_lookup(g->pool, SYM_type, sym_cstr("player"));
    int64_t last = 0;
    bool timed = g->known_event > 0 && game_last_time(g, &last) > 0;
    buf_printf(&b, ",\"sets\":%s,\"players\":%u,\"event\":%ld,\"lastEventAt\":", s->sets ? s->sets : "[]",
               players ? players->live : 0, g->known_event);
    if (timed) buf_printf(&b, "%lld", (long long)last);
    else buf_puts(&b, "null");
    int open = proposal_view_open_count(g->pool, g->eng->private_attrs);
    if (open >= 0) buf_printf(&b, ",\"openProposals\":%d", open);
    else buf_puts(&b, ",\"openProposals\":null");
    buf_printf(&b, ",\"halted\":%s}", g->halted ? "true" : "false");
    return buf_take(&b);
}

static int cmp_objid(const void *a, const void *b)
{
    ObjId x = *(const ObjId *)a, y = *(const ObjId *)b;
    return x < y ? -1 : x > y;
}

static int cmp_entry_id(const void *a, const void *b)
{
    ObjId x = (*(Entry *const *)a)->id, y = (*(Entry *const *)b)->id;
    return x < y ? -1 : x > y;
}

/* The ids the pool saw change since the last snapshot, sorted (with
 * repeats), or NULL (*n = 0) when nothing of `prev` can be shared: no
 * earlier snapshot, another pool (the game was loaded again), other
 * private attributes, or more changes than the pool kept. */
static ObjId *changed_since(const Snapshot *prev, const Pool *p, const char *private_words, size_t *n, bool *share)
{
    *n = 0;
    *share = prev && prev->pool_generation == p->generation && p->touched.on && !p->touched.lost &&
             strcmp(prev->private_words, private_words) == 0;
    if (!*share || !p->touched.len) return NULL;
    ObjId *ids = xmalloc(p->touched.len * sizeof *ids);
    memcpy(ids, p->touched.ids, p->touched.len * sizeof *ids);
    qsort(ids, p->touched.len, sizeof *ids, cmp_objid);
    *n = p->touched.len;
    return ids;
}

/* The objects' entries: prev's for the objects that did not change (both
 * lists are in id order), new ones for the others. */
static void build_objects(Snapshot *n, const Snapshot *prev, bool share, const ObjId *changed, size_t nchanged, Game *g)
{
    const IdSet *all = &g->pool->all;
    n->objs = xcalloc(all->len + 1, sizeof *n->objs);
    size_t j = 0, c = 0;
    IDSET_FOREACH (all, id) {
        const Obj *o = pool_get(g->pool, id);
        if (!o) continue;
        while (c < nchanged && changed[c] < id) c++;
        while (share && j < prev->nobjs && prev->objs[j]->id < id) j++;
        bool same = share && (c == nchanged || changed[c] != id) && j < prev->nobjs && prev->objs[j]->id == id;
        n->objs[n->nobjs++] = same ? entry_share(prev->objs[j]) : entry_new(o, g->eng, false, NULL);
    }
}

static bool same_error(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* The rules' entries, in the engine's order: prev's for a rule whose
 * object did not change and whose error is the same. */
static void build_rules(Snapshot *n, const Snapshot *prev, bool share, const ObjId *changed, size_t nchanged, Game *g,
                        const RuleInfo *rules, int nr)
{
    Entry **by_id = NULL;
    size_t nprev = share ? prev->nrules : 0;
    if (nprev) {
        by_id = xmalloc(nprev * sizeof *by_id);
        memcpy(by_id, prev->rules, nprev * sizeof *by_id);
        qsort(by_id, nprev, sizeof *by_id, cmp_entry_id);
    }
    n->rules = xcalloc((size_t)nr + 1, sizeof *n->rules);
    for (int i = 0; i < nr; i++) {
        const Obj *o = pool_get(g->pool, rules[i].id);
        if (!o) continue;
        Entry key = {.id = rules[i].id}, *kp = &key, **old = NULL;
        bool touched = nchanged && bsearch(&rules[i].id, changed, nchanged, sizeof *changed, cmp_objid);
        if (nprev && !touched)
            old = bsearch(&kp, by_id, nprev, sizeof *by_id, cmp_entry_id);
        bool same = old && same_error((*old)->error, rules[i].error);
        n->rules[n->nrules++] = same ? entry_share(*old) : entry_new(o, g->eng, true, rules[i].error);
    }
    free(by_id);
}

/* Renders the game's views, sharing with prev (the snapshot readers see
 * now) the entries of what did not change since, and starts the pool's
 * record of changes afresh for the next.  Under game_mu. */
static Snapshot *snapshot_build(Server *s, const Snapshot *prev)
{
    Game *g = s->g;
    Snapshot *n = xcalloc(1, sizeof *n);
    n->refs = 1;
    RuleInfo *rules;
    int nr = engine_rules(g->eng, &rules); /* reads the settings: the private attributes first of all */
    n->private_attrs = g->eng->private_attrs != SYM_EMPTY;
    n->private_words = xstrdup(sym_text(g->eng->private_attrs));
    n->pool_generation = g->pool->generation;
    n->event = g->known_event;
    n->game = game_fields(s);
    n->summary = game_summary(s);
    size_t nchanged;
    bool share;
    ObjId *changed = changed_since(prev, g->pool, n->private_words, &nchanged, &share);
    build_objects(n, prev, share, changed, nchanged, g);
    build_rules(n, prev, share, changed, nchanged, g, rules, nr);
    pool_touched_reset(g->pool);
    free(changed);
    free(rules);
    return n;
}

/* Makes the game's present state the one readers see.  Under game_mu. */
void snapshot_publish(Server *s)
{
    Snapshot *n = snapshot_build(s, s->snap), *old; /* s->snap changes only here, under game_mu */
    pthread_mutex_lock(&s->snap_mu);
    old = s->snap;
    s->snap = n;
    bool last = old && --old->refs == 0;
    pthread_mutex_unlock(&s->snap_mu);
    if (last) snapshot_free(old);
}

Snapshot *snapshot_get(Server *s)
{
    pthread_mutex_lock(&s->snap_mu);
    Snapshot *n = s->snap;
    n->refs++;
    pthread_mutex_unlock(&s->snap_mu);
    return n;
}

/* One more reference to a snapshot the caller holds. */
Snapshot *snapshot_ref(Server *s, Snapshot *n)
{
    pthread_mutex_lock(&s->snap_mu);
    n->refs++;
    pthread_mutex_unlock(&s->snap_mu);
    return n;
}

void snapshot_put(Server *s, Snapshot *n)
{
    pthread_mutex_lock(&s->snap_mu);
    bool last = --n->refs == 0;
    pthread_mutex_unlock(&s->snap_mu);
    if (last) snapshot_free(n);
}

/* Takes in what anyone committed since the views were made (another
 * program, or this server's own event) and publishes new views.  Under
 * game_mu. */
void snapshot_sync(Server *s)
{
    if (!store_changed_elsewhere(s->watch) && !s->stale) return;
    Buf err = {0};
    long before = s->g->known_event;
    s->stale = !game_lock(s->g, &err);
    server_note_if_settled(s, before);
    if (!s->stale) {
        snapshot_publish(s);
        game_unlock(s->g);
    }
    buf_free(&err);
}

/* Before a read: if the game is idle (no event of this server's or of
 * another program's running), catch up with what was committed, so that
 * a request sees what a program it ran before wrote.  Never waits for an
 * event; the clock's or a move's own short work around one (publishing
 * views, reloading what another program wrote) it waits out, for at most
 * two seconds, since that work is what brings the other program's write
 * in. */
void snapshot_sync_if_idle(Server *s)
{
    for (int waited = 0; !server_try_hold(s); waited++) {
        if (atomic_load(&s->running) || waited >= 2000) return;
        struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    if (store_lock(s->g->st, 0)) {
        snapshot_sync(s);
        store_unlock(s->g->st);
    }
    server_release(s);
}
