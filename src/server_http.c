/*
 * server_http.c - nomic serve's HTTP (libmicrohttpd, server_int.h): a
 * request's body taken in up to MAX_BODY, the answer sent with the headers
 * every answer carries, the page's own files, the API handed to the router
 * (server_routes.c) with the path after its prefix (/api/, or /NAME/api/
 * on a site of many games, where / lists them), the connections and
 * their deadline, and what handlers read of a request (its caller, its
 * client's address, its query's numbers, its form's fields).
 */
#include "server_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "game_mechanics.h"

void answer_json(Answer *a, unsigned status) { a->status = status, a->type = "application/json; charset=utf-8"; }

void answer_error(Answer *a, unsigned status, const char *fmt, ...)
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
char *http_caller(Store *rd, struct MHD_Connection *c, bool *bad)
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
        buf_puts(&st->chunk, snapshot_entry_for(e, st->you));
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

void answer_entries(Server *s, Snapshot *snap, bool rules, const char *type, const char *you, Answer *a)
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

bool http_number_param(struct MHD_Connection *c, const char *name, long dflt, long min, long max, long *out, Answer *a)
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

/* Is the peer of c on loopback (the keeper's reverse proxy)? */
static bool peer_is_loopback(const struct sockaddr *sa)
{
    if (sa && sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa && sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return false;
}

/* Behind the keeper's proxy (serve --proxy): the client is the last
 * address of X-Forwarded-For, the one the proxy added (those before it
 * are the client's to write).  Into ip; false when there is none that
 * reads as an address. */
static bool forwarded_for(struct MHD_Connection *c, char ip[INET6_ADDRSTRLEN])
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Forwarded-For");
    if (!h) return false;
    const char *last = strrchr(h, ',');
    last = last ? last + 1 : h;
    while (*last == ' ' || *last == '\t') last++;
    size_t n = strcspn(last, " \t");
    if (n == 0 || n >= INET6_ADDRSTRLEN) return false;
    char buf[INET6_ADDRSTRLEN];
    memcpy(buf, last, n);
    buf[n] = 0;
    unsigned char bin[sizeof(struct in6_addr)];
    if (inet_pton(AF_INET, buf, bin) != 1 && inet_pton(AF_INET6, buf, bin) != 1) return false;
    memcpy(ip, buf, n + 1);
    return true;
}

/* The client's IP, into ip ("unknown" when it has none): billed with the
 * sender (game_billing.h), and counted for the tokens it asks for.
 * Behind the keeper's proxy, the address the proxy says it serves. */
const char *http_client_ip(const Site *w, struct MHD_Connection *c, char ip[INET6_ADDRSTRLEN])
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    ip[0] = 0;
    if (w->proxy && peer_is_loopback(sa) && forwarded_for(c, ip)) return ip;
    if (sa && sa->sa_family == AF_INET) inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, ip, INET6_ADDRSTRLEN);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, ip, INET6_ADDRSTRLEN);
    return ip[0] ? ip : "unknown";
}

/* The next value of a form's field `name` (application/x-www-form-
 * urlencoded) from *at on (start at the body), decoded; *at moves past
 * it.  NULL after the last.  A field may be repeated (with=, of POST
 * /api/scams). */
char *http_form_field_next(const char **at, const char *name)
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
char *http_form_field(const char *body, const char *name)
{
    const char *at = body;
    return http_form_field_next(&at, name);
}

/* One of the page's files (web_files): GET (or HEAD) only.  file: its
 * path among them ("/" the game's page); url: what was asked. */
static void answer_page(const char *url, const char *file, bool get, Answer *a)
{
    for (const WebFile *f = web_files; f->path; f++)
        if (strcmp(f->path, file) == 0) {
            if (!get) {
                answer_error(a, 405, "%s takes GET", url);
                return;
            }
            a->status = 200;
            a->type = f->type;
            a->stream = MHD_create_response_from_buffer(f->len, (void *)f->data, MHD_RESPMEM_PERSISTENT);
            return;
        }
    answer_error(a, 404, "no page %s (the game is at ./, its API under ./api/)", url);
}

static bool is_get(const char *method) { return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0; }

/* One game's page and API: path is the url after the game's prefix
 * ("/api/game" of "/NAME/api/game"); the router sees "game". */
static void route_game(Server *s, struct MHD_Connection *c, const char *url, const char *path, const char *method,
                       Request *rq, Answer *a)
{
    if (strcmp(path, "/games.html") == 0) answer_error(a, 404, "no page %s (the game is at ./)", url); /* a site's */
    else if (strncmp(path, "/api/", 5) != 0) answer_page(url, path, is_get(method), a);
    else if (rq->too_big) answer_error(a, 413, "the body is larger than %d KiB", MAX_BODY / 1024);
    else route_api(s, c, url, path + 5, method, rq, a);
}

/* A site of many games: / the list of them (the page games.html, and
 * /api/games), /NAME/ a game's page and /NAME/api/ its API; the page's
 * own files at / too, for the list. */
static void route_site(Site *w, struct MHD_Connection *c, const char *url, const char *method, Request *rq, Answer *a)
{
    const char *slash = strchr(url + 1, '/');
    Server *s = slash ? site_find(w, url + 1, (size_t)(slash - url - 1)) : NULL;
    if (s) {
        route_game(s, c, url, slash, method, rq, a);
    } else if (strcmp(url, "/api/games") == 0) {
        if (!is_get(method)) {
            answer_error(a, 405, "%s takes GET", url);
            return;
        }
        answer_json(a, 200);
        site_games_json(w, &a->body);
    } else if (strcmp(url, "/") == 0 || strcmp(url, "/games.html") == 0) {
        answer_page(url, "/games.html", is_get(method), a);
    } else if (!slash && site_find(w, url + 1, strlen(url + 1))) {
        /* /NAME: the page's links are relative to /NAME/ */
        answer_error(a, 301, "the game is at %s/", url);
        a->location = url;
    } else if (slash) {
        answer_error(a, 404, "no game %.*s here (the games: /, /api/games)", (int)(slash - url - 1), url + 1);
    } else if (strcmp(url, "/index.html") != 0) {
        answer_page(url, url, is_get(method), a);
    } else {
        answer_error(a, 404, "no page %s (the games: /, /api/games)", url);
    }
}

/* The page's files, or the API with its prefix stripped. */
static void route(Site *w, struct MHD_Connection *c, const char *url, const char *method, Request *rq, Answer *a)
{
    if (w->dir) route_site(w, c, url, method, rq, a);
    else route_game(w->games[0], c, url, url, method, rq, a);
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
    Site *s = cls;
    pthread_mutex_lock(&s->conn_mu);
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        Conn *k = xcalloc(1, sizeof *k);
        k->c = c;
        k->waiting_since = server_now_ms();
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

static void conn_answering(Site *s, struct MHD_Connection *c, bool answering)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    Conn *k = info ? info->socket_context : NULL;
    if (!k) return;
    pthread_mutex_lock(&s->conn_mu);
    k->answering = answering;
    k->waiting_since = server_now_ms();
    pthread_mutex_unlock(&s->conn_mu);
}

/* Cuts the connections past their deadline: shutdown() wakes the
 * connection's thread, which closes it (the socket stays the library's). */
void http_enforce_deadline(Site *s)
{
    int64_t now = server_now_ms();
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
    if (a->location) {
        /* the location asked with the slash a game's page needs, written
         * relative to it ("NAME/" of "/NAME"), so that it holds under any
         * prefix a reverse proxy gives the server */
        const char *base = strrchr(a->location, '/');
        base = base ? base + 1 : a->location;
        char *to = xmalloc(strlen(base) + 2);
        sprintf(to, "%s/", base);
        MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, to);
        free(to);
    }
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
    Site *s = cls;
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

/* A move is evaluated on its connection's thread: it gets the stack the
 * main thread has, which the parser's limits are measured against
 * (docs/limits.md, "Parsing and nesting"), whatever the system default. */
#define EVAL_STACK (8u << 20)

struct MHD_Daemon *http_start(Site *s, struct sockaddr_in *addr, int port)
{
    /* a thread per connection: a move runs in its connection's thread and
     * holds up no other; poll(), as select() stops at 1024 descriptors.
     * Behind a proxy every connection comes from its address: the limit
     * per client address is then the proxy's to keep (docs/hosting.md) */
    unsigned flags = MHD_USE_ERROR_LOG | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    return MHD_start_daemon(
        flags, (uint16_t)port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)addr,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT, MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)(s->proxy ? 0 : MAX_PER_ADDRESS), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)(64 * 1024), MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION,
        on_connection, s, MHD_OPTION_THREAD_STACK_SIZE, (size_t)EVAL_STACK, MHD_OPTION_END);
}
