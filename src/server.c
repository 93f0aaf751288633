/*
 * server.c - nomic serve (server.h): the loop.  It starts the HTTP daemon
 * (server_http.c) and the postman, then runs the clock until a signal:
 * the timers the wall clock reaches, what other programs wrote, the
 * requests' deadline; for a directory of games, the clock's workers and
 * the look for new games too.  Here also what the other files share of a
 * served game: group commit (a move is answered once on disk, the fsync
 * shared with the moves committed meanwhile), the postman's wake-up, the
 * database connections kept for reading.  The files of the server are
 * listed in server_int.h.
 */
#include "server_int.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mail_in.h"
#include "game_postman.h"
#include "scams_check.h"

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

int64_t server_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* ---- the game, one thread's at a time ---- */

void server_hold(Server *s)
{
    pthread_mutex_lock(&s->game_mu);
    sym_use(s->g->syms);
}

bool server_try_hold(Server *s)
{
    if (pthread_mutex_trylock(&s->game_mu) != 0) return false;
    sym_use(s->g->syms);
    return true;
}

void server_release(Server *s)
{
    sym_use(NULL);
    pthread_mutex_unlock(&s->game_mu);
}

/* ---- group commit ---- */

uint64_t server_note_commit(Server *s)
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
bool server_durable(Server *s, uint64_t n, char **why)
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
    return server_durable(s, n, why);
}

/* An event committed meanwhile: a timer, an event left half done and
 * finished. */
void server_note_if_settled(Server *s, long before)
{
    if (s->g->known_event != before) server_note_commit(s);
}

void server_wake_postman(Server *s)
{
    Site *w = s->site;
    atomic_store(&s->mail_waiting, true);
    pthread_mutex_lock(&w->mu);
    w->mail_waiting = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}
/* ---- reading the database beside the writer ---- */

Store *server_reader_take(Server *s, Buf *err)
{
    Store *st = NULL;
    pthread_mutex_lock(&s->readers_mu);
    if (s->nreaders) st = s->readers[--s->nreaders];
    pthread_mutex_unlock(&s->readers_mu);
    return st ? st : store_open(s->path, false, false, err);
}

void server_reader_give(Server *s, Store *st)
{
    if (!st) return;
    pthread_mutex_lock(&s->readers_mu);
    if (s->nreaders < READERS_KEPT) s->readers[s->nreaders++] = st, st = NULL;
    pthread_mutex_unlock(&s->readers_mu);
    store_close(st);
}

/* ---- the postman ---- */

/* Hands one game's due messages to its transport, once everything it
 * committed is on disk. */
static void post_for(Server *s, Buf *err)
{
    buf_reset(err);
    if (!s->post && !(s->post = store_open(s->path, false, false, err))) {
        fprintf(stderr, "nomic serve: %s: mail out cannot open the game: %s\n", s->name, buf_str(err));
        return;
    }
    SendReport rep;
    char *why = NULL;
    /* no mail leaves for an event that a power cut could still undo */
    if (!durable_all(s, &why))
        fprintf(stderr, "nomic serve: %s: mail out waits: %s\n", s->name, why);
    else if (!mail_send_due(s->post, s->name, time_now_wall(), false, &rep, NULL, NULL, err))
        fprintf(stderr, "nomic serve: %s: mail out: %s\n", s->name, buf_str(err));
    else if (rep.retrying || rep.failed)
        fprintf(stderr, "nomic serve: %s: %d message(s) not delivered yet (nomic outbox says why)\n", s->name,
                rep.retrying + rep.failed);
    free(why);
}

/* One thread hands every game's mail out: at once for a game a move woke
 * it for, every POST_SWEEP_MS for all (the retries, and what other
 * programs released). */
#define POST_SWEEP_MS 5000
static void *postman(void *ud)
{
    Site *w = ud;
    Buf err = {0};
    int64_t sweep_at = 0;
    pthread_mutex_lock(&w->mu);
    while (!w->stopping) {
        w->mail_waiting = false;
        pthread_mutex_unlock(&w->mu);
        bool sweep = server_now_ms() >= sweep_at;
        if (sweep) sweep_at = server_now_ms() + POST_SWEEP_MS;
        Server *s;
        for (int i = 0; (s = site_game(w, i)); i++)
            if (atomic_exchange(&s->mail_waiting, false) || sweep) post_for(s, &err);
        pthread_mutex_lock(&w->mu);
        if (w->stopping || w->mail_waiting) continue;
        int64_t wait = sweep_at - server_now_ms();
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += wait > 0 ? wait / 1000 : 0;
        until.tv_nsec += wait > 0 ? (wait % 1000) * 1000000L : 0;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&w->wake, &w->mu, &until);
    }
    pthread_mutex_unlock(&w->mu);
    buf_free(&err);
    return NULL;
}

/* ---- the clock ---- */

static void print_tick(void *ud, Game *g, const Outcome *o)
{
    Server *s = ud;
    char when[32];
    time_format(o->time, when);
    /* a directory's games say whose timer it was */
    fprintf(stderr, "nomic serve: %s%stimer at %s: event %ld %s\n", s->site->dir ? s->name : "", s->site->dir ? ": " : "",
            when, o->event, verdict_name(o->verdict));
}

/* Runs the timers the wall clock has reached.  Returns the seconds until
 * the next one (at most `cap`). */
static long run_clock(Server *s, long cap)
{
    Game *g = s->g;
    Buf err = {0};
    long before = g->known_event;
    long wait = 1; /* busy: look again soon */
    bool locked = game_lock(g, &err);
    server_note_if_settled(s, before); /* the game may have been reloaded, an event finished */
    if (!locked) goto done;
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
        bool ticked = game_tick(g, now, false, print_tick, s);
        atomic_store(&s->running, false);
        server_note_if_settled(s, before);
        if (!ticked)
            fprintf(stderr, "nomic serve: %s: a timer could not run: %s\n", s->name, store_error(g->st));
        server_wake_postman(s);
    }
    wait = late ? 1 : cap;
    if (!late && !g->halted && g->have_timer) {
        int64_t d = game_timer_due(g) - time_now_wall(); /* a back-off's wait included */
        if (d < wait) wait = d < 0 ? 0 : (long)d;
    }
    game_unlock(g);
done:
    buf_free(&err);
    return wait;
}

/* The clock of one game: its timers, what other programs wrote.  wait:
 * for a move running now (one game's server); else a busy game is left
 * for the next round, which its move does not hold up.  One game's clock
 * looks every CLOCK_EVERY_MS; a directory's each game every
 * CLOCK_DIR_EVERY_MS, or sooner when a timer falls due within it (a
 * thousand games looked at four times a second would keep a core busy
 * for nothing: another program's move shows within the second all the
 * same). */
#define CLOCK_EVERY_MS 250
#define CLOCK_DIR_EVERY_MS 1000
#define CLOCK_DUE_MS 100
static void clock_step(Server *s, bool wait)
{
    if (wait) server_hold(s);
    else if (!server_try_hold(s)) return;
    long due = run_clock(s, 1);
    snapshot_sync(s);
    server_release(s);
    int64_t next = !s->site->dir ? CLOCK_EVERY_MS : due <= 0 ? CLOCK_DUE_MS : CLOCK_DIR_EVERY_MS;
    atomic_store(&s->clock_at, server_now_ms() + next);
}

/* A worker of a directory's clock: takes each game whose round is due and
 * no other worker holds, so that a game whose timer runs long holds up
 * this worker alone. */
static void *clock_worker(void *ud)
{
    Site *w = ud;
    while (!stop_requested) {
        bool worked = false;
        Server *s;
        for (int i = 0; (s = site_game(w, i)) && !stop_requested; i++) {
            if (atomic_load(&s->clock_at) > server_now_ms() || atomic_exchange(&s->clocking, true)) continue;
            if (atomic_load(&s->clock_at) <= server_now_ms()) {
                clock_step(s, false);
                worked = true;
            }
            atomic_store(&s->clocking, false);
        }
        if (!worked) {
            struct timespec pause = {0, 20 * 1000000L};
            nanosleep(&pause, NULL);
        }
    }
    return NULL;
}

/* ---- a game served ---- */

static bool collect_label(void *ud, const char *label, const char *text)
{
    Buf *b = ud;
    buf_puts(b, b->len > 1 ? "," : "");
    json_string(b, label, strlen(label));
    return true;
}

void server_free(Server *s)
{
    if (!s) return;
    server_checks_stop(s);
    if (s->g) scam_checks_install(s->g, NULL, NULL);
    pthread_mutex_destroy(&s->checks_mu);
    snapshot_free(s->snap);
    for (int i = 0; i < s->nreports; i++) free(s->reports[i].body);
    for (int i = 0; i < s->nreaders; i++) store_close(s->readers[i]);
    store_close(s->post);
    store_close(s->watch);
    store_close(s->syncer);
    pthread_mutex_destroy(&s->sync_mu);
    pthread_cond_destroy(&s->synced_cv);
    pthread_mutex_destroy(&s->game_mu);
    pthread_mutex_destroy(&s->snap_mu);
    pthread_mutex_destroy(&s->readers_mu);
    free(s->name);
    free(s->sets);
    free(s);
}

Server *server_new(Site *w, Game *g, const char *path, Buf *err)
{
    Server *s = xcalloc(1, sizeof *s);
    s->site = w;
    s->g = g;
    s->path = path;
    s->name = game_file_name(path);
    s->probed_at = -1;
    pthread_mutex_init(&s->game_mu, NULL);
    pthread_mutex_init(&s->snap_mu, NULL);
    pthread_mutex_init(&s->readers_mu, NULL);
    pthread_mutex_init(&s->sync_mu, NULL);
    pthread_cond_init(&s->synced_cv, NULL);
    pthread_mutex_init(&s->checks_mu, NULL);
    /* the server's own connections to the game, for group commit */
    if (!(s->watch = store_open(path, false, false, err)) || !(s->syncer = store_open(path, false, false, err)))
        goto failed;
    g->defer_sync = true;
    store_yield(g->st, true);
    if (!store_sync_commits(g->st, false)) {
        buf_printf(err, "%s", store_error(g->st));
        goto failed;
    }
    Buf sets = {0};
    buf_putc(&sets, '[');
    if (!store_each_initial(g->st, collect_label, &sets)) {
        buf_free(&sets);
        buf_printf(err, "%s", store_error(g->st));
        goto failed;
    }
    buf_putc(&sets, ']');
    s->sets = buf_take(&sets);
    snapshot_publish(s); /* before the first request: the views hide what is private from the start */
    scam_checks_install(g, server_scam_hook, s); /* every proposal checked, beside the server */
    return s;
failed:
    s->g = NULL; /* the caller's */
    server_free(s);
    return NULL;
}

/* ---- the site ---- */

Server *site_game(Site *w, int i)
{
    pthread_mutex_lock(&w->games_mu);
    Server *s = i < w->ngames ? w->games[i] : NULL;
    pthread_mutex_unlock(&w->games_mu);
    return s;
}

Server *site_find(Site *w, const char *name, size_t len)
{
    Server *found = NULL;
    pthread_mutex_lock(&w->games_mu);
    for (int i = 0; i < w->ngames && !found; i++)
        if (strlen(w->games[i]->name) == len && memcmp(w->games[i]->name, name, len) == 0) found = w->games[i];
    pthread_mutex_unlock(&w->games_mu);
    return found;
}

void site_add(Site *w, Server *s)
{
    pthread_mutex_lock(&w->games_mu);
    if (w->ngames == w->cap) w->games = xrealloc(w->games, (size_t)(w->cap = w->cap ? 2 * w->cap : 16) * sizeof *w->games);
    w->games[w->ngames++] = s;
    pthread_mutex_unlock(&w->games_mu);
}

static void site_init(Site *w, const char *dir, const char *host, int port, bool proxy)
{
    memset(w, 0, sizeof *w);
    w->dir = dir;
    w->proxy = proxy;
    w->host = host;
    w->port = port;
    pthread_mutex_init(&w->games_mu, NULL);
    pthread_mutex_init(&w->conn_mu, NULL);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->wake, NULL);
}

/* Frees the site and, for a directory, its games (one game's Game is its
 * caller's). */
static void site_free(Site *w)
{
    for (int i = 0; i < w->ngames; i++) {
        Server *s = w->games[i];
        Game *g = s->g;
        const char *path = s->path;
        server_free(s);
        if (w->dir) {
            SymTable *t = g->syms;
            sym_use(t);
            game_close(g);
            sym_use(NULL);
            sym_table_free(t);
            free((char *)path);
        }
    }
    free(w->games);
    for (int i = 0; i < w->nrefused; i++) free(w->refused[i]);
    for (int i = 0; i < w->nfailed; i++) free(w->failed[i]);
    free(w->refused);
    free(w->failed);
    pthread_mutex_destroy(&w->games_mu);
    pthread_mutex_destroy(&w->conn_mu);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->wake);
}

/* ---- the loop ---- */

static void stop_postman(Site *w)
{
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->postman, NULL);
}

/* Starts the HTTP daemon, the postman and the clock's workers, whose
 * threads start with the signals blocked (they are the main thread's):
 * NULL, having said why, when the daemon or the postman cannot start. */
static struct MHD_Daemon *site_start(Site *w, struct sockaddr_in *addr)
{
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    struct MHD_Daemon *d = http_start(w, addr, w->port);
    int started = d ? pthread_create(&w->postman, NULL, postman, w) : 0;
    for (int i = 0; d && started == 0 && w->dir && i < CLOCK_WORKERS; i++)
        if (pthread_create(&w->clocks[w->nclocks], NULL, clock_worker, w) == 0) w->nclocks++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!d) {
        fprintf(stderr, "nomic serve: cannot listen on %s:%d: %s\n", w->host, w->port, strerror(errno));
        return NULL;
    }
    if (started != 0) {
        /* without the postman no mail would leave: no server rather than
         * one that keeps moves and never answers them */
        fprintf(stderr, "nomic serve: cannot start the mail out: %s\n", strerror(started));
        MHD_stop_daemon(d);
        return NULL;
    }
    if (w->dir && w->nclocks == 0) {
        fprintf(stderr, "nomic serve: cannot start the clock\n");
        stop_requested = 1;
    }
    return d;
}

/* Until SIGINT or SIGTERM: one game's clock (a directory's runs on its
 * workers), new games of the directory, the request deadline. */
static void site_loop(Site *w)
{
    int64_t scan_at = server_now_ms() + SCAN_EVERY_MS;
    while (!stop_requested) {
        if (!w->dir) clock_step(w->games[0], true);
        else if (server_now_ms() >= scan_at) {
            site_scan(w);
            scan_at = server_now_ms() + SCAN_EVERY_MS;
        }
        http_enforce_deadline(w);
        struct timespec tick = {0, CLOCK_EVERY_MS * 1000000L};
        nanosleep(&tick, NULL);
    }
}

/* Serves the site until a signal; false, having said why, when it
 * cannot start. */
static bool site_run(Site *w)
{
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)w->port);
    if (inet_pton(AF_INET, w->host, &addr.sin_addr) != 1) {
        fprintf(stderr, "nomic serve: %s: not an IPv4 address (such as 127.0.0.1 or 0.0.0.0)\n", w->host);
        return false;
    }
    /* a thread per connection: without a bound glibc gives threads arenas
     * of their own, and the memory a burst of readers freed stays with
     * them; two arenas keep the server's size near what it uses */
    mallopt(M_ARENA_MAX, 2);
    mime_init_once();
    struct MHD_Daemon *d = site_start(w, &addr);
    if (!d) return false;
    if (w->dir) {
        printf("nomic serve: %d game(s) of %s on http://%s:%d/\n", w->ngames, w->dir, w->host, w->port);
        Server *s;
        for (int i = 0; (s = site_game(w, i)); i++) printf("nomic serve: %s on http://%s:%d/%s/\n", s->name, w->host, w->port, s->name);
    } else {
        printf("nomic serve: %s on http://%s:%d/\n", w->games[0]->name, w->host, w->port);
    }
    fflush(stdout);
    w->serving = true;
    site_loop(w);
    MHD_stop_daemon(d);
    for (int i = 0; i < w->nclocks; i++) pthread_join(w->clocks[i], NULL);
    stop_postman(w);
    printf("nomic serve: stopped\n");
    return true;
}

bool server_run(Game *g, const char *path, const char *host, int port, bool proxy)
{
    Site w;
    site_init(&w, NULL, host, port, proxy);
    Buf err = {0};
    Server *s = server_new(&w, g, path, &err);
    bool ok = false;
    if (!s) fprintf(stderr, "nomic serve: %s\n", buf_str(&err));
    else {
        site_add(&w, s);
        ok = site_run(&w);
    }
    buf_free(&err);
    site_free(&w);
    return ok;
}

bool server_run_dir(const char *dir, const char *host, int port, bool proxy)
{
    Site w;
    site_init(&w, dir, host, port, proxy);
    site_scan(&w);
    bool ok = site_run(&w);
    site_free(&w);
    return ok;
}
