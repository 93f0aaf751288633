/*
 * server_move.c - the API's handlers that make events: POST /api/move (a
 * player's moves, answered once on disk) and POST /api/token (mail me my
 * token).  Each runs on its connection's thread under the game's lock;
 * reads never wait for it (server_snapshot.c).
 */
#include "server_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "game_mechanics.h"
#include "mail_in.h"
#include "server_perclient.h"
#include "views.h"

typedef struct MoveAnswer {
    Buf *b;
    const char *sender;
    bool answered, refused, over_quota;
} MoveAnswer;

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

/* The moves of a POST /api/move: a form sends body=...; anything else
 * (curl's default type included) is the moves themselves.  *from: the
 * form's or the query's from=, in the form the token's address has (one
 * address, one player), or NULL. */
static char *move_read(Server *s, struct MHD_Connection *c, Request *rq, char **from_out)
{
    const char *ctype = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    const char *raw = buf_str(&rq->body);
    bool urlencoded = ctype && strncasecmp(ctype, "application/x-www-form-urlencoded", 33) == 0;
    char *body = urlencoded ? http_form_field(raw, "body") : NULL;
    bool form = body != NULL;
    if (!body) body = xstrdup(raw);
    char *from = form ? http_form_field(raw, "from") : NULL;
    const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "from");
    if (!from && q) from = xstrdup(q);
    if (from && !*from) {
        free(from);
        from = NULL;
    }
    if (from) {
        const char *bad;
        server_hold(s);
        char *canon = game_address(s->g, from, &bad);
        server_release(s);
        if (canon) {
            free(from);
            from = canon;
        }
    }
    *from_out = from;
    return body;
}

/* The move, submitted and answered once on disk. */
static void move_submit(Server *s, struct MHD_Connection *c, const char *you, const char *sender, const char *body,
                        Answer *a)
{
    Incoming in = {VIA_HTTP, sender, time_now_wall(), 0, body, NULL, NULL, false};
    char ip[INET6_ADDRSTRLEN];
    /* a stranger is billed by IP as well (behind the keeper's proxy,
     * the one it forwards for: serve --proxy); players with a token by
     * their address alone */
    in.client = you ? NULL : http_client_ip(s->site, c, ip);
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (h && strncasecmp(h, "Bearer ", 7) == 0) in.token = h + 7;
    MoveAnswer m = {&a->body, sender, false, false, false};
    server_hold(s);
    atomic_store(&s->running, true);
    in.public_view = !you; /* the answer goes to whoever asked */
    bool kept = game_submit(s->g, &in, false, move_outcome, &m);
    atomic_store(&s->running, false);
    uint64_t commit = kept ? server_note_commit(s) : 0;
    char *policy = game_config(s->g, "mailPolicy");
    char *why = kept ? NULL : xstrdup(store_error(s->g->st));
    snapshot_sync(s); /* the mover's next read sees the move */
    server_release(s);
    /* answered only once on disk, the fsync shared with the moves
     * committed meanwhile */
    if (kept && !server_durable(s, commit, &why)) kept = false;
    if (!kept) {
        answer_error(a, 503, "the move could not be kept: %s", why);
    } else if (!m.answered) {
        answer_error(a, 500, "the move gave no outcome");
    } else {
        /* the policy refuses before the rules run: no trace */
        bool forbidden = m.refused && strcmp(policy, "tokens") == 0 && !you;
        answer_json(a, m.over_quota ? 429 : forbidden ? 403 : 200);
        server_wake_postman(s);
    }
    free(policy);
    free(why);
}

void api_move(const Call *k, Answer *a)
{
    const char *you = k->you;
    char *from;
    char *body = move_read(k->s, k->c, k->rq, &from);
    const char *sender = you ? you : from;
    if (!body || !*body) answer_error(a, 400, "no move: the body holds the moves (object format or sugar lines)");
    else if (!sender) answer_error(a, 400, "who is moving? Give your token (Authorization: Bearer) or from=ADDRESS");
    else if (you && from && strcmp(you, from) != 0)
        answer_error(a, 403, "from=%s is not the address of the token given (%s)", from, you);
    else if (strlen(sender) > 320 || strpbrk(sender, " \t\r\n<>,"))
        answer_error(a, 400, "from=%s: not a bare address", sender);
    else move_submit(k->s, k->c, you, sender, body, a);
    free(body);
    free(from);
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
    http_client_ip(s->site, c, ip);
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
void api_token(const Call *k, Answer *a)
{
    Server *s = k->s;
    const char *q = MHD_lookup_connection_value(k->c, MHD_GET_ARGUMENT_KIND, "from");
    char *from = q ? xstrdup(q) : http_form_field(buf_str(&k->rq->body), "from"), *canon = NULL, *why = NULL;
    int64_t now = time_now_wall();
    if (!from || !*from) {
        answer_error(a, 400, "whose token? Give from=ADDRESS: the token is mailed there");
        goto done;
    }
    if (strlen(from) > 320 || strpbrk(from, " \t\r\n<>,\"") || !strchr(from, '@')) {
        answer_error(a, 400, "from=%s: not a bare address", from);
        goto done;
    }
    server_hold(s);
    if (token_refusal(s, k->c, from, now, &canon, a)) {
        server_release(s);
        goto done;
    }
    Incoming in = {VIA_HTTP, canon, now, 0, "", NULL, NULL, false, NULL, NULL, (const int[]){0}, 0, NULL, true};
    MoveAnswer m = {&a->body, canon, false, false};
    atomic_store(&s->running, true);
    bool kept = game_submit(s->g, &in, false, move_outcome, &m);
    atomic_store(&s->running, false);
    why = kept ? NULL : xstrdup(store_error(s->g->st));
    snapshot_sync(s);
    server_release(s);
    if (!kept) answer_error(a, 503, "the request could not be kept: %s", why);
    else if (!m.answered) answer_error(a, 500, "the request gave no outcome");
    else {
        answer_json(a, 200);
        server_wake_postman(s);
    }
done:
    free(why);
    free(canon);
    free(from);
}
