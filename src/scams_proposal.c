/*
 * scams_proposal.c - a proposal, as if adopted (scams_proposal.h): the
 * reading of proposalView, one for the page (its JSON in GET /api/game)
 * and for the scam search, and the changes of a proposal applied in memory
 * the way the rules declare them, so that `nomic scams --proposal` (and
 * POST /api/scams) searches the game as it would be.
 */
#include "scams_proposal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool_privacy.h"
#include "objfmt.h"

/* ---- proposalView, read ---- */

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && isspace((unsigned char)*s)) s++;
    return s;
}

static size_t word_len(const char *s, const char *end)
{
    size_t n = 0;
    while (s + n < end && !isspace((unsigned char)s[n])) n++;
    return n;
}

/* KEY=VALUE into l; a word without a key (no '=', or '=' first) says nothing. */
static void line_add_word(ViewLine *l, const char *w, size_t n)
{
    const char *eq = memchr(w, '=', n);
    if (!eq || eq == w) return;
    GROW(l->words, l->n, l->cap);
    l->words[l->n++] = (ViewWord){xstrndup(w, (size_t)(eq - w)), xstrndup(eq + 1, n - (size_t)(eq + 1 - w))};
}

static void parse_line(ProposalView *v, const char *s, const char *end)
{
    s = skip_space(s, end);
    if (s == end) return;
    GROW(v->lines, v->n, v->cap);
    ViewLine *l = &v->lines[v->n++];
    *l = (ViewLine){0};
    size_t n = word_len(s, end);
    l->role = xstrndup(s, n);
    for (s = skip_space(s + n, end); s < end; s = skip_space(s + n, end)) {
        n = word_len(s, end);
        line_add_word(l, s, n);
    }
}

void proposal_view_parse(const char *text, ProposalView *v)
{
    *v = (ProposalView){0};
    for (const char *s = text; s && *s;) {
        size_t len = strcspn(s, "\n");
        parse_line(v, s, s + len);
        s += len + (s[len] == '\n');
    }
}

void proposal_view_free(ProposalView *v)
{
    for (int i = 0; i < v->n; i++) {
        ViewLine *l = &v->lines[i];
        for (int k = 0; k < l->n; k++) free(l->words[k].key), free(l->words[k].value);
        free(l->words);
        free(l->role);
    }
    free(v->lines);
    *v = (ProposalView){0};
}

const char *proposal_view_get(const ViewLine *l, const char *key)
{
    for (int k = l->n - 1; k >= 0; k--)
        if (strcmp(l->words[k].key, key) == 0) return l->words[k].value;
    return "";
}

/* ---- proposalView, as the page reads it ---- */

static bool is_list_key(const char *k)
{
    static const char *const lists[] = {"type", "id", "open", "decided", "passed", "failed", "amend", "show"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        if (strcmp(k, lists[i]) == 0) return true;
    return false;
}

static bool is_pairs_key(const char *k)
{
    return strcmp(k, "labels") == 0 || strcmp(k, "record") == 0 || strcmp(k, "compare") == 0;
}

/* The items of a comma-separated list, the empty ones left out; as
 * [A,B] pairs when pairs (an item not one A:B with both given is left out). */
static void json_list(Buf *b, const char *value, bool pairs)
{
    bool first = true;
    buf_putc(b, '[');
    for (const char *s = value; *s;) {
        size_t n = strcspn(s, ",");
        const char *colon = memchr(s, ':', n);
        bool one_pair = colon && colon > s && colon < s + n - 1 && !memchr(colon + 1, ':', (size_t)(s + n - colon - 1));
        if (n && (!pairs || one_pair)) {
            buf_puts(b, first ? "" : ",");
            first = false;
            if (pairs) {
                buf_putc(b, '[');
                json_string(b, s, (size_t)(colon - s));
                buf_putc(b, ',');
                json_string(b, colon + 1, (size_t)(s + n - colon - 1));
                buf_putc(b, ']');
            } else {
                json_string(b, s, n);
            }
        }
        s += n + (s[n] == ',');
    }
    buf_putc(b, ']');
}

static void json_line(Buf *b, const ViewLine *l)
{
    bool first = true;
    buf_putc(b, '{');
    for (int k = 0; k < l->n; k++) {
        const char *key = l->words[k].key, *value = l->words[k].value;
        if (proposal_view_get(l, key) != value) continue; /* given again later */
        buf_puts(b, first ? "" : ",");
        first = false;
        json_string(b, key, strlen(key));
        buf_putc(b, ':');
        if (is_list_key(key) || is_pairs_key(key)) json_list(b, value, is_pairs_key(key));
        else json_string(b, value, strlen(value));
    }
    buf_putc(b, '}');
}

/* A line the page reads: one with a type. */
static bool has_type(const ViewLine *l)
{
    return strspn(proposal_view_get(l, "type"), ",") < strlen(proposal_view_get(l, "type"));
}

static void json_role(Buf *b, const ProposalView *v, const char *name, const char *role)
{
    bool first = true;
    buf_printf(b, ",\"%s\":[", name);
    for (int i = 0; i < v->n; i++) {
        if (strcmp(v->lines[i].role, role) != 0 || !has_type(&v->lines[i])) continue;
        buf_puts(b, first ? "" : ",");
        first = false;
        json_line(b, &v->lines[i]);
    }
    buf_putc(b, ']');
}

static void view_json(Buf *b, const ProposalView *v)
{
    const ViewLine *proposal = NULL; /* the last one */
    for (int i = 0; i < v->n; i++)
        if (strcmp(v->lines[i].role, "proposal") == 0 && has_type(&v->lines[i])) proposal = &v->lines[i];
    if (!proposal) {
        buf_puts(b, "null");
        return;
    }
    buf_puts(b, "{\"proposal\":");
    json_line(b, proposal);
    json_role(b, v, "polls", "poll");
    json_role(b, v, "changes", "change");
    json_role(b, v, "ballots", "ballot");
    buf_putc(b, '}');
}

/* The view every engineSettings declares, read as one text: false (v
 * empty) when proposalView is private. */
static bool declared_lines(const Pool *p, Sym private_attrs, ProposalView *v)
{
    Sym attr = sym_cstr("proposalView");
    memset(v, 0, sizeof *v);
    if (attr_is_private(private_attrs, attr)) return false;
    Buf text = {0};
    IDSET_FOREACH (pool_lookup(p, SYM_type, SYM_engineSettings), oid) {
        buf_puts(&text, sym_text(obj_get(pool_get(p, oid), attr)));
        buf_putc(&text, '\n');
    }
    proposal_view_parse(text.s, v);
    buf_free(&text);
    return true;
}

void proposal_view_json(Buf *b, const Pool *p, Sym private_attrs)
{
    ProposalView v;
    if (!declared_lines(p, private_attrs, &v)) {
        buf_puts(b, "null");
        return;
    }
    view_json(b, &v);
    proposal_view_free(&v);
}

/* Does the comma-separated list hold the word w? */
static bool list_has(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && memcmp(p, w, n) == 0) return true;
        p = comma ? comma + 1 : p + len;
    }
    return false;
}

/* The distinct values of attribute `key` among the objects of the line's
 * types whose status (the line's `status` attribute, by default their
 * type) is one of its `open` statuses. */
static int count_open(const Pool *p, const ViewLine *l, const char *key)
{
    const char *types = proposal_view_get(l, "type"), *open = proposal_view_get(l, "open");
    const char *status = proposal_view_get(l, "status");
    Sym st = sym_cstr(*status ? status : "type"), k = sym_cstr(key);
    Sym *seen = NULL;
    int n = 0, cap = 0;
    for (const char *t = types; *t;) {
        const char *comma = strchr(t, ',');
        size_t len = comma ? (size_t)(comma - t) : strlen(t);
        IDSET_FOREACH (pool_lookup(p, SYM_type, sym_intern(t, len)), oid) {
            const Obj *o = pool_get(p, oid);
            if (!list_has(open, sym_text(obj_get(o, st)))) continue;
            Sym v = obj_get(o, k);
            bool again = false;
            for (int i = 0; i < n && !again; i++) again = seen[i] == v;
            if (again) continue;
            if (n == cap) seen = xrealloc(seen, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *seen);
            seen[n++] = v;
        }
        t = comma ? comma + 1 : t + len;
    }
    free(seen);
    return n;
}

int proposal_view_open_count(const Pool *p, Sym private_attrs)
{
    ProposalView v;
    if (!declared_lines(p, private_attrs, &v)) return -1;
    const ViewLine *proposal = NULL, *poll = NULL;
    for (int i = 0; i < v.n; i++) {
        if (!has_type(&v.lines[i])) continue;
        if (strcmp(v.lines[i].role, "proposal") == 0) proposal = &v.lines[i];
        if (strcmp(v.lines[i].role, "poll") == 0 && !poll) poll = &v.lines[i];
    }
    int n = -1;
    if (poll && *proposal_view_get(poll, "open") && *proposal_view_get(poll, "of"))
        n = count_open(p, poll, proposal_view_get(poll, "of")); /* the proposals of an open poll */
    else if (proposal && *proposal_view_get(proposal, "open")) {
        const char *id = proposal_view_get(proposal, "id"), *comma = strchr(id, ',');
        char *first = comma ? xstrndup(id, (size_t)(comma - id)) : xstrdup(*id ? id : "objectId");
        n = count_open(p, proposal, first);
        free(first);
    }
    proposal_view_free(&v);
    return n;
}

/* ---- a proposal, as if adopted ---- */

/* What the rules declare of their proposals' changes to the rules the
 * engine runs: a `change` line whose `in` is their type.  The objects of
 * type `type` (the first listed: the open ones) whose attribute `of` is a
 * proposal's key are its changes; `kind` says create (or enact), amend or
 * repeal, `target` names the rule, `compare`'s NEW:if and NEW:then and
 * `order` the new rule's parts. */
typedef struct ProposalShape {
    Sym type, proposal, kind, target, nif, nthen, norder;
} ProposalShape;

#define MAX_SHAPES 4

/* The first item of a comma-separated list, or "". */
static Sym first_item(const char *list)
{
    list += strspn(list, ",");
    return sym_intern(list, strcspn(list, ","));
}

/* In compare's NEW:OLD,NEW:OLD pairs, the NEW whose OLD is `old`. */
static Sym compared(const char *compare, const char *old)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", compare);
    char *at;
    for (char *pair = strtok_r(buf, ",", &at); pair; pair = strtok_r(NULL, ",", &at)) {
        char *colon = strchr(pair, ':');
        if (colon && strcmp(colon + 1, old) == 0) return sym_intern(pair, (size_t)(colon - pair));
    }
    return SYM_EMPTY;
}

/* The proposalView the search reads: the last engineSettings' to give one. */
static Sym declared_view(const Pool *p)
{
    Sym decl = SYM_EMPTY;
    IDSET_FOREACH (pool_lookup(p, SYM_type, SYM_engineSettings), oid) {
        Sym v = obj_get(pool_get(p, oid), sym_cstr("proposalView"));
        if (v != SYM_EMPTY) decl = v;
    }
    return decl;
}

/* The shapes of the changes to rules of type run_type; how many. */
static int proposal_shapes(const Pool *p, Sym run_type, ProposalShape *ps, Buf *err)
{
    ProposalView v;
    proposal_view_parse(sym_text(declared_view(p)), &v);
    int n = 0;
    for (int i = 0; i < v.n && n < MAX_SHAPES; i++) {
        const ViewLine *l = &v.lines[i];
        if (strcmp(l->role, "change") != 0 || strcmp(proposal_view_get(l, "in"), sym_text(run_type)) != 0) continue;
        Sym type = first_item(proposal_view_get(l, "type")); /* the first type: changes still open */
        const char *of = proposal_view_get(l, "of"), *kind = proposal_view_get(l, "kind"), *target = proposal_view_get(l, "target");
        const char *compare = proposal_view_get(l, "compare");
        if (type != SYM_EMPTY && *of && *kind && *target)
            ps[n++] = (ProposalShape){sym_canon(type), sym_cstr(of), sym_cstr(kind), sym_cstr(target),
                                      compared(compare, "if"), compared(compare, "then"),
                                      sym_cstr(proposal_view_get(l, "order"))};
    }
    proposal_view_free(&v);
    if (!n)
        buf_printf(err, "the rules declare no changes to their rules (a `change ... in=%s` line of proposalView on "
                        "engineSettings, docs/api.md), so which objects are a proposal's changes is unknown",
                   sym_text(run_type));
    return n;
}
static void adopt_one(Pool *p, Sym run_type, const ProposalShape *ps, const Obj *c)
{
    Sym kind = obj_get(c, ps->kind);
    Sym nif = obj_get(c, ps->nif), nthen = obj_get(c, ps->nthen), norder = obj_get(c, ps->norder);
    long t = 0;
    sym_to_long(obj_get(c, ps->target), &t);
    const Obj *target = t > 0 ? pool_get(p, (ObjId)t) : NULL;
    bool is_rule = target && obj_get(target, SYM_type) == run_type;
    if (kind == sym_cstr("create") || kind == sym_cstr("enact")) {
        ObjId id = pool_create(p);
        pool_set(p, id, SYM_type, run_type);
        pool_set(p, id, SYM_if, nif);
        pool_set(p, id, SYM_then, nthen);
        pool_set(p, id, SYM_ruleOrder, norder);
    } else if (kind == sym_cstr("amend") && is_rule) {
        /* a part the change does not give is kept */
        if (nif != SYM_EMPTY) pool_set(p, (ObjId)t, SYM_if, nif);
        if (nthen != SYM_EMPTY) pool_set(p, (ObjId)t, SYM_then, nthen);
        if (norder != SYM_EMPTY) pool_set(p, (ObjId)t, SYM_ruleOrder, norder);
    } else if (kind == sym_cstr("repeal") && is_rule) {
        pool_delete(p, (ObjId)t);
    }
}

bool scams_adopt(Game *g, const char *id, Buf *err)
{
    Pool *p = g->pool;
    RuleInfo *ri;
    free((engine_rules(g->eng, &ri), ri)); /* reads the settings: the rules' type */
    ProposalShape ps[MAX_SHAPES];
    Sym run_type = g->eng->run_type, want = sym_canon(sym_cstr(id));
    int nshapes = proposal_shapes(p, run_type, ps, err);
    if (!nshapes) return false;
    ObjId *ids = NULL;
    int *shape = NULL;
    int n = 0, cap = 0, scap = 0;
    for (int k = 0; k < nshapes; k++) {
        IDSET_FOREACH (pool_lookup(p, SYM_type, ps[k].type), oid) {
            const Obj *o = pool_get(p, oid);
            if (sym_canon(obj_get(o, ps[k].proposal)) != want) continue;
            GROW(shape, n, scap);
            GROW(ids, n, cap);
            shape[n] = k;
            ids[n++] = o->id;
        }
    }
    if (!n) {
        buf_printf(err, "no %s object has %s %s (proposalView's changes): no such proposal, or one without changes",
                   sym_text(ps[0].type), sym_text(ps[0].proposal), id);
        free(ids);
        free(shape);
        return false;
    }
    for (int i = 0; i < n; i++) {
        const Obj *o = pool_get(p, ids[i]);
        if (o) adopt_one(p, run_type, &ps[shape[i]], o);
    }
    free(shape);
    /* the changes are spent, as adoption spends them */
    for (int i = 0; i < n; i++) pool_delete(p, ids[i]);
    free(ids);
    engine_invalidate(g->eng);
    return true;
}
