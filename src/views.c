/*
 * views.c - JSON views of events and messages (views.h).
 */
#include "views.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objfmt.h"

static void field(Buf *b, const char *name, const char *v)
{
    buf_printf(b, ",\"%s\":", name);
    if (v) json_string(b, v, strlen(v));
    else buf_puts(b, "null");
}

static void time_field(Buf *b, const char *name, int64_t t, bool present)
{
    if (present) buf_printf(b, ",\"%s\":%lld", name, (long long)t);
    else buf_printf(b, ",\"%s\":null", name);
}

const char *view_refusal(const JournalRow *r, const Viewer *v)
{
    if (!r->message || viewer_sees_all(v, r->sender)) return r->message;
    /* the reason may quote the move, private values included */
    return "(the reason went to the sender)";
}

char *view_moves(const char *input, const char *sender, const Viewer *v)
{
    if (viewer_sees_all(v, sender)) return xstrdup(input);
    FmtDoc doc = {0};
    Buf err = {0}, out = {0};
    if (fmt_read(input, strlen(input), "move", &doc, &err)) {
        for (int i = 0; i < doc.n; i++) {
            if (i) buf_puts(&out, "\n---\n");
            int shown = 0;
            for (int k = 0; k < doc.objs[i].n; k++) {
                const FmtAttr *a = &doc.objs[i].attrs[k];
                if (attr_is_private(v->private_attrs, a->name)) continue;
                if (shown++) buf_putc(&out, '\n');
                buf_printf(&out, "%s: ", sym_text(a->name));
                fmt_print_value(&out, a->value);
            }
        }
    } else {
        /* journaled input always parses; if it ever does not, show nothing
         * rather than what might be private */
        buf_puts(&out, "(not shown)");
    }
    fmt_doc_free(&doc);
    buf_free(&err);
    return buf_take(&out);
}

void view_event_json(Buf *b, const JournalRow *r, const Viewer *v) { view_event_json_cut(b, r, v, SIZE_MAX, SIZE_MAX); }

/* Is the journal's note (one line of code_check) about an attribute v may
 * not see in this event's moves? */
static bool note_private(const char *note, size_t len, const JournalRow *r, const Viewer *v)
{
    if (viewer_sees_all(v, r->sender)) return false;
    static const char key[] = "\"attribute\":\"";
    const char *a = NULL;
    for (size_t i = 0; !a && i + sizeof key - 1 <= len; i++)
        if (memcmp(note + i, key, sizeof key - 1) == 0) a = note + i + sizeof key - 1;
    if (!a) return true; /* not a note of ours: shown to nobody but the sender */
    const char *end = memchr(a, '"', len - (size_t)(a - note));
    if (!end) return true;
    return words_include(sym_text(v->private_attrs), a, (size_t)(end - a), true);
}

/* "codeCheck":[...]: the Mechanics' check of the moves' rule code, as the
 * journal keeps it (a note a line), but the notes about a private
 * attribute, which only the sender reads. */
static void code_check_field(Buf *b, const JournalRow *r, const Viewer *v)
{
    buf_puts(b, ",\"codeCheck\":[");
    bool first = true;
    for (const char *p = r->code_check; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len && p[len - 1] == ',') len--;
        if (len && *p == '{' && !note_private(p, len, r, v)) {
            if (!first) buf_putc(b, ',');
            first = false;
            buf_add_utf8(b, p, len);
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    buf_putc(b, ']');
}

/* "scamCheck": the Mechanics' check of the proposals the event opened
 * (scams_check.h): "pending" until it has run, then its entries as the
 * journal keeps them (one a line); left out when the event has none.  The
 * entries are public: the searches play on the public view. */
static void scam_check_field(Buf *b, const JournalRow *r)
{
    if (!r->scam_check) return;
    if (strncmp(r->scam_check, "pending", 7) == 0) {
        buf_puts(b, ",\"scamCheck\":\"pending\"");
        return;
    }
    buf_puts(b, ",\"scamCheck\":[");
    bool first = true;
    for (const char *p = r->scam_check; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len && *p == '{') {
            if (!first) buf_putc(b, ',');
            first = false;
            buf_add_utf8(b, p, len);
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    buf_putc(b, ']');
}

void view_event_json_cut(Buf *b, const JournalRow *r, const Viewer *v, size_t input_max, size_t trace_max)
{
    buf_printf(b, "{\"event\":%ld", r->n);
    field(b, "kind", r->kind);
    buf_printf(b, ",\"time\":%lld", (long long)r->time);
    field(b, "sender", r->sender);
    char *input = r->input ? view_moves(r->input, r->sender, v) : NULL;
    size_t input_len = input ? strlen(input) : 0, input_shown = input ? utf8_cut(input, input_len, input_max) : 0;
    buf_puts(b, ",\"input\":");
    if (input) json_string(b, input, input_shown);
    else buf_puts(b, "null");
    free(input);
    field(b, "status", r->status);
    field(b, "message", view_refusal(r, v));
    field(b, "hash", r->hash);
    const char *trace = r->trace_json && *r->trace_json ? r->trace_json : "[]";
    size_t trace_len = strlen(trace);
    /* a trace cut short would not be JSON: it is left out whole */
    buf_puts(b, ",\"trace\":");
    if (trace_len > trace_max) buf_puts(b, "null");
    else buf_add_utf8(b, trace, trace_len); /* journals written before JSON was kept UTF-8 */
    code_check_field(b, r, v);
    scam_check_field(b, r);
    if (input_shown < input_len || trace_len > trace_max) {
        buf_puts(b, ",\"cut\":{");
        if (input_shown < input_len) buf_printf(b, "\"input\":%zu%s", input_len, trace_len > trace_max ? "," : "");
        if (trace_len > trace_max) buf_printf(b, "\"trace\":%zu", trace_len);
        buf_putc(b, '}');
    }
    buf_putc(b, '}');
}

void view_message_json(Buf *b, const OutRow *r) { view_message_json_cut(b, r, SIZE_MAX); }

void view_message_json_cut(Buf *b, const OutRow *r, size_t text_max)
{
    buf_printf(b, "{\"id\":%ld,\"event\":%ld", r->id, r->event);
    field(b, "to", r->to);
    field(b, "state", r->state);
    buf_printf(b, ",\"queuedAt\":%lld", (long long)r->queued_at);
    bool sent = strcmp(r->state, "queued") != 0;
    time_field(b, "sentAt", r->sent_at, sent);
    field(b, "delivery", r->delivery);
    buf_printf(b, ",\"attempts\":%d", r->attempts);
    bool pending = r->delivery && strcmp(r->delivery, "pending") == 0 && r->attempts;
    time_field(b, "nextTry", r->next_try, pending);
    bool done = r->delivery && strcmp(r->delivery, "delivered") == 0;
    time_field(b, "deliveredAt", r->delivered_at, done);
    field(b, "error", r->error);
    field(b, "messageId", r->message_id);
    size_t text_len = r->text ? strlen(r->text) : 0, shown = r->text ? utf8_cut(r->text, text_len, text_max) : 0;
    buf_puts(b, ",\"text\":");
    if (r->text) json_string(b, r->text, shown);
    else buf_puts(b, "null");
    if (shown < text_len) buf_printf(b, ",\"cut\":{\"text\":%zu}", text_len);
    buf_putc(b, '}');
}
