/*
 * server_scams.c - POST /api/scams, "what does this open up?": the form
 * read into a search (the coalition, the goal, its bounds), the game
 * copied by fork() under its lock for a moment, and the search of nomic
 * scams (scams.h) run in the child beside the writer, its answer read back
 * through a pipe.
 */
#include "server_int.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scams.h"
#include "scams_check.h"

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
    while (ok && (field = http_form_field_next(&at, "with"))) {
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

/* The search, in a child process forked under game_mu, and its answer. */
static void scams_run(Server *s, const ScamQuery *q, const char *proposal, Answer *a)
{
    int fds[2] = {-1, -1};
    pid_t pid = -1;
    server_hold(s);
    snapshot_sync(s);
    Buf err = {0};
    bool locked = game_lock(s->g, &err);
    if (locked) {
        if (pipe(fds) == 0) {
            int64_t now = scams_game_time(s->g);
            pid = fork();
            if (pid == 0) {
                close(fds[0]);
                scams_child(s->g, now, q, proposal, fds[1]);
            }
        }
        game_unlock(s->g);
    }
    server_release(s);
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
}

/* POST /api/scams (form fields as, with, goal, proposal, depth, budget, wait):
 * the search of nomic scams on the game as it stands, or as it would be
 * if the proposal were adopted.  The game is copied (fork) under game_mu,
 * for a moment; the search runs in the copy, beside the writer and the
 * other requests, at most SCAMS_AT_ONCE at a time.  It plays on the public
 * view of the state (scams.h), or on as='s own when the request's token
 * is as='s: a goal cannot probe another's private value, however it
 * computes the attribute's name. */
void api_scams(const Call *k, Answer *a)
{
    Server *s = k->s;
    const char *you = k->you;
    const char *raw = buf_str(&k->rq->body);
    char *as = http_form_field(raw, "as"), *goal = http_form_field(raw, "goal");
    char *proposal = http_form_field(raw, "proposal"), *depth_s = http_form_field(raw, "depth");
    char *budget_s = http_form_field(raw, "budget"), *wait_s = http_form_field(raw, "wait");
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
    } else if (atomic_fetch_add(&s->site->searches, 1) >= SCAMS_AT_ONCE) {
        atomic_fetch_sub(&s->site->searches, 1);
        answer_error(a, 503, "%d searches are running already: ask again in a moment", SCAMS_AT_ONCE);
    } else {
        ScamQuery q = {(const char *const *)co.who, co.n, goal, (int)depth, budget, wait_s && strcmp(wait_s, "T") == 0, false,
                       you && strcmp(you, as) == 0 ? as : NULL};
        scams_run(s, &q, proposal, a);
        atomic_fetch_sub(&s->site->searches, 1);
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

/* ---- every proposal checked (scams_check.h) ---- */

typedef struct CheckThread {
    Server *s;
    ScamCheckJob job;
} CheckThread;

/* Waits for the check's child (without the game), then journals its
 * answer under the game's lock: a moment's write, like an event's. */
static void *check_thread(void *ud)
{
    CheckThread *t = ud;
    Server *s = t->s;
    long event = t->job.event;
    pid_t pid = t->job.pid;
    char *entries = scam_check_collect(&t->job);
    pthread_mutex_lock(&s->checks_mu);
    for (int i = 0; i < SCAM_CHECKS_AT_ONCE; i++)
        if (pid > 0 && s->check_pids[i] == pid) s->check_pids[i] = 0;
    bool closing = s->closing;
    pthread_mutex_unlock(&s->checks_mu);
    if (!closing) {
        Buf err = {0};
        server_hold(s);
        if (!scam_check_save(s->g, event, entries, &err))
            fprintf(stderr, "nomic serve: %s: the scam check of event %ld could not be kept: %s\n", s->name, event,
                    buf_str(&err));
        server_release(s);
        buf_free(&err);
    }
    free(entries);
    free(t);
    pthread_mutex_lock(&s->checks_mu);
    s->nchecks--;
    pthread_mutex_unlock(&s->checks_mu);
    return NULL;
}

/* Called under game_mu and the game's lock, the event on disk: the child
 * forked now searches the state the event left; a thread waits for it. */
void server_scam_hook(void *ud, Game *g, long event, int64_t time, const char *pending)
{
    Server *s = ud;
    CheckThread *t = xcalloc(1, sizeof *t);
    t->s = s;
    int slot = -1;
    pthread_mutex_lock(&s->checks_mu);
    for (int i = 0; i < SCAM_CHECKS_AT_ONCE && slot < 0; i++)
        if (!s->check_pids[i]) slot = i;
    if (slot >= 0) s->check_pids[slot] = -1; /* taken */
    s->nchecks++;
    pthread_mutex_unlock(&s->checks_mu);
    if (slot < 0) {
        memset(&t->job, 0, sizeof t->job);
        t->job = (ScamCheckJob){event, -1, -1, xstrdup(pending), "not checked: the server was running other checks"};
    } else {
        scam_check_start(g, event, time, pending, &t->job);
        pthread_mutex_lock(&s->checks_mu);
        s->check_pids[slot] = t->job.pid > 0 ? t->job.pid : 0;
        pthread_mutex_unlock(&s->checks_mu);
    }
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &attr, check_thread, t) != 0) {
        /* no thread: the check is given up, its marker stays pending */
        if (t->job.pid > 0) {
            kill(t->job.pid, SIGKILL);
            free(scam_check_collect(&t->job));
        }
        free(t->job.keys);
        pthread_mutex_lock(&s->checks_mu);
        if (slot >= 0) s->check_pids[slot] = 0;
        s->nchecks--;
        pthread_mutex_unlock(&s->checks_mu);
        free(t);
    }
    pthread_attr_destroy(&attr);
}

/* The server stops: the checks running are stopped (their events keep
 * the marker "pending"), and their threads waited for. */
void server_checks_stop(Server *s)
{
    pthread_mutex_lock(&s->checks_mu);
    s->closing = true;
    for (int i = 0; i < SCAM_CHECKS_AT_ONCE; i++)
        if (s->check_pids[i] > 0) kill(s->check_pids[i], SIGKILL);
    pthread_mutex_unlock(&s->checks_mu);
    for (;;) {
        pthread_mutex_lock(&s->checks_mu);
        int n = s->nchecks;
        pthread_mutex_unlock(&s->checks_mu);
        if (!n) break;
        struct timespec pause = {0, 10 * 1000000L};
        nanosleep(&pause, NULL);
    }
}
