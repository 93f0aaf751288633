/*
 * eval_check.c - a test driver for eval(text, i, v): reads lines
 * "TEXT I V" on standard input and prints, for each, the value that the
 * rule language's eval() gives (an empty line when it is undefined).
 * A lone "_" stands for the empty text, since words cannot be empty.
 * tests/eval_property.py feeds it random cases and checks the answers
 * against an evaluator of its own.
 */
#include <stdio.h>
#include <string.h>

#include "eval_math.h"

/* The next space-separated word of *p as a Sym ("_" is ""). */
static Sym word(char **p)
{
    char *s = *p;
    while (*s == ' ') s++;
    char *e = s;
    while (*e && *e != ' ') e++;
    *p = *e ? e + 1 : e;
    size_t n = (size_t)(e - s);
    if (n == 1 && *s == '_') return SYM_EMPTY;
    return sym_intern(s, n);
}

int main(void)
{
    char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        char *p = line;
        Sym text = word(&p), i = word(&p), v = word(&p);
        puts(sym_text(mathexpr_eval_sym(text, i, v)));
    }
    value_shutdown();
    return 0;
}
