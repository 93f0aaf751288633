/*
 * test_lang.c - the rule language's lexer, parser and static checker.
 */
#include <stdlib.h>
#include <string.h>

#include "lang_check.h"
#include "lang_lex.h"
#include "lang_parse.h"
#include "move_code.h"
#include "unit.h"

static void lexer_tokens_and_positions(void **state)
{
    const char *src = "exists(a==\"x\\\"y\" &\n  %v >= -2.5) | !T";
    TokKind want[] = {TK_IDENT, TK_LPAREN, TK_IDENT, TK_EQ, TK_STRING, TK_AND, TK_VAR, TK_GE,
                      TK_MINUS, TK_NUMBER, TK_RPAREN, TK_OR, TK_NOT, TK_TRUE, TK_EOF};
    Lexer lx;
    lex_init(&lx, src, strlen(src));
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        if (lx.tok.kind != want[i]) fail_msg("token %zu: %s, expected %s", i, tok_name(lx.tok.kind), tok_name(want[i]));
        if (want[i] == TK_STRING) assert_string_equal(lx.tok.str, "x\"y");
        if (want[i] == TK_VAR) {
            assert_int_equal(lx.tok.line, 2);
            assert_int_equal(lx.tok.col, 3);
        }
        lex_next(&lx);
    }
    lex_free(&lx);
}

static void lexer_errors(void **state)
{
    const char *bad[] = {"\"open", "a @ b", "%", "a = b"};
    for (int i = 0; i < 4; i++) {
        Lexer lx;
        lex_init(&lx, bad[i], strlen(bad[i]));
        bool err = false;
        for (int k = 0; k < 10 && lx.tok.kind != TK_EOF; k++) {
            if (lx.tok.kind == TK_ERROR) {
                err = true;
                assert_non_null(lx.tok.error);
                break;
            }
            lex_next(&lx);
        }
        if (!err) fail_msg("\"%s\" lexed without an error", bad[i]);
        lex_free(&lx);
    }
}

/* Parses cond and then; returns the error message, or "" when it parses. */
static const char *parse_msg(const char *cond, const char *then, int *line, int *col)
{
    static ParseError pe;
    memset(&pe, 0, sizeof pe);
    Prog *p = parse_rule(cond, cond ? strlen(cond) : 0, then, then ? strlen(then) : 0, &pe);
    if (p) {
        prog_free(p);
        return "";
    }
    if (line) *line = pe.line;
    if (col) *col = pe.col;
    return pe.msg;
}

static void parser_accepts_the_papers_forms(void **state)
{
    assert_string_equal(parse_msg("exists(type==\"x\" & a==%v) & !exists(type==\"y\" & b==%v)", NULL, NULL, NULL), "");
    assert_string_equal(parse_msg(NULL, "set(%o)(x==1) & sendObject(%s)(objectId==%o)(\"h\" %n \"!\")", NULL, NULL), "");
    assert_string_equal(parse_msg(NULL, "sendObject(%pl,%o,\"Proposed (proposal\" %b\"):\")", NULL, NULL), "");
    assert_string_equal(parse_msg("count(type==\"v\")<(count(type==\"p\")/4)", NULL, NULL, NULL), "");
    assert_string_equal(parse_msg("T", "halt()", NULL, NULL), "");
}

static void parser_errors_say_where(void **state)
{
    int line = 0, col = 0;
    const char *m = parse_msg("exists(type=\"x\")", NULL, &line, &col);
    assert_non_null(strstr(m, "use =="));
    assert_int_equal(col, 12);
    m = parse_msg("exists(a==1) &\n", NULL, &line, &col);
    assert_non_null(strstr(m, "dangling '&'"));
    assert_int_equal(line, 1);
    assert_int_equal(col, 14);
    m = parse_msg("frob(1)", NULL, &line, &col);
    assert_non_null(strstr(m, "frob"));
    m = parse_msg("exists(a==1", NULL, &line, &col);
    assert_true(m[0] != 0);
    m = parse_msg("count(a==1, 2, 3)", NULL, &line, &col);
    assert_true(m[0] != 0);
}

/* n copies of `open`, then `mid`, then n copies of `close`: malloc'd. */
static char *nest(const char *open, const char *mid, const char *close, int n)
{
    Buf b = {0};
    for (int i = 0; i < n; i++) buf_puts(&b, open);
    buf_puts(&b, mid);
    for (int i = 0; i < n; i++) buf_puts(&b, close);
    return buf_take(&b);
}

/* prefix, then item joined n times by sep: malloc'd. */
static char *join(const char *prefix, const char *item, const char *sep, int n)
{
    Buf b = {0};
    buf_puts(&b, prefix);
    for (int i = 0; i < n; i++) buf_printf(&b, "%s%s", i ? sep : "", item);
    return buf_take(&b);
}

/* Each way of nesting is taken to 256 levels and refused at 257, at the
 * column where the 257th level opens (the '(' of a call). */
static void nesting_is_bounded(void **state)
{
    static const struct {
        const char *open, *mid, *close;
    } ways[] = {
        {"(", "T", ")"}, {"!", "T", ""}, {"-", "1 == 1", ""}, {"if(", "T", ", T, F)"}, {"exists(", "T", ")"},
    };
    for (size_t k = 0; k < sizeof ways / sizeof *ways; k++) {
        char *ok = nest(ways[k].open, ways[k].mid, ways[k].close, PARSE_MAX_DEPTH);
        assert_string_equal(parse_msg(ok, NULL, NULL, NULL), "");
        free(ok);
        int line = 0, col = 0;
        char *deep = nest(ways[k].open, ways[k].mid, ways[k].close, 200000);
        const char *m = parse_msg(deep, NULL, &line, &col);
        assert_non_null(strstr(m, "nested more than 256 deep"));
        assert_int_equal(line, 1);
        assert_int_equal(col, (PARSE_MAX_DEPTH + 1) * (int)strlen(ways[k].open));
        free(deep);
    }
    /* the then is bounded the same way, and says so as the then's error */
    char *deep = nest("(", "halt()", ")", 300000);
    ParseError pe = {.part = PART_IF};
    assert_null(parse_rule("T", 1, deep, strlen(deep), &pe));
    assert_int_equal(pe.part, PART_THEN);
    assert_non_null(strstr(pe.msg, "nested more than 256 deep"));
    free(deep);
}

/* Flat chains have no depth to speak of but build a tree as long as they
 * are, which the evaluator walks one frame per goal: the node count bounds
 * them, for every kind of chain, in the if and in the then. */
static void long_chains_are_bounded(void **state)
{
    static const struct {
        const char *prefix, *item, *sep;
        bool then;
    } chains[] = {
        {"", "T", " & ", false},   {"", "F", " | ", false},       {"%x == ", "\"a\"", " ", false},
        {"%x == ", "1", " + ", false}, {"if(", "T", ", ", false}, {"", "halt()", " & ", true},
    };
    for (size_t k = 0; k < sizeof chains / sizeof *chains; k++) {
        char *c = join(chains[k].prefix, chains[k].item, chains[k].sep, 300000);
        const char *m = chains[k].then ? parse_msg("T", c, NULL, NULL) : parse_msg(c, NULL, NULL, NULL);
        assert_non_null(strstr(m, "more than 4096 values, names and operators in one rule"));
        free(c);
    }
    /* 2,000 conjuncts (4,000 nodes) are within the limit */
    char *c = join("", "T", " & ", 2000);
    assert_string_equal(parse_msg(c, "halt()", NULL, NULL), "");
    free(c);
}

static const Node *strip(const Node *n) { return n; }

static void precedence_and_sugar(void **state)
{
    ParseError pe;
    Prog *p = parse_rule("%a == 1 + 2 * 3 | !%b & %c", 26, NULL, 0, &pe);
    assert_non_null(p);
    const Node *n = strip(p->cond);
    assert_int_equal(n->kind, N_OR); /* | binds loosest */
    assert_int_equal(n->kid[0]->kind, N_CMP);
    assert_int_equal(n->kid[0]->kid[1]->kind, N_ARITH); /* 1 + (2 * 3) */
    assert_int_equal(n->kid[1]->kind, N_AND);
    assert_int_equal(n->kid[1]->kid[0]->kind, N_NOT);
    prog_free(p);
    /* a lone variable as a match means objectId==%o */
    p = parse_rule(NULL, 0, "delete(%o)", 10, &pe);
    assert_non_null(p);
    const Node *m = p->then->kid[0];
    assert_int_equal(m->kind, N_CMP);
    assert_int_equal(m->kid[0]->sym, SYM_objectId);
    prog_free(p);
}

/* Runs the checker; returns the diagnostics joined by '|'. */
static const char *check(const char *cond, const char *then)
{
    static char out[1024];
    ParseError pe;
    Prog *p = parse_rule(cond, cond ? strlen(cond) : 0, then, then ? strlen(then) : 0, &pe);
    if (!p) fail_msg("does not parse: %s", pe.msg);
    Diags d = {0};
    check_prog(p, &d);
    out[0] = 0;
    for (int i = 0; i < d.n; i++) {
        strncat(out, d.d[i].error ? "E:" : "W:", sizeof out - strlen(out) - 1);
        strncat(out, d.d[i].msg, sizeof out - strlen(out) - 1);
        strncat(out, "|", sizeof out - strlen(out) - 1);
    }
    diags_free(&d);
    prog_free(p);
    return out;
}

static void checker(void **state)
{
    /* a clean rule */
    assert_string_equal(check("exists(type==\"m\" & a==%v & objectId==%o)", "set(%o)(b==%v)"), "");
    /* the paper's rule 16: %b bound and never used */
    const char *r = check("exists(type==\"move\" & propId==%p & objectId==%o) & exists(type==\"voteInProgress\" & propId==%b)",
                          "set(%o)(type==\"vote\")");
    assert_non_null(strstr(r, "W:variable %b is bound but never used"));
    /* used before bound */
    assert_non_null(strstr(check("%x > 1", "halt()"), "E:variable %x is used before"));
    /* an attribute outside a match */
    assert_non_null(strstr(check("score > 1", "halt()"), "E:attribute score is read outside a match"));
    /* a verb in a condition, a function as a verb */
    assert_non_null(strstr(check("halt()", "halt()"), "E:halt is a verb"));
    assert_non_null(strstr(check("T", "count(T)"), "E:count is a function, not a verb"));
    /* a local variable of !exists does not escape */
    assert_non_null(strstr(check("!exists(a==%v)", "send(%v, \"x\")"), "E:variable %v is used before"));
    /* create binds its new id for what follows */
    assert_string_equal(check("T", "create(type==\"x\" & objectId==%n) & set(%n)(y==1)"), "");
}

/* A verb that sends takes addresses first: an object's id there is a slip
 * the checker can see, when objectId==%v is what binds the variable. */
/* The Mechanics' code check reads every word of the settings'
 * codeAttributes for every move, and checking a word parses the move's
 * code, which makes new texts: a short setting ("newif x", kept inside
 * the table of texts) must still be read whole while that table grows.
 * (The sanitizer build sees a word read from a moved table.) */
static void code_check_reads_every_word(void **state)
{
    SymTable *t = sym_table_new(); /* few texts: the parse makes the table grow */
    sym_use(t);
    Pool *p = pool_new();
    Attr set[] = {{SYM_type, SYM_engineSettings}, {sym_cstr("codeAttributes"), sym_cstr("newif x")}};
    pool_create_with(p, set, 2);
    Buf move = {0}, err = {0};
    buf_puts(&move, "newif: exists(type==\"p\"");
    for (int i = 0; i < 1300; i++) buf_printf(&move, " & a%d==\"v%d\"", i, i);
    buf_puts(&move, ")\nx: frobnicate(1)\n");
    FmtDoc doc = {0};
    assert_true(fmt_read(move.s, move.len, "move", &doc, &err));
    CodeNotes notes = {0};
    code_check_moves(p, &doc, &notes);
    /* the first word's value: over the size limit; the second's: read */
    assert_int_equal(notes.errors, 2);
    assert_int_equal(notes.len, 2);
    assert_true(notes.n[1].attr == sym_cstr("x"));
    assert_non_null(strstr(notes.n[1].msg, "frobnicate"));
    code_notes_free(&notes);
    fmt_doc_free(&doc);
    buf_free(&move);
    buf_free(&err);
    pool_free(p);
    sym_use(NULL);
    sym_table_free(t);
}

static void checker_recipients(void **state)
{
    const char *W = "W:%o is an object's id (bound by objectId==%o), not an address: send sends to addresses|";
    assert_string_equal(check("exists(type==\"player\" & objectId==%o)", "send(%o, \"hi\")"), W);
    assert_string_equal(check("exists(type==\"move\" & moveSender==%s & objectId==%o)", "sendObject(%o)(objectId==%o)(\"x\") & send(%s, \"x\")"),
                        "W:%o is an object's id (bound by objectId==%o), not an address: sendObject sends to addresses|");
    /* the id of an object create makes; inside forEach; written objectId on either side */
    assert_string_equal(check("T", "create(type==\"x\" & objectId==%n) & send(%n, \"new\")"),
                        "W:%n is an object's id (bound by objectId==%n), not an address: send sends to addresses|");
    assert_string_equal(check("T", "forEach(type==\"p\" & objectId==%o)(send(%o, \"x\"))"), W);
    assert_string_equal(check("exists(type==\"p\" & %o==objectId)", "send(%o, \"x\")"), W);
    /* must not warn: an address (moveSender, defaultEmail), an id in the text, a variable some
     * binding makes something else, an attribute that may hold anything */
    assert_string_equal(check("exists(type==\"move\" & moveSender==%s & objectId==%o)", "send(%s, %o) & delete(%o)"), "");
    assert_string_equal(check("exists(type==\"player\" & defaultEmail==%e & objectId==%o)", "send(%e, \"x\") & delete(%o)"), "");
    assert_string_equal(check("exists(type==\"p\" & objectId==%o) | exists(type==\"q\" & addr==%o)", "send(%o, \"x\")"), "");
    assert_string_equal(check("exists(type==\"p\" & owner==%o)", "send(%o, \"x\")"), "");
    /* the position is the recipients' */
    ParseError pe;
    const char *cond = "exists(objectId==%o)", *then = "halt() &\n  send(%o, \"x\")";
    Prog *p = parse_rule(cond, strlen(cond), then, strlen(then), &pe);
    assert_non_null(p);
    Diags d = {0};
    check_prog(p, &d);
    assert_int_equal(d.n, 1);
    assert_false(d.d[0].error);
    assert_int_equal(d.d[0].part, PART_THEN);
    assert_int_equal(d.d[0].line, 2);
    assert_int_equal(d.d[0].col, 8);
    diags_free(&d);
    prog_free(p);
}

int run_lang_tests(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lexer_tokens_and_positions),
        cmocka_unit_test(lexer_errors),
        cmocka_unit_test(parser_accepts_the_papers_forms),
        cmocka_unit_test(parser_errors_say_where),
        cmocka_unit_test(nesting_is_bounded),
        cmocka_unit_test(long_chains_are_bounded),
        cmocka_unit_test(precedence_and_sugar),
        cmocka_unit_test(checker),
        cmocka_unit_test(checker_recipients),
        cmocka_unit_test(code_check_reads_every_word),
    };
    return cmocka_run_group_tests_name("lexer, parser, checker", tests, NULL, NULL);
}
