/*
 * server_int.h - what the files of nomic serve share, and no one else
 * (server.h is the public face):
 *
 *   server.c           the loop: start and stop, the clock, the postman,
 *                      group commit, the database connections kept for reading
 *   server_site.c      the games of a directory served by one process: found
 *                      while it runs, opened, listed on / and /api/games
 *   server_http.c      libmicrohttpd: requests, bodies, answers, limits,
 *                      connections and their deadline, the page's files
 *   server_routes.c    the API's table of endpoints and the router
 *   server_api.c       the handlers that read: game, objects, rules, log,
 *                      outbox, report
 *   server_move.c      the handlers that make events: move, token
 *   server_scams.c     POST /api/scams, the search in a child process
 *   server_snapshot.c  the views readers answer from
 *   server_perclient.c the tokens each client asked for
 */
#ifndef NOMIC_SERVER_INT_H
#define NOMIC_SERVER_INT_H

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"
#include "server.h"

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
typedef struct Site Site;

/* One game served. */
typedef struct Server {
    Site *site;
    Game *g;
    const char *path;
    char *name;      /* its file's name, and its path on a site of many games: /NAME/ */
    char *sets;      /* the labels of its initial sets, as a JSON array (for /api/games) */
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
    /* the clock: the worker running it now, and when it runs next */
    atomic_bool clocking;
    _Atomic int64_t clock_at; /* ms, server_now_ms() */
    /* the postman: mail is waiting; its connection to the game */
    atomic_bool mail_waiting;
    Store *post;
    long probed_at;  /* the event after which the rules were last asked for a timer */
    /* the reports asked since the last event, so that a flood of GET
     * /api/report asks the rules once per kind and event (under game_mu) */
    ReportAnswer reports[REPORTS_KEPT];
    int nreports;
    /* the scam checks of the proposals its events opened, running beside it (server_scams.c) */
    pthread_mutex_t checks_mu;
    pid_t check_pids[SCAM_CHECKS_AT_ONCE];
    int nchecks;          /* threads still to end (under checks_mu) */
    bool closing;         /* under checks_mu: the checks' answers are no longer saved */
} Server;

/* The process: one HTTP daemon, the connections, the clock and the
 * postman, for one game served at / or for every game of a directory,
 * each at /NAME/. */
struct Site {
    const char *dir;     /* NULL: one game, served at / */
    const char *host;
    int port;
    bool proxy;          /* behind the keeper's reverse proxy on loopback: X-Forwarded-For names the client */
    bool serving;        /* the banner is out: a game found from now on is said as new */
    atomic_int searches; /* POST /api/scams running now, in all the games: each takes a core */
    /* the games, in the order found: a game once served stays until the
     * site stops, so a Server pointer taken under games_mu stays good */
    pthread_mutex_t games_mu;
    Server **games;
    int ngames, cap;
    char **refused;      /* why files of dir are not served, each said once (server_site.c) */
    int nrefused;
    char **failed;       /* the files that did not open, as they were then (path and ctime) */
    int nfailed;
    /* the connections, for the request deadline */
    pthread_mutex_t conn_mu;
    Conn *conns;
    /* the clock's workers (a directory's games: a slow timer holds up one
     * worker, not the others' games) */
    pthread_t clocks[CLOCK_WORKERS];
    int nclocks;
    /* the postman */
    pthread_t postman;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    bool stopping, mail_waiting;
};

/* ---- the views readers answer from (server_snapshot.c) ---- */

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
    char *summary;       /* its line of /api/games: {"name":...,"players":...} */
    Entry **objs, **rules; /* objs by id; rules in their order */
    size_t nobjs, nrules;
    bool private_attrs;  /* the game has some: hiding them in moves needs the game */
    /* what the entries were rendered from, for the next snapshot to tell
     * which it can share: the pool (pool.h generation) and the words of
     * privateAttributes */
    uint64_t pool_generation;
    char *private_words;
};

/* ---- one request (server_http.c) ---- */

typedef struct Request {
    Buf body;
    bool too_big;
} Request;

typedef struct Answer {
    unsigned status;
    const char *type;
    Buf body;
    struct MHD_Response *stream; /* instead of body */
    const char *location; /* a redirect (301): the url whose page is at it with a slash */
} Answer;

/* ---- the loop (server.c) ---- */

/* Takes the game (its pool, its engine, its interned texts: game_mu) for
 * this thread, whose table of texts becomes the game's (value.h); try:
 * false at once when another thread holds it.  Released by
 * server_release, which gives the thread back the process's table. */
/* The Mechanics' scam check of a proposal an event opened (Game.on_opened,
 * scams_check.h): the search forked at once, its answer journaled by a
 * thread of its own once done; server_checks_stop ends those running. */
void server_scam_hook(void *ud, Game *g, long event, int64_t time, const char *pending);
void server_checks_stop(Server *s);
void server_hold(Server *s);
bool server_try_hold(Server *s);
void server_release(Server *s);

/* The game at i of the site, or NULL past the last. */
Server *site_game(Site *w, int i);
/* The game served at /NAME/, or NULL. */
Server *site_find(Site *w, const char *name, size_t len);
/* Opens a game and makes it a server of the site (its connections, its
 * first views); NULL, having said why in err.  The caller adds it. */
Server *server_new(Site *w, Game *g, const char *path, Buf *err);
void server_free(Server *s);
/* Adds a game to the site, served from now on. */
void site_add(Site *w, Server *s);
/* The games of dir not served yet, opened and added (server_site.c);
 * each file that does not open is said once. */
void site_scan(Site *w);
/* GET / (a site of many games): the list of the games, as JSON. */
void site_games_json(Site *w, Buf *b);

int64_t server_now_ms(void);
/* A commit of the game's was made (under game_mu): its number, for
 * server_durable(). */
uint64_t server_note_commit(Server *s);
/* Returns once commit n is on disk; false (and *why) when the fsync
 * failed. */
bool server_durable(Server *s, uint64_t n, char **why);
/* After the game's lock was held (under game_mu): an event committed
 * meanwhile is one more commit to take down. */
void server_note_if_settled(Server *s, long before);
/* Mail is waiting: the postman hands it to the transport. */
void server_wake_postman(Server *s);
/* A connection to the database for reading beside the writer (kept for
 * the next request when given back), or NULL and *err. */
Store *server_reader_take(Server *s, Buf *err);
void server_reader_give(Server *s, Store *st);

/* ---- the views (server_snapshot.c) ---- */

/* Makes the game's present state the one readers see.  Under game_mu. */
void snapshot_publish(Server *s);
/* The snapshot readers see now, held until snapshot_put. */
Snapshot *snapshot_get(Server *s);
/* One more reference to a snapshot the caller holds. */
Snapshot *snapshot_ref(Server *s, Snapshot *n);
void snapshot_put(Server *s, Snapshot *n);
void snapshot_free(Snapshot *n);
/* Takes in what anyone committed since the views were made and publishes
 * new views.  Under game_mu. */
void snapshot_sync(Server *s);
/* Before a read: the same if the game is idle; never waits for an event. */
void snapshot_sync_if_idle(Server *s);
/* What `you` (NULL: the public) may see of e. */
const char *snapshot_entry_for(const Entry *e, const char *you);

/* ---- HTTP (server_http.c) ---- */

struct MHD_Daemon *http_start(Site *w, struct sockaddr_in *addr, int port);
/* Cuts the connections whose request has not come whole in time. */
void http_enforce_deadline(Site *w);

void answer_json(Answer *a, unsigned status);
void answer_error(Answer *a, unsigned status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A list of entries of snap (of one type, unless NULL), streamed as the
 * client reads it. */
void answer_entries(Server *s, Snapshot *snap, bool rules, const char *type, const char *you, Answer *a);
/* Who is asking: NULL (the public), or the address of a valid token.
 * *bad: a token was given and is not valid. */
char *http_caller(Store *rd, struct MHD_Connection *c, bool *bad);
/* The query's parameter `name`, a whole number from min to max (dflt when
 * absent), or false having answered 400. */
bool http_number_param(struct MHD_Connection *c, const char *name, long dflt, long min, long max, long *out, Answer *a);
/* The client's IP, into ip ("unknown" when it has none); behind the
 * keeper's proxy (Site.proxy), the one the proxy forwards for. */
const char *http_client_ip(const Site *w, struct MHD_Connection *c, char ip[INET6_ADDRSTRLEN]);
/* A form's fields (application/x-www-form-urlencoded), decoded. */
char *http_form_field_next(const char **at, const char *name);
char *http_form_field(const char *body, const char *name);

/* ---- the API (server_routes.c, the handlers) ---- */

/* What a handler is given: the request, who asks, what it reads. */
typedef struct Call {
    Server *s;
    struct MHD_Connection *c;
    const char *url;     /* the whole path asked, for the answers' messages */
    const char *arg;     /* what the row's "*" matched (objects/ID: the ID), or NULL */
    Request *rq;
    Snapshot *snap;      /* the views, as of this request */
    Store *rd;           /* a connection for reading, or NULL */
    const char *you;     /* the token's address, or NULL: the public */
} Call;

typedef void ApiHandler(const Call *k, Answer *a);
ApiHandler api_game, api_objects, api_object, api_rules, api_log, api_event, api_outbox, api_message, api_report;
ApiHandler api_move, api_token, api_scams;

/* Answers the API's request for `path`, the url after its prefix ("/api/"
 * now): the row of the table that names it, or a 404 or 405. */
void route_api(Server *s, struct MHD_Connection *c, const char *url, const char *path, const char *method, Request *rq,
               Answer *a);

#endif
