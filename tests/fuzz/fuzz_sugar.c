/*
 * fuzz_sugar.c - libFuzzer target for sugar tables: any input parses or is
 * refused with a message; a table that parses rewrites a body built from
 * its own patterns without crashing, or says which line is wrong.  Up to
 * a byte 0x01 the input is the table; what follows is a body of its own,
 * so that lines of any length meet a table.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "move_sugar.h"

/* libFuzzer's entry point, which no header of ours declares */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    char *cut = memchr(text, 1, size), *lines = cut ? cut + 1 : text;
    if (cut) *cut = 0;
    Buf err = {0};
    Sugar *s = sugar_parse(text, "fuzz", &err);
    if (!s) {
        if (err.len == 0) abort(); /* a refusal must say why */
    } else {
        /* the table's own pattern lines, read as a body */
        Buf body = {0}, out = {0}, e2 = {0};
        sugar_describe(s, &body);
        if (!sugar_expand(s, buf_str(&body), &out, &e2) && e2.len == 0) abort();
        if (!sugar_expand(s, lines, &out, &e2) && e2.len == 0) abort();
        buf_free(&body);
        buf_free(&out);
        buf_free(&e2);
        sugar_free(s);
    }
    buf_free(&err);
    free(text);
    return 0;
}
