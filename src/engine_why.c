/*
 * engine_why.c - why a move changed nothing (engine_why_not, engine.h): the
 * Mechanics reading the rules on the state the event left, to tell a
 * player which rules read such a move and where each one's condition
 * stopped holding.  It decides nothing, changes nothing of the game (a
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
    while (end > start && (isspace((unsigned char)end[-1]) || end[-1] == '&')) end--;
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

void engine_why_not(Engine *e, int64_t now, ObjId move, const ObjId *fired, size_t nfired, Buf *out)
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
    int shown = 0, readers = 0;
    for (int r = 0; r < nrules && !cx.meter.tripped; r++) {
        const RuleInfo *re = &rules[r];
        if (!re->prog || !re->deps) continue;
        const Node *const *conj = re->deps->conj;
        int nconj = re->deps->nconj, reads = -1;
        for (int i = 0; i < nconj && reads < 0; i++)
            if (looks_for(conj[i], o)) reads = i;
        if (reads < 0) continue;
        if (++readers > WHY_MAX_RULES) continue;
        bool fire = false;
        for (size_t f = 0; f < nfired && !fire; f++) fire = fired[f] == re->id;
        if (fire) {
            shown++;
            buf_printf(out, "rule %u (ruleOrder %s): fired in this event, changing nothing but moves (it may have answered)\n",
                       re->id, sym_text(re->order));
            continue;
        }
        cx.prog = re->prog;
        cx.failed = false;
        /* the first conjunct after which the condition has no solution */
        int k = 1;
        bool first;
        while (k <= nconj && eval_conjunction(&cx, conj, k, &first)) k++;
        shown++;
        buf_printf(out, "rule %u (ruleOrder %s): ", re->id, sym_text(re->order));
        if (cx.failed) {
            buf_printf(out, "its if stopped: %s\n", cx.error);
            continue;
        }
        if (k > nconj) {
            buf_puts(out, "its if holds: it read the move, and changed nothing but it (or only answered)\n");
            continue;
        }
        buf_putc(out, '`');
        conjunct_text(sym_text(re->cond), conj, nconj, k - 1, out);
        buf_puts(out, "` does not hold");
        /* the values the conjuncts before it found */
        if (k > 1 && eval_conjunction(&cx, conj, k - 1, &first)) {
            bool any = false;
            for (int v = 0; v < re->prog->nvars; v++) {
                if (cx.vars[v] == VAR_UNBOUND) continue;
                const char *t = sym_text(cx.vars[v]);
                buf_printf(out, "%s%%%s=", any ? ", " : " (with ", sym_text(re->prog->varnames[v]));
                if (strlen(t) > 60) buf_printf(out, "\"%.57s...\"", t);
                else buf_printf(out, "\"%s\"", t);
                any = true;
            }
            if (any) buf_putc(out, ')');
        }
        buf_putc(out, '\n');
    }
    if (readers > shown && !cx.meter.tripped)
        buf_printf(out, "(%d more rules read such moves)\n", readers - shown);
    if (cx.meter.tripped) buf_puts(out, "(the explanation stopped here: it reached the event's budget)\n");
    if (!readers) buf_puts(out, "no rule reads such a move (no rule's if looks for an object with its attributes)\n");
    ctx_bind_reset(&cx);
    free(cx.trail);
    free(rules);
    msg_free(&queue);
    msg_free(&sent);
}
