/*
 * game_postman.c - mail out through the game's transport (game_postman.h).
 */
#include "game_postman.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <gmime/gmime.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mail_in.h"
#include "game_mechanics.h"

#define LEASE_SECONDS 300
#define FIRST_RETRY 60
#define LAST_RETRY 3600
#define GIVE_UP_AFTER (3 * 24 * 3600)
#define SEND_TIMEOUT 60 /* seconds for one message, connection included */

/* ---- the message ---- */

/* The recipient addresses of a list: its words, commas allowed, each
 * once (a player list may name an address once per nickname). */
static char **split_recipients(const char *to, int *n)
{
    char **out = NULL;
    size_t len = 0, cap = 0;
    for (const char *s = to; *s;) {
        while (*s && strchr(" ,\t\r\n", *s)) s++;
        const char *w = s;
        while (*s && !strchr(" ,\t\r\n", *s)) s++;
        size_t wlen = (size_t)(s - w);
        bool seen = wlen == 0;
        for (size_t i = 0; i < len && !seen; i++) seen = strlen(out[i]) == wlen && memcmp(out[i], w, wlen) == 0;
        if (!seen) {
            GROW(out, len, cap);
            out[len++] = xstrndup(w, wlen);
        }
    }
    *n = (int)len;
    return out;
}

static void free_recipients(char **r, int n)
{
    for (int i = 0; i < n; i++) free(r[i]);
    free(r);
}

/* The body's transfer encoding: the text as it is (7bit) only when every
 * line is short and every byte printable ASCII; else quoted-printable,
 * which carries long lines, bare CRs and UTF-8 through any relay (SMTP
 * allows 998 bytes a line, CRLF line ends, and some relays refuse more). */
static GMimeContentEncoding body_encoding(const char *text)
{
    size_t line = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n') {
            line = 0;
            continue;
        }
        if (*p >= 0x7f || (*p < 0x20 && *p != '\t') || ++line > 76) return GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE;
    }
    return GMIME_CONTENT_ENCODING_7BIT;
}

char *mail_format(const char *from, const char *to, const char *subject, const char *message_id, int64_t date,
                  const char *text, bool crlf)
{
    return mail_format_reply(from, to, subject, message_id, date, text, crlf, NULL, NULL);
}

char *mail_format_reply(const char *from, const char *to, const char *subject, const char *message_id, int64_t date,
                        const char *text, bool crlf, const char *in_reply_to, const char *references)
{
    mime_init_once();
    GMimeMessage *msg = g_mime_message_new(TRUE);
    g_mime_message_add_mailbox(msg, GMIME_ADDRESS_TYPE_FROM, NULL, from);
    int n;
    char **rcpt = split_recipients(to, &n);
    for (int i = 0; i < n; i++) g_mime_message_add_mailbox(msg, GMIME_ADDRESS_TYPE_TO, NULL, rcpt[i]);
    free_recipients(rcpt, n);
    g_mime_message_set_subject(msg, subject, "utf-8");
    GDateTime *when = g_date_time_new_from_unix_utc(date);
    g_mime_message_set_date(msg, when);
    g_date_time_unref(when);
    g_mime_message_set_message_id(msg, message_id);
    /* the rules' mail is automatic: a vacation reply must not answer it */
    g_mime_object_set_header(GMIME_OBJECT(msg), "Auto-Submitted", "auto-generated", NULL);
    /* an answer threads under the mail it answers */
    if (in_reply_to) {
        Buf h = {0};
        buf_printf(&h, "<%s>", in_reply_to);
        g_mime_object_set_header(GMIME_OBJECT(msg), "In-Reply-To", buf_str(&h), NULL);
        buf_reset(&h);
        if (references) buf_printf(&h, "%s ", references);
        buf_printf(&h, "<%s>", in_reply_to);
        g_mime_object_set_header(GMIME_OBJECT(msg), "References", buf_str(&h), NULL);
        buf_free(&h);
    }

    /* the text as it is, in UTF-8 (g_mime_text_part_set_text would pick
     * a narrower charset and convert) */
    GMimeTextPart *part = g_mime_text_part_new_with_subtype("plain");
    GMimeStream *stream = g_mime_stream_mem_new_with_buffer(text, strlen(text));
    GMimeDataWrapper *content = g_mime_data_wrapper_new_with_stream(stream, GMIME_CONTENT_ENCODING_DEFAULT);
    g_object_unref(stream);
    g_mime_part_set_content(GMIME_PART(part), content);
    g_object_unref(content);
    g_mime_text_part_set_charset(part, "utf-8");
    g_mime_part_set_content_encoding(GMIME_PART(part), body_encoding(text));
    g_mime_message_set_mime_part(msg, GMIME_OBJECT(part));
    g_object_unref(part);

    GMimeFormatOptions *opts = g_mime_format_options_new();
    g_mime_format_options_set_newline_format(opts, crlf ? GMIME_NEWLINE_FORMAT_DOS : GMIME_NEWLINE_FORMAT_UNIX);
    char *s = g_mime_object_to_string(GMIME_OBJECT(msg), opts);
    g_mime_format_options_free(opts);
    g_object_unref(msg);
    char *out = xstrdup(s);
    g_free(s);
    return out;
}

#define SUBJECT_MAX 72 /* bytes of the text in a subject */

/* "GAME: the first line of the text"; a line longer than SUBJECT_MAX is
 * cut at the end of its first sentence if that fits, else at the last
 * word that fits, with an ellipsis: never in the middle of a word. */
static char *subject_of(const char *game, const char *text)
{
    while (*text == '\n' || *text == ' ') text++;
    size_t n = strcspn(text, "\n");
    const char *more = "";
    if (n > SUBJECT_MAX) {
        size_t end = 0;
        for (size_t i = 1; i + 1 < SUBJECT_MAX && !end; i++)
            if (strchr(".!?", text[i]) && text[i + 1] == ' ' && i >= 8) end = i + 1;
        if (end) {
            n = end;
        } else {
            n = text_cut(text, n, SUBJECT_MAX - 4);
            while (n > 0 && strchr(",;:-", text[n - 1])) n--;
            more = " ...";
        }
    }
    Buf b = {0};
    buf_printf(&b, "%s: %.*s%s", game, (int)n, text, more);
    /* no control character (a bare CR) reaches a header */
    for (size_t i = 0; i < b.len; i++)
        if ((unsigned char)b.s[i] < 0x20 || b.s[i] == 0x7f) b.s[i] = ' ';
    return buf_take(&b);
}

/* A Message-ID that names the game and the message, the same at every
 * attempt: <nomic.GAMEID.N@DOMAIN>. */
static char *message_id_of(Store *st, long id, const char *from)
{
    char *gid;
    int got = store_meta_read(st, "gameId", &gid);
    if (got < 0) return NULL; /* never a new id for a game that has one */
    if (!got) {
        unsigned char r[8] = {0};
        if (!random_bytes(r, sizeof r)) memset(r, 0, sizeof r);
        gid = hex_of(r, sizeof r);
        store_meta_set(st, "gameId", gid);
    }
    const char *at = strchr(from, '@');
    Buf b = {0};
    buf_printf(&b, "nomic.%s.%ld@%s", gid, id, at ? at + 1 : "localhost");
    free(gid);
    return buf_take(&b);
}

/* ---- transports ---- */

static bool via_sendmail(const char *program, const char *from, const char *to, const char *mail, Buf *why)
{
    int in[2], errp[2];
    if (pipe(in) < 0) {
        buf_printf(why, "pipe: %s", strerror(errno));
        return false;
    }
    if (pipe(errp) < 0) {
        close(in[0]);
        close(in[1]);
        buf_printf(why, "pipe: %s", strerror(errno));
        return false;
    }
    int n;
    char **rcpt = split_recipients(to, &n);
    char **argv = xcalloc((size_t)n + 6, sizeof *argv);
    int k = 0;
    argv[k++] = (char *)program;
    argv[k++] = (char *)"-oi";
    argv[k++] = (char *)"-f";
    argv[k++] = (char *)from;
    argv[k++] = (char *)"--";
    for (int i = 0; i < n; i++) argv[k++] = rcpt[i];
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(errp[1], 1);
        dup2(errp[1], 2);
        close(in[0]);
        close(in[1]);
        close(errp[0]);
        close(errp[1]);
        execv(program, argv);
        dprintf(2, "cannot run %s: %s", program, strerror(errno));
        _exit(127);
    }
    free(argv);
    free_recipients(rcpt, n);
    close(in[0]);
    close(errp[1]);
    if (pid < 0) {
        close(in[1]);
        close(errp[0]);
        buf_printf(why, "fork: %s", strerror(errno));
        return false;
    }
    /* a program that stops reading gets EPIPE here, not a signal */
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    size_t len = strlen(mail), off = 0;
    while (off < len) {
        ssize_t w = write(in[1], mail + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(in[1]);
    signal(SIGPIPE, old);
    char said[512];
    size_t got = 0;
    for (ssize_t r; got < sizeof said - 1 && (r = read(errp[0], said + got, sizeof said - 1 - got)) != 0;) {
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) break;
        got += (size_t)r;
    }
    said[got] = 0;
    close(errp[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && off == len) return true;
    while (got && (said[got - 1] == '\n' || said[got - 1] == '\r')) said[--got] = 0;
    if (WIFEXITED(status)) buf_printf(why, "%s exited with status %d", program, WEXITSTATUS(status));
    else buf_printf(why, "%s was killed by signal %d", program, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (got) buf_printf(why, ": %s", said);
    return false;
}

typedef struct Upload {
    const char *s;
    size_t len, off;
} Upload;

static size_t read_upload(char *out, size_t size, size_t nitems, void *ud)
{
    Upload *u = ud;
    size_t n = size * nitems;
    if (n > u->len - u->off) n = u->len - u->off;
    memcpy(out, u->s + u->off, n);
    u->off += n;
    return n;
}

static bool via_smtp(const char *url, const char *from, const char *to, const char *mail, Buf *why, bool *permanent)
{
    CURL *c = curl_easy_init();
    if (!c) {
        buf_puts(why, "libcurl could not start");
        return false;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    Buf addr = {0};
    buf_printf(&addr, "<%s>", from);
    struct curl_slist *rcpts = NULL;
    int n;
    char **rcpt = split_recipients(to, &n);
    for (int i = 0; i < n; i++) {
        Buf r = {0};
        buf_printf(&r, "<%s>", rcpt[i]);
        rcpts = curl_slist_append(rcpts, buf_str(&r));
        buf_free(&r);
    }
    free_recipients(rcpt, n);
    Upload up = {mail, strlen(mail), 0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_MAIL_FROM, buf_str(&addr));
    curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpts);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, read_upload);
    curl_easy_setopt(c, CURLOPT_READDATA, &up);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)SEND_TIMEOUT);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        long code = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        buf_printf(why, "%s: %s", url, *errbuf ? errbuf : curl_easy_strerror(rc));
        if (code) buf_printf(why, " (the server answered %ld)", code);
        /* 5xx: the server will not take this message, ever */
        *permanent = code >= 500 && code < 600;
    }
    curl_slist_free_all(rcpts);
    buf_free(&addr);
    curl_easy_cleanup(c);
    return rc == CURLE_OK;
}

/* ---- the queue ---- */

static int64_t backoff(int attempts)
{
    int64_t d = FIRST_RETRY;
    for (int i = 1; i < attempts && d < LAST_RETRY; i++) d *= 2;
    return d < LAST_RETRY ? d : LAST_RETRY;
}

/* The mail a message answers: when its event was a mail from one of its
 * recipients, that mail's Message-ID and References (malloc'd), read
 * again from the journal. */
static void answered_mail(Store *st, const OutRow *r, char **mid, char **refs)
{
    *mid = *refs = NULL;
    JournalRow e;
    if (r->event <= 0 || store_event_get(st, r->event, &e) != 1) return;
    /* the recipients as text: the postman is a thread of its own, and
     * the interned texts are the game's thread's (value.h) */
    char *raw = e.sender && strcmp(e.kind, "move") == 0 && words_include(r->to, e.sender, strlen(e.sender), false)
                    ? store_event_raw(st, r->event) : NULL;
    MailIn m;
    Buf err = {0};
    if (raw && mail_read(raw, strlen(raw), &m, &err)) {
        *mid = m.message_id ? xstrdup(m.message_id) : NULL;
        *refs = m.references ? xstrdup(m.references) : NULL;
        mail_free(&m);
    }
    buf_free(&err);
    free(raw);
    journal_row_free(&e);
}

/* One attempt at one claimed message; records how it went in r. */
static bool attempt(Store *st, const char *transport, const char *from, const char *game, int64_t now, OutRow *r)
{
    if (!r->message_id) r->message_id = message_id_of(st, r->id, from);
    if (!r->message_id) { /* the game's id cannot be read: not sent under another, tried again later */
        free(r->delivery);
        free(r->error);
        r->delivery = xstrdup("pending");
        r->error = xstrdup(store_error(st));
        r->next_try = now + backoff(r->attempts);
        return store_outbox_failed(st, r->id, NULL, r->error, r->next_try);
    }
    char *subject = subject_of(game, r->text);
    bool smtp = strncmp(transport, "smtp://", 7) == 0;
    char *mid, *refs;
    answered_mail(st, r, &mid, &refs);
    char *mail = mail_format_reply(from, r->to, subject, r->message_id, now, r->text, smtp, mid, refs);
    free(mid);
    free(refs);
    Buf why = {0};
    bool sent, permanent = false;
    if (smtp) sent = via_smtp(transport, from, r->to, mail, &why, &permanent);
    else if (strncmp(transport, "sendmail:", 9) == 0) sent = via_sendmail(transport + 9, from, r->to, mail, &why);
    else {
        buf_printf(&why, "transport %s cannot send", transport);
        sent = false;
    }
    free(mail);
    free(subject);
    bool ok;
    free(r->delivery);
    free(r->error);
    r->error = NULL;
    if (sent) {
        r->delivery = xstrdup("delivered");
        r->delivered_at = now;
        ok = store_outbox_delivered(st, r->id, r->message_id, now);
    } else {
        bool give_up = permanent || now - r->sent_at >= GIVE_UP_AFTER;
        r->next_try = give_up ? 0 : now + backoff(r->attempts);
        r->delivery = xstrdup(give_up ? "failed" : "pending");
        r->error = buf_take(&why);
        ok = store_outbox_failed(st, r->id, r->message_id, r->error, r->next_try);
    }
    buf_free(&why);
    return ok;
}

bool mail_send_due(Store *st, const char *game, int64_t now, bool all, SendReport *rep, SentFn fn, void *ud,
                   Buf *err)
{
    memset(rep, 0, sizeof *rep);
    char *transport = store_config(st, "transport");
    char *from = store_config(st, "mailFrom");
    char *display = store_config(st, "name"); /* the game's display name, or its file's */
    if (*display) game = display;
    bool ok = true;
    if (strcmp(transport, "outbox") != 0) {
        /* in id order, each message at most once per call */
        for (long last = 0;;) {
            OutRow r;
            int got = store_outbox_claim(st, last, now, now + LEASE_SECONDS, all, &r);
            if (got < 0) {
                ok = false;
                break;
            }
            if (got == 0) break;
            last = r.id;
            ok = attempt(st, transport, from, game, now, &r);
            if (strcmp(r.delivery, "delivered") == 0) rep->delivered++;
            else if (strcmp(r.delivery, "failed") == 0) rep->failed++;
            else rep->retrying++;
            if (fn) fn(ud, &r);
            out_row_free(&r);
            if (!ok) break;
        }
    }
    if (!ok) buf_puts(err, store_error(st));
    free(transport);
    free(from);
    free(display);
    return ok;
}
