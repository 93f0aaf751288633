/*
 * server.c - nomic serve (server.h): the HTTP front, the clock, the postman.
 */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mailin.h"
#include "mailout.h"
#include "mechanics.h"
#include "objfmt.h"
#include "views.h"

typedef struct Server {
    Game *g;
    const char *path;
    char *name;
    /* the postman */
    pthread_t postman;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    bool stopping, mail_waiting;
    long probed_at;  /* the event after which the rules were last asked for a timer */
} Server;

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

/* ---- one request ---- */

typedef struct Request {
    Buf body;
    bool too_big;
} Request;

typedef struct Answer {
    unsigned status;
    const char *type;
    Buf body;
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
static char *caller(Server *s, struct MHD_Connection *c, bool *bad)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    *bad = false;
    if (!h || !*h) return NULL;
    if (strncasecmp(h, "Bearer ", 7) != 0) {
        *bad = true;
        return NULL;
    }
    char *who = game_token_owner(s->g, h + 7);
    *bad = who == NULL;
    return who;
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

static void api_game(Server *s, const char *you, Answer *a)
{
    Game *g = s->g;
    answer_json(a, 200);
    Buf *b = &a->body;
    buf_puts(b, "{\"version\":1,\"name\":");
    json_string(b, s->name, strlen(s->name));
    buf_printf(b, ",\"event\":%ld,\"time\":%lld,\"halted\":%s,\"nextTimer\":", g->known_event,
               (long long)time_now_wall(), g->halted ? "true" : "false");
    if (g->have_timer) buf_printf(b, "%lld", (long long)g->next_timer);
    else buf_puts(b, "null");
    char *policy = game_config(g, "mailPolicy");
    buf_puts(b, ",\"mailPolicy\":");
    json_string(b, policy, strlen(policy));
    free(policy);
    buf_puts(b, ",\"you\":");
    if (you) json_string(b, you, strlen(you));
    else buf_puts(b, "null");
    seed_fields(b, g);
    buf_puts(b, ",\"sugar\":[");
    if (g->sugar) {
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
    }
    buf_puts(b, "]}");
}

static void api_objects(Server *s, const char *type, const char *you, Answer *a)
{
    Pool *p = s->g->pool;
    Viewer h = {s->g->eng, you ? sym_cstr(you) : SYM_EMPTY};
    answer_json(a, 200);
    Buf *b = &a->body;
    buf_putc(b, '[');
    const IdSet *set = type ? pool_lookup(p, SYM_type, sym_cstr(type)) : &p->all;
    bool first = true;
    for (uint32_t i = set ? idset_seek(set, 0, 1) : 0; set && i < set->len; i = idset_seek(set, i + 1, 0)) {
        const Obj *o = pool_get(p, set->ids[i]);
        if (!o) continue;
        if (!first) buf_putc(b, ',');
        first = false;
        buf_putc(b, '\n');
        fmt_json_obj(b, o, cli_hide_private, &h);
    }
    buf_puts(b, "\n]");
}

static void api_object(Server *s, const char *id, const char *you, Answer *a)
{
    char *end;
    long n = strtol(id, &end, 10);
    const Obj *o = *id && !*end && n > 0 && n < 0x7fffffffL ? pool_get(s->g->pool, (ObjId)n) : NULL;
    if (!o) {
        answer_error(a, 404, "no object %s", id);
        return;
    }
    Viewer h = {s->g->eng, you ? sym_cstr(you) : SYM_EMPTY};
    answer_json(a, 200);
    fmt_json_obj(&a->body, o, cli_hide_private, &h);
}

static void api_rules(Server *s, const char *you, Answer *a)
{
    RuleInfo *rules;
    int n = engine_rules(s->g->eng, &rules);
    Viewer h = {s->g->eng, you ? sym_cstr(you) : SYM_EMPTY};
    answer_json(a, 200);
    Buf *b = &a->body;
    buf_putc(b, '[');
    for (int i = 0; i < n; i++) {
        const Obj *o = pool_get(s->g->pool, rules[i].id);
        if (!o) continue;
        Buf one = {0};
        fmt_json_obj(&one, o, cli_hide_private, &h);
        one.s[--one.len] = 0; /* the closing brace: the error goes in */
        buf_puts(&one, ",\"error\":");
        if (rules[i].error) json_string(&one, rules[i].error, strlen(rules[i].error));
        else buf_puts(&one, "null");
        buf_printf(b, "%s\n%s}", i ? "," : "", buf_str(&one));
        buf_free(&one);
    }
    buf_puts(b, "\n]");
    free(rules);
}

typedef struct LogWalk {
    Buf *b;
    View view;
    bool first;
} LogWalk;

static bool log_row(void *ud, const EventRow *r)
{
    LogWalk *w = ud;
    buf_puts(w->b, w->first ? "\n" : ",\n");
    w->first = false;
    view_event_json(w->b, r, &w->view);
    return true;
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

static void api_log(Server *s, struct MHD_Connection *c, const char *you, Answer *a)
{
    long since, limit;
    if (!number_param(c, "since", 0, 0, 0x7fffffffL, &since, a) || !number_param(c, "limit", 500, 1, 500, &limit, a))
        return;
    answer_json(a, 200);
    LogWalk w = {&a->body, {.address = you, .private_attrs = s->g->eng->private_attrs}, true};
    buf_putc(&a->body, '[');
    store_each_event(s->g->st, since + 1, since + limit, log_row, &w);
    buf_puts(&a->body, "\n]");
}

typedef struct OutWalk {
    Buf *b;
    const char *you;
    bool first;
} OutWalk;

static bool outbox_row(void *ud, const OutRow *r)
{
    OutWalk *w = ud;
    if (!addressed_to(sym_cstr(r->to), w->you)) return true;
    buf_puts(w->b, w->first ? "\n" : ",\n");
    w->first = false;
    view_message_json(w->b, r);
    return true;
}

static void api_outbox(Server *s, const char *you, Answer *a)
{
    if (!you) {
        answer_error(a, 401, "your messages need your token (Authorization: Bearer TOKEN)");
        return;
    }
    answer_json(a, 200);
    OutWalk w = {&a->body, you, true};
    buf_putc(&a->body, '[');
    store_each_outbox(s->g->st, outbox_row, &w);
    buf_puts(&a->body, "\n]");
}

/* ---- moves ---- */

typedef struct MoveResult {
    Buf *b;
    const char *sender;
    bool answered, refused;
} MoveResult;

/* The outcome of the move itself (timers due before it run first and are
 * in the log). */
static void move_outcome(void *ud, Game *g, const Outcome *o)
{
    MoveResult *m = ud;
    if (strcmp(o->kind, "move") != 0) return;
    Buf *b = m->b;
    m->answered = true;
    m->refused = o->refused;
    buf_printf(b, "{\"event\":%ld,\"status\":", o->event);
    json_string(b, o->status, strlen(o->status));
    buf_puts(b, ",\"message\":");
    if (o->message) json_string(b, o->message, strlen(o->message));
    else buf_puts(b, "null");
    buf_printf(b, ",\"trace\":%s,\"replies\":[", o->ran && o->er.trace_json.len ? buf_str((Buf *)&o->er.trace_json) : "[]");
    bool first = true;
    const MsgList *lists[2] = {&o->er.sent, &g->eng->queue};
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

/* A form's field (application/x-www-form-urlencoded), decoded; or NULL. */
static char *form_field(const char *body, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = body; p && *p;) {
        const char *amp = strchr(p, '&');
        size_t len = amp ? (size_t)(amp - p) : strlen(p);
        if (len > n && strncmp(p, name, n) == 0 && p[n] == '=') {
            char *v = xstrndup(p + n + 1, len - n - 1);
            for (char *c = v; *c; c++)
                if (*c == '+') *c = ' ';
            MHD_http_unescape(v);
            return v;
        }
        p = amp ? amp + 1 : NULL;
    }
    return NULL;
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
    const char *sender = you ? you : from;
    if (!body || !*body) answer_error(a, 400, "no move: the body holds the moves (object format or sugar lines)");
    else if (!sender) answer_error(a, 400, "who is moving? Give your token (Authorization: Bearer) or from=ADDRESS");
    else if (you && from && strcmp(you, from) != 0)
        answer_error(a, 403, "from=%s is not the address of the token given (%s)", from, you);
    else if (strlen(sender) > 320 || strpbrk(sender, " \t\r\n<>,"))
        answer_error(a, 400, "from=%s: not a bare address", sender);
    else {
        Incoming in = {VIA_HTTP, sender, time_now_wall(), 0, body, NULL, NULL, false};
        const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
        if (h && strncasecmp(h, "Bearer ", 7) == 0) in.token = h + 7;
        MoveResult m = {&a->body, sender, false, false};
        if (!game_submit(s->g, &in, false, move_outcome, &m)) {
            answer_error(a, 503, "the move could not be kept: %s", store_error(s->g->st));
        } else if (!m.answered) {
            answer_error(a, 500, "the move gave no outcome");
        } else {
            /* the policy refuses before the rules run: no trace */
            char *policy = game_config(s->g, "mailPolicy");
            bool forbidden = m.refused && strcmp(policy, "tokens") == 0 && !you;
            free(policy);
            answer_json(a, forbidden ? 403 : 200);
            wake_postman(s);
        }
    }
    free(body);
    free(from);
}

/* ---- routing ---- */

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
                buf_add(&a->body, f->data, f->len);
                return;
            }
        answer_error(a, 404, "no page %s (the game is at /, its API under /api/)", url);
        return;
    }
    if (rq->too_big) {
        answer_error(a, 413, "the body is larger than %d KiB", MAX_BODY / 1024);
        return;
    }
    bool bad;
    char *you = caller(s, c, &bad);
    const char *api = url + 5;
    bool is_move = strcmp(api, "move") == 0;
    if (bad) answer_error(a, 401, "the token given is not valid (nomic token GAME ADDRESS issues one)");
    else if (is_move ? !post : !get) answer_error(a, 405, "%s takes %s", url, is_move ? "POST" : "GET");
    else if (is_move) api_move(s, c, you, rq, a);
    else if (strcmp(api, "game") == 0) api_game(s, you, a);
    else if (strcmp(api, "objects") == 0)
        api_objects(s, MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "type"), you, a);
    else if (strncmp(api, "objects/", 8) == 0) api_object(s, api + 8, you, a);
    else if (strcmp(api, "rules") == 0) api_rules(s, you, a);
    else if (strcmp(api, "log") == 0) api_log(s, c, you, a);
    else if (strcmp(api, "outbox") == 0) api_outbox(s, you, a);
    else answer_error(a, 404, "no such API: %s (see docs/api.md)", url);
    free(you);
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
    Answer a = {0};
    /* another program may have written the game since the last request */
    Buf err = {0};
    if (game_lock(s->g, &err)) {
        game_unlock(s->g);
        route(s, c, url, method, rq, &a);
    } else {
        answer_error(&a, 503, "%s", buf_str(&err));
    }
    buf_free(&err);
    size_t len = a.body.len;
    struct MHD_Response *r = MHD_create_response_from_buffer(len, len ? buf_take(&a.body) : (char *)"",
                                                             len ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a.type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'");
    enum MHD_Result ret = MHD_queue_response(c, a.status, r);
    MHD_destroy_response(r);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode why)
{
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
        if (!mail_send_due(st, s->name, time_now_wall(), false, &rep, NULL, NULL, &err))
            fprintf(stderr, "nomic serve: mail out: %s\n", buf_str(&err));
        else if (rep.retrying || rep.failed)
            fprintf(stderr, "nomic serve: %d message(s) not delivered yet (nomic outbox says why)\n",
                    rep.retrying + rep.failed);
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
    fprintf(stderr, "nomic serve: timer at %s: event %ld %s\n", when, o->event, o->status ? o->status : "");
    (void)ud;
}

/* Runs the timers the wall clock has reached.  Returns the seconds until
 * the next one (at most `cap`). */
static long run_clock(Server *s, long cap)
{
    Game *g = s->g;
    Buf err = {0};
    if (!game_lock(g, &err)) { /* busy: look again soon */
        buf_free(&err);
        return 1;
    }
    int64_t now = time_now_wall();
    /* without a known timer, game_tick asks the rules for one: once per
     * state, not every second */
    bool probe = !g->have_timer && s->probed_at != g->known_event;
    if (!g->halted && (probe || (g->have_timer && g->next_timer <= now))) {
        s->probed_at = g->known_event;
        if (!game_tick(g, now, false, print_tick, NULL))
            fprintf(stderr, "nomic serve: a timer could not run: %s\n", store_error(g->st));
        wake_postman(s);
    }
    long wait = cap;
    if (!g->halted && g->have_timer) {
        int64_t d = g->next_timer - time_now_wall();
        if (d < wait) wait = d < 0 ? 0 : (long)d;
    }
    game_unlock(g);
    buf_free(&err);
    return wait;
}

/* ---- the loop ---- */

int server_run(Game *g, const char *path, const char *host, int port)
{
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        fprintf(stderr, "nomic serve: %s: not an IPv4 address (such as 127.0.0.1 or 0.0.0.0)\n", host);
        return EXIT_USAGE;
    }
    Server s = {.g = g, .path = path, .name = cli_game_name(path), .probed_at = -1};
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.wake, NULL);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, on_request, &s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT, MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "nomic serve: cannot listen on %s:%d: %s\n", host, port, strerror(errno));
        free(s.name);
        return EXIT_USAGE;
    }
    mime_init_once();
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    pthread_create(&s.postman, NULL, postman, &s);
    printf("nomic serve: %s on http://%s:%d/\n", s.name, host, port);
    fflush(stdout);
    while (!stop_requested) {
        long wait = run_clock(&s, 1);
        fd_set rs, ws, es;
        FD_ZERO(&rs);
        FD_ZERO(&ws);
        FD_ZERO(&es);
        MHD_socket max = 0;
        if (MHD_get_fdset(d, &rs, &ws, &es, &max) != MHD_YES) break;
        MHD_UNSIGNED_LONG_LONG mhd_ms;
        long ms = wait * 1000;
        if (MHD_get_timeout(d, &mhd_ms) == MHD_YES && (long)mhd_ms < ms) ms = (long)mhd_ms;
        struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
        if (select(max + 1, &rs, &ws, &es, &tv) < 0 && errno != EINTR) break;
        MHD_run_from_select(d, &rs, &ws, &es);
    }
    MHD_stop_daemon(d);
    pthread_mutex_lock(&s.mu);
    s.stopping = true;
    pthread_cond_signal(&s.wake);
    pthread_mutex_unlock(&s.mu);
    pthread_join(s.postman, NULL);
    pthread_mutex_destroy(&s.mu);
    pthread_cond_destroy(&s.wake);
    printf("nomic serve: stopped\n");
    free(s.name);
    return 0;
}
