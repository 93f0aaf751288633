/*
 * server.c - nomic serve (server.h): the loop.  It starts the HTTP daemon
 * (server_http.c) and the postman, then runs the clock until a signal:
 * the timers the wall clock reaches, what other programs wrote, the
 * requests' deadline.  Here too what the other files share of the server
 * itself: group commit (a move is answered once on disk, the fsync shared
 * with the moves committed meanwhile), the postman's wake-up, the database
 * connections kept for reading.  The files of the server are listed in
 * server_int.h.
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

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

int64_t server_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
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
    pthread_mutex_lock(&s->mu);
    s->mail_waiting = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
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
        bool ticked = game_tick(g, now, false, print_tick, NULL);
        atomic_store(&s->running, false);
        server_note_if_settled(s, before);
        if (!ticked)
            fprintf(stderr, "nomic serve: a timer could not run: %s\n", store_error(g->st));
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

/* The server's locks, and its own connections to the game for group
 * commit; false, having said why. */
static bool server_open(Server *s, Game *g, const char *path)
{
    pthread_mutex_init(&s->game_mu, NULL);
    pthread_mutex_init(&s->snap_mu, NULL);
    pthread_mutex_init(&s->readers_mu, NULL);
    pthread_mutex_init(&s->conn_mu, NULL);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->wake, NULL);
    pthread_mutex_init(&s->sync_mu, NULL);
    pthread_cond_init(&s->synced_cv, NULL);
    Buf err = {0};
    bool ok = false;
    if (!(s->watch = store_open(path, false, false, &err)) || !(s->syncer = store_open(path, false, false, &err))) {
        fprintf(stderr, "nomic serve: %s\n", buf_str(&err));
        goto done;
    }
    /* group commit (server_durable()) */
    g->defer_sync = true;
    store_yield(g->st, true);
    if (!store_sync_commits(g->st, false)) {
        fprintf(stderr, "nomic serve: %s\n", store_error(g->st));
        goto done;
    }
    ok = true;
done:
    buf_free(&err);
    return ok;
}

/* Starts the HTTP daemon and the postman, whose threads start with the
 * signals blocked (they are the main thread's): NULL, having said why,
 * when either cannot start. */
static struct MHD_Daemon *server_start(Server *s, struct sockaddr_in *addr, const char *host, int port)
{
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    struct MHD_Daemon *d = http_start(s, addr, port);
    int started = d ? pthread_create(&s->postman, NULL, postman, s) : 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!d) {
        fprintf(stderr, "nomic serve: cannot listen on %s:%d: %s\n", host, port, strerror(errno));
        return NULL;
    }
    if (started != 0) {
        /* without the postman no mail would leave: no server rather than
         * one that keeps moves and never answers them */
        fprintf(stderr, "nomic serve: cannot start the mail out: %s\n", strerror(started));
        MHD_stop_daemon(d);
        return NULL;
    }
    return d;
}

/* The clock, until SIGINT or SIGTERM: timers, other programs' writes, the
 * request deadline. */
static void server_loop(Server *s)
{
    while (!stop_requested) {
        pthread_mutex_lock(&s->game_mu);
        run_clock(s, 1);
        snapshot_sync(s);
        pthread_mutex_unlock(&s->game_mu);
        http_enforce_deadline(s);
        struct timespec tick = {0, 250 * 1000000L};
        nanosleep(&tick, NULL);
    }
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
    struct MHD_Daemon *d;
    bool ok = false;
    if (!server_open(&s, g, path)) goto done;
    snapshot_publish(&s); /* before the first request: the views hide what is private from the start */
    mime_init_once();
    if (!(d = server_start(&s, &addr, host, port))) goto done;
    printf("nomic serve: %s on http://%s:%d/\n", s.name, host, port);
    fflush(stdout);
    server_loop(&s);
    MHD_stop_daemon(d);
    stop_postman(&s);
    printf("nomic serve: stopped\n");
    ok = true;
done:
    server_free(&s);
    return ok;
}
