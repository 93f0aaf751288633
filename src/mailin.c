/*
 * mailin.c - reading a received mail with GMime (mailin.h).
 */
#include "mailin.h"

#include <ctype.h>
#include <gmime/gmime.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void mail_free(MailIn *m)
{
    free(m->sender);
    free(m->text);
    free(m->token);
    free(m->message_id);
    memset(m, 0, sizeof *m);
}

char *mail_summary_of(const char *head, size_t n, size_t total, const char *sha256)
{
    /* the header ends at the first empty line */
    size_t h = 0;
    while (h < n && h < SUMMARY_HEAD) {
        const char *nl = memchr(head + h, '\n', n - h);
        size_t end = nl ? (size_t)(nl - head) + 1 : n;
        bool empty = end - h == 1 || (end - h == 2 && head[h] == '\r');
        if (empty) break;
        h = end;
    }
    if (h > SUMMARY_HEAD) h = SUMMARY_HEAD;
    Buf b = {0};
    buf_add(&b, head, h);
    if (h && head[h - 1] != '\n') buf_putc(&b, '\n');
    buf_printf(&b, "\n[not kept: the mail as received, %zu bytes, SHA-256 %s]\n", total, sha256);
    return buf_take(&b);
}

char *mail_summary(const char *raw, size_t n)
{
    gchar *h = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)raw, n);
    char *s = mail_summary_of(raw, n, n, h);
    g_free(h);
    return s;
}

void mime_init_once(void)
{
    static bool done;
    if (!done) {
        g_mime_init();
        done = true;
    }
}

static bool is_attachment(GMimeObject *part)
{
    GMimeContentDisposition *d = g_mime_object_get_content_disposition(part);
    return d && g_mime_content_disposition_is_attachment(d);
}

/* The first text/plain part that is not an attachment, depth first. */
static GMimeTextPart *find_text(GMimeObject *o, int depth)
{
    if (!o || depth > 16) return NULL;
    if (GMIME_IS_MULTIPART(o)) {
        GMimeMultipart *mp = GMIME_MULTIPART(o);
        int n = g_mime_multipart_get_count(mp);
        for (int i = 0; i < n; i++) {
            GMimeTextPart *t = find_text(g_mime_multipart_get_part(mp, i), depth + 1);
            if (t) return t;
        }
        return NULL;
    }
    if (GMIME_IS_TEXT_PART(o) && !is_attachment(o)) {
        GMimeContentType *ct = g_mime_object_get_content_type(o);
        if (ct && g_mime_content_type_is_type(ct, "text", "plain")) return GMIME_TEXT_PART(o);
    }
    return NULL;
}

static bool ends_with_wrote(const char *line, size_t n)
{
    while (n && isspace((unsigned char)line[n - 1])) n--;
    return n >= 6 && strncasecmp(line + n - 6, "wrote:", 6) == 0;
}

static bool next_is_quote(const char *p)
{
    while (*p == '\n') p++;
    return *p == '>';
}

/* Keeps the lines that may hold moves; takes the token line out. */
static void clean_text(const char *in, MailIn *m)
{
    Buf b = {0};
    for (const char *p = in; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *next = nl ? nl + 1 : p + n;
        if (n && p[n - 1] == '\r') n--;
        /* the signature separator, also without its space as some clients send it */
        if ((n == 3 && memcmp(p, "-- ", 3) == 0) || (n == 2 && memcmp(p, "--", 2) == 0)) break;
        size_t i = 0;
        while (i < n && (p[i] == ' ' || p[i] == '\t')) i++;
        if (i < n && p[i] == '>') {
            /* a quoted reply line */
        } else if (ends_with_wrote(p, n) && next_is_quote(next)) {
            /* "On ..., X wrote:" before a quote */
        } else if (n - i > 6 && strncasecmp(p + i, "token:", 6) == 0) {
            const char *t = p + i + 6, *e = p + n;
            while (t < e && isspace((unsigned char)*t)) t++;
            while (e > t && isspace((unsigned char)e[-1])) e--;
            free(m->token);
            m->token = xstrndup(t, (size_t)(e - t));
        } else {
            buf_add(&b, p, n);
            buf_putc(&b, '\n');
        }
        p = next;
    }
    m->text = buf_take(&b);
    if (!m->text) m->text = xstrdup("");
}

static bool is_automatic(GMimeMessage *msg, const char *sender)
{
    const char *as = g_mime_object_get_header(GMIME_OBJECT(msg), "Auto-Submitted");
    if (as && strncasecmp(as, "no", 2) != 0) return true;
    const char *prec = g_mime_object_get_header(GMIME_OBJECT(msg), "Precedence");
    if (prec && (strcasecmp(prec, "bulk") == 0 || strcasecmp(prec, "list") == 0 || strcasecmp(prec, "junk") == 0))
        return true;
    return strncasecmp(sender, "mailer-daemon@", 14) == 0 || strncasecmp(sender, "postmaster@", 11) == 0;
}

bool mail_read(const char *raw, size_t n, MailIn *m, Buf *err)
{
    mime_init_once();
    memset(m, 0, sizeof *m);
    GMimeStream *stream = g_mime_stream_mem_new_with_buffer(raw, n);
    GMimeParser *parser = g_mime_parser_new_with_stream(stream);
    GMimeMessage *msg = g_mime_parser_construct_message(parser, NULL);
    g_object_unref(parser);
    g_object_unref(stream);
    if (!msg) {
        buf_puts(err, "not a mail message (no header could be read)");
        return false;
    }
    InternetAddressList *from = g_mime_message_get_from(msg);
    InternetAddress *ia = from && internet_address_list_length(from) > 0 ? internet_address_list_get_address(from, 0)
                                                                          : NULL;
    const char *addr = ia && INTERNET_ADDRESS_IS_MAILBOX(ia)
                           ? internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia)) : NULL;
    if (!addr || !strchr(addr, '@') || strpbrk(addr, " \t\r\n<>\"")) {
        buf_puts(err, "the mail has no usable From address");
        g_object_unref(msg);
        return false;
    }
    m->sender = xstrdup(addr);
    GDateTime *d = g_mime_message_get_date(msg);
    if (d) {
        m->have_time = true;
        m->time = (int64_t)g_date_time_to_unix(d);
    }
    m->automatic = is_automatic(msg, m->sender);
    const char *mid = g_mime_message_get_message_id(msg);
    if (mid && *mid) m->message_id = xstrdup(mid);
    GMimeTextPart *tp = find_text(g_mime_message_get_mime_part(msg), 0);
    char *text = tp ? g_mime_text_part_get_text(tp) : NULL;
    clean_text(text ? text : "", m);
    g_free(text);
    g_object_unref(msg);
    return true;
}
