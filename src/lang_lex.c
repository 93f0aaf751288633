/*
 * lang_lex.c - hand-written lexer for conditions and verb lists.
 */
#include "lang_lex.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void lex_init(Lexer *lx, const char *src, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->src = lx->p = lx->line_start = src;
    lx->end = src + len;
    lx->line = 1;
    lex_next(lx);
}

void lex_free(Lexer *lx)
{
    free(lx->tok.str);
    lx->tok.str = NULL;
}

const char *tok_name(TokKind k)
{
    static const char *names[] = {
        "end of text", "error", "number", "string", "variable", "name", "T", "F",
        "'('", "')'", "','", "'&'", "'|'", "'!'", "'=='", "'!='", "'<'", "'<='",
        "'>'", "'>='", "'+'", "'-'", "'*'", "'/'",
    };
    return names[k];
}

static void skip_space(Lexer *lx)
{
    while (lx->p < lx->end && isspace((unsigned char)*lx->p)) {
        if (*lx->p == '\n') {
            lx->line++;
            lx->line_start = lx->p + 1;
        }
        lx->p++;
    }
}

static void error_at(Lexer *lx, const char *msg)
{
    lx->tok.kind = TK_ERROR;
    lx->tok.error = msg;
}

static void lex_string(Lexer *lx)
{
    Buf b = {0};
    lx->p++; /* opening quote */
    while (lx->p < lx->end && *lx->p != '"') {
        char c = *lx->p++;
        if (c == '\n') {
            lx->line++;
            lx->line_start = lx->p;
        }
        if (c == '\\' && lx->p < lx->end) {
            char e = *lx->p++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            default:
                buf_free(&b);
                error_at(lx, "unknown escape in string (use \\\" \\\\ \\n or \\t)");
                return;
            }
        }
        buf_putc(&b, c);
    }
    if (lx->p >= lx->end) {
        buf_free(&b);
        error_at(lx, "string without its closing quote");
        return;
    }
    lx->p++;
    lx->tok.kind = TK_STRING;
    lx->tok.strlen = b.len;
    lx->tok.str = buf_take(&b);
}

void lex_next(Lexer *lx)
{
    free(lx->tok.str);
    memset(&lx->tok, 0, sizeof lx->tok);
    skip_space(lx);
    Token *t = &lx->tok;
    t->start = lx->p;
    t->line = lx->line;
    t->col = (int)(lx->p - lx->line_start) + 1;
    if (lx->p >= lx->end) {
        t->kind = TK_EOF;
        return;
    }
    const char *p = lx->p;
    char c = *p;
    char n = p + 1 < lx->end ? p[1] : 0;
    if (isdigit((unsigned char)c)) {
        while (p < lx->end && isdigit((unsigned char)*p)) p++;
        if (p + 1 < lx->end && *p == '.' && isdigit((unsigned char)p[1])) {
            p++;
            while (p < lx->end && isdigit((unsigned char)*p)) p++;
        }
        t->kind = TK_NUMBER;
    } else if (isalpha((unsigned char)c) || c == '_') {
        while (p < lx->end && (isalnum((unsigned char)*p) || *p == '_')) p++;
        t->kind = TK_IDENT;
        if (p - lx->p == 1 && c == 'T') t->kind = TK_TRUE;
        if (p - lx->p == 1 && c == 'F') t->kind = TK_FALSE;
    } else if (c == '%') {
        p++;
        if (p >= lx->end || !(isalpha((unsigned char)*p) || *p == '_')) {
            lx->p = p;
            t->len = 1;
            error_at(lx, "'%' must be followed by a variable name");
            return;
        }
        while (p < lx->end && (isalnum((unsigned char)*p) || *p == '_')) p++;
        t->kind = TK_VAR;
    } else if (c == '"') {
        lex_string(lx);
        t->len = (size_t)(lx->p - t->start);
        return;
    } else {
        p++;
        switch (c) {
        case '(': t->kind = TK_LPAREN; break;
        case ')': t->kind = TK_RPAREN; break;
        case ',': t->kind = TK_COMMA; break;
        case '&': t->kind = TK_AND; break;
        case '|': t->kind = TK_OR; break;
        case '+': t->kind = TK_PLUS; break;
        case '-': t->kind = TK_MINUS; break;
        case '*': t->kind = TK_STAR; break;
        case '/': t->kind = TK_SLASH; break;
        case '!':
            if (n == '=') { p++; t->kind = TK_NE; } else t->kind = TK_NOT;
            break;
        case '<':
            if (n == '=') { p++; t->kind = TK_LE; } else t->kind = TK_LT;
            break;
        case '>':
            if (n == '=') { p++; t->kind = TK_GE; } else t->kind = TK_GT;
            break;
        case '=':
            if (n == '=') { p++; t->kind = TK_EQ; break; }
            lx->p = p;
            t->len = 1;
            error_at(lx, "a single '=' is not a comparison: use ==");
            return;
        default:
            lx->p = p;
            t->len = 1;
            error_at(lx, "unexpected character");
            return;
        }
    }
    t->len = (size_t)(p - lx->p);
    lx->p = p;
}
