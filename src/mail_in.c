/*
 * mail_in.c - reading a received mail with GMime (mail_in.h): the part that
 * holds the text (text/plain, or text/html turned into text by libxml2's
 * HTML parser), format=flowed unwrapped, and the lines a player did not
 * write in this mail (quotes, quote headers, a forwarded or Outlook block,
 * signatures) left out, each kept line with its number in the mail.
 */
#include "mail_in.h"

#include <ctype.h>
#include <gmime/gmime.h>
#include <libxml/HTMLparser.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void mail_free(MailIn *m)
{
    free(m->sender);
    free(m->text);
    free(m->lines);
    free(m->token);
    free(m->message_id);
    free(m->references);
    free(m->delivered_to);
    free(m->quotes);
    free(m->qlines);
    free(m->subject);
    memset(m, 0, sizeof *m);
}

void mime_init_once(void)
{
    static bool done;
    if (!done) {
        g_mime_init();
        xmlInitParser();
        done = true;
    }
}

static bool is_attachment(GMimeObject *part)
{
    GMimeContentDisposition *d = g_mime_object_get_content_disposition(part);
    return d && g_mime_content_disposition_is_attachment(d);
}

/* The first text/SUBTYPE part that is not an attachment, depth first. */
static GMimeTextPart *find_text(GMimeObject *o, const char *subtype, int depth)
{
    if (!o || depth > 16) return NULL;
    if (GMIME_IS_MULTIPART(o)) {
        GMimeMultipart *mp = GMIME_MULTIPART(o);
        int n = g_mime_multipart_get_count(mp);
        for (int i = 0; i < n; i++) {
            GMimeTextPart *t = find_text(g_mime_multipart_get_part(mp, i), subtype, depth + 1);
            if (t) return t;
        }
        return NULL;
    }
    if (GMIME_IS_TEXT_PART(o) && !is_attachment(o)) {
        GMimeContentType *ct = g_mime_object_get_content_type(o);
        if (ct && g_mime_content_type_is_type(ct, "text", subtype)) return GMIME_TEXT_PART(o);
    }
    return NULL;
}

/* ---- format=flowed (RFC 3676) ---- */

/* Joins the soft-wrapped lines of a format=flowed text: a line ending in
 * a space (but the signature separator "-- ") goes on in the next line of
 * the same quote depth; space-stuffing is undone; with DelSp=yes the
 * space that marked the wrap is not part of the text. */
char *mail_unflow(const char *in, bool delsp)
{
    Buf b = {0};
    bool open = false; /* a flowed line waits for its continuation */
    int open_depth = 0;
    for (const char *p = in; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *next = nl ? nl + 1 : p + n;
        if (n && p[n - 1] == '\r') n--;
        int depth = 0;
        while ((size_t)depth < n && p[depth] == '>') depth++;
        const char *s = p + depth;
        size_t len = n - (size_t)depth;
        if (len && *s == ' ') s++, len--; /* space-stuffed */
        if (open && depth != open_depth) buf_putc(&b, '\n'); /* a quote depth change ends the paragraph */
        if (!open || depth != open_depth) {
            for (int i = 0; i < depth; i++) buf_putc(&b, '>');
            if (depth) buf_putc(&b, ' ');
        }
        bool sig = len == 3 && memcmp(s, "-- ", 3) == 0;
        bool flowed = len && s[len - 1] == ' ' && !sig;
        buf_add(&b, s, flowed && delsp ? len - 1 : len);
        if (!flowed) buf_putc(&b, '\n');
        open = flowed;
        open_depth = depth;
        p = next;
    }
    if (open) buf_putc(&b, '\n');
    char *s = buf_take(&b);
    return s ? s : xstrdup("");
}

/* ---- HTML (libxml2's parser) ---- */

#define MAX_HTML_DEPTH 200 /* elements deeper than this are not read */

typedef struct HtmlText {
    Buf b;
    int blockquotes; /* quoted blocks left out */
} HtmlText;

static void html_newline(HtmlText *h)
{
    if (h->b.len && h->b.s[h->b.len - 1] != '\n') buf_putc(&h->b, '\n');
}

static bool is_block(const char *name)
{
    static const char *const blocks[] = {"p", "div", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4",
                                         "h5", "h6", "pre", "address", "section", "article", "header", "footer",
                                         "dl", "dt", "dd", "center", NULL};
    for (int i = 0; blocks[i]; i++)
        if (strcasecmp(name, blocks[i]) == 0) return true;
    return false;
}

/* Text as a reader sees it: runs of white space are one space (but in
 * <pre>), no space opens a line. */
static void html_add_text(HtmlText *h, const char *t, bool pre)
{
    for (; *t; t++) {
        if (pre || !isspace((unsigned char)*t)) {
            buf_putc(&h->b, *t);
            continue;
        }
        if (h->b.len && h->b.s[h->b.len - 1] != ' ' && h->b.s[h->b.len - 1] != '\n') buf_putc(&h->b, ' ');
    }
}

static void html_walk(HtmlText *h, xmlNode *n, int depth, bool pre)
{
    for (; n; n = n->next) {
        if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
            if (n->content) html_add_text(h, (const char *)n->content, pre);
            continue;
        }
        if (n->type != XML_ELEMENT_NODE || depth >= MAX_HTML_DEPTH) continue;
        const char *name = (const char *)n->name;
        if (!strcasecmp(name, "script") || !strcasecmp(name, "style") || !strcasecmp(name, "head") ||
            !strcasecmp(name, "title"))
            continue;
        if (!strcasecmp(name, "blockquote")) { /* a quoted reply: not this mail's moves */
            html_newline(h);
            h->blockquotes++;
            continue;
        }
        if (!strcasecmp(name, "br")) {
            buf_putc(&h->b, '\n');
            continue;
        }
        if (!strcasecmp(name, "hr")) { /* Outlook's rule above the quoted mail */
            html_newline(h);
            buf_puts(&h->b, "________________________________\n");
            continue;
        }
        bool block = is_block(name);
        if (block) html_newline(h);
        html_walk(h, n->children, depth + 1, pre || !strcasecmp(name, "pre"));
        if (block) html_newline(h);
    }
}

char *mail_html_text(const char *html, size_t n, int *blockquotes)
{
    mime_init_once();
    HtmlText h = {{0}, 0};
    htmlDocPtr doc = htmlReadMemory(html, (int)n, NULL, "UTF-8",
                                    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                        HTML_PARSE_NONET | HTML_PARSE_NOBLANKS);
    if (doc) {
        html_walk(&h, xmlDocGetRootElement(doc), 0, false);
        xmlFreeDoc(doc);
    }
    if (blockquotes) *blockquotes = h.blockquotes;
    char *s = buf_take(&h.b);
    return s ? s : xstrdup("");
}

/* ---- which lines the player wrote ---- */

/* The line without its leading and trailing blanks (NO-BREAK SPACE too:
 * French puts one before a colon). */
static void trim(const char **s, size_t *n)
{
    for (;;) {
        if (*n && isspace((unsigned char)**s)) (*s)++, (*n)--;
        else if (*n >= 2 && (unsigned char)(*s)[0] == 0xc2 && (unsigned char)(*s)[1] == 0xa0) *s += 2, *n -= 2;
        else break;
    }
    for (;;) {
        if (*n && isspace((unsigned char)(*s)[*n - 1])) (*n)--;
        else if (*n >= 2 && (unsigned char)(*s)[*n - 2] == 0xc2 && (unsigned char)(*s)[*n - 1] == 0xa0) *n -= 2;
        else break;
    }
}

static bool starts_with(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && strncasecmp(s, prefix, k) == 0;
}

/* Is word in s, at the start or after a blank? */
static bool contains_word(const char *s, size_t n, const char *word)
{
    size_t k = strlen(word);
    for (size_t i = 0; i + k <= n; i++)
        if ((i == 0 || s[i - 1] == ' ') && strncasecmp(s + i, word, k) == 0) return true;
    return false;
}

/* "On ... wrote:" and its kin: the line ends with a colon and says who
 * wrote, in one of the languages mail clients write it in (Gmail,
 * Thunderbird, Apple Mail, Outlook). */
static const char *const wrote[] = {"wrote", "writes", "schrieb", "a écrit", "escribió", "ha scritto",
                                    "schreef", "geschreven", "escreveu", "skrev", "napisał", NULL};
static bool is_quote_header(const char *s, size_t n)
{
    if (!n || s[n - 1] != ':') return false;
    for (int i = 0; wrote[i]; i++)
        if (contains_word(s, n, wrote[i])) return true;
    return false;
}

/* The first words of a quote header that a client wrapped over two lines. */
static bool opens_quote_header(const char *s, size_t n)
{
    static const char *const open[] = {"On ", "Am ", "Le ", "El ", "Il ", "Op ", "Em ", "Den ", NULL};
    for (int i = 0; open[i]; i++)
        if (starts_with(s, n, open[i])) return true;
    return false;
}

/* A header line of a quoted mail as Outlook writes it: "From:", "Sent:"
 * and their translations, a colon after one word (French puts a space
 * before it). */
static bool is_header(const char *s, size_t n, const char *const *names)
{
    for (int i = 0; names[i]; i++) {
        size_t k = strlen(names[i]);
        if (n <= k || strncasecmp(s, names[i], k) != 0) continue;
        const char *r = s + k;
        size_t m = n - k;
        trim(&r, &m);
        if (s[k] == ':' || (s[k] == ' ' && m && *r == ':') || starts_with(s + k, n - k, "\xc2\xa0:")) return true;
    }
    return false;
}
static const char *const from_names[] = {"From", "Von", "De", "Da", "Van", "Fra", "Od", NULL};
static const char *const sent_names[] = {"Sent", "Date", "Gesendet", "Datum", "Envoyé", "Enviado", "Enviada",
                                         "Fecha", "Inviato", "Data", "Verzonden", "Verstuurd", "Sendt", NULL};

/* The line that opens a quoted or forwarded mail with no `>`: Outlook's
 * rule of underscores, "-----Original Message-----" in any language, a
 * forwarded message's banner. */
static bool is_block_banner(const char *s, size_t n)
{
    if (n >= 10 && strspn(s, "_") == n) return true;
    if (n >= 10 && starts_with(s, n, "-----") && s[n - 1] == '-') /* -----Original Message----- */
        for (size_t i = 0; i < n; i++)
            if (isalpha((unsigned char)s[i])) return true;
    return false;
}

static bool is_forward_banner(const char *s, size_t n)
{
    return starts_with(s, n, "Begin forwarded message") || starts_with(s, n, "Anfang der weitergeleiteten") ||
           starts_with(s, n, "Début du message réexpédié");
}

/* The one-line signature a phone or a webmail adds. */
static bool is_device_signature(const char *s, size_t n)
{
    static const char *const sig[] = {"Sent from my ", "Sent from Yahoo Mail", "Sent from Mail for Windows",
                                      "Sent from Outlook", "Sent from Proton Mail", "Get Outlook for ",
                                      "Von meinem ", "Gesendet von ", "Envoyé de mon ", "Envoyé depuis ",
                                      "Enviado desde mi ", "Enviado desde ", "Inviato da ", "Verzonden vanaf ",
                                      "Verstuurd vanaf ", "Enviado do meu ", "Enviado a partir do ", NULL};
    if (n > 80) return false;
    for (int i = 0; sig[i]; i++)
        if (starts_with(s, n, sig[i])) return true;
    return false;
}

typedef struct Line {
    const char *s;
    size_t n;
} Line;

/* Does the quoted mail's header follow within the next few lines?  Then
 * line i opens a quoted block (Outlook puts no `>` before it). */
static bool header_follows(const Line *l, int nl, int i, const char *const *names)
{
    for (int k = i + 1, seen = 0; k < nl && seen < 3; k++) {
        const char *s = l[k].s;
        size_t n = l[k].n;
        trim(&s, &n);
        if (!n) continue;
        if (is_header(s, n, names)) return true;
        seen++;
    }
    return false;
}

static void keep(MailIn *m, Buf *b, int *cap, const char *s, size_t n, int lineno)
{
    GROW(m->lines, m->nlines, *cap);
    m->lines[m->nlines++] = lineno;
    /* a NO-BREAK SPACE between words is a space to the moves */
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && (unsigned char)s[i] == 0xc2 && (unsigned char)s[i + 1] == 0xa0) {
            buf_putc(b, ' ');
            i++;
        } else {
            buf_putc(b, s[i]);
        }
    }
    buf_putc(b, '\n');
}

/* Drops the last kept line (a quote header's first half). */
static void unkeep(MailIn *m, Buf *b)
{
    if (!m->nlines) return;
    m->nlines--;
    size_t end = b->len - 1;
    while (end > 0 && b->s[end - 1] != '\n') end--;
    b->len = end;
    b->s[end] = 0;
}

/* A quoted line, kept apart: the context of a reply (move_sentences.c). */
static void keep_quote(MailIn *m, Buf *qb, int *cap, const char *s, size_t n, int lineno)
{
    while (n && (*s == '>' || *s == ' ' || *s == '\t')) s++, n--;
    if (*cap <= m->nquotes) {
        *cap = *cap ? 2 * *cap : 16;
        m->qlines = xrealloc(m->qlines, (size_t)*cap * sizeof *m->qlines);
    }
    m->qlines[m->nquotes++] = lineno;
    buf_add(qb, s, n);
    buf_putc(qb, '\n');
}

void mail_clean(const char *in, MailIn *m)
{
    Buf qb = {0};
    int qcap = 0;
    free(m->quotes);
    free(m->qlines);
    m->quotes = NULL;
    m->qlines = NULL;
    m->nquotes = 0;
    Line *l = NULL;
    size_t nl = 0, lcap = 0;
    for (const char *p = in; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        GROW(l, nl, lcap);
        l[nl++] = (Line){p, n && p[n - 1] == '\r' ? n - 1 : n};
        p = e ? e + 1 : p + n;
    }
    Buf b = {0};
    int cap = 0;
    free(m->lines);
    m->lines = NULL;
    m->nlines = 0;
    for (int i = 0; i < (int)nl; i++) {
        const char *raw = l[i].s, *s = raw;
        size_t rn = l[i].n, n = rn;
        trim(&s, &n);
        int lineno = i + 1;
        /* the signature separator, also without its space as some clients send it */
        bool rest_out = (rn == 3 && memcmp(raw, "-- ", 3) == 0) || (rn == 2 && memcmp(raw, "--", 2) == 0);
        /* a quoted or forwarded mail without `>`: all that follows is the other mail's */
        if (!rest_out && (is_forward_banner(s, n) || (is_block_banner(s, n) && header_follows(l, (int)nl, i, from_names))))
            rest_out = true;
        if (!rest_out && is_header(s, n, from_names) && header_follows(l, (int)nl, i, sent_names)) rest_out = true;
        if (rest_out) {
            m->left_out += (int)nl - i;
            break;
        }
        if (n && *s == '>') {
            m->left_out++;
            keep_quote(m, &qb, &qcap, s, n, lineno);
        } else if (is_quote_header(s, n)) {
            m->left_out++;
            /* its first half, when the client wrapped it */
            if (m->nlines && m->lines[m->nlines - 1] == lineno - 1) {
                const char *prev = b.s + b.len - 1;
                while (prev > b.s && prev[-1] != '\n') prev--;
                if (opens_quote_header(prev, (size_t)(b.s + b.len - 1 - prev))) {
                    unkeep(m, &b);
                    m->left_out++;
                }
            }
        } else if (is_device_signature(s, n)) {
            m->left_out++;
        } else if (n > 6 && strncasecmp(s, "token:", 6) == 0) {
            const char *t = s + 6, *e = s + n;
            while (t < e && isspace((unsigned char)*t)) t++;
            free(m->token);
            m->token = xstrndup(t, (size_t)(e - t));
        } else if (n == 5 && memcmp(s, "TOKEN", 5) == 0) {
            m->wants_token = true;
        } else {
            keep(m, &b, &cap, raw, rn, lineno);
        }
    }
    free(l);
    m->quotes = buf_take(&qb);
    free(m->text);
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

/* The text of the message's body, as UTF-8 with \n line ends: its text
 * part (unflowed), or its HTML part read as text. */
static char *body_text(GMimeMessage *msg, MailIn *m)
{
    GMimeObject *top = g_mime_message_get_mime_part(msg);
    GMimeTextPart *tp = find_text(top, "plain", 0);
    if (tp) {
        char *t = g_mime_text_part_get_text(tp);
        char *out = xstrdup(t ? t : "");
        g_free(t);
        GMimeContentType *ct = g_mime_object_get_content_type(GMIME_OBJECT(tp));
        const char *format = ct ? g_mime_content_type_get_parameter(ct, "format") : NULL;
        if (format && strcasecmp(format, "flowed") == 0) {
            const char *delsp = g_mime_content_type_get_parameter(ct, "delsp");
            char *u = mail_unflow(out, delsp && strcasecmp(delsp, "yes") == 0);
            free(out);
            out = u;
        }
        return out;
    }
    tp = find_text(top, "html", 0);
    if (!tp) {
        m->no_text = true;
        return xstrdup("");
    }
    char *t = g_mime_text_part_get_text(tp);
    int quotes = 0;
    char *out = mail_html_text(t ? t : "", t ? strlen(t) : 0, &quotes);
    g_free(t);
    m->html = true;
    m->left_out += quotes;
    return out;
}

/* The recipient the MTA wrote into the header on delivery (Postfix's
 * pipe with flags D and O, procmail, most local delivery agents): the
 * first Delivered-To (the latest, put on top), else the first
 * X-Original-To; bare, or NULL when neither holds one address. */
static char *envelope_header(GMimeMessage *msg)
{
    static const char *const names[] = {"Delivered-To", "X-Original-To"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *h = g_mime_object_get_header(GMIME_OBJECT(msg), names[i]);
        if (!h || strlen(h) > 998) continue;
        InternetAddressList *l = internet_address_list_parse(NULL, h);
        char *bare = NULL;
        if (l && internet_address_list_length(l) == 1) {
            InternetAddress *ia = internet_address_list_get_address(l, 0);
            if (INTERNET_ADDRESS_IS_MAILBOX(ia)) bare = xstrdup(internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia)));
        }
        if (l) g_object_unref(l);
        if (bare) return bare;
    }
    return NULL;
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
    if (mid && *mid && strlen(mid) < 1000 && !strpbrk(mid, " \t\r\n<>")) m->message_id = xstrdup(mid);
    const char *refs = g_mime_object_get_header(GMIME_OBJECT(msg), "References");
    if (refs && strlen(refs) < 4000) { /* a longer chain is not worth keeping */
        m->references = xstrdup(refs);
        for (char *c = m->references; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = ' '; /* never a header's line end */
    }
    m->delivered_to = envelope_header(msg);
    const char *subject = g_mime_message_get_subject(msg);
    if (subject && strlen(subject) < 1000) {
        m->subject = xstrdup(subject);
        for (char *c = m->subject; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = ' ';
    }
    char *text = body_text(msg, m);
    mail_clean(text, m);
    free(text);
    g_object_unref(msg);
    return true;
}
