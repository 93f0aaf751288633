/*
 * trace.c - the trace of an event (trace.h): for each firing, a line for
 * people and a JSON object for programs, with the rule's bindings, the
 * changes it made and the messages it queued.  What the game calls
 * private shows as "(private)": the attributes named by privateAttributes,
 * the variables a comparison ties to one of them, and the text of a
 * message that reads either.
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "objfmt.h"
#include "privacy.h"

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

void trace_firing(Engine *e, EventResult *r, ObjId rule, Sym order, const Prog *p, size_t ufrom, size_t uto, size_t sfrom,
                  size_t qfrom, bool changed, const char *error)
{
    if (!e->trace_on) return;
    Buf *t = &r->trace, *j = &r->trace_json;
    /* past its size the trace counts firings instead of showing them, but
     * for a while longer it still shows the errors: they say why */
    size_t room = error ? 2 * TRACE_MAX : TRACE_MAX;
    if (t->len > room || j->len > room) {
        r->trace_omitted++;
        return;
    }
    buf_printf(t, "rule %u (ruleOrder %s)%s", rule, sym_text(order), error ? " did not fire:" : " fired:");
    if (j->len > 1) buf_putc(j, ',');
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
    if (r->sent.len > sfrom) {
        buf_printf(t, "  sendNow: %zu message%s handed over\n", r->sent.len - sfrom, r->sent.len - sfrom == 1 ? "" : "s");
        buf_printf(j, ",\"sent\":%zu", r->sent.len - sfrom);
    }
    if (error) {
        buf_puts(j, ",\"error\":");
        json_string(j, error, strlen(error));
    }
    buf_putc(j, '}');
}
