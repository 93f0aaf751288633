/*
 * server.c - nomic serve (server.h): the HTTP front, the clock, the postman.
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
#include "server.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mail_in.h"
#include "mail_out.h"
#include "game_mechanics.h"
#include "objfmt.h"
#include "server_perclient.h"
#include "report.h"
#include "scams.h"
#include "views.h"

typedef struct Snapshot Snapshot;

/* A report's answer as sent (status and JSON body), for one event. */
typedef struct ReportAnswer {
    long event;
    int64_t at_ms;   /* when the rules were asked */
    char kind[REPORT_KIND_MAX + 1];
    unsigned status;
    char *body;
} ReportAnswer;
typedef struct Conn Conn;

typedef struct Server {
    Game *g;
    const char *path;
    char *name;
    /* the game (pool, engine, interned texts) is one thread's at a time */
    pthread_mutex_t game_mu;
    Store *watch;    /* tells when anyone committed (under game_mu) */
    /* group commit: the game's commits do not wait for the disk; a move is
     * answered once an fsync begun after its commit has ended, and the
     * moves committed while one fsync runs share the next */
    pthread_mutex_t sync_mu;
    pthread_cond_t synced_cv;
    Store *syncer;   /* its handle of the log is fsync'd (under sync_mu, by the thread syncing) */
    uint64_t committed, synced;
    bool syncing;
    bool stale;      /* the views missed a change (under game_mu) */
    atomic_bool running; /* an event of this server's runs the rules (set under game_mu, read by
                          * readers without it): readers do not wait for it */
    /* the views readers answer from, swapped under snap_mu */
    pthread_mutex_t snap_mu;
    Snapshot *snap;
    /* connections to the database for reading, kept for the next request */
    pthread_mutex_t readers_mu;
    Store *readers[READERS_KEPT];
    int nreaders;
    /* the connections, for the request deadline */
    pthread_mutex_t conn_mu;
    Conn *conns;
    /* the postman */
    pthread_t postman;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    bool stopping, mail_waiting;
    long probed_at;  /* the event after which the rules were last asked for a timer */
    /* the reports asked since the last event, so that a flood of GET
     * /api/report asks the rules once per kind and event (under game_mu) */
    ReportAnswer reports[REPORTS_KEPT];
    int nreports;
    atomic_int searches; /* POST /api/scams running now */
} Server;

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- group commit ---- */

/* A commit of the game's was made (under game_mu): its number, for
 * durable(). */
static uint64_t note_commit(Server *s)
{
    pthread_mutex_lock(&s->sync_mu);
    uint64_t n = ++s->committed;
    pthread_mutex_unlock(&s->sync_mu);
    return n;
}

/* Returns once commit n is on disk: a thread finds an fsync running and
 * waits for it and, if that one began before its commit, for the next,
 * which it may run itself for every commit made meanwhile.  False (and
 * *why) when the fsync failed: the move is then not acknowledged. */
static bool durable(Server *s, uint64_t n, char **why)
{
    bool ok = true;
    pthread_mutex_lock(&s->sync_mu);
    while (ok && s->synced < n) {
        if (s->syncing) {
            pthread_cond_wait(&s->synced_cv, &s->sync_mu);
            continue;
        }
        s->syncing = true;
        uint64_t upto = s->committed;
        pthread_mutex_unlock(&s->sync_mu);
        ok = store_sync_log(s->syncer);
        if (!ok && why) *why = xstrdup(store_error(s->syncer));
        pthread_mutex_lock(&s->sync_mu);
        s->syncing = false;
        if (ok && upto > s->synced) s->synced = upto;
        pthread_cond_broadcast(&s->synced_cv);
    }
    pthread_mutex_unlock(&s->sync_mu);
    return ok;
}

/* Everything the game committed so far, on disk: before mail leaves for
 * it. */
static bool durable_all(Server *s, char **why)
{
    pthread_mutex_lock(&s->sync_mu);
    uint64_t n = s->committed;
    pthread_mutex_unlock(&s->sync_mu);
    return durable(s, n, why);
}

/* After the game's lock was held (under game_mu): an event committed
 * meanwhile (a timer, an event left half done and finished) is one more
 * commit for durable_all to take down. */
static void note_if_settled(Server *s, long before)
{
    if (s->g->known_event != before) note_commit(s);
}

/* ---- the views readers answer from ---- */

/* One object (or rule) as JSON: what the public sees, and, when that
 * leaves private attributes out, what its owners see.  Entries are shared
 * by the snapshots that hold the object unchanged, so a new snapshot
 * renders only what changed, and readers holding older snapshots pin only
 * the entries that changed since: refs counts the snapshots holding it. */
typedef struct Entry {
    atomic_int refs;
    ObjId id;
    char *type;
    char *pub;
    char *full;      /* NULL: the same as pub */
    char *owner[2];  /* moveSender, defaultEmail (NULL when unset) */
    char *error;     /* a rule's: why it cannot fire (NULL: it can) */
} Entry;

/* The views of one committed state, in plain strings (no interned texts:
 * the game's thread frees those between events). */
struct Snapshot {
    int refs;            /* under snap_mu */
    long event;
    char *game;          /* the fields of /api/game that do not depend on the request */
    Entry **objs, **rules; /* objs by id; rules in their order */
    size_t nobjs, nrules;
    bool private_attrs;  /* the game has some: hiding them in moves needs the game */
    /* what the entries were rendered from, for the next snapshot to tell
     * which it can share: the pool (pool.h generation) and the words of
     * privateAttributes */
    uint64_t pool_generation;
    char *private_words;
};

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
static const char *entry_for(const Entry *e, const char *you)
{
    bool owner = you && ((e->owner[0] && strcmp(you, e->owner[0]) == 0) || (e->owner[1] && strcmp(you, e->owner[1]) == 0));
    return owner && e->full ? e->full : e->pub;
}

static void entries_free(Entry **list, size_t n)
{
    for (size_t i = 0; i < n; i++) entry_put(list[i]);
    free(list);
}

static void snapshot_free(Snapshot *n)
{
    if (!n) return;
    entries_free(n->objs, n->nobjs);
    entries_free(n->rules, n->nrules);
    free(n->game);
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

/* /api/game but its time and its caller: "name":...,"sugar":[...] */
static char *game_fields(Server *s)
{
    Game *g = s->g;
    Buf b = {0};
    buf_puts(&b, "\"name\":");
    char *display = game_config(g, "name"); /* the game's display name, or its file's */
    const char *name = *display ? display : s->name;
    json_string(&b, name, strlen(name));
    free(display);
    buf_printf(&b, ",\"event\":%ld,\"halted\":%s,\"nextTimer\":", g->known_event, g->halted ? "true" : "false");
    if (g->have_timer) buf_printf(&b, "%lld", (long long)g->next_timer);
    else buf_puts(&b, "null");
    char *policy = game_config(g, "mailPolicy");
    buf_puts(&b, ",\"mailPolicy\":");
    json_string(&b, policy, strlen(policy));
    free(policy);
    /* the rules the game-keeper set aside (nomic suspend): the engine skips them */
    buf_puts(&b, ",\"suspended\":[");
    for (int i = 0; i < g->eng->nsuspended; i++) buf_printf(&b, "%s%u", i ? "," : "", g->eng->suspended[i]);
    buf_putc(&b, ']');
    seed_fields(&b, g);
    sugar_field(&b, g);
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
static void publish(Server *s)
{
    Snapshot *n = snapshot_build(s, s->snap), *old; /* s->snap changes only here, under game_mu */
    pthread_mutex_lock(&s->snap_mu);
    old = s->snap;
    s->snap = n;
    bool last = old && --old->refs == 0;
    pthread_mutex_unlock(&s->snap_mu);
    if (last) snapshot_free(old);
}

static Snapshot *snapshot_get(Server *s)
{
    pthread_mutex_lock(&s->snap_mu);
    Snapshot *n = s->snap;
    n->refs++;
    pthread_mutex_unlock(&s->snap_mu);
    return n;
}

/* One more reference to a snapshot the caller holds. */
static Snapshot *snapshot_ref(Server *s, Snapshot *n)
{
    pthread_mutex_lock(&s->snap_mu);
    n->refs++;
    pthread_mutex_unlock(&s->snap_mu);
    return n;
}

static void snapshot_put(Server *s, Snapshot *n)
{
    pthread_mutex_lock(&s->snap_mu);
    bool last = --n->refs == 0;
    pthread_mutex_unlock(&s->snap_mu);
    if (last) snapshot_free(n);
}

/* Takes in what anyone committed since the views were made (another
 * program, or this server's own event) and publishes new views.  Under
 * game_mu. */
static void sync_views(Server *s)
{
    if (!store_changed_elsewhere(s->watch) && !s->stale) return;
    Buf err = {0};
    long before = s->g->known_event;
    s->stale = !game_lock(s->g, &err);
    note_if_settled(s, before);
    if (!s->stale) {
        publish(s);
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
static void sync_if_idle(Server *s)
{
    for (int waited = 0; pthread_mutex_trylock(&s->game_mu) != 0; waited++) {
        if (atomic_load(&s->running) || waited >= 2000) return;
        struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    if (store_lock(s->g->st, 0)) {
        sync_views(s);
        store_unlock(s->g->st);
    }
    pthread_mutex_unlock(&s->game_mu);
}

/* ---- reading the database beside the writer ---- */

static Store *reader_take(Server *s, Buf *err)
{
    Store *st = NULL;
    pthread_mutex_lock(&s->readers_mu);
    if (s->nreaders) st = s->readers[--s->nreaders];
    pthread_mutex_unlock(&s->readers_mu);
    return st ? st : store_open(s->path, false, false, err);
}

static void reader_give(Server *s, Store *st)
{
    if (!st) return;
    pthread_mutex_lock(&s->readers_mu);
    if (s->nreaders < READERS_KEPT) s->readers[s->nreaders++] = st, st = NULL;
    pthread_mutex_unlock(&s->readers_mu);
    store_close(st);
}

/* ---- one request ---- */

typedef struct Request {
    Buf body;
    bool too_big;
} Request;

typedef struct Answer {
    unsigned status;
    const char *type;
    Buf body;
    struct MHD_Response *stream; /* instead of body */
} Answer;

static void answer_json(Answer *a, unsigned status) { a->status = status, a->type = "application/json; charset=utf-8"; }

static void answer_error(Answer *a, unsigned status, const char *fmt, ...)
{
    answer_json(a, status);
    buf_reset(&a->body);
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    buf_puts(&a->body, "{\"error\":");
    json_string(&a->body, msg, strlen(msg));
    buf_puts(&a->body, "}");
}

/* Who is asking: NULL (the public), or the address of a valid token.
 * *bad: a token was given and is not valid. */
static char *caller(Store *rd, struct MHD_Connection *c, bool *bad)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    *bad = false;
    if (!h || !*h) return NULL;
    if (strncasecmp(h, "Bearer ", 7) != 0) {
        *bad = true;
        return NULL;
    }
    Game tokens = {.st = rd}; /* the tokens are read through the reader's own connection */
    char *who = game_token_owner(&tokens, h + 7);
    *bad = who == NULL;
    return who;
}

static void api_game(Snapshot *snap, const char *you, Answer *a)
{
    answer_json(a, 200);
    Buf *b = &a->body;
    buf_printf(b, "{\"version\":1,\"time\":%lld,\"you\":", (long long)time_now_wall());
    if (you) json_string(b, you, strlen(you));
    else buf_puts(b, "null");
    buf_printf(b, ",%s}", snap->game);
}

/* A list of entries, sent as the client reads it, from the snapshot it
 * holds: an answer as big as the game costs no copy of it. */
typedef struct Stream {
    Server *s;
    Snapshot *snap;
    Entry *const *list;
    size_t n, next, shown;
    char *type, *you;
    Buf chunk;
    size_t sent;
    bool begun, ended;
} Stream;

static void stream_refill(Stream *st)
{
    buf_reset(&st->chunk);
    st->sent = 0;
    if (!st->begun) {
        st->begun = true;
        buf_putc(&st->chunk, '[');
    }
    while (st->next < st->n) {
        const Entry *e = st->list[st->next++];
        if (st->type && (!e->type || strcmp(e->type, st->type) != 0)) continue;
        buf_puts(&st->chunk, st->shown++ ? ",\n" : "\n");
        buf_puts(&st->chunk, entry_for(e, st->you));
        return;
    }
    buf_puts(&st->chunk, "\n]");
    st->ended = true;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
    Stream *st = cls;
    if (st->sent == st->chunk.len) {
        if (st->ended) return MHD_CONTENT_READER_END_OF_STREAM;
        stream_refill(st);
    }
    size_t k = st->chunk.len - st->sent < max ? st->chunk.len - st->sent : max;
    memcpy(out, st->chunk.s + st->sent, k);
    st->sent += k;
    return (ssize_t)k;
}

static void stream_free(void *cls)
{
    Stream *st = cls;
    snapshot_put(st->s, st->snap);
    free(st->type);
    free(st->you);
    buf_free(&st->chunk);
    free(st);
}

static void answer_entries(Server *s, Snapshot *snap, bool rules, const char *type, const char *you, Answer *a)
{
    Stream *st = xcalloc(1, sizeof *st);
    st->s = s;
    st->snap = snapshot_ref(s, snap); /* the one whose list it sends, however many came since */
    st->list = rules ? snap->rules : snap->objs;
    st->n = rules ? snap->nrules : snap->nobjs;
    st->type = type ? xstrdup(type) : NULL;
    st->you = you ? xstrdup(you) : NULL;
    answer_json(a, 200);
    a->stream = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, stream_read, st, stream_free);
}

static void api_object(Snapshot *snap, const char *id, const char *you, Answer *a)
{
    char *end;
    long n = strtol(id, &end, 10);
    const Entry *found = NULL;
    if (*id && !*end && n > 0 && n < 0x7fffffffL) {
        size_t lo = 0, hi = snap->nobjs;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (snap->objs[mid]->id < (ObjId)n) lo = mid + 1;
            else hi = mid;
        }
        if (lo < snap->nobjs && snap->objs[lo]->id == (ObjId)n) found = snap->objs[lo];
    }
    if (!found) {
        answer_error(a, 404, "no object %s", id);
        return;
    }
    answer_json(a, 200);
    buf_puts(&a->body, entry_for(found, you));
}

typedef struct LogWalk {
    Buf *b;
    Viewer view;
    bool first;
    size_t input_cut, trace_cut;  /* view_event_json_cut */
    bool full;                     /* the page ended early (not an error of the store) */
} LogWalk;

static bool log_row(void *ud, const JournalRow *r)
{
    LogWalk *w = ud;
    buf_puts(w->b, w->first ? "\n" : ",\n");
    w->first = false;
    view_event_json_cut(w->b, r, &w->view, w->input_cut, w->trace_cut);
    w->full = w->b->len >= LOG_PAGE_BYTES; /* a page ends early rather than grow */
    return !w->full;
}

static bool number_param(struct MHD_Connection *c, const char *name, long dflt, long min, long max, long *out, Answer *a)
{
    const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
    *out = dflt;
    if (!v) return true;
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < min || n > max) {
        answer_error(a, 400, "%s=%s: expected a whole number from %ld to %ld", name, v, min, max);
        return false;
    }
    *out = n;
    return true;
}

/* The journal up to the snapshot's event, read beside the writer; a game
 * with private attributes needs the game's reader of moves to hide them,
 * and so waits for a running event. */
static bool each_event(Server *s, Snapshot *snap, Store *rd, long from, long to, LogWalk *w)
{
    if (to > snap->event) to = snap->event;
    if (!snap->private_attrs) return store_each_event(rd, from, to, log_row, w) || w->full;
    pthread_mutex_lock(&s->game_mu);
    w->view.private_attrs = s->g->eng->private_attrs;
    bool ok = store_each_event(rd, from, to, log_row, w) || w->full;
    pthread_mutex_unlock(&s->game_mu);
    return ok;
}

static void api_log(Server *s, Snapshot *snap, Store *rd, struct MHD_Connection *c, const char *you, Answer *a)
{
    long since, limit;
    if (!number_param(c, "since", 0, 0, 0x7fffffffL, &since, a) ||
        !number_param(c, "limit", LOG_PAGE, 1, LOG_PAGE_MAX, &limit, a))
        return;
    answer_json(a, 200);
    LogWalk w = {&a->body, {.address = you}, true, LOG_INPUT_CUT, LOG_TRACE_CUT};
    buf_putc(&a->body, '[');
    if (each_event(s, snap, rd, since + 1, since + limit, &w)) buf_puts(&a->body, "\n]");
    else answer_error(a, 503, "the journal cannot be read: %s", store_error(rd)); /* not a page cut short */
}

/* One event whole, but for moves or a trace too big even for that. */
static void api_event(Server *s, Snapshot *snap, Store *rd, const char *id, const char *you, Answer *a)
{
    char *end;
    long n = strtol(id, &end, 10);
    if (!*id || *end || n <= 0 || n > snap->event) {
        answer_error(a, 404, "no event %s (the journal has %ld)", id, snap->event);
        return;
    }
    Buf one = {0};
    LogWalk w = {&one, {.address = you}, true, EVENT_INPUT_MAX, EVENT_TRACE_MAX};
    if (!each_event(s, snap, rd, n, n, &w)) {
        answer_error(a, 503, "the journal cannot be read: %s", store_error(rd));
        buf_free(&one);
        return;
    }
    answer_json(a, 200);
    /* log_row wrote "\n{...}" */
    if (one.len) buf_add(&a->body, one.s + 1, one.len - 1);
    buf_free(&one);
}

/* Is `addr` one of the words of the recipient list `to`?  (addressed_to
 * without interning: readers do not touch the game's texts.) */
static bool addressed_to_text(const char *to, const char *addr)
{
    return words_include(to, addr, strlen(addr), false);
}

typedef struct OutWalk {
    Buf *b;
    const char *you;
    long only;          /* one message's id, or 0: a page */
    long left;          /* messages the page may still hold */
    size_t text_cut;
    bool first;
    bool stopped;       /* the walk ended it (not an error of the store) */
    size_t *ends;       /* newest first (?last=N): where each message ends in b */
    size_t nends;
} OutWalk;

static bool outbox_row(void *ud, const OutRow *r)
{
    OutWalk *w = ud;
    bool mine = (!w->only || r->id == w->only) && addressed_to_text(r->to, w->you);
    if (mine) {
        buf_puts(w->b, w->first ? "\n" : ",\n");
        w->first = false;
        view_message_json_cut(w->b, r, w->text_cut);
        if (w->ends) w->ends[w->nends++] = w->b->len;
    }
    /* one message: only the first row; a page ends at its count, or early
     * rather than grow past its bytes */
    w->stopped = w->only || (mine && (--w->left == 0 || w->b->len >= OUTBOX_PAGE_BYTES));
    return !w->stopped;
}

/* The messages a newest-first walk wrote (each ",\n{...}" or "\n{...}"),
 * in the page oldest first. */
static void put_oldest_first(Buf *page, const Buf *walked, const size_t *ends, size_t n)
{
    for (size_t k = n; k-- > 0;) {
        size_t from = k ? ends[k - 1] : 0;
        const char *m = walked->s + from;
        size_t len = ends[k] - from;
        size_t skip = m[0] == ',' ? 2 : 1; /* its separator */
        buf_puts(page, k == n - 1 ? "\n" : ",\n");
        buf_add(page, m + skip, len - skip);
    }
}

/* The caller's messages after id `since`, a page at a time: at most
 * `limit`, ending early after the one that passes OUTBOX_PAGE_BYTES, each
 * text cut at OUTBOX_TEXT_CUT (GET /api/outbox/ID has it whole); or, with
 * ?last=N, the N newest (the same bounds), oldest first.  The rows are
 * read one at a time: a page costs its own bytes, whatever the outbox
 * holds. */
static void api_outbox(Store *rd, struct MHD_Connection *c, const char *you, Answer *a)
{
    long since, limit, last;
    if (!you) {
        answer_error(a, 401, "your messages need your token (Authorization: Bearer TOKEN)");
        return;
    }
    if (!number_param(c, "since", 0, 0, 0x7fffffffffffL, &since, a) ||
        !number_param(c, "limit", OUTBOX_PAGE, 1, OUTBOX_PAGE_MAX, &limit, a) ||
        !number_param(c, "last", 0, 1, OUTBOX_PAGE_MAX, &last, a))
        return;
    answer_json(a, 200);
    Buf walked = {0};
    OutWalk w = {last ? &walked : &a->body, you, 0, last ? last : limit, OUTBOX_TEXT_CUT, true, false, NULL, 0};
    if (last) w.ends = xmalloc((size_t)last * sizeof *w.ends);
    buf_putc(&a->body, '[');
    bool read = (last ? store_each_outbox_before(rd, 0x7fffffffffffL, outbox_row, &w)
                      : store_each_outbox_after(rd, since, outbox_row, &w)) ||
                w.stopped;
    if (last) put_oldest_first(&a->body, &walked, w.ends, w.nends);
    if (read) buf_puts(&a->body, "\n]");
    else answer_error(a, 503, "the outbox cannot be read: %s", store_error(rd));
    free(w.ends);
    buf_free(&walked);
}

/* One of the caller's messages, its text whole up to MESSAGE_TEXT_MAX. */
static void api_message(Store *rd, const char *id, const char *you, Answer *a)
{
    char *end;
    long n = strtol(id, &end, 10);
    if (!you) {
        answer_error(a, 401, "your messages need your token (Authorization: Bearer TOKEN)");
        return;
    }
    Buf one = {0};
    OutWalk w = {&one, you, n, 1, MESSAGE_TEXT_MAX, true, false, NULL, 0};
    bool read = *id && !*end && n > 0 && n < 0x7fffffffffffL ? store_each_outbox_after(rd, n - 1, outbox_row, &w) || w.stopped
                                                              : true;
    if (!read) {
        answer_error(a, 503, "the outbox cannot be read: %s", store_error(rd));
    } else if (w.first) {
        answer_error(a, 404, "no message %s of yours", id);
    } else {
        answer_json(a, 200);
        buf_add(&a->body, one.s + 1, one.len - 1); /* outbox_row wrote "\n{...}" */
    }
    buf_free(&one);
}

/* ---- moves ---- */

typedef struct MoveAnswer {
    Buf *b;
    const char *sender;
    bool answered, refused, over_quota;
} MoveAnswer;

/* The client's IP, into ip ("unknown" when it has none): billed with the
 * sender (game_billing.h), and counted for the tokens it asks for. */
static const char *client_ip(struct MHD_Connection *c, char ip[INET6_ADDRSTRLEN])
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    ip[0] = 0;
    if (sa && sa->sa_family == AF_INET) inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, ip, INET6_ADDRSTRLEN);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, ip, INET6_ADDRSTRLEN);
    return ip[0] ? ip : "unknown";
}

/* The outcome of the move itself (timers due before it run first and are
 * in the log). */
static void move_outcome(void *ud, Game *g, const Outcome *o)
{
    MoveAnswer *m = ud;
    if (strcmp(o->kind, "move") != 0) return;
    Buf *b = m->b;
    m->answered = true;
    m->refused = o->verdict == VERDICT_REFUSED;
    m->over_quota = o->over_quota;
    buf_printf(b, "{\"event\":%ld,\"status\":", o->event);
    json_string(b, verdict_name(o->verdict), strlen(verdict_name(o->verdict)));
    buf_puts(b, ",\"message\":");
    if (o->message) json_string(b, o->message, strlen(o->message));
    else buf_puts(b, "null");
    buf_puts(b, ",\"codeCheck\":");
    code_notes_json(b, &o->code);
    buf_puts(b, ",\"trace\":");
    if (!o->ran || !o->run.trace_json.len) buf_puts(b, "[]");
    else if (o->run.trace_json.len > EVENT_TRACE_MAX) buf_printf(b, "null,\"cut\":{\"trace\":%zu}", o->run.trace_json.len);
    else buf_add_utf8(b, o->run.trace_json.s, o->run.trace_json.len);
    buf_puts(b, ",\"replies\":[");
    bool first = true;
    const MsgList *lists[2] = {&o->run.sent, &g->eng->queue};
    for (int k = 0; k < 2 && o->ran; k++)
        for (size_t i = 0; i < lists[k]->len; i++) {
            const Message *msg = &lists[k]->m[i];
            if (!addressed_to(msg->to, m->sender)) continue;
            buf_puts(b, first ? "{\"to\":" : ",{\"to\":");
            first = false;
            json_string(b, sym_text(msg->to), sym_len(msg->to));
            buf_puts(b, ",\"text\":");
            json_string(b, sym_text(msg->text), sym_len(msg->text));
            buf_puts(b, k ? ",\"state\":\"queued\"}" : ",\"state\":\"sent\"}");
        }
    buf_puts(b, "]}");
}

/* The next value of a form's field `name` (application/x-www-form-
 * urlencoded) from *at on (start at the body), decoded; *at moves past
 * it.  NULL after the last.  A field may be repeated (with=, of POST
 * /api/scams). */
static char *form_field_next(const char **at, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = *at; p && *p;) {
        const char *amp = strchr(p, '&');
        size_t len = amp ? (size_t)(amp - p) : strlen(p);
        if (len > n && strncmp(p, name, n) == 0 && p[n] == '=') {
            char *v = xstrndup(p + n + 1, len - n - 1);
            for (char *c = v; *c; c++)
                if (*c == '+') *c = ' ';
            MHD_http_unescape(v);
            *at = amp ? amp + 1 : NULL;
            return v;
        }
        p = amp ? amp + 1 : NULL;
    }
    *at = NULL;
    return NULL;
}

/* The first value of the form field `name`. */
static char *form_field(const char *body, const char *name)
{
    const char *at = body;
    return form_field_next(&at, name);
}

static void wake_postman(Server *s)
{
    pthread_mutex_lock(&s->mu);
    s->mail_waiting = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
}

static void api_move(Server *s, struct MHD_Connection *c, const char *you, Request *rq, Answer *a)
{
    const char *ctype = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    /* a form sends body=...; anything else (curl's default type included)
     * is the moves themselves */
    const char *raw = buf_str(&rq->body);
    char *body = ctype && strncasecmp(ctype, "application/x-www-form-urlencoded", 33) == 0 ? form_field(raw, "body") : NULL;
    bool form = body != NULL;
    if (!body) body = xstrdup(raw);
    char *from = form ? form_field(raw, "from") : NULL;
    const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "from");
    if (!from && q) from = xstrdup(q);
    if (from && !*from) {
        free(from);
        from = NULL;
    }
    if (from) {
        /* one address, one player: from= in the form the token's address has */
        const char *bad;
        pthread_mutex_lock(&s->game_mu);
        char *canon = game_address(s->g, from, &bad);
        pthread_mutex_unlock(&s->game_mu);
        if (canon) {
            free(from);
            from = canon;
        }
    }
    const char *sender = you ? you : from;
    if (!body || !*body) answer_error(a, 400, "no move: the body holds the moves (object format or sugar lines)");
    else if (!sender) answer_error(a, 400, "who is moving? Give your token (Authorization: Bearer) or from=ADDRESS");
    else if (you && from && strcmp(you, from) != 0)
        answer_error(a, 403, "from=%s is not the address of the token given (%s)", from, you);
    else if (strlen(sender) > 320 || strpbrk(sender, " \t\r\n<>,"))
        answer_error(a, 400, "from=%s: not a bare address", sender);
    else {
        Incoming in = {VIA_HTTP, sender, time_now_wall(), 0, body, NULL, NULL, false};
        char ip[INET6_ADDRSTRLEN];
        /* a stranger is billed by IP as well: behind the keeper's proxy,
         * strangers share one tally, players with a token have their own */
        in.client = you ? NULL : client_ip(c, ip);
        const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
        if (h && strncasecmp(h, "Bearer ", 7) == 0) in.token = h + 7;
        MoveAnswer m = {&a->body, sender, false, false, false};
        pthread_mutex_lock(&s->game_mu);
        atomic_store(&s->running, true);
        in.public_view = !you; /* the answer goes to whoever asked */
        bool kept = game_submit(s->g, &in, false, move_outcome, &m);
        atomic_store(&s->running, false);
        uint64_t commit = kept ? note_commit(s) : 0;
        char *policy = game_config(s->g, "mailPolicy");
        char *why = kept ? NULL : xstrdup(store_error(s->g->st));
        sync_views(s); /* the mover's next read sees the move */
        pthread_mutex_unlock(&s->game_mu);
        /* answered only once on disk, the fsync shared with the moves
         * committed meanwhile */
        if (kept && !durable(s, commit, &why)) kept = false;
        if (!kept) {
            answer_error(a, 503, "the move could not be kept: %s", why);
        } else if (!m.answered) {
            answer_error(a, 500, "the move gave no outcome");
        } else {
            /* the policy refuses before the rules run: no trace */
            bool forbidden = m.refused && strcmp(policy, "tokens") == 0 && !you;
            answer_json(a, m.over_quota ? 429 : forbidden ? 403 : 200);
            wake_postman(s);
        }
        free(policy);
        free(why);
    }
    free(body);
    free(from);
}

/* ---- POST /api/scams: "what does this open up?" ---- */

/* An address as a search's sender: at most 320 bytes (RFC 5321's bound)
 * and no white space, comma or angle bracket, the bare form moves carry;
 * the same test for as= and every with=. */
static bool bare_address(const char *s, size_t n)
{
    if (n == 0 || n > 320) return false;
    for (size_t i = 0; i < n; i++)
        if (strchr(" \t\r\n<>,", s[i])) return false;
    return true;
}

/* A search's coalition (docs/api.md): who[0] is as=, then the accomplices
 * of the with= fields, each field holding one address or several
 * separated by commas or white space (the page's field, typed by hand;
 * a script may repeat the field instead).  A coalition is a set: an
 * address named twice, or as= named again, is one sender, not a second
 * copy of every move to try. */
typedef struct Coalition {
    char *who[1 + SCAMS_WITH_MAX];
    int n;
} Coalition;

static void coalition_free(Coalition *c)
{
    for (int i = 0; i < c->n; i++) free(c->who[i]);
    c->n = 0;
}

/* Adds one address of a with= field: false, with the 400's message in err,
 * when it is not bare or one too many. */
static bool coalition_add(Coalition *c, const char *s, size_t n, Buf *err)
{
    if (!bare_address(s, n)) {
        if (n > 320) buf_printf(err, "with=%.40s...: not a bare address (%zu bytes, at most 320)", s, n);
        else buf_printf(err, "with=%.*s: not a bare address", (int)n, s);
        return false;
    }
    for (int i = 0; i < c->n; i++)
        if (strlen(c->who[i]) == n && memcmp(c->who[i], s, n) == 0) return true;
    if (c->n == 1 + SCAMS_WITH_MAX) {
        buf_printf(err, "with= names more than %d addresses besides as=: a search's coalition is at most %d senders",
                   SCAMS_WITH_MAX, 1 + SCAMS_WITH_MAX);
        return false;
    }
    c->who[c->n++] = xstrndup(s, n);
    return true;
}

/* Reads every with= field of the body into c, after `as`. */
static bool coalition_read(Coalition *c, const char *body, const char *as, Buf *err)
{
    c->n = 0;
    c->who[c->n++] = xstrdup(as);
    bool ok = true;
    const char *at = body;
    char *field;
    while (ok && (field = form_field_next(&at, "with"))) {
        for (const char *p = field; ok && *p;) {
            p += strspn(p, ", \t\r\n");
            size_t n = strcspn(p, ", \t\r\n");
            if (n) ok = coalition_add(c, p, n, err);
            p += n;
        }
        free(field);
    }
    return ok;
}

/* The search itself, in a child process: a copy of the game as it stood
 * under game_mu, searched in memory (nomic scams's code, the same answer),
 * the answer written to fd.  Never returns. */
static void scams_child(Game *g, int64_t now, const ScamQuery *q, const char *proposal, int fd)
{
    signal(SIGALRM, SIG_DFL);
    alarm(SCAMS_SECONDS); /* a last guard: the budget bounds the work */
    Buf b = {0}, err = {0};
    int code = 0;
    ScamResult r;
    if (proposal && !scams_adopt(g, proposal, &err)) {
        buf_printf(&b, "404 proposal %s: %s", proposal, buf_str(&err));
        code = 1;
    } else if (!scams_search(g, now, q, &r, &err)) {
        buf_printf(&b, "400 %s", buf_str(&err));
        code = 1;
    } else {
        scam_result_json(&b, q, &r);
        scam_result_free(&r);
    }
    for (size_t at = 0; at < b.len;) {
        ssize_t n = write(fd, b.s + at, b.len - at);
        if (n <= 0) break;
        at += (size_t)n;
    }
    _exit(code);
}

/* Reads the child's answer and waits for it to end. */
static bool scams_collect(pid_t pid, int fd, Buf *out, int *status)
{
    char chunk[4096];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if (out->len < SCAMS_ANSWER_MAX) buf_add(out, chunk, (size_t)n);
    }
    close(fd);
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR) return false;
    return true;
}

/* POST /api/scams (form fields as, with, goal, proposal, depth, budget, wait):
 * the search of nomic scams on the game as it stands, or as it would be
 * if the proposal were adopted.  The game is copied (fork) under game_mu,
 * for a moment; the search runs in the copy, beside the writer and the
 * other requests, at most SCAMS_AT_ONCE at a time.  It plays on the public
 * view of the state (scams.h), or on as='s own when the request's token
 * is as='s: a goal cannot probe another's private value, however it
 * computes the attribute's name. */
static void api_scams(Server *s, const char *you, Request *rq, Answer *a)
{
    const char *raw = buf_str(&rq->body);
    char *as = form_field(raw, "as"), *goal = form_field(raw, "goal"), *proposal = form_field(raw, "proposal");
    char *depth_s = form_field(raw, "depth"), *budget_s = form_field(raw, "budget"), *wait_s = form_field(raw, "wait");
    long depth = 3, budget = SCAMS_BUDGET;
    char *end;
    if (proposal && !*proposal) free(proposal), proposal = NULL;
    Coalition co = {0};
    Buf co_err = {0};
    if (!as || !*as || !goal || !*goal) {
        answer_error(a, 400, "as and goal are needed (form fields as=ADDRESS&goal=CONDITION)");
    } else if (!bare_address(as, strlen(as))) {
        answer_error(a, 400, "as=%s: not a bare address", as);
    } else if (!coalition_read(&co, raw, as, &co_err)) {
        answer_error(a, 400, "%s", buf_str(&co_err));
    } else if (strlen(goal) > SCAMS_GOAL_MAX) {
        answer_error(a, 400, "the goal is longer than %d bytes", SCAMS_GOAL_MAX);
    } else if (depth_s && *depth_s && ((depth = strtol(depth_s, &end, 10)), *end || depth < 1 || depth > SCAMS_DEPTH_MAX)) {
        answer_error(a, 400, "depth=%s: expected a whole number from 1 to %d", depth_s, SCAMS_DEPTH_MAX);
    } else if (budget_s && *budget_s &&
               ((budget = strtol(budget_s, &end, 10)), *end || budget < 1 || budget > SCAMS_BUDGET_MAX)) {
        answer_error(a, 400, "budget=%s: expected a whole number of events from 1 to %d", budget_s, SCAMS_BUDGET_MAX);
    } else if (atomic_fetch_add(&s->searches, 1) >= SCAMS_AT_ONCE) {
        atomic_fetch_sub(&s->searches, 1);
        answer_error(a, 503, "%d searches are running already: ask again in a moment", SCAMS_AT_ONCE);
    } else {
        ScamQuery q = {(const char *const *)co.who, co.n, goal, (int)depth, budget, wait_s && strcmp(wait_s, "T") == 0, false,
                       you && strcmp(you, as) == 0 ? as : NULL};
        int fds[2] = {-1, -1};
        pid_t pid = -1;
        pthread_mutex_lock(&s->game_mu);
        sync_views(s);
        Buf err = {0};
        bool locked = game_lock(s->g, &err);
        if (locked) {
            if (pipe(fds) == 0) {
                int64_t now = scams_game_time(s->g);
                pid = fork();
                if (pid == 0) {
                    close(fds[0]);
                    scams_child(s->g, now, &q, proposal, fds[1]);
                }
            }
            game_unlock(s->g);
        }
        pthread_mutex_unlock(&s->game_mu);
        if (fds[1] >= 0) close(fds[1]);
        Buf out = {0};
        int status = 0;
        if (!locked) answer_error(a, 503, "the game cannot be read: %s", buf_str(&err));
        else if (pid < 0) answer_error(a, 503, "the search could not start: %s", strerror(errno));
        else if (!scams_collect(pid, fds[0], &out, &status)) answer_error(a, 500, "the search was lost");
        else if (WIFSIGNALED(status)) answer_error(a, 503, "the search ran out of time (%d s): ask with a smaller budget", SCAMS_SECONDS);
        else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && out.len) {
            answer_json(a, 200);
            buf_add(&a->body, out.s, out.len);
            buf_putc(&a->body, '\n');
        } else {
            const char *msg = buf_str(&out);
            unsigned code = strncmp(msg, "404 ", 4) == 0 ? 404 : 400;
            answer_error(a, code, "%s", strlen(msg) > 4 ? msg + 4 : "the search failed");
        }
        if (pid < 0 && fds[0] >= 0) close(fds[0]);
        buf_free(&out);
        buf_free(&err);
        atomic_fetch_sub(&s->searches, 1);
    }
    coalition_free(&co);
    buf_free(&co_err);
    free(as);
    free(goal);
    free(proposal);
    free(depth_s);
    free(budget_s);
    free(wait_s);
}

/* May a token be mailed to `who` at `now`, asked by this client?  0 yes,
 * else the HTTP status of the refusal, said in a (nothing is journaled:
 * a refusal here costs the game no row).  The canonical address in
 * *canon.  Under game_mu. */
static unsigned token_refusal(Server *s, struct MHD_Connection *c, const char *from, int64_t now, char **canon,
                              Answer *a)
{
    char ip[INET6_ADDRSTRLEN], *per = game_config(s->g, "tokenRequestsPerClient"), *why = NULL;
    long most = strtol(per, NULL, 10), count;
    unsigned status = 0;
    const char *bad;
    Buf err = {0};
    client_ip(c, ip);
    if (!perclient_take(ip, now, most, &count))
        answer_error(a, status = 429, "this client (%s) asked for %ld tokens in the last hour, the most it may "
                                      "(tokenRequestsPerClient %s); ask again later", ip, count, per);
    else if (!game_lock(s->g, &err)) answer_error(a, status = 503, "the game is busy: %s", buf_str(&err));
    else {
        *canon = game_address(s->g, from, &bad);
        TokenMail r = *canon ? game_token_mail_check(s->g, *canon, now, &why) : TOKEN_MAIL_UNKNOWN;
        game_unlock(s->g);
        if (!*canon) answer_error(a, status = 400, "from=%s: %s", from, bad);
        else if (r == TOKEN_MAIL_NO_TRANSPORT) answer_error(a, status = 409, "%s", why);
        else if (r == TOKEN_MAIL_UNKNOWN) answer_error(a, status = 403, "%s", why);
        else if (r == TOKEN_MAIL_RECENT || r == TOKEN_MAIL_BUSY) answer_error(a, status = 429, "%s", why);
        else if (r == TOKEN_MAIL_FAILED)
            answer_error(a, status = 503, "the game cannot be read: %s", store_error(s->g->st));
    }
    free(why);
    free(per);
    buf_free(&err);
    return status;
}

/* POST /api/token?from=ADDRESS: "mail me my token", as a mail's line
 * TOKEN does (docs/mechanics.md): an event that mails the address a new
 * token, which voids the one before when first used.  Only to an address
 * the game knows, over a transport that sends mail, within the hourly
 * ceilings per address, per client and in all; a refusal is answered
 * without an event.  Only the address's owner reads the token. */
static void api_token(Server *s, struct MHD_Connection *c, Request *rq, Answer *a)
{
    const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "from");
    char *from = q ? xstrdup(q) : form_field(buf_str(&rq->body), "from"), *canon = NULL;
    int64_t now = time_now_wall();
    if (!from || !*from) answer_error(a, 400, "whose token? Give from=ADDRESS: the token is mailed there");
    else if (strlen(from) > 320 || strpbrk(from, " \t\r\n<>,\"") || !strchr(from, '@'))
        answer_error(a, 400, "from=%s: not a bare address", from);
    else {
        pthread_mutex_lock(&s->game_mu);
        if (token_refusal(s, c, from, now, &canon, a)) {
            pthread_mutex_unlock(&s->game_mu);
            free(canon);
            free(from);
            return;
        }
        Incoming in = {VIA_HTTP, canon, now, 0, "", NULL, NULL, false, NULL, NULL, (const int[]){0}, 0, NULL, true};
        MoveAnswer m = {&a->body, canon, false, false};
        atomic_store(&s->running, true);
        bool kept = game_submit(s->g, &in, false, move_outcome, &m);
        atomic_store(&s->running, false);
        char *why = kept ? NULL : xstrdup(store_error(s->g->st));
        sync_views(s);
        pthread_mutex_unlock(&s->game_mu);
        if (!kept) answer_error(a, 503, "the request could not be kept: %s", why);
        else if (!m.answered) answer_error(a, 500, "the request gave no outcome");
        else {
            answer_json(a, 200);
            wake_postman(s);
        }
        free(why);
    }
    free(canon);
    free(from);
}

/* ---- reports ---- */

/* Asks the rules for the report (a dry run: nothing is kept) and renders
 * the answer.  Under game_mu. */
static void report_answer(Server *s, const char *kind, ReportAnswer *ra)
{
    Report r = {0};
    Buf b = {0};
    atomic_store(&s->running, true);
    bool stored = report_run(s->g, kind, GAME_TIME_NOW, &r);
    atomic_store(&s->running, false);
    ra->event = s->g->known_event;
    ra->at_ms = now_ms();
    snprintf(ra->kind, sizeof ra->kind, "%s", kind);
    if (!stored) {
        ra->status = 503;
        buf_puts(&b, "{\"error\":");
        Buf why = {0};
        buf_printf(&why, "the game cannot be read: %s", store_error(s->g->st));
        json_string(&b, why.s, why.len);
        buf_free(&why);
        buf_puts(&b, "}");
    } else if (r.refused || !r.text.len) {
        ra->status = r.refused ? 422 : 404;
        Buf why = {0};
        if (r.refused) buf_printf(&why, "the report move was refused: %s", r.why ? r.why : "(no reason)");
        else buf_printf(&why, "the rules answered no report %s (a set's report rules answer the move subtype: report, "
                              "kind: KIND; docs/cli.md lists the shipped sets' kinds)", kind);
        buf_puts(&b, "{\"error\":");
        json_string(&b, why.s, why.len);
        buf_puts(&b, "}");
        buf_free(&why);
    } else {
        ra->status = 200;
        buf_printf(&b, "{\"kind\":\"%s\",\"event\":%ld,\"text\":", kind, ra->event);
        json_string(&b, r.text.s, r.text.len);
        buf_puts(&b, "}");
    }
    ra->body = buf_take(&b);
    report_free(&r);
}

/* GET /api/report/KIND: what `nomic report GAME KIND` prints, as of now.
 * Each kind is asked of the rules at most once per event and minute. */
static void api_report(Server *s, const char *kind, Answer *a)
{
    if (!report_kind_ok(kind)) {
        answer_error(a, 400, "a report kind is one word of letters, digits, - and _ (not \"%.64s\")", kind);
        return;
    }
    pthread_mutex_lock(&s->game_mu);
    sync_views(s);
    ReportAnswer *ra = NULL;
    for (int i = 0; i < s->nreports; i++)
        if (s->reports[i].event == s->g->known_event && strcmp(s->reports[i].kind, kind) == 0 &&
            now_ms() - s->reports[i].at_ms < REPORT_FRESH_MS)
            ra = &s->reports[i];
    if (!ra) {
        /* a new event, or a minute, makes every kept answer old; else the oldest goes */
        if (s->nreports && (s->reports[0].event != s->g->known_event || now_ms() - s->reports[0].at_ms >= REPORT_FRESH_MS)) {
            for (int i = 0; i < s->nreports; i++) free(s->reports[i].body);
            s->nreports = 0;
        }
        if (s->nreports == REPORTS_KEPT) {
            free(s->reports[0].body);
            memmove(&s->reports[0], &s->reports[1], (REPORTS_KEPT - 1) * sizeof s->reports[0]);
            s->nreports--;
        }
        ra = &s->reports[s->nreports++];
        report_answer(s, kind, ra);
    }
    a->status = ra->status;
    a->type = "application/json; charset=utf-8";
    buf_puts(&a->body, ra->body);
    pthread_mutex_unlock(&s->game_mu);
}

/* ---- routing ---- */

static void route_api(Server *s, struct MHD_Connection *c, const char *url, bool get, bool post, Request *rq,
                      Answer *a)
{
    const char *api = url + 5;
    bool is_move = strcmp(api, "move") == 0 || strcmp(api, "token") == 0 || strcmp(api, "scams") == 0; /* the POSTs */
    /* the database is read beside the writer: tokens, the journal, the outbox */
    bool reads = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION) ||
                 strcmp(api, "log") == 0 || strncmp(api, "log/", 4) == 0 || strcmp(api, "outbox") == 0 ||
                 strncmp(api, "outbox/", 7) == 0;
    Buf err = {0};
    Store *rd = reads ? reader_take(s, &err) : NULL;
    if (reads && !rd) {
        answer_error(a, 503, "the game cannot be read: %s", buf_str(&err));
        buf_free(&err);
        return;
    }
    buf_free(&err);
    if (!is_move) sync_if_idle(s);
    Snapshot *snap = snapshot_get(s);
    bool bad = false;
    char *you = rd ? caller(rd, c, &bad) : NULL;
    if (bad) answer_error(a, 401, "the token given is not valid (nomic token GAME ADDRESS issues one)");
    else if (is_move ? !post : !get) answer_error(a, 405, "%s takes %s", url, is_move ? "POST" : "GET");
    else if (strcmp(api, "token") == 0) api_token(s, c, rq, a);
    else if (strcmp(api, "scams") == 0) api_scams(s, you, rq, a);
    else if (is_move) api_move(s, c, you, rq, a);
    else if (strcmp(api, "game") == 0) api_game(snap, you, a);
    else if (strcmp(api, "objects") == 0)
        answer_entries(s, snap, false, MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "type"), you, a);
    else if (strncmp(api, "objects/", 8) == 0) api_object(snap, api + 8, you, a);
    else if (strcmp(api, "rules") == 0) answer_entries(s, snap, true, NULL, you, a);
    else if (strcmp(api, "log") == 0) api_log(s, snap, rd, c, you, a);
    else if (strncmp(api, "log/", 4) == 0) api_event(s, snap, rd, api + 4, you, a);
    else if (strcmp(api, "outbox") == 0) api_outbox(rd, c, you, a);
    else if (strncmp(api, "outbox/", 7) == 0) api_message(rd, api + 7, you, a);
    else if (strncmp(api, "report/", 7) == 0) api_report(s, api + 7, a);
    else answer_error(a, 404, "no such API: %s (see docs/api.md)", url);
    free(you);
    snapshot_put(s, snap);
    reader_give(s, rd);
}

static void route(Server *s, struct MHD_Connection *c, const char *url, const char *method, Request *rq, Answer *a)
{
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    bool post = strcmp(method, "POST") == 0;
    if (strncmp(url, "/api/", 5) != 0) {
        for (const WebFile *f = web_files; f->path; f++)
            if (strcmp(f->path, url) == 0) {
                if (!get) {
                    answer_error(a, 405, "%s takes GET", url);
                    return;
                }
                a->status = 200;
                a->type = f->type;
                a->stream = MHD_create_response_from_buffer(f->len, (void *)f->data, MHD_RESPMEM_PERSISTENT);
                return;
            }
        answer_error(a, 404, "no page %s (the game is at /, its API under /api/)", url);
        return;
    }
    if (rq->too_big) {
        answer_error(a, 413, "the body is larger than %d KiB", MAX_BODY / 1024);
        return;
    }
    route_api(s, c, url, get, post, rq, a);
}

/* ---- the connections and their deadline ---- */

/* Each connection, known from its start to its end, so that the clock can
 * cut one whose request has not come whole within REQUEST_DEADLINE
 * seconds: a client trickling a header line now and then, under the idle
 * timeout, would otherwise hold its slot for ever. */
struct Conn {
    struct MHD_Connection *c;
    int64_t waiting_since;  /* ms: since the connection or its last answer */
    bool answering, cut;
    Conn *prev, *next;
};

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    Server *s = cls;
    pthread_mutex_lock(&s->conn_mu);
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        Conn *k = xcalloc(1, sizeof *k);
        k->c = c;
        k->waiting_since = now_ms();
        k->next = s->conns;
        if (s->conns) s->conns->prev = k;
        s->conns = k;
        *socket_context = k;
    } else if (*socket_context) {
        Conn *k = *socket_context;
        if (k->prev) k->prev->next = k->next;
        else s->conns = k->next;
        if (k->next) k->next->prev = k->prev;
        free(k);
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&s->conn_mu);
}

static void conn_answering(Server *s, struct MHD_Connection *c, bool answering)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    Conn *k = info ? info->socket_context : NULL;
    if (!k) return;
    pthread_mutex_lock(&s->conn_mu);
    k->answering = answering;
    k->waiting_since = now_ms();
    pthread_mutex_unlock(&s->conn_mu);
}

/* Cuts the connections past their deadline: shutdown() wakes the
 * connection's thread, which closes it (the socket stays the library's). */
static void enforce_deadline(Server *s)
{
    int64_t now = now_ms();
    pthread_mutex_lock(&s->conn_mu);
    for (Conn *k = s->conns; k; k = k->next) {
        if (k->answering || k->cut || now - k->waiting_since < REQUEST_DEADLINE * 1000L) continue;
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(k->c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (info) shutdown(info->connect_fd, SHUT_RDWR);
        k->cut = true;
    }
    pthread_mutex_unlock(&s->conn_mu);
}

static enum MHD_Result respond(struct MHD_Connection *c, Answer *a)
{
    struct MHD_Response *r = a->stream;
    if (!r) {
        size_t len = a->body.len;
        r = MHD_create_response_from_buffer(len, len ? buf_take(&a->body) : (char *)"",
                                            len ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    }
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a->type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'");
    enum MHD_Result ret = MHD_queue_response(c, a->status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    Server *s = cls;
    Request *rq = *con_cls;
    if (!rq) {
        *con_cls = xcalloc(1, sizeof *rq);
        return MHD_YES;
    }
    if (*upload_size) {
        if (rq->body.len + *upload_size > MAX_BODY) rq->too_big = true;
        else buf_add(&rq->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    /* the request came whole: from here the deadline no longer runs (a
     * move may take its time) */
    conn_answering(s, c, true);
    Answer a = {0};
    route(s, c, url, method, rq, &a);
    enum MHD_Result ret = respond(c, &a);
    buf_free(&a.body);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode why)
{
    conn_answering(cls, c, false);
    Request *rq = *con_cls;
    if (!rq) return;
    buf_free(&rq->body);
    free(rq);
    *con_cls = NULL;
}

/* ---- the postman ---- */

static void *postman(void *ud)
{
    Server *s = ud;
    Buf err = {0};
    Store *st = store_open(s->path, false, false, &err);
    if (!st) {
        fprintf(stderr, "nomic serve: mail out cannot open the game: %s\n", buf_str(&err));
        buf_free(&err);
        return NULL;
    }
    pthread_mutex_lock(&s->mu);
    while (!s->stopping) {
        s->mail_waiting = false;
        pthread_mutex_unlock(&s->mu);
        SendReport rep;
        buf_reset(&err);
        char *why = NULL;
        /* no mail leaves for an event that a power cut could still undo */
        if (!durable_all(s, &why)) {
            fprintf(stderr, "nomic serve: mail out waits: %s\n", why);
        } else if (!mail_send_due(st, s->name, time_now_wall(), false, &rep, NULL, NULL, &err))
            fprintf(stderr, "nomic serve: mail out: %s\n", buf_str(&err));
        else if (rep.retrying || rep.failed)
            fprintf(stderr, "nomic serve: %d message(s) not delivered yet (nomic outbox says why)\n",
                    rep.retrying + rep.failed);
        free(why);
        pthread_mutex_lock(&s->mu);
        if (s->stopping || s->mail_waiting) continue;
        /* woken by a move, or every few seconds for the retries and for
         * what other programs released */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 5;
        pthread_cond_timedwait(&s->wake, &s->mu, &until);
    }
    pthread_mutex_unlock(&s->mu);
    store_close(st);
    buf_free(&err);
    return NULL;
}

/* ---- the clock ---- */

static void print_tick(void *ud, Game *g, const Outcome *o)
{
    char when[32];
    time_format(o->time, when);
    fprintf(stderr, "nomic serve: timer at %s: event %ld %s\n", when, o->event, verdict_name(o->verdict));
    (void)ud;
}

/* Runs the timers the wall clock has reached.  Returns the seconds until
 * the next one (at most `cap`). */
static long run_clock(Server *s, long cap)
{
    Game *g = s->g;
    Buf err = {0};
    long before = g->known_event;
    bool locked = game_lock(g, &err);
    note_if_settled(s, before); /* the game may have been reloaded, an event finished */
    if (!locked) { /* busy: look again soon */
        buf_free(&err);
        return 1;
    }
    int64_t now = time_now_wall();
    /* without a known timer, game_tick asks the rules for one: once per
     * state, not every second */
    bool probe = !g->have_timer && s->probed_at != g->known_event;
    /* a wall clock behind the last event (a tick given a later --time):
     * the timers wait until it catches up, rather than be refused */
    char *behind;
    bool late = game_time_refusal(g, now, &behind) != 0; /* unreadable: wait too */
    free(behind);
    if (!g->halted && !late && (probe || (g->have_timer && game_timer_due(g) <= now))) {
        s->probed_at = g->known_event;
        before = g->known_event;
        atomic_store(&s->running, true);
        bool ticked = game_tick(g, now, false, print_tick, NULL);
        atomic_store(&s->running, false);
        note_if_settled(s, before);
        if (!ticked)
            fprintf(stderr, "nomic serve: a timer could not run: %s\n", store_error(g->st));
        wake_postman(s);
    }
    long wait = cap;
    if (late) wait = 1;
    else if (!g->halted && g->have_timer) {
        int64_t d = game_timer_due(g) - time_now_wall(); /* a back-off's wait included */
        if (d < wait) wait = d < 0 ? 0 : (long)d;
    }
    game_unlock(g);
    buf_free(&err);
    return wait;
}

/* ---- the loop ---- */

static void stop_postman(Server *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->postman, NULL);
}

static void server_free(Server *s)
{
    snapshot_free(s->snap);
    for (int i = 0; i < s->nreports; i++) free(s->reports[i].body);
    for (int i = 0; i < s->nreaders; i++) store_close(s->readers[i]);
    store_close(s->watch);
    store_close(s->syncer);
    pthread_mutex_destroy(&s->sync_mu);
    pthread_cond_destroy(&s->synced_cv);
    pthread_mutex_destroy(&s->game_mu);
    pthread_mutex_destroy(&s->snap_mu);
    pthread_mutex_destroy(&s->readers_mu);
    pthread_mutex_destroy(&s->conn_mu);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->wake);
    free(s->name);
}

/* A move is evaluated on its connection's thread: it gets the stack the
 * main thread has, which the parser's limits are measured against
 * (docs/limits.md, "Parsing and nesting"), whatever the system default. */
#define EVAL_STACK (8u << 20)

static struct MHD_Daemon *start_http(Server *s, struct sockaddr_in *addr, int port)
{
    /* a thread per connection: a move runs in its connection's thread and
     * holds up no other; poll(), as select() stops at 1024 descriptors */
    unsigned flags = MHD_USE_ERROR_LOG | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    return MHD_start_daemon(
        flags, (uint16_t)port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)addr,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT, MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)MAX_PER_ADDRESS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)(64 * 1024), MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION,
        on_connection, s, MHD_OPTION_THREAD_STACK_SIZE, (size_t)EVAL_STACK, MHD_OPTION_END);
}

bool server_run(Game *g, const char *path, const char *host, int port)
{
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        fprintf(stderr, "nomic serve: %s: not an IPv4 address (such as 127.0.0.1 or 0.0.0.0)\n", host);
        return false;
    }
    /* a thread per connection: without a bound glibc gives threads arenas
     * of their own, and the memory a burst of readers freed stays with
     * them; two arenas keep the server's size near what it uses */
    mallopt(M_ARENA_MAX, 2);
    Server s = {.g = g, .path = path, .name = game_file_name(path), .probed_at = -1};
    pthread_mutex_init(&s.game_mu, NULL);
    pthread_mutex_init(&s.snap_mu, NULL);
    pthread_mutex_init(&s.readers_mu, NULL);
    pthread_mutex_init(&s.conn_mu, NULL);
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.wake, NULL);
    pthread_mutex_init(&s.sync_mu, NULL);
    pthread_cond_init(&s.synced_cv, NULL);
    Buf err = {0};
    if (!(s.watch = store_open(path, false, false, &err)) || !(s.syncer = store_open(path, false, false, &err))) {
        fprintf(stderr, "nomic serve: %s\n", buf_str(&err));
        buf_free(&err);
        server_free(&s);
        return false;
    }
    /* group commit (durable()) */
    g->defer_sync = true;
    store_yield(g->st, true);
    if (!store_sync_commits(g->st, false)) {
        fprintf(stderr, "nomic serve: %s\n", store_error(g->st));
        buf_free(&err);
        server_free(&s);
        return false;
    }
    buf_free(&err);
    publish(&s); /* before the first request: the views hide what is private from the start */
    mime_init_once();
    /* the signals are the main thread's: the others start with them blocked */
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    struct MHD_Daemon *d = start_http(&s, &addr, port);
    int started = d ? pthread_create(&s.postman, NULL, postman, &s) : 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!d) {
        fprintf(stderr, "nomic serve: cannot listen on %s:%d: %s\n", host, port, strerror(errno));
        server_free(&s);
        return false;
    }
    if (started != 0) {
        /* without the postman no mail would leave: no server rather than
         * one that keeps moves and never answers them */
        fprintf(stderr, "nomic serve: cannot start the mail out: %s\n", strerror(started));
        MHD_stop_daemon(d);
        server_free(&s);
        return false;
    }
    printf("nomic serve: %s on http://%s:%d/\n", s.name, host, port);
    fflush(stdout);
    /* the clock: timers, other programs' writes, the request deadline */
    while (!stop_requested) {
        pthread_mutex_lock(&s.game_mu);
        run_clock(&s, 1);
        sync_views(&s);
        pthread_mutex_unlock(&s.game_mu);
        enforce_deadline(&s);
        struct timespec tick = {0, 250 * 1000000L};
        nanosleep(&tick, NULL);
    }
    MHD_stop_daemon(d);
    stop_postman(&s);
    printf("nomic serve: stopped\n");
    server_free(&s);
    return true;
}
