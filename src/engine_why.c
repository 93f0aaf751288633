/*
 * engine_why.c - why a move changed nothing (engine_why_not, engine.h): the
 * Mechanics reading the rules on the state the event left, to tell a
 * player which rules read such a move and where each one's condition
 * stopped holding, and, in the words of the rule that came nearest to
 * firing (its `because`), why.  It decides nothing, changes nothing of the game (a
 * copy of the generator it is given, a queue of its own, bindings undone)
 * and runs under one event's budget.  Its caller (game_event.c) gives it a
 * throwaway generator and the mover's view of the state (privacy_blank):
 * what it prints of the conditions and the values they bound is never
 * another player's private value, nor the game's next draw.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lang_builtins.h"
#include "lang_deps.h"
#include "engine.h"

#define WHY_MAX_RULES 8 /* rules explained for one move */

/* Does conjunct n look for objects like o: an exists whose match has
 * type == a literal, and whose every key compared with a literal holds
 * for o (`type=="move" & subtype=="vote"` reads a vote move)? */
static bool looks_for(const Node *n, const Obj *o)
{
    if (n->kind != N_CALL || n->bi != BI_exists || n->n < 1 || !n->kid[0]->match) return false;
    const Match *m = n->kid[0]->match;
    bool typed = false;
    for (int k = 0; k < m->nkeys; k++) {
        const Node *v = m->keys[k].val;
        if (v->kind != N_STR && v->kind != N_NUM && v->kind != N_BOOL) continue; /* a variable takes any value */
        if (obj_get(o, m->keys[k].name) != v->sym) return false;
        if (m->keys[k].name == SYM_type) typed = true;
    }
    return typed;
}

/* The text of conjunct i of a condition: from where it starts to where
 * the next one does, without the `&` between them. */
static void conjunct_text(const char *cond, const Node *const *conj, int nconj, int i, Buf *out)
{
    const char *s = cond;
    int line = 1;
    const char *start = NULL, *end = NULL;
    for (const char *p = cond;; p++) {
        int col = (int)(p - s) + 1;
        if (!start && line == conj[i]->line && col == conj[i]->col) start = p;
        if (i + 1 < nconj && !end && line == conj[i + 1]->line && col == conj[i + 1]->col) end = p;
        if (!*p) break;
        if (*p == '\n') {
            line++;
            s = p + 1;
        }
    }
    if (!start) return;
    if (!end || end < start) end = start + strlen(start);
    /* a conjunct in parentheses starts at what is inside them: the `(`
     * before it is its own, not the text of the conjunct before */
    while (end > start && (isspace((unsigned char)end[-1]) || end[-1] == '&' || end[-1] == '(')) end--;
    for (;;) {
        int depth = 0;
        bool quoted = false;
        for (const char *p = start; p < end; p++) {
            if (*p == '"' && (p == start || p[-1] != '\\')) quoted = !quoted;
            else if (!quoted) depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
        }
        const char *q = start;
        while (q > cond && isspace((unsigned char)q[-1])) q--;
        if (depth >= 0 || q == cond || q[-1] != '(') break;
        start = q - 1;
    }
    /* one line for a message: runs of blanks are one space */
    size_t n = (size_t)(end - start), shown = 0;
    for (size_t k = 0; k < n && shown < 160; k++) {
        if (isspace((unsigned char)start[k])) {
            if (shown && out->s[out->len - 1] != ' ') buf_putc(out, ' '), shown++;
        } else {
            buf_putc(out, start[k]);
            shown++;
        }
    }
    if (shown >= 160) buf_puts(out, "...");
}

/* A value in a line of the explanation: whole when short. */
static void put_value(Buf *out, const char *t, bool quoted)
{
    size_t n = strlen(t), max = quoted ? 60 : 80;
    if (n > max) {
        n = text_cut(t, n, max - 3);
        buf_printf(out, quoted ? "\"%.*s...\"" : "%.*s...", (int)n, t);
    } else {
        buf_printf(out, quoted ? "\"%s\"" : "%s", t);
    }
}

/* The rule's `because` with each %name the condition bound replaced by
 * its value (a variable of the rule left unbound by "?", any other %name
 * as written; %% is %), on one line. */
static void because_text(const char *tmpl, const Prog *p, const Sym *vars, Buf *out)
{
    for (const char *s = tmpl; *s;) {
        if (isspace((unsigned char)*s)) {
            while (isspace((unsigned char)*s)) s++;
            if (*s && out->len && out->s[out->len - 1] != ' ') buf_putc(out, ' ');
            continue;
        }
        if (*s != '%') {
            buf_putc(out, *s++);
            continue;
        }
        if (s[1] == '%') {
            buf_putc(out, '%');
            s += 2;
            continue;
        }
        const char *name = s + 1, *end = name;
        if (isalpha((unsigned char)*end) || *end == '_')
            while (isalnum((unsigned char)*end) || *end == '_') end++;
        bool put = false;
        for (int v = 0; v < p->nvars && end > name && !put; v++) {
            const char *vn = sym_text(p->varnames[v]);
            if (strlen(vn) != (size_t)(end - name) || memcmp(vn, name, (size_t)(end - name)) != 0) continue;
            if (vars[v] != VAR_UNBOUND) put_value(out, sym_text(vars[v]), false);
            else buf_putc(out, '?');
            put = true;
        }
        if (!put) buf_add(out, s, (size_t)(end - s));
        s = end;
    }
    while (out->len && out->s[out->len - 1] == ' ') out->s[--out->len] = 0;
}

/* What the explanation found of one rule that reads the move. */
typedef struct WhyRule {
    int held;   /* conjuncts of its if holding for the move (all when it fired) */
    bool fired; /* in this event */
    Buf line; /* its line, in today's words */
    Buf because; /* its `because`, the variables put in; empty if it has none */
} WhyRule;

void engine_why_not(Engine *e, int64_t now, ObjId move, const ObjId *fired, size_t nfired, Buf *reason, Buf *out)
{
    const Obj *o = pool_get(e->pool, move);
    if (!o) return;
    RuleInfo *rules;
    int nrules = engine_rules(e, &rules);
    /* a copy of the (throwaway) generator and a queue of its own:
     * explaining draws nothing and sends nothing */
    uint64_t rng[4];
    memcpy(rng, e->rng, sizeof rng);
    MsgList queue = {0}, sent = {0};
    Ctx cx = {.pool = e->pool, .now = now, .created = e->created, .rng = rng, .queue = &queue, .sent = &sent,
              .private_attrs = e->private_attrs, .vars = e->vars};
    engine_meter_start(e, &cx.meter); /* one event's budget for the whole explanation */
    Sym because_sym = sym_cstr("because");
    WhyRule *why = xcalloc((size_t)(nrules ? nrules : 1), sizeof *why);
    int readers = 0, nearest = -1;
    for (int r = 0; r < nrules && !cx.meter.tripped; r++) {
        const RuleInfo *re = &rules[r];
        if (!re->prog || !re->deps) continue;
        const Node *const *conj = re->deps->conj;
        int nconj = re->deps->nconj, reads = -1;
        for (int i = 0; i < nconj && reads < 0; i++)
            if (looks_for(conj[i], o)) reads = i;
        if (reads < 0) continue;
        WhyRule *w = &why[readers++];
        const Obj *ro = pool_get(e->pool, re->id);
        const char *tmpl = ro ? sym_text(obj_get(ro, because_sym)) : "";
        bool fire = false;
        for (size_t f = 0; f < nfired && !fire; f++) fire = fired[f] == re->id;
        cx.prog = re->prog;
        cx.failed = false;
        /* the first conjunct after which the condition has no solution
         * (a rule that fired is read again only for its because) */
        int k = 1;
        bool first;
        if (!fire || *tmpl)
            while (k <= nconj && eval_conjunction(&cx, conj, k, &first)) k++;
        w->held = fire ? nconj : k - 1;
        /* the bindings of the conjuncts that held */
        bool bound = !cx.failed && k > 1 && (k > nconj || eval_conjunction(&cx, conj, k - 1, &first));
        if (*tmpl) {
            if (!bound) ctx_bind_reset(&cx);
            because_text(tmpl, re->prog, cx.vars, &w->because);
        }
        /* the nearest: the most conjuncts holding, ties to a rule that
         * fired; one whose if holds now but that did not fire was
         * pre-empted (an earlier rule took the move) and is no reason */
        w->fired = fire;
        bool candidate = fire || cx.failed || k <= nconj;
        if (candidate && (nearest < 0 || w->held > why[nearest].held ||
                          (w->held == why[nearest].held && fire && !why[nearest].fired)))
            nearest = readers - 1;
        Buf *l = &w->line;
        buf_printf(l, "rule %u (ruleOrder %s): ", re->id, sym_text(re->order));
        if (fire) {
            buf_puts(l, "fired in this event, changing nothing but moves (it may have answered)");
        } else if (cx.failed) {
            buf_printf(l, "its if stopped: %s", cx.error);
        } else if (k > nconj) {
            buf_puts(l, "its if holds: it read the move, and changed nothing but it (or only answered)");
        } else {
            buf_putc(l, '`');
            conjunct_text(sym_text(re->cond), conj, nconj, k - 1, l);
            buf_puts(l, "` does not hold");
            /* the values the conjuncts before it found */
            bool any = false;
            for (int v = 0; bound && v < re->prog->nvars; v++) {
                if (cx.vars[v] == VAR_UNBOUND) continue;
                buf_printf(l, "%s%%%s=", any ? ", " : " (with ", sym_text(re->prog->varnames[v]));
                put_value(l, sym_text(cx.vars[v]), true);
                any = true;
            }
            if (any) buf_putc(l, ')');
        }
    }
    /* the nearest rule with a because: its reason, then its line first */
    bool told = nearest >= 0 && why[nearest].because.len;
    if (told) {
        buf_add(reason, why[nearest].because.s, why[nearest].because.len);
        buf_printf(out, "%s\n", buf_str(&why[nearest].line));
    }
    int shown = 0;
    for (int i = 0; i < readers && shown < WHY_MAX_RULES - told; i++)
        if (!(told && i == nearest)) buf_printf(out, "%s\n", buf_str(&why[i].line)), shown++;
    shown += told;
    if (readers > shown && !cx.meter.tripped)
        buf_printf(out, "(%d more rules read such moves)\n", readers - shown);
    if (cx.meter.tripped) buf_puts(out, "(the explanation stopped here: it reached the event's budget)\n");
    if (!readers) buf_puts(out, "no rule reads such a move (no rule's if looks for an object with its attributes)\n");
    for (int i = 0; i < readers; i++) buf_free(&why[i].line), buf_free(&why[i].because);
    free(why);
    ctx_bind_reset(&cx);
    free(cx.trail);
    free(rules);
    msg_free(&queue);
    msg_free(&sent);
}
