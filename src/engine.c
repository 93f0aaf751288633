/*
 * engine.c - the engine cycle (engine.h).
 *
 * `evaluation: shadow` on engineSettings is recognised and reported in the
 * trace but runs as the default (immediate) evaluation; see docs/engine.md.
 */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objfmt.h"

struct RuleEntry {
    ObjId id;
    Sym order;
    Sym cond, then;  /* the texts the Prog was made from */
    Prog *prog;      /* NULL when the rule cannot fire */
    char *error;     /* why it cannot */
    bool norestart;
};

Prog *rule_compile(Sym cond, Sym then, Diags *d, int *which_err, ParseError *perr)
{
    int which = 0;
    Prog *p = parse_rule(sym_text(cond), sym_len(cond), sym_text(then), sym_len(then), &which, perr);
    if (!p) {
        *which_err = which;
        return NULL;
    }
    check_prog(p, d);
    return p;
}

Engine *engine_new(Pool *pool)
{
    Engine *e = xcalloc(1, sizeof *e);
    e->pool = pool;
    e->dirty = true;
    e->trace_on = true;
    e->rng[0] = 0x9e3779b97f4a7c15ULL;
    e->rng[1] = 1;
    return e;
}

static void free_rules(Engine *e)
{
    for (int i = 0; i < e->nrules; i++) {
        prog_free(e->rules[i].prog);
        free(e->rules[i].error);
    }
    e->nrules = 0;
}

void engine_free(Engine *e)
{
    if (!e) return;
    free_rules(e);
    free(e->rules);
    msg_free(&e->queue);
    free(e->vars);
    free(e);
}

void engine_invalidate(Engine *e) { e->dirty = true; }

void event_result_free(EventResult *r)
{
    msg_free(&r->sent);
    buf_free(&r->trace);
    buf_free(&r->trace_json);
}

/* ---- the run order ---- */

static ObjId first_of_type(const Pool *p, Sym type)
{
    const IdSet *s = pool_lookup(p, SYM_type, type);
    if (!s) return 0;
    uint32_t i = idset_seek(s, 0, 1);
    return i < s->len ? s->ids[i] : 0;
}

static void read_settings(Engine *e)
{
    ObjId sid = first_of_type(e->pool, SYM_engineSettings);
    const Obj *s = sid ? pool_get(e->pool, sid) : NULL;
    e->run_type = s && obj_get(s, SYM_runType) ? obj_get(s, SYM_runType) : SYM_rule;
    long ms;
    e->max_steps = s && sym_to_long(obj_get(s, SYM_maxSteps), &ms) && ms > 0 ? ms : 1000000;
    e->shadow = s && obj_get(s, SYM_evaluation) == SYM_shadow;
    e->private_attrs = s ? obj_get(s, SYM_privateAttributes) : SYM_EMPTY;
}

static int cmp_rules(const void *x, const void *y)
{
    const RuleEntry *a = x, *b = y;
    int c = val_cmp(a->order, b->order);
    if (c) return c;
    return a->id < b->id ? -1 : a->id > b->id;
}

static char *describe_parse_error(const char *part, const ParseError *pe)
{
    Buf b = {0};
    buf_printf(&b, "%s %d:%d: %s", part, pe->line, pe->col, pe->msg);
    return buf_take(&b);
}

/* Rebuilds the run order, reusing the compiled form of unchanged rules. */
static void rebuild(Engine *e)
{
    read_settings(e);
    RuleEntry *old = e->rules;
    int nold = e->nrules;
    e->rules = NULL;
    e->nrules = e->rulecap = 0;
    const IdSet *s = pool_lookup(e->pool, SYM_type, e->run_type);
    for (uint32_t i = s ? idset_seek(s, 0, 1) : 0; s && i < s->len; i = idset_seek(s, i + 1, 0)) {
        const Obj *o = pool_get(e->pool, s->ids[i]);
        RuleEntry r = {.id = o->id, .order = obj_get(o, SYM_ruleOrder), .cond = obj_get(o, SYM_if),
                       .then = obj_get(o, SYM_then), .norestart = obj_get(o, SYM_noRestart) == SYM_T};
        for (int k = 0; k < nold; k++) {
            if (old[k].id == r.id && old[k].cond == r.cond && old[k].then == r.then && (old[k].prog || old[k].error)) {
                r.prog = old[k].prog;
                r.error = old[k].error;
                old[k].prog = NULL;
                old[k].error = NULL;
                break;
            }
        }
        if (!r.prog && !r.error) {
            Diags d = {0};
            ParseError pe;
            int which;
            if (r.cond == SYM_EMPTY) r.error = xstrdup("it has no if");
            else if (r.then == SYM_EMPTY) r.error = xstrdup("it has no then");
            else if (!(r.prog = rule_compile(r.cond, r.then, &d, &which, &pe)))
                r.error = describe_parse_error(which ? "then" : "if", &pe);
            else if (d.nerrors) {
                for (int k = 0; k < d.n; k++)
                    if (d.d[k].error) {
                        Buf b = {0};
                        buf_printf(&b, "%s %d:%d: %s", d.d[k].part ? "then" : "if", d.d[k].line, d.d[k].col, d.d[k].msg);
                        r.error = buf_take(&b);
                        break;
                    }
                prog_free(r.prog);
                r.prog = NULL;
            }
            diags_free(&d);
        }
        if (!sym_is_number(r.order) && !r.error) {
            Buf b = {0};
            buf_printf(&b, "its ruleOrder \"%s\" is not a number", sym_text(r.order));
            r.error = buf_take(&b);
        }
        if (r.prog && r.prog->nvars > e->nvars_cap) {
            e->nvars_cap = r.prog->nvars * 2;
            e->vars = xrealloc(e->vars, (size_t)e->nvars_cap * sizeof *e->vars);
        }
        GROW(e->rules, e->nrules, e->rulecap);
        e->rules[e->nrules++] = r;
    }
    for (int k = 0; k < nold; k++) {
        prog_free(old[k].prog);
        free(old[k].error);
    }
    free(old);
    /* rules whose order is not a number sort last; they never fire */
    if (e->nrules) qsort(e->rules, (size_t)e->nrules, sizeof *e->rules, cmp_rules);
    e->dirty = false;
}

int engine_rules(Engine *e, RuleInfo **out)
{
    if (e->dirty) rebuild(e);
    *out = xcalloc((size_t)(e->nrules ? e->nrules : 1), sizeof **out);
    for (int i = 0; i < e->nrules; i++)
        (*out)[i] = (RuleInfo){e->rules[i].id, e->rules[i].order, e->rules[i].error};
    return e->nrules;
}

/* Did the changes in undo[from, to) touch a rule or the settings? */
static bool touches_rules(Engine *e, size_t from, size_t to)
{
    const Pool *p = e->pool;
    for (size_t i = from; i < to; i++) {
        const Undo *u = &p->undo[i];
        if (u->kind == UNDO_DELETE) {
            Sym t = obj_get(u->saved, SYM_type);
            if (t == e->run_type || t == SYM_engineSettings) return true;
        } else if (u->kind == UNDO_SET) {
            if (u->name == SYM_type &&
                (u->old == e->run_type || u->new == e->run_type || u->old == SYM_engineSettings ||
                 u->new == SYM_engineSettings))
                return true;
            const Obj *o = pool_get(p, u->id);
            Sym t = o ? obj_get(o, SYM_type) : SYM_EMPTY;
            if (t == SYM_engineSettings) return true;
            if (t == e->run_type && (u->name == SYM_ruleOrder || u->name == SYM_if || u->name == SYM_then ||
                                     u->name == SYM_noRestart))
                return true;
        }
    }
    return false;
}

/* ---- seen states ---- */

typedef struct Seen {
    uint64_t *h;
    size_t cap, len;
} Seen;

/* Returns true if h was already there. */
static bool seen_add(Seen *s, uint64_t h)
{
    if ((s->len + 1) * 2 > s->cap) {
        Seen n = {xcalloc(s->cap ? s->cap * 2 : 256, sizeof *n.h), s->cap ? s->cap * 2 : 256, 0};
        for (size_t i = 0; i < s->cap; i++)
            if (s->h[i]) seen_add(&n, s->h[i]);
        free(s->h);
        *s = n;
    }
    if (h == 0) h = 1;
    size_t m = s->cap - 1;
    for (size_t i = h & m;; i = (i + 1) & m) {
        if (s->h[i] == h) return true;
        if (!s->h[i]) {
            s->h[i] = h;
            s->len++;
            return false;
        }
    }
}

/* ---- traces ---- */

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

static bool hidden(const Engine *e, Sym name)
{
    Ctx cx = {.private_attrs = e->private_attrs};
    return attr_is_private(&cx, name);
}

static void trace_firing(Engine *e, EventResult *r, const RuleEntry *re, const Prog *p, size_t ufrom, size_t uto,
                         size_t sfrom, size_t qfrom, bool changed, const char *error)
{
    if (!e->trace_on) return;
    Buf *t = &r->trace, *j = &r->trace_json;
    buf_printf(t, "rule %u (ruleOrder %s)%s", re->id, sym_text(re->order), error ? " did not fire:" : " fired:");
    if (j->len > 1) buf_putc(j, ',');
    buf_printf(j, "{\"rule\":%u,\"ruleOrder\":", re->id);
    json_string(j, sym_text(re->order), sym_len(re->order));
    buf_printf(j, ",\"changed\":%s,\"bindings\":{", changed ? "true" : "false");
    for (int i = 0; i < p->nvars; i++) {
        Sym v = e->vars[i];
        buf_printf(t, " %%%s=", sym_text(p->varnames[i]));
        if (i) buf_putc(j, ',');
        json_string(j, sym_text(p->varnames[i]), sym_len(p->varnames[i]));
        buf_putc(j, ':');
        if (v == VAR_UNBOUND) {
            buf_puts(t, "(unbound)");
            buf_puts(j, "null");
        } else {
            trace_value(t, v);
            json_string(j, sym_text(v), sym_len(v));
        }
    }
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
        trace_value(t, m->text);
        buf_putc(t, '\n');
        if (i) buf_putc(j, ',');
        buf_puts(j, "{\"to\":");
        json_string(j, sym_text(m->to), sym_len(m->to));
        buf_puts(j, ",\"text\":");
        json_string(j, sym_text(m->text), sym_len(m->text));
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

/* ---- the cycle ---- */

void engine_run(Engine *e, int64_t now, EventResult *r)
{
    Pool *p = e->pool;
    memset(r, 0, sizeof *r);
    buf_putc(&r->trace_json, '[');
    if (e->dirty) rebuild(e);
    Seen seen = {0};
    seen_add(&seen, p->state_hash);
    Ctx cx = {.pool = p, .now = now, .rng = e->rng, .queue = &e->queue, .sent = &r->sent};
    bool reported_broken = false;
    for (;;) {
        bool pass_changed = false;
        cx.have_timer = false;
        if (!reported_broken) {
            for (int i = 0; i < e->nrules && e->trace_on; i++)
                if (e->rules[i].error)
                    buf_printf(&r->trace, "rule %u cannot fire: %s\n", e->rules[i].id, e->rules[i].error);
            reported_broken = true;
        }
        int i = 0;
        while (i < e->nrules) {
            RuleEntry *re = &e->rules[i];
            if (!re->prog) {
                i++;
                continue;
            }
            cx.prog = re->prog;
            cx.vars = e->vars;
            cx.private_attrs = e->private_attrs;
            cx.failed = false;
            if (!eval_condition(&cx)) {
                if (cx.failed && e->trace_on) {
                    buf_printf(&r->trace, "rule %u: its if stopped: %s\n", re->id, cx.error);
                }
                i++;
                continue;
            }
            /* fire */
            size_t umark = pool_mark(p), qmark = e->queue.len, smark = r->sent.len;
            bool halt_before = cx.halt;
            eval_then(&cx);
            r->firings++;
            if (cx.failed) {
                /* a run-time error undoes whatever this then had done */
                pool_undo_to(p, umark);
                msg_truncate(&e->queue, qmark);
                msg_truncate(&r->sent, smark);
                cx.halt = halt_before;
                char err[360];
                snprintf(err, sizeof err, "run-time error: %s", cx.error);
                trace_firing(e, r, re, re->prog, umark, umark, smark, qmark, false, err);
                i++;
                continue;
            }
            size_t uend = pool_mark(p);
            bool changed = uend > umark;
            trace_firing(e, r, re, re->prog, umark, uend, smark, qmark, changed, NULL);
            if (e->hook) e->hook(e->hook_ud, re->id, re->prog, e->vars, changed);
            if (changed) r->changing_firings++;
            if (r->firings > e->max_steps) {
                r->status = EV_RUNAWAY;
                snprintf(r->message, sizeof r->message,
                         "the rules did not settle within maxSteps (%ld firings) and no state repeated; "
                         "the whole event was undone",
                         e->max_steps);
                goto out;
            }
            if (!changed) {
                i++;
                continue;
            }
            pass_changed = true;
            if (seen_add(&seen, p->state_hash)) {
                r->status = EV_LOOP;
                snprintf(r->message, sizeof r->message,
                         "the game state repeated within one event (rule %u fired last): a verifiable loop", re->id);
                goto out;
            }
            ObjId fired = re->id;
            bool norestart = re->norestart;
            if (touches_rules(e, umark, uend)) {
                rebuild(e);
                if (norestart) {
                    /* find the rule again in the new order */
                    int k = 0;
                    while (k < e->nrules && e->rules[k].id != fired) k++;
                    i = k;
                    continue;
                }
            }
            if (!norestart) {
                /* a restart begins a new pass: only a change made after
                 * it calls for another one */
                i = 0;
                pass_changed = false;
                cx.have_timer = false;
            }
            /* noRestart: re-test the same rule, then go on */
        }
        if (!pass_changed) break;
    }
    if (e->shadow && e->trace_on)
        buf_puts(&r->trace, "note: evaluation: shadow is not implemented yet; the rules ran with immediate evaluation\n");
out:
    r->halt = cx.halt;
    r->have_timer = cx.have_timer;
    r->next_timer = cx.next_timer;
    buf_putc(&r->trace_json, ']');
    free(seen.h);
    free(cx.trail);
}
