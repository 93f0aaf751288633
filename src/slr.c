/*
 * slr.c - reading and writing Agora's Short Logical Ruleset (slr.h).
 *
 * Reading goes in three steps.  The input is checked (UTF-8, no NUL) and
 * cut into lines; a line that holds a separator (20 or more `-` or `=`
 * standing alone) beside other text, as every line of a flattened SLR
 * does, is cut further at its separators into "flat" pieces, so that the
 * flattened and the multi-line layouts read alike from then on.  Each
 * line is then a blank, a separator, a rule header or text, and a small
 * state machine groups them into the header, sections, rules and the
 * footer.  A rule read from one flat piece has its title and text run
 * together; split_flat() finds where the title ends.
 */
#include "slr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SEP_MIN 20     /* a separator is a run of at least this many - or = */
#define SEP_WIDTH 72   /* the separators slr_emit writes */
#define TEXT_INDENT 6  /* the indentation of rule texts slr_emit writes */
#define MAX_ERRORS 20  /* messages kept; the rest are counted */

typedef enum { L_BLANK, L_TEXT, L_HEADER, L_DASH, L_EQ } LineKind;

typedef struct Line {
    const char *s; /* the bytes of the line, without its newline */
    size_t n;
    int line, col; /* where s starts */
    bool flat;     /* a piece of a line that also held separators */
    LineKind kind;
} Line;

typedef struct Parser {
    const char *fname;
    Line *lines;
    int nlines, cap;
    Buf *err, *warn;
    int nerrors;
    int last_header; /* index of the last rule header line, -1: none */
    int last_text;   /* index of the last line that is not blank, -1: none */
    SlrDoc *doc;
} Parser;

/* ---- messages ---- */

static void message(Parser *p, bool error, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void message(Parser *p, bool error, int line, int col, const char *fmt, ...)
{
    Buf *b = error ? p->err : p->warn;
    if (error && p->nerrors++ >= MAX_ERRORS) return;
    if (!b) return;
    buf_printf(b, "%s:%d:%d: %s: ", p->fname, line, col, error ? "error" : "warning");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
    buf_putc(b, '\n');
}

/* ---- small text helpers ---- */

static bool blank(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
    while (i < n && blank((unsigned char)s[i])) i++;
    return i;
}

static size_t trim_end(const char *s, size_t n)
{
    while (n > 0 && blank((unsigned char)s[n - 1])) n--;
    return n;
}

static bool all_blank(const char *s, size_t n) { return skip_blanks(s, n, 0) == n; }

/* Is s[0..n) a run of at least SEP_MIN of one of - or =?  Returns it, or 0. */
static char run_char(const char *s, size_t n)
{
    if (n < SEP_MIN || (s[0] != '-' && s[0] != '=')) return 0;
    for (size_t i = 1; i < n; i++)
        if (s[i] != s[0]) return 0;
    return s[0];
}

/* Does s start a rule: "Rule", blanks, a digit? */
static bool starts_rule(const char *s, size_t n)
{
    if (n < 6 || memcmp(s, "Rule", 4) != 0 || !blank((unsigned char)s[4])) return false;
    size_t i = skip_blanks(s, n, 4);
    return i < n && isdigit((unsigned char)s[i]);
}

bool slr_is_digits(const char *s)
{
    if (!s || !*s) return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return false;
    return true;
}

bool slr_is_power(const char *s)
{
    if (!s || !isdigit((unsigned char)*s)) return false;
    while (isdigit((unsigned char)*s)) s++;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s)) return false;
        while (isdigit((unsigned char)*s)) s++;
    }
    return *s == 0;
}

/* Compares digit strings as numbers: leading zeros do not count. */
static int digits_cmp(const char *a, size_t na, const char *b, size_t nb)
{
    while (na > 1 && *a == '0') a++, na--;
    while (nb > 1 && *b == '0') b++, nb--;
    if (na != nb) return na < nb ? -1 : 1;
    int c = memcmp(a, b, na);
    return c < 0 ? -1 : c > 0;
}

int slr_power_cmp(const char *a, const char *b)
{
    size_t ia = strcspn(a, "."), ib = strcspn(b, ".");
    int c = digits_cmp(a, ia, b, ib);
    if (c) return c;
    /* the fractions, digit by digit, a missing digit counting as 0 */
    const char *fa = a[ia] ? a + ia + 1 : "", *fb = b[ib] ? b + ib + 1 : "";
    while (*fa || *fb) {
        int da = *fa ? *fa++ : '0', db = *fb ? *fb++ : '0';
        if (da != db) return da < db ? -1 : 1;
    }
    return 0;
}

/* The length of the valid UTF-8 sequence at s, or 0 (overlong forms,
 * surrogates and code points past U+10FFFF are invalid, as a strict JSON
 * reader would have them). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80) return 1;
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (!len || len > n || s[0] > 0xf4) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
    if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
    return len;
}

/* Checks that text is UTF-8 without NUL bytes; says where it is not. */
static bool check_bytes(Parser *p, const char *text, size_t len)
{
    int line = 1, col = 1;
    for (size_t i = 0; i < len;) {
        size_t k = text[i] ? utf8_len((const unsigned char *)text + i, len - i) : 0;
        if (!k) {
            message(p, true, line, col, text[i] ? "not UTF-8 text (byte 0x%02x)" : "a NUL byte", (unsigned char)text[i]);
            return false;
        }
        if (text[i] == '\n') line++, col = 1;
        else col++;
        i += k;
    }
    return true;
}

/* ---- step 1: lines and flat pieces ---- */

static LineKind classify(const char *s, size_t n)
{
    if (all_blank(s, n)) return L_BLANK;
    size_t a = skip_blanks(s, n, 0), z = trim_end(s, n);
    char c = run_char(s + a, z - a);
    if (c) return c == '-' ? L_DASH : L_EQ;
    return starts_rule(s, n) ? L_HEADER : L_TEXT;
}

static void add_line(Parser *p, const char *s, size_t n, int line, int col, bool flat)
{
    GROW(p->lines, p->nlines, p->cap);
    p->lines[p->nlines++] = (Line){s, n, line, col, flat, classify(s, n)};
}

/* Adds the trimmed piece s[a..z) of a flat line, if it is not blank. */
static void add_piece(Parser *p, const char *s, size_t a, size_t z, int line)
{
    a = skip_blanks(s, z, a);
    z = trim_end(s, z);
    if (a < z) add_line(p, s + a, z - a, line, (int)a + 1, true);
}

/* One physical line: whole, or cut at the separators standing in it. */
static void split_line(Parser *p, const char *s, size_t n, int line)
{
    size_t a = skip_blanks(s, n, 0), z = trim_end(s, n);
    if (a >= z || run_char(s + a, z - a)) {
        add_line(p, s, n, line, 1, false);
        return;
    }
    bool cut = false;
    size_t start = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] == s[i]) j++;
        bool alone = (i == 0 || blank((unsigned char)s[i - 1])) && (j == n || blank((unsigned char)s[j]));
        if (alone && run_char(s + i, j - i)) {
            add_piece(p, s, start, i, line);
            add_line(p, s + i, j - i, line, (int)i + 1, true);
            start = j;
            cut = true;
        }
        i = j;
    }
    if (!cut) {
        add_line(p, s, n, line, 1, false);
        return;
    }
    add_piece(p, s, start, n, line);
}

static void split_lines(Parser *p, const char *text, size_t len)
{
    int line = 1;
    for (size_t i = 0; i < len; line++) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        split_line(p, text + i, end - i, line);
        i = end + 1;
    }
}

/* ---- texts built from lines ---- */

static size_t indent_of(const Line *l) { return skip_blanks(l->s, l->n, 0); }

/* The lines [from, to) as one text: the smallest indentation of the
 * non-blank ones removed, blanks at line ends removed, blank lines at the
 * start and the end dropped. */
static char *lines_text(const Parser *p, int from, int to)
{
    size_t cut = (size_t)-1;
    for (int i = from; i < to; i++)
        if (p->lines[i].kind != L_BLANK && indent_of(&p->lines[i]) < cut) cut = indent_of(&p->lines[i]);
    Buf b = {0};
    int pending = 0; /* blank lines seen since the last text */
    for (int i = from; i < to; i++) {
        const Line *l = &p->lines[i];
        if (l->kind == L_BLANK) {
            pending++;
            continue;
        }
        if (b.len)
            for (buf_putc(&b, '\n'); pending > 0; pending--) buf_putc(&b, '\n');
        pending = 0;
        buf_add(&b, l->s + cut, trim_end(l->s, l->n) - cut);
    }
    return buf_take(&b);
}

static char *copy_trimmed(const char *s, size_t n)
{
    size_t a = skip_blanks(s, n, 0);
    return xstrndup(s + a, trim_end(s, n) - a);
}

/* ---- the title of a flattened rule ---- */

/* Titles the heuristic gets wrong, decided by reading the rule (docs/agora.md). */
static const char *const decided_titles[] = {
    "Extending the voting period", /* 2168: lowercase words in the title */
};

/* Lowercase words that may stand inside a title ("Role and Attributes of Rules"). */
static const char *const small_words[] = {"a",  "an",   "the",  "of",   "to",      "and", "or",
                                          "in", "on",   "for",  "by",   "with",    "via", "as",
                                          "is", "at",   "from", "into", "between", "per", "without"};

/* Words that begin the first sentence of a rule's text. */
static const char *const openers[] = {"A",     "An",   "The",     "Any",     "Each",  "Every",   "If",    "When",
                                      "Where", "While", "Whenever", "In",     "For",   "No",      "Once",  "To",
                                      "Some",  "All",  "It",      "This",    "There", "These",   "Two",   "Three",
                                      "One",   "Upon", "Unless",  "Certain", "Whereas", "WHEREAS"};

typedef struct Word {
    const char *s;
    size_t n;
} Word;

static bool word_in(Word w, const char *const *list, size_t nlist, bool fold)
{
    while (w.n > 1 && strchr(",;:.!?", w.s[w.n - 1])) w.n--; /* "WHEREAS," is WHEREAS */
    for (size_t i = 0; i < nlist; i++)
        if (strlen(list[i]) == w.n && (fold ? strncasecmp(list[i], w.s, w.n) : strncmp(list[i], w.s, w.n)) == 0)
            return true;
    return false;
}

#define IN(w, list, fold) word_in(w, list, sizeof list / sizeof *list, fold)

static bool is_upper(int c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(int c) { return c >= 'a' && c <= 'z'; }
static bool is_letter(int c) { return is_upper(c) || is_lower(c); }

/* Letters only, all capitals, two or more: CAN, SHALL (not "I"). */
static bool all_caps(Word w)
{
    size_t letters = 0;
    for (size_t i = 0; i < w.n; i++) {
        if (is_lower((unsigned char)w.s[i])) return false;
        letters += is_upper((unsigned char)w.s[i]);
    }
    return letters >= 2;
}

/* Can w stand in a title: a capitalised word ("Self-Ratification",
 * "Mother,", "I?") or a small word? */
static bool title_word(Word w)
{
    if (IN(w, small_words, false)) return true;
    if (!is_upper((unsigned char)w.s[0]) || all_caps(w)) return false;
    for (size_t i = 1; i < w.n; i++) {
        int c = (unsigned char)w.s[i];
        bool last = i == w.n - 1;
        if (!is_letter(c) && c != '-' && c != '\'' && !(last && (c == ',' || c == '?' || c == '!'))) return false;
    }
    return true;
}

static bool ends_title(Word w) { return !IN(w, small_words, true) && w.s[w.n - 1] != ','; }

/* The first letter of w, or 0. */
static int first_letter(Word w)
{
    for (size_t i = 0; i < w.n; i++)
        if (is_letter((unsigned char)w.s[i])) return (unsigned char)w.s[i];
    return 0;
}

/* Can a rule's text begin with w: a capital (not a shouted CAN), or
 * something without letters (the ASCII art of 2029 and 2486)? */
static bool starts_text(Word w)
{
    if (all_caps(w)) return IN(w, openers, false);
    int c = first_letter(w);
    return c == 0 || is_upper(c);
}

/* How much the words from `at` look like the start of a sentence. */
static int sentence_score(const Word *w, int nw, int at)
{
    int score = 0;
    if (IN(w[at], openers, false)) score += 2;
    if (!first_letter(w[at])) score += 1;
    if (at + 1 < nw) {
        int c = first_letter(w[at + 1]);
        if (is_lower(c) || all_caps(w[at + 1])) score += 1;
    }
    return score;
}

#define MAX_TITLE_WORDS 16

/* Where the title of a flattened rule ends in s (its title and text run
 * together): the offset of its text, or 0 when no title can be told. */
static size_t split_flat(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof decided_titles / sizeof *decided_titles; i++) {
        size_t k = strlen(decided_titles[i]);
        if (k < n && memcmp(s, decided_titles[i], k) == 0 && blank((unsigned char)s[k])) return skip_blanks(s, n, k);
    }
    Word w[MAX_TITLE_WORDS + 2];
    int nw = 0;
    for (size_t i = skip_blanks(s, n, 0); i < n && nw < MAX_TITLE_WORDS + 2; i = skip_blanks(s, n, i)) {
        size_t j = i;
        while (j < n && !blank((unsigned char)s[j])) j++;
        w[nw++] = (Word){s + i, j - i};
        i = j;
    }
    /* a title is words 0..k-1, all title words, the last not a small one,
     * and the text begins at word k; the split that looks most like the
     * start of a sentence wins, the shorter title on a tie */
    int best = 0, best_score = -1;
    for (int k = 1; k < nw && title_word(w[k - 1]); k++) {
        if (!ends_title(w[k - 1]) || !starts_text(w[k])) continue;
        int sc = sentence_score(w, nw, k);
        if (sc > best_score) best = k, best_score = sc;
    }
    return best ? (size_t)(w[best].s - s) : 0;
}

/* ---- step 2: grouping the lines ---- */

static int skip_to_block_end(const Parser *p, int i)
{
    while (i < p->nlines && p->lines[i].kind != L_DASH && p->lines[i].kind != L_EQ && p->lines[i].kind != L_HEADER) i++;
    return i;
}

/* Reads digits at s[*i]; returns them, or NULL. */
static char *take_digits(const char *s, size_t n, size_t *i)
{
    size_t a = *i;
    while (*i < n && isdigit((unsigned char)s[*i])) (*i)++;
    return *i > a ? xstrndup(s + a, *i - a) : NULL;
}

/* Expects the literal lit at s[*i] (blanks before it allowed). */
static bool expect(const char *s, size_t n, size_t *i, const char *lit)
{
    size_t k = skip_blanks(s, n, *i), m = strlen(lit);
    if (k + m > n || memcmp(s + k, lit, m) != 0) return false;
    *i = k + m;
    return true;
}

/* header := "Rule" ID "/" REV "(Power=" P ")" ; fills r, returns the
 * offset just after it, or 0 after an error. */
static size_t parse_header(Parser *p, const Line *l, SlrRule *r)
{
    const char *s = l->s;
    size_t n = l->n, i = skip_blanks(s, n, 4);
    r->line = l->line, r->col = l->col;
    r->id = take_digits(s, n, &i);
    const char *want = NULL;
    if (!expect(s, n, &i, "/")) want = "'/' and the revision after the rule's ID";
    else if (!(i = skip_blanks(s, n, i), r->revision = take_digits(s, n, &i))) want = "a revision number after '/'";
    else if (!expect(s, n, &i, "(") || !expect(s, n, &i, "Power") || !expect(s, n, &i, "="))
        want = "'(Power=P)' after the revision";
    else {
        size_t a = i = skip_blanks(s, n, i);
        while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '.')) i++;
        r->power = xstrndup(s + a, i - a);
        if (!slr_is_power(r->power)) want = "a power (3, 3.0, 1.7) after 'Power='";
        else if (!expect(s, n, &i, ")")) want = "')' after the power";
        else if (i < n && !blank((unsigned char)s[i])) want = "a blank or the end of the line after ')'";
    }
    if (want) {
        size_t at = skip_blanks(s, n, i);
        message(p, true, l->line, l->col + (int)at, "rule %s: expected %s, found %s%.*s%s", r->id, want,
                at < n ? "\"" : "the end of the line", at < n ? (int)(n - at > 20 ? 20 : n - at) : 0, s + at,
                at < n ? "\"" : "");
        return 0;
    }
    return i;
}

static void free_rule(SlrRule *r)
{
    free(r->id), free(r->revision), free(r->power), free(r->title), free(r->text);
}

/* Title and text of a rule whose header is line h and whose body lines
 * are [h+1, end); `rest` is what follows the header on its line. */
static bool rule_body(Parser *p, SlrRule *r, int h, size_t rest, int end)
{
    const Line *l = &p->lines[h];
    const char *s = l->s + rest;
    size_t n = l->n - rest, a = skip_blanks(s, n, 0);
    s += a, n = trim_end(s, n - a);
    if (starts_rule(s, n)) {
        message(p, true, l->line, l->col + (int)(rest + a), "a second rule header on the line of rule %s", r->id);
        return false;
    }
    int from = h + 1;
    while (from < end && p->lines[from].kind == L_BLANK) from++;
    if (n && l->flat && from == end) {
        /* flattened: title and text run together on this piece */
        size_t cut = split_flat(s, n);
        r->title = xstrndup(s, trim_end(s, cut));
        r->text = xstrndup(s + cut, n - cut);
        if (!cut)
            message(p, false, l->line, l->col + (int)(rest + a),
                    "rule %s: cannot tell its title from its text; the title is left empty", r->id);
        return true;
    }
    if (n) r->title = xstrndup(s, n);
    else if (from < end && indent_of(&p->lines[from]) == 0 && !p->lines[from].flat)
        r->title = copy_trimmed(p->lines[from].s, p->lines[from].n), from++;
    else r->title = xstrdup("");
    if (!*r->title) message(p, false, l->line, l->col, "rule %s has no title", r->id);
    r->text = lines_text(p, from, end);
    return true;
}

static int find_rule(const SlrDoc *d, const char *id, int before)
{
    for (int i = 0; i < before; i++)
        if (digits_cmp(d->rules[i].id, strlen(d->rules[i].id), id, strlen(id)) == 0) return i;
    return -1;
}

/* A rule: its header at line i.  Returns the line after it. */
static int parse_rule(Parser *p, int i, int section)
{
    int end = skip_to_block_end(p, i + 1);
    SlrRule r = {.section = section};
    size_t rest = parse_header(p, &p->lines[i], &r);
    if (!rest || !rule_body(p, &r, i, rest, end)) {
        free_rule(&r);
        return end;
    }
    SlrDoc *d = p->doc;
    int dup = find_rule(d, r.id, d->nrules);
    if (dup >= 0)
        message(p, false, r.line, r.col, "rule %s appears twice (also at line %d, column %d); both are kept", r.id,
                d->rules[dup].line, d->rules[dup].col);
    GROW(d->rules, d->nrules, d->rulecap);
    d->rules[d->nrules++] = r;
    return end;
}

/* A block opened by a line of `=` at line i: a section (a heading and an
 * optional note, closed by a line of `-`, or framed by a second line of
 * `=`), or the footer (no rule after it, and nothing after it but its
 * closing line).  Returns the line after it and sets *section to the
 * section now open. */
static int parse_block(Parser *p, int i, int *section)
{
    int end = skip_to_block_end(p, i + 1), from = i + 1;
    while (from < end && p->lines[from].kind == L_BLANK) from++;
    bool closed = end < p->nlines && (p->lines[end].kind == L_DASH || p->lines[end].kind == L_EQ);
    int next = closed ? end + 1 : end;
    /* a footer is not closed by a line of `-`: that closes a section,
     * even an empty last one, which is how slr_emit writes it */
    bool dash_closed = closed && p->lines[end].kind == L_DASH;
    if (p->last_header < i && next > p->last_text && !dash_closed) {
        free(p->doc->footer);
        p->doc->footer = lines_text(p, from, end);
        return next;
    }
    char *heading = from < end ? copy_trimmed(p->lines[from].s, p->lines[from].n) : xstrdup("");
    char *note = lines_text(p, from < end ? from + 1 : end, end);
    SlrDoc *d = p->doc;
    GROW(d->sections, d->nsections, d->seccap);
    d->sections[d->nsections] = (SlrSection){heading, note};
    *section = d->nsections++;
    return next;
}

static void parse_lines(Parser *p)
{
    int i = 0, section = -1;
    p->last_header = p->last_text = -1;
    for (int k = 0; k < p->nlines; k++) {
        if (p->lines[k].kind == L_HEADER) p->last_header = k;
        if (p->lines[k].kind != L_BLANK) p->last_text = k;
    }
    while (i < p->nlines && p->lines[i].kind != L_DASH && p->lines[i].kind != L_EQ && p->lines[i].kind != L_HEADER)
        i++;
    p->doc->header = lines_text(p, 0, i);
    while (i < p->nlines) {
        const Line *l = &p->lines[i];
        switch (l->kind) {
        case L_BLANK:
        case L_DASH: i++; break;
        case L_EQ: i = parse_block(p, i, &section); break;
        case L_HEADER: i = parse_rule(p, i, section); break;
        case L_TEXT:
            message(p, true, l->line, l->col + (int)indent_of(l),
                    "expected a rule ('Rule ID/REV (Power=P)') or a separator, found \"%.*s\"",
                    (int)(l->n - indent_of(l) > 30 ? 30 : l->n - indent_of(l)), l->s + indent_of(l));
            i = skip_to_block_end(p, i + 1);
            break;
        }
    }
}

/* Would a line of s, written at the start of a line, read back as
 * something else: a separator, or (unless `indented`) a rule's header? */
static const char *misreads(const char *s, bool indented)
{
    while (*s) {
        size_t n = strcspn(s, "\n");
        LineKind k = classify(s, n);
        if (k == L_DASH || k == L_EQ || (!indented && k == L_HEADER)) return s;
        s += n + (s[n] == '\n');
    }
    return NULL;
}

/* What a parse keeps must be written back as it was read (slr_emit writes
 * the header, footer, notes, headings and titles at the start of a line,
 * texts indented); an SLR where it would not is refused. */
static void check_writable(Parser *p)
{
    SlrDoc *d = p->doc;
    const char *bad = NULL, *where = NULL;
    int line = 1;
    if ((bad = misreads(d->header ? d->header : "", false))) where = "the header";
    else if ((bad = misreads(d->footer ? d->footer : "", false))) where = "the footer";
    for (int i = 0; !bad && i < d->nsections; i++)
        if ((bad = misreads(d->sections[i].heading, false)) || (bad = misreads(d->sections[i].note, false)))
            where = "a section's heading or note";
    for (int i = 0; !bad && i < d->nrules; i++)
        if ((bad = misreads(d->rules[i].title, false)) || (bad = misreads(d->rules[i].text, true)))
            where = "a rule's title or text", line = d->rules[i].line;
    if (bad)
        message(p, true, line, 1, "%s holds a line that would read as a rule header or a separator (\"%.30s\"): it "
                "could not be written back", where, bad);
}

bool slr_parse(const char *text, size_t len, const char *fname, SlrDoc *doc, Buf *err, Buf *warn)
{
    Parser p = {.fname = fname, .err = err, .warn = warn, .doc = doc};
    if (check_bytes(&p, text, len)) {
        split_lines(&p, text, len);
        parse_lines(&p);
        if (!p.nerrors) check_writable(&p);
        if (!p.nerrors && doc->nrules == 0)
            message(&p, true, p.nlines ? p.lines[p.nlines - 1].line : 1, 1,
                    "no rule found (a rule begins 'Rule ID/REV (Power=P)')");
    }
    if (p.nerrors > MAX_ERRORS) buf_printf(err, "%s: %d more errors\n", fname, p.nerrors - MAX_ERRORS);
    free(p.lines);
    return p.nerrors == 0;
}

void slr_doc_free(SlrDoc *d)
{
    for (int i = 0; i < d->nrules; i++) free_rule(&d->rules[i]);
    for (int i = 0; i < d->nsections; i++) free(d->sections[i].heading), free(d->sections[i].note);
    free(d->rules), free(d->sections), free(d->header), free(d->footer);
    *d = (SlrDoc){0};
}

/* ---- building and writing ---- */

int slr_add_section(SlrDoc *d, const char *heading, const char *note)
{
    for (int i = 0; i < d->nsections; i++)
        if (strcmp(d->sections[i].heading, heading) == 0) return i;
    GROW(d->sections, d->nsections, d->seccap);
    d->sections[d->nsections] = (SlrSection){xstrdup(heading), xstrdup(note ? note : "")};
    return d->nsections++;
}

SlrRule *slr_add_rule(SlrDoc *d, const char *id, const char *revision, const char *power, const char *title,
                      const char *text, int section)
{
    GROW(d->rules, d->nrules, d->rulecap);
    SlrRule *r = &d->rules[d->nrules++];
    *r = (SlrRule){xstrdup(id), xstrdup(revision), xstrdup(power), xstrdup(title), xstrdup(text), section, 0, 0};
    return r;
}

const char *slr_section_of(const SlrDoc *d, const SlrRule *r)
{
    return r->section >= 0 && r->section < d->nsections ? d->sections[r->section].heading : "";
}

static void rule_line(Buf *b, char c)
{
    for (int i = 0; i < SEP_WIDTH; i++) buf_putc(b, c);
    buf_putc(b, '\n');
}

/* Each line of s indented by `indent` spaces (blank lines left empty). */
static void put_indented(Buf *b, const char *s, int indent)
{
    while (*s) {
        size_t n = strcspn(s, "\n");
        if (n) buf_printf(b, "%*s%.*s", indent, "", (int)n, s);
        buf_putc(b, '\n');
        s += n + (s[n] == '\n');
    }
}

static void emit_rule(Buf *b, const SlrRule *r)
{
    buf_printf(b, "Rule %s/%s (Power=%s)\n%s\n\n", r->id, r->revision, r->power, r->title);
    if (*r->text) {
        put_indented(b, r->text, TEXT_INDENT);
        buf_putc(b, '\n');
    }
    rule_line(b, '-');
    buf_putc(b, '\n');
}

static void emit_section(Buf *b, const SlrDoc *d, int s)
{
    if (s >= 0) {
        rule_line(b, '=');
        buf_printf(b, "%s\n", d->sections[s].heading);
        if (*d->sections[s].note) put_indented(b, d->sections[s].note, 0);
        rule_line(b, '-');
        buf_putc(b, '\n');
    }
    for (int i = 0; i < d->nrules; i++)
        if (d->rules[i].section == s || (s < 0 && (d->rules[i].section < 0 || d->rules[i].section >= d->nsections)))
            emit_rule(b, &d->rules[i]);
}

void slr_emit(const SlrDoc *d, Buf *b)
{
    if (d->header && *d->header) buf_printf(b, "%s\n\n", d->header);
    for (int s = -1; s < d->nsections; s++) emit_section(b, d, s);
    if (d->footer && *d->footer) {
        rule_line(b, '=');
        buf_printf(b, "%s\n", d->footer);
    }
}

bool slr_same_rules(const SlrDoc *a, const SlrDoc *b, Buf *why)
{
    if (a->nrules != b->nrules) {
        buf_printf(why, "%d rules, then %d", a->nrules, b->nrules);
        return false;
    }
    for (int i = 0; i < a->nrules; i++) {
        const SlrRule *x = &a->rules[i], *y = &b->rules[i];
        const char *what = strcmp(x->id, y->id)                               ? "ID"
                           : strcmp(x->revision, y->revision)                 ? "revision"
                           : slr_power_cmp(x->power, y->power)                ? "power"
                           : strcmp(x->title, y->title)                       ? "title"
                           : strcmp(x->text, y->text)                         ? "text"
                           : strcmp(slr_section_of(a, x), slr_section_of(b, y)) ? "section"
                                                                              : NULL;
        if (what) {
            buf_printf(why, "rule %d (%s) differs in its %s", i + 1, x->id, what);
            return false;
        }
    }
    return true;
}
