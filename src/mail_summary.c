/*
 * mail_summary.c - what the journal keeps of a mail refused unread
 * (mail_in.h): its header and the size and SHA-256 of the whole.  Apart
 * from mail_in.c, which needs GMime: the game keeps summaries without it.
 */
#include <glib.h>
#include <string.h>

#include "mail_in.h"
#include "util.h"

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
