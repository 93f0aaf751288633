/*
 * lang_lex.h - the lexer of the rule language.
 *
 * Tokens carry their position as (line, column) inside the text being
 * lexed, both 1-based; the caller maps them to a file position.  A token's
 * text points into the source, which must outlive the lexer.
 */
#ifndef NOMIC_LANG_LEX_H
#define NOMIC_LANG_LEX_H

#include <stddef.h>

typedef enum {
    TK_EOF, TK_ERROR,
    TK_NUMBER, TK_STRING, TK_VAR, TK_IDENT, TK_TRUE, TK_FALSE,
    TK_LPAREN, TK_RPAREN, TK_COMMA,
    TK_AND, TK_OR, TK_NOT,
    TK_EQ, TK_NE, TK_LT, TK_LE, TK_GT, TK_GE,
    TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH,
} TokKind;

typedef struct Token {
    TokKind kind;
    const char *start; /* the token's characters in the source */
    size_t len;
    int line, col;
    char *str;         /* TK_STRING: the unescaped text (owned by the lexer) */
    size_t strlen;
    const char *error; /* TK_ERROR: what is wrong */
} Token;

typedef struct Lexer {
    const char *src, *end, *p;
    int line;
    const char *line_start;
    Token tok;         /* the current token */
} Lexer;

void lex_init(Lexer *lx, const char *src, size_t len);
void lex_next(Lexer *lx);   /* advances lx->tok */
void lex_free(Lexer *lx);
const char *tok_name(TokKind k);

#endif
