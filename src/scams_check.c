/*
 * scams_check.c - every proposal checked, without asking (scams_check.h):
 * the goals a set declares (scamGoals), the proposals an event opened (as
 * proposalView declares them), and the searches of scams.c run on a copy
 * of the game as if each were adopted, in a child process, their answers
 * journaled with the event.
 */
#include "scams_check.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pool_privacy.h"
#include "scams.h"
#include "scams_proposal.h"

/* ---- what the set declares ---- */

/* The attribute `name` of every engineSettings, in id order, a line each
 * (every engineSettings counts, as for codeAttributes). */
static char *settings_text(const Pool *p, const char *name)
{
    Sym attr = sym_cstr(name);
    Buf b = {0};
    IDSET_FOREACH (pool_lookup(p, SYM_type, SYM_engineSettings), oid) {
        Sym v = obj_get(pool_get(p, oid), attr);
        if (v == SYM_EMPTY) continue;
        buf_puts(&b, sym_text(v));
        buf_putc(&b, '\n');
    }
    return buf_take(&b);
}

static bool declares_goals(const Pool *p)
{
    Sym attr = sym_cstr("scamGoals");
    IDSET_FOREACH (pool_lookup(p, SYM_type, SYM_engineSettings), oid)
        if (obj_get(pool_get(p, oid), attr) != SYM_EMPTY) return true;
    return false;
}

/* One goal: `KIND NAME [as=any|all] [depth=N] [wait=T]: CONDITION`. */
typedef struct Goal {
    char *name, *cond, *error;
    bool lockout, all, wait;
    int depth;
} Goal;

static void goal_free(Goal *g)
{
    free(g->name);
    free(g->cond);
    free(g->error);
}

static char *trimmed(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
    return xstrndup(s, n);
}

/* Reads one line into g; false for a line that holds nothing (blank, or a
 * comment: # first). */
static bool goal_parse(const char *line, size_t len, Goal *g)
{
    memset(g, 0, sizeof *g);
    char *text = trimmed(line, len);
    if (!*text || *text == '#') {
        free(text);
        return false;
    }
    char *colon = strchr(text, ':');
    if (!colon) {
        g->name = xstrdup(text);
        g->error = xstrdup("no ':' before the condition (KIND NAME [as=any|all] [depth=N] [wait=T]: CONDITION)");
        free(text);
        return true;
    }
    *colon = 0;
    g->cond = trimmed(colon + 1, strlen(colon + 1));
    Buf why = {0};
    int n = 0;
    char *at;
    for (char *w = strtok_r(text, " \t", &at); w; w = strtok_r(NULL, " \t", &at), n++) {
        if (n == 0) {
            if (strcmp(w, "lockout") == 0) g->lockout = g->all = true;
            else if (strcmp(w, "scam") != 0) buf_printf(&why, "the kind %s is neither scam nor lockout; ", w);
        } else if (n == 1) {
            g->name = xstrdup(w);
        } else if (strcmp(w, "as=any") == 0 || strcmp(w, "as=all") == 0) {
            g->all = w[3] == 'a' && w[4] == 'l';
        } else if (strncmp(w, "depth=", 6) == 0 && atoi(w + 6) >= 1 && atoi(w + 6) <= SCAM_MAX_DEPTH) {
            g->depth = atoi(w + 6);
        } else if (strcmp(w, "depth=players") == 0) {
            g->depth = -1; /* as many messages as the searchers are players */
        } else if (strcmp(w, "wait=T") == 0 || strcmp(w, "wait=F") == 0) {
            g->wait = w[5] == 'T';
        } else {
            buf_printf(&why, "%s: expected as=any, as=all, depth=1..%d or wait=T; ", w, SCAM_MAX_DEPTH);
        }
    }
    if (!g->name) {
        g->name = xstrdup("?");
        buf_puts(&why, "no name; ");
    }
    if (!*g->cond) buf_puts(&why, "no condition; ");
    if (!g->depth) g->depth = 1;
    if (why.len) {
        why.s[why.len -= 2] = 0;
        g->error = buf_take(&why);
    }
    buf_free(&why);
    free(text);
    return true;
}

/* The goals of the set, at most SCAM_CHECK_GOALS; how many. */
static int goals_read(const Pool *p, Goal *goals)
{
    char *text = settings_text(p, "scamGoals");
    int n = 0;
    for (const char *s = text; *s && n < SCAM_CHECK_GOALS;) {
        size_t len = strcspn(s, "\n");
        if (goal_parse(s, len, &goals[n])) n++;
        s += len + (s[len] == '\n');
    }
    free(text);
    return n;
}

/* scamBudget, the last engineSettings' to give one, within bounds. */
static long budget_read(const Pool *p)
{
    long budget = SCAM_CHECK_BUDGET;
    IDSET_FOREACH (pool_lookup(p, SYM_type, SYM_engineSettings), oid) {
        long b;
        if (sym_to_long(obj_get(pool_get(p, oid), sym_cstr("scamBudget")), &b) && b >= 1) budget = b;
    }
    return budget < SCAM_CHECK_BUDGET_MAX ? budget : SCAM_CHECK_BUDGET_MAX;
}

/* ---- the proposals an event opened ---- */

/* Does the comma-separated list hold w? */
static bool list_has(const char *list, const char *w, size_t n)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && memcmp(p, w, n) == 0) return true;
        p += len + (p[len] == ',');
    }
    return false;
}

char *scam_check_opened(Game *g)
{
    Pool *p = g->pool;
    /* a test hook: the same game without its checks (tests/t47-scamcheck.sh) */
    if (getenv("NOMIC_TEST_NO_SCAM_CHECK")) return NULL;
    if (!declares_goals(p) || attr_is_private(g->eng->private_attrs, sym_cstr("proposalView"))) return NULL;
    char *text = settings_text(p, "proposalView");
    ProposalView v;
    proposal_view_parse(text, &v);
    free(text);
    /* what is voted on: the proposal itself (its line's `open` statuses),
     * or, where a poll line says so, the proposal a new open poll is of */
    const ViewLine *l = NULL, *poll = NULL; /* the last proposal line with a type, as the page reads it; the first poll */
    for (int i = 0; i < v.n; i++) {
        if (strcmp(v.lines[i].role, "proposal") == 0 && *proposal_view_get(&v.lines[i], "type")) l = &v.lines[i];
        if (strcmp(v.lines[i].role, "poll") == 0 && !poll) poll = &v.lines[i];
    }
    const char *keyattr = NULL;
    if (poll && *proposal_view_get(poll, "open") && *proposal_view_get(poll, "of")) {
        keyattr = proposal_view_get(poll, "of");
        l = poll;
    } else if (l && *proposal_view_get(l, "open")) {
        keyattr = proposal_view_get(l, "key");
    }
    Buf keys = {0};
    if (keyattr) {
        const char *types = proposal_view_get(l, "type"), *open = proposal_view_get(l, "open");
        const char *status = proposal_view_get(l, "status");
        char *first_id = xstrndup(proposal_view_get(l, "id"), strcspn(proposal_view_get(l, "id"), ","));
        Sym st = sym_cstr(*status ? status : "type"), k = sym_cstr(*keyattr ? keyattr : *first_id ? first_id : "objectId");
        free(first_id);
        for (size_t i = 0; i < p->undo_len; i++) {
            if (p->undo[i].kind != UNDO_CREATE) continue;
            const Obj *o = pool_get(p, p->undo[i].id);
            if (!o) continue;
            Sym type = obj_get(o, SYM_type), stv = obj_get(o, st);
            Sym kv = k == SYM_objectId ? o->idsym : obj_get(o, k);
            if (!list_has(types, sym_text(type), sym_len(type)) || !list_has(open, sym_text(stv), sym_len(stv))) continue;
            const char *kt = sym_text(kv);
            if (!*kt || strpbrk(kt, " \t\r\n")) continue;
            /* once each */
            char *have = xstrdup(buf_str(&keys)), *dup = NULL;
            char *at;
            for (char *w = strtok_r(have, " ", &at); w && !dup; w = strtok_r(NULL, " ", &at))
                if (strcmp(w, kt) == 0) dup = w;
            free(have);
            if (!dup) buf_printf(&keys, " %s", kt);
        }
    }
    proposal_view_free(&v);
    if (!keys.len) return NULL;
    Buf out = {0};
    buf_printf(&out, "pending%s", buf_str(&keys));
    buf_free(&keys);
    return buf_take(&out);
}

/* ---- the check, in the child ---- */

static bool name_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* cond with its placeholders filled in (each not followed by a name's
 * character): %next the first object id a step of the search makes, %now
 * the time of the event that opened the proposal, %proposal the
 * proposal's key, as a quoted text. */
static char *placeheld(const char *cond, ObjId next, int64_t now, const char *key)
{
    Buf b = {0};
    for (const char *s = cond; *s;) {
        if (*s == '%' && strncmp(s + 1, "next", 4) == 0 && !name_char(s[5])) {
            buf_printf(&b, "%lu", (unsigned long)next);
            s += 5;
        } else if (*s == '%' && strncmp(s + 1, "now", 3) == 0 && !name_char(s[4])) {
            buf_printf(&b, "%lld", (long long)now);
            s += 4;
        } else if (*s == '%' && strncmp(s + 1, "proposal", 8) == 0 && !name_char(s[9])) {
            buf_putc(&b, '"');
            for (const char *k = key; *k; k++) {
                if (*k == '"' || *k == '\\') buf_putc(&b, '\\');
                buf_putc(&b, *k);
            }
            buf_putc(&b, '"');
            s += 9;
        } else {
            buf_putc(&b, *s++);
        }
    }
    return buf_take(&b);
}

/* Does the set declare changes to the rules the engine runs (a change
 * line `in` the rules' type)?  If not, adopting a proposal changes none
 * of them, and the check searches the game as it stands. */
static bool declares_rule_changes(Game *g)
{
    RuleInfo *ri;
    free((engine_rules(g->eng, &ri), ri)); /* reads the settings: the rules' type */
    char *text = settings_text(g->pool, "proposalView");
    ProposalView v;
    proposal_view_parse(text, &v);
    free(text);
    bool any = false;
    for (int i = 0; i < v.n && !any; i++)
        any = strcmp(v.lines[i].role, "change") == 0 &&
              strcmp(proposal_view_get(&v.lines[i], "in"), sym_text(g->eng->run_type)) == 0;
    proposal_view_free(&v);
    return any;
}

static bool as_is; /* the child's: the proposal changes no rule the engine runs */
static Buf offered; /* the child's: the entries as objects for the rules (scam_check_offered) */

/* The steps of an answer in words: "alice@x sends subtype=bonus
 * from=carol; then waits until 1767236400". */
static void steps_text(Buf *b, const ScamQuery *q, const ScamResult *r)
{
    for (int i = 0; i < r->nsteps; i++) {
        const ScamStep *st = &r->steps[i];
        if (i) buf_puts(b, "; then ");
        if (st->wait) {
            buf_printf(b, "waits until %lld", (long long)st->time);
            continue;
        }
        buf_printf(b, "%s sends", q->senders[st->sender]);
        for (int c = 0; c < st->copies; c++) {
            if (c) buf_puts(b, " and again");
            for (int k = 0; k < st->nattrs; k++)
                buf_printf(b, " %s=%s", sym_text(st->attrs[k].name), sym_text(st->attrs[k].value));
        }
        if (st->nattrs2) buf_puts(b, " with"); /* a second, different move of the message */
        for (int k = 0; k < st->nattrs2; k++)
            buf_printf(b, " %s=%s", sym_text(st->attrs2[k].name), sym_text(st->attrs2[k].value));
    }
}

static void offer_attr(const char *name, const char *value)
{
    if (!value || !*value) return;
    buf_printf(&offered, "%s: ", name);
    fmt_print_value(&offered, sym_cstr(value));
    buf_putc(&offered, '\n');
}

/* One entry as an object of type scamCheck (docs/scams.md). */
static void offer(const char *key, const Goal *gl, bool flagged, const char *found, const char *as, const char *steps,
                  const char *error)
{
    offer_attr("type", "scamCheck");
    offer_attr("proposal", key);
    offer_attr("goal", gl->name);
    offer_attr("kind", gl->lockout ? "lockout" : "scam");
    offer_attr("flagged", flagged ? "T" : "F");
    offer_attr("found", found);
    offer_attr("as", as);
    offer_attr("steps", steps);
    offer_attr("error", error);
    buf_putc(&offered, '\n');
}

static void entry_head(Buf *b, const char *key, const Goal *gl)
{
    buf_puts(b, "{\"proposal\":");
    json_string(b, key, strlen(key));
    if (as_is) buf_puts(b, ",\"adopted\":false");
    buf_puts(b, ",\"goal\":");
    json_string(b, gl->name, strlen(gl->name));
    buf_printf(b, ",\"kind\":\"%s\"", gl->lockout ? "lockout" : "scam");
}

static void entry_error(Buf *b, const char *key, const Goal *gl, const char *why)
{
    entry_head(b, key, gl);
    buf_puts(b, ",\"flagged\":false,\"error\":");
    json_string(b, why, strlen(why));
    buf_puts(b, "}\n");
    offer(key, gl, false, NULL, NULL, NULL, why);
}

/* One goal on the game as adopted: one search per player (as=any, the
 * first found answers), or one of them all together (as=all). */
static void check_goal(Game *g, int64_t now, const char *key, const Goal *gl, char **who, int nwho, long budget,
                       ObjId next, Buf *b)
{
    if (gl->error) {
        entry_error(b, key, gl, gl->error);
        return;
    }
    if (!nwho) {
        entry_error(b, key, gl, "nobody has moved yet: no one to search as");
        return;
    }
    char *cond = placeheld(gl->cond, next, now, key);
    int rounds = gl->all ? 1 : (nwho < SCAM_CHECK_PLAYERS ? nwho : SCAM_CHECK_PLAYERS);
    int ncoal = nwho < SCAM_CHECK_COALITION ? nwho : SCAM_CHECK_COALITION;
    /* a coalition short of some players proves no lock-out */
    bool partial = gl->all && nwho > SCAM_CHECK_COALITION;
    int depth = gl->depth > 0 ? gl->depth : (gl->all ? ncoal : 1) + gl->wait; /* depth=players: a message each, and the wait */
    if (depth > SCAM_MAX_DEPTH) depth = SCAM_MAX_DEPTH;
    long explored = 0;
    bool spent = false, done = false;
    for (int i = 0; i < rounds && !done; i++) {
        ScamQuery q = {(const char *const *)(gl->all ? who : who + i), gl->all ? ncoal : 1,
                       cond, depth, budget, gl->wait, false, NULL};
        ScamResult r;
        Buf err = {0};
        if (!scams_search(g, now, &q, &r, &err)) {
            entry_error(b, key, gl, buf_str(&err));
            buf_free(&err);
            free(cond);
            return;
        }
        buf_free(&err);
        explored += r.explored;
        spent |= r.budget_spent;
        if (r.found) {
            done = true;
            entry_head(b, key, gl);
            buf_printf(b, ",\"flagged\":%s,\"as\":", gl->lockout ? "false" : "true");
            json_string(b, q.senders[0], strlen(q.senders[0]));
            Buf res = {0};
            scam_result_json(&res, &q, &r);
            buf_putc(b, ',');
            buf_add(b, res.s + 1, res.len - 1); /* "found": ... } */
            buf_putc(b, '\n');
            buf_free(&res);
            Buf words = {0};
            steps_text(&words, &q, &r);
            offer(key, gl, !gl->lockout, "T", q.senders[0], buf_str(&words), NULL);
            buf_free(&words);
        }
        scam_result_free(&r);
    }
    if (!done) {
        entry_head(b, key, gl);
        /* a lock-out is flagged only when the search went to its depth:
         * a budget spent first proves nothing */
        buf_printf(b, ",\"flagged\":%s,\"as\":", gl->lockout && !spent && !partial ? "true" : "false");
        if (gl->all) json_string(b, who[0], strlen(who[0]));
        else buf_puts(b, "null");
        buf_printf(b, ",\"found\":false,\"explored\":%ld%s%s}\n", explored, spent ? ",\"budgetSpent\":true" : "",
                   partial ? ",\"partial\":true" : "");
        offer(key, gl, gl->lockout && !spent && !partial, "F", gl->all ? who[0] : NULL, NULL, NULL);
    }
    free(cond);
}

/* Every goal on every proposal of the marker, as entries. */
static void check_all(Game *g, int64_t now, const char *pending, char **who, int nwho, Buf *b)
{
    Goal goals[SCAM_CHECK_GOALS];
    int ngoals = goals_read(g->pool, goals);
    long budget = budget_read(g->pool);
    char *keys = xstrdup(pending + strlen("pending"));
    char *at; /* strtok_r: the searches within must not move this loop's place */
    for (char *key = strtok_r(keys, " ", &at); key; key = strtok_r(NULL, " ", &at)) {
        Pool *p = g->pool;
        bool was = p->logging;
        p->logging = true;
        size_t mark = pool_mark(p);
        ObjId next_id = p->next_id;
        Buf err = {0};
        /* a proposal with no change to the rules the engine runs (the set
         * declares none, or this one carries none: a rule text alone)
         * is searched on the game as it stands */
        as_is = !declares_rule_changes(g) || !scams_adopt(g, key, &err);
        for (int i = 0; i < ngoals; i++) check_goal(g, now, key, &goals[i], who, nwho, budget, p->next_id, b);
        buf_free(&err);
        pool_undo_to(p, mark);
        p->next_id = next_id;
        p->logging = was;
        engine_invalidate(g->eng);
    }
    free(keys);
    for (int i = 0; i < ngoals; i++) goal_free(&goals[i]);
}

/* ---- the child, and its answer ---- */

#define OFFER_MARK "\x1e\n" /* a record separator: JSON escapes it inside strings */

bool scam_check_start(Game *g, long event, int64_t time, const char *pending, ScamCheckJob *job)
{
    memset(job, 0, sizeof *job);
    job->event = event;
    job->pid = -1;
    job->fd = -1;
    job->keys = xstrdup(pending);
    job->time = time;
    /* the players: the journal's senders (read here: the child has no store) */
    char *all = g->st ? store_all_senders(g->st) : xstrdup("");
    if (!all) return false;
    char *who[SCAM_CHECK_COALITION + 1]; /* one more than a coalition: more players than it holds */
    int nwho = 0;
    char *next;
    for (char *w = strtok_r(all, " ", &next); w && nwho < (int)(sizeof who / sizeof *who); w = strtok_r(NULL, " ", &next))
        who[nwho++] = w;
    int fds[2];
    if (pipe(fds) != 0) {
        free(all);
        return false;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        signal(SIGALRM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        alarm(SCAM_CHECK_SECONDS);
        Buf b = {0};
        check_all(g, time, pending, who, nwho, &b);
        /* then the same as objects, after a line no JSON line can be */
        buf_puts(&b, OFFER_MARK);
        buf_add(&b, offered.s ? offered.s : "", offered.len);
        for (size_t at = 0; at < b.len;) {
            ssize_t n = write(fds[1], b.s + at, b.len - at);
            if (n <= 0) break;
            at += (size_t)n;
        }
        _exit(0);
    }
    free(all);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return false;
    }
    job->pid = pid;
    job->fd = fds[0];
    return true;
}

/* An entry per proposal of the marker: the check did not answer. */
static char *failed_entries(const char *pending, const char *why)
{
    Buf b = {0};
    char *keys = xstrdup(pending + strlen("pending"));
    char *at;
    for (char *key = strtok_r(keys, " ", &at); key; key = strtok_r(NULL, " ", &at)) {
        buf_puts(&b, "{\"proposal\":");
        json_string(&b, key, strlen(key));
        buf_puts(&b, ",\"flagged\":false,\"error\":");
        json_string(&b, why, strlen(why));
        buf_puts(&b, "}\n");
    }
    free(keys);
    return buf_take(&b);
}

char *scam_check_collect(ScamCheckJob *job)
{
    char *out = NULL;
    if (job->pid < 0) {
        out = failed_entries(job->keys, job->why ? job->why : "the check could not start");
    } else {
        Buf b = {0};
        char chunk[4096];
        ssize_t n;
        while ((n = read(job->fd, chunk, sizeof chunk)) != 0) {
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) break;
            buf_add(&b, chunk, (size_t)n);
        }
        close(job->fd);
        int status = 0;
        while (waitpid(job->pid, &status, 0) < 0 && errno == EINTR) {}
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && b.len) {
            out = buf_take(&b);
            char *mark = strstr(out, OFFER_MARK);
            if (mark) {
                job->objects = xstrdup(mark + strlen(OFFER_MARK));
                *mark = 0;
            }
        } else {
            char why[128];
            snprintf(why, sizeof why, "the check ended before its answer (%s %d)",
                     WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            out = failed_entries(job->keys, WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ?
                                 "the check ran out of time" : why);
        }
        buf_free(&b);
    }
    free(job->keys);
    job->keys = NULL;
    job->pid = -1;
    job->fd = -1;
    return out ? out : xstrdup("");
}

/* Does the set ask for the answers as objects (`scamCheckEvent: T` on an
 * engineSettings)? */
static bool offered_to_rules(const Pool *p)
{
    Sym attr = sym_cstr("scamCheckEvent");
    IDSET_FOREACH (pool_lookup(p, SYM_type, SYM_engineSettings), oid)
        if (obj_get(pool_get(p, oid), attr) == SYM_T) return true;
    return false;
}

bool scam_check_offer(Game *g, const ScamCheckJob *job, Buf *err)
{
    if (!job->objects || !*job->objects) return true;
    if (!game_lock(g, err)) return false;
    bool ok = true;
    int64_t last;
    if (offered_to_rules(g->pool)) {
        /* at the time of the event it checks, or after the last since */
        int64_t time = job->time;
        ok = game_last_time(g, &last) >= 0;
        if (ok && last > time) time = last;
        EventInput in = {.kind = "check", .sender = "", .time = time, .stamp = time, .moves = job->objects};
        Outcome o;
        if (ok) ok = game_event(g, &in, &o);
        if (ok) outcome_free(&o);
        if (!ok) buf_puts(err, g->st ? store_error(g->st) : "the check's event could not run");
    }
    game_unlock(g);
    return ok;
}

bool scam_check_save(Game *g, long event, const char *entries, Buf *err)
{
    if (!g->st) return true;
    if (!game_lock(g, err)) return false;
    bool ok = store_begin(g->st) && store_event_scam_check(g->st, event, entries);
    if (ok) ok = store_commit(g->st);
    else store_rollback(g->st);
    if (!ok) buf_puts(err, store_error(g->st));
    game_unlock(g);
    return ok;
}

/* ---- the command line's ---- */

void scam_checks_install(Game *g, void (*hook)(void *, Game *, long, int64_t, const char *), void *ud)
{
    g->opened = hook ? scam_check_opened : NULL;
    g->on_opened = hook;
    g->on_opened_ud = ud;
}

void scam_checks_hook(void *ud, Game *g, long event, int64_t time, const char *pending)
{
    ScamChecks *c = ud;
    GROW(c->jobs, c->n, c->cap);
    scam_check_start(g, event, time, pending, &c->jobs[c->n++]);
}

bool scam_checks_finish(ScamChecks *c, Game *g)
{
    bool ok = true;
    for (int i = 0; i < c->n; i++) {
        long event = c->jobs[i].event;
        char *entries = scam_check_collect(&c->jobs[i]);
        Buf err = {0};
        if (!scam_check_save(g, event, entries, &err) || !scam_check_offer(g, &c->jobs[i], &err)) {
            fprintf(stderr, "nomic: the scam check of event %ld could not be kept: %s\n", event, buf_str(&err));
            ok = false;
        }
        free(c->jobs[i].objects);
        buf_free(&err);
        free(entries);
    }
    free(c->jobs);
    memset(c, 0, sizeof *c);
    return ok;
}
