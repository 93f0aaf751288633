/*
 * server_routes.c - the API's endpoints in one table, as Redis names its
 * commands: each row a method, a path, the handler and who may ask, and
 * the router that finds the row and checks the request against it before
 * the handler runs.
 *
 * The router is given the path after the API's prefix ("game" of
 * "/api/game"): the caller strips the prefix, so that the same table can
 * serve under another one.
 */
#include "server_int.h"

#include <stdlib.h>
#include <string.h>

/* Who may ask.  A token, when one is given, must be valid whatever the
 * row says (a bad one is refused with 401 before anything else): it says
 * who asks, and so what of private attributes the answer shows. */
typedef enum RouteWho {
    WHO_ANYONE, /* the public, a player with a token, a stranger naming from= */
    WHO_TOKEN,  /* a token's holder: without one, 401 and the row's refusal */
} RouteWho;

/* What else a row needs of the router. */
enum {
    ROUTE_READS = 1, /* reads the journal or the outbox: a database connection of its own */
};

typedef struct Route {
    const char *method;  /* "GET" (HEAD too) or "POST" */
    const char *path;    /* after the prefix; a trailing "*" matches the rest (the handler's arg), "" too */
    ApiHandler *handler;
    RouteWho who;
    unsigned flags;      /* ROUTE_* */
    const char *refusal; /* WHO_TOKEN: what a caller without a token is told */
} Route;

#define NEED_TOKEN "your messages need your token (Authorization: Bearer TOKEN)"

static const Route routes[] = {
    {"GET", "game", api_game, WHO_ANYONE, 0, NULL},
    {"GET", "objects", api_objects, WHO_ANYONE, 0, NULL},
    {"GET", "objects/*", api_object, WHO_ANYONE, 0, NULL},
    {"GET", "rules", api_rules, WHO_ANYONE, 0, NULL},
    {"GET", "log", api_log, WHO_ANYONE, ROUTE_READS, NULL},
    {"GET", "log/*", api_event, WHO_ANYONE, ROUTE_READS, NULL},
    {"GET", "report/*", api_report, WHO_ANYONE, 0, NULL},
    {"GET", "outbox", api_outbox, WHO_TOKEN, ROUTE_READS, NEED_TOKEN},
    {"GET", "outbox/*", api_message, WHO_TOKEN, ROUTE_READS, NEED_TOKEN},
    {"POST", "move", api_move, WHO_ANYONE, 0, NULL},
    {"POST", "token", api_token, WHO_ANYONE, 0, NULL},
    {"POST", "scams", api_scams, WHO_ANYONE, 0, NULL},
};

/* The row naming `path`, and in *arg what its "*" matched; NULL: none. */
static const Route *route_find(const char *path, const char **arg)
{
    *arg = NULL;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        const char *p = routes[i].path;
        size_t n = strlen(p);
        if (p[n - 1] == '*' && strncmp(path, p, n - 1) == 0) {
            *arg = path + n - 1;
            return &routes[i];
        }
        if (strcmp(path, p) == 0) return &routes[i];
    }
    return NULL;
}

/* Does the request's method answer to the row's?  HEAD is a GET. */
static bool method_is(const char *method, const char *want)
{
    if (strcmp(want, "GET") == 0) return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    return strcmp(method, want) == 0;
}

void route_api(Server *s, struct MHD_Connection *c, const char *url, const char *path, const char *method, Request *rq,
               Answer *a)
{
    const char *arg;
    const Route *r = route_find(path, &arg);
    /* an unknown path answers as a GET's would: 405 to another method, else 404 */
    const char *want = r ? r->method : "GET";
    bool writes = strcmp(want, "POST") == 0; /* takes the game's lock itself */
    /* the database is read beside the writer: tokens, the journal, the outbox */
    bool reads = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION) ||
                 (r && (r->flags & ROUTE_READS));
    Buf err = {0};
    Snapshot *snap = NULL;
    char *you = NULL;
    Store *rd = reads ? server_reader_take(s, &err) : NULL;
    if (reads && !rd) {
        answer_error(a, 503, "the game cannot be read: %s", buf_str(&err));
        goto done;
    }
    if (!writes) snapshot_sync_if_idle(s);
    snap = snapshot_get(s);
    bool bad = false;
    you = rd ? http_caller(rd, c, &bad) : NULL;
    if (bad) answer_error(a, 401, "the token given is not valid (nomic token GAME ADDRESS issues one)");
    else if (!method_is(method, want)) answer_error(a, 405, "%s takes %s", url, want);
    else if (!r) answer_error(a, 404, "no such API: %s (see docs/api.md)", url);
    else if (r->who == WHO_TOKEN && !you) answer_error(a, 401, "%s", r->refusal);
    else {
        Call k = {s, c, url, arg, rq, snap, rd, you};
        r->handler(&k, a);
    }
done:
    free(you);
    if (snap) snapshot_put(s, snap);
    server_reader_give(s, rd);
    buf_free(&err);
}
