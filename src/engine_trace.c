/*
 * engine_trace.c - the trace of an event (engine_trace.h): for each firing, a line for
 * people and a JSON object for programs, with the rule's bindings, the
 * changes it made and the messages it queued.  What the game calls
 * private shows as "(private)": the attributes named by privateAttributes,
 * the variables a comparison ties to one of them, and the text of a
 * message that reads either.
 */
#include "engine_trace.h"

#include <stdlib.h>
#include <string.h>

#include "lang_builtins.h"
#include "objfmt.h"
#include "pool_privacy.h"

static void trace_value(Buf *b, Sym v)
{
    const char *s = sym_text(v);
    size_t n = sym_len(v);
    bool plain = n > 0 && n <= 60;
    for (size_t i = 0; i < n && plain; i++)
        if (s[i] == ' ' || s[i] == '\n' || s[i] == '"') plain = false;
    if (plain) {
        buf_add(b, s, n);
        return;
    }
    buf_putc(b, '"');
    for (size_t i = 0; i < n && i < 60; i++) {
        if (s[i] == '\n') buf_puts(b, "\\n");
        else if (s[i] == '"') buf_puts(b, "\\\"");
        else buf_putc(b, s[i]);
    }
    if (n > 60) buf_puts(b, "...");
    buf_putc(b, '"');
}

static bool hidden(const Engine *e, Sym name) { return attr_is_private(e->private_attrs, name); }

/* Marks the variables of n; returns whether one was not marked before. */
static bool mark_vars(const Node *n, bool *mask)
{
    if (!n) return false;
    bool grew = false;
    if (n->kind == N_VAR && !mask[n->var]) grew = mask[n->var] = true;
    for (int i = 0; i < n->n; i++) grew |= mark_vars(n->kid[i], mask);
    return grew;
}

/* Does n read a private attribute, or a variable known to hold a private
 * value? */
static bool reads_private(const Engine *e, const Node *n, const bool *secret)
{
    if (!n) return false;
    if (n->kind == N_ATTR && hidden(e, n->sym)) return true;
    if (n->kind == N_VAR && secret[n->var]) return true;
    for (int i = 0; i < n->n; i++)
        if (reads_private(e, n->kid[i], secret)) return true;
    return false;
}

/* Marks the variables a comparison ties to a private value (`secret==%x`,
 * then `%r==eval(%x, 1, 0)`): their values are private too.  Returns
 * whether it marked a new one; the caller repeats until none is. */
static bool private_vars(const Engine *e, const Node *n, bool *secret)
{
    if (!n) return false;
    if (n->kind == N_CMP && (reads_private(e, n->kid[0], secret) || reads_private(e, n->kid[1], secret))) {
        bool grew = mark_vars(n->kid[0], secret);
        return mark_vars(n->kid[1], secret) || grew;
    }
    bool grew = false;
    for (int i = 0; i < n->n; i++) grew |= private_vars(e, n->kid[i], secret);
    return grew;
}

/* Would a message the then sends show a private value?  A send whose
 * text or recipients read one is shown in the trace as "(private)". */
static bool sends_private(const Engine *e, const Node *n, const bool *secret)
{
    if (!n) return false;
    if (n->kind == N_CALL && builtin_has(n->bi, BF_SENDS))
        return reads_private(e, n, secret);
    for (int i = 0; i < n->n; i++)
        if (sends_private(e, n->kid[i], secret)) return true;
    return false;
}

/* The last TRACE_TAIL firings of an event, for the short trace of one
 * undone by its budget (trace_shorten): where each began in the trace, or,
 * past the trace's size, each one's own text. */
struct TraceTail {
    size_t head;                       /* where the first firing began */
    size_t at_t[TRACE_TAIL], at_j[TRACE_TAIL];
    long in;                           /* firings in the trace itself */
    Buf t[TRACE_TAIL], j[TRACE_TAIL];
    long out;                          /* firings past its size, each kept */
    long in_at_out;                    /* ... here, in order: the trace had `in` */
};

void trace_tail_free(TraceTail *tt)
{
    if (!tt) return;
    for (int i = 0; i < TRACE_TAIL; i++) buf_free(&tt->t[i]), buf_free(&tt->j[i]);
    free(tt);
}

static void put_firing(Engine *e, Buf *t, Buf *j, ObjId rule, Sym order, const Prog *p, size_t ufrom, size_t uto,
                       size_t nsent, size_t qfrom, bool changed, const char *error);

void trace_firing(Engine *e, EventRun *r, ObjId rule, Sym order, const Prog *p, size_t ufrom, size_t uto, size_t sfrom,
                  size_t qfrom, bool changed, const char *error)
{
    if (!e->trace_on) return;
    Buf *t = &r->trace, *j = &r->trace_json;
    if (!r->tail) {
        r->tail = xcalloc(1, sizeof *r->tail);
        r->tail->head = t->len;
    }
    TraceTail *tt = r->tail;
    size_t nsent = r->sent.len > sfrom ? r->sent.len - sfrom : 0;
    /* past its size the trace counts firings instead of showing them, but
     * for a while longer it still shows the errors: they say why; the
     * last few are kept aside all the same, in order */
    if (t->len > TRACE_MAX || j->len > TRACE_MAX) {
        if (!tt->out) tt->in_at_out = tt->in;
        int k = (int)(tt->out++ % TRACE_TAIL);
        buf_reset(&tt->t[k]);
        buf_reset(&tt->j[k]);
        put_firing(e, &tt->t[k], &tt->j[k], rule, order, p, ufrom, uto, nsent, qfrom, changed, error);
        if (!error || t->len > 2 * TRACE_MAX || j->len > 2 * TRACE_MAX) {
            r->trace_omitted++;
            return;
        }
    }
    if (j->len > 1) buf_putc(j, ',');
    tt->at_t[tt->in % TRACE_TAIL] = t->len;
    tt->at_j[tt->in % TRACE_TAIL] = j->len;
    tt->in++;
    put_firing(e, t, j, rule, order, p, ufrom, uto, nsent, qfrom, changed, error);
}

/* The text of firing i of those in the trace itself. */
static void firing_in(const EventRun *r, long i, Buf *t, Buf *j)
{
    const TraceTail *tt = r->tail;
    int k = (int)(i % TRACE_TAIL), next = (int)((i + 1) % TRACE_TAIL);
    size_t t_end = i + 1 < tt->in ? tt->at_t[next] : r->trace.len;
    size_t j_end = i + 1 < tt->in ? tt->at_j[next] - 1 : r->trace_json.len; /* less the comma */
    buf_add(t, r->trace.s + tt->at_t[k], t_end - tt->at_t[k]);
    buf_add(j, r->trace_json.s + tt->at_j[k], j_end - tt->at_j[k]);
}

void trace_shorten(EventRun *r)
{
    const TraceTail *tt = r->tail;
    if (!tt) return;
    long before = tt->out ? tt->in_at_out : tt->in; /* in the trace, before any kept aside */
    long total = before + tt->out, kept = total < TRACE_TAIL ? total : TRACE_TAIL;
    Buf t = {0}, j = {0};
    buf_add(&t, r->trace.s, tt->head); /* the notes before the first firing */
    buf_putc(&j, '[');
    if (total > kept) {
        buf_printf(&t, "... %ld firings before the last %ld not kept: the event was undone\n", total - kept, kept);
        buf_printf(&j, "{\"omitted\":%ld}", total - kept);
    }
    for (long i = total - kept; i < before; i++) {
        if (j.len > 1) buf_putc(&j, ',');
        firing_in(r, i, &t, &j);
    }
    for (long i = tt->out > kept ? tt->out - kept : 0; i < tt->out; i++) {
        if (j.len > 1) buf_putc(&j, ',');
        int k = (int)(i % TRACE_TAIL);
        buf_add(&t, tt->t[k].s, tt->t[k].len);
        buf_add(&j, tt->j[k].s, tt->j[k].len);
    }
    buf_free(&r->trace);
    buf_free(&r->trace_json);
    r->trace = t;
    r->trace_json = j;
    r->trace_omitted = 0;
}

static void put_firing(Engine *e, Buf *t, Buf *j, ObjId rule, Sym order, const Prog *p, size_t ufrom, size_t uto,
                       size_t nsent, size_t qfrom, bool changed, const char *error)
{
    buf_printf(t, "rule %u (ruleOrder %s)%s", rule, sym_text(order), error ? " did not fire:" : " fired:");
    buf_printf(j, "{\"rule\":%u,\"ruleOrder\":", rule);
    json_string(j, sym_text(order), sym_len(order));
    buf_printf(j, ",\"changed\":%s,\"bindings\":{", changed ? "true" : "false");
    bool *secret = xcalloc((size_t)p->nvars + 1, sizeof *secret);
    bool secret_text = false;
    if (e->private_attrs != SYM_EMPTY) {
        for (bool grew = true; grew;) {
            grew = private_vars(e, p->cond, secret);
            grew = private_vars(e, p->then, secret) || grew;
        }
        secret_text = sends_private(e, p->then, secret);
    }
    for (int i = 0; i < p->nvars; i++) {
        Sym v = e->vars[i];
        buf_printf(t, " %%%s=", sym_text(p->varnames[i]));
        if (i) buf_putc(j, ',');
        json_string(j, sym_text(p->varnames[i]), sym_len(p->varnames[i]));
        buf_putc(j, ':');
        if (v == VAR_UNBOUND) {
            buf_puts(t, "(unbound)");
            buf_puts(j, "null");
        } else if (secret[i]) {
            buf_puts(t, "(private)");
            buf_puts(j, "\"(private)\"");
        } else {
            trace_value(t, v);
            json_string(j, sym_text(v), sym_len(v));
        }
    }
    free(secret);
    buf_puts(j, "},\"changes\":[");
    if (error) {
        buf_printf(t, " %s\n", error);
    } else {
        buf_putc(t, '\n');
        const Pool *pl = e->pool;
        for (size_t i = ufrom; i < uto; i++) {
            const Undo *u = &pl->undo[i];
            if (i > ufrom) buf_putc(j, ',');
            switch (u->kind) {
            case UNDO_CREATE:
                buf_printf(t, "  create %u\n", u->id);
                buf_printf(j, "{\"op\":\"create\",\"id\":%u}", u->id);
                break;
            case UNDO_DELETE:
                buf_printf(t, "  delete %u\n", u->id);
                buf_printf(j, "{\"op\":\"delete\",\"id\":%u}", u->id);
                break;
            case UNDO_SET: {
                bool priv = hidden(e, u->name);
                buf_printf(t, "  set %u %s: ", u->id, sym_text(u->name));
                if (priv) buf_puts(t, "(private)");
                else trace_value(t, u->new);
                buf_putc(t, '\n');
                buf_printf(j, "{\"op\":\"set\",\"id\":%u,\"attr\":", u->id);
                json_string(j, sym_text(u->name), sym_len(u->name));
                buf_puts(j, ",\"value\":");
                if (priv) buf_puts(j, "null");
                else json_string(j, sym_text(u->new), sym_len(u->new));
                buf_putc(j, '}');
                break;
            }
            }
        }
    }
    buf_puts(j, "],\"messages\":[");
    size_t nq = e->queue.len > qfrom ? e->queue.len - qfrom : 0;
    for (size_t i = 0; i < nq; i++) {
        const Message *m = &e->queue.m[qfrom + i];
        buf_printf(t, "  queue for %s: ", sym_text(m->to));
        if (secret_text) buf_puts(t, "(private)");
        else trace_value(t, m->text);
        buf_putc(t, '\n');
        if (i) buf_putc(j, ',');
        buf_puts(j, "{\"to\":");
        json_string(j, sym_text(m->to), sym_len(m->to));
        buf_puts(j, ",\"text\":");
        if (secret_text) buf_puts(j, "\"(private)\"");
        else json_string(j, sym_text(m->text), sym_len(m->text));
        buf_putc(j, '}');
    }
    buf_puts(j, "]");
    if (nsent) {
        buf_printf(t, "  sendNow: %zu message%s handed over\n", nsent, nsent == 1 ? "" : "s");
        buf_printf(j, ",\"sent\":%zu", nsent);
    }
    if (error) {
        buf_puts(j, ",\"error\":");
        json_string(j, error, strlen(error));
    }
    buf_putc(j, '}');
}
