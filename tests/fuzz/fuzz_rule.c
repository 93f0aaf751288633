/*
 * fuzz_rule.c - libFuzzer target for the rule language: the input is read
 * as an if (up to the first byte 0x01) and a then (the rest); any input
 * either compiles or is refused with a position and a message, and the
 * checker runs on whatever parses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang_check.h"
#include "lang_parse.h"

/* libFuzzer's entry point, which no header of ours declares */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    const char *cut = memchr(s, 1, size);
    size_t clen = cut ? (size_t)(cut - s) : size;
    const char *then = cut ? cut + 1 : NULL;
    size_t tlen = cut ? size - clen - 1 : 0;
    ParseError pe = {0};
    /* as a condition alone, as a then alone, and as both */
    Prog *a = parse_rule(s, clen, NULL, 0, &pe);
    if (!a && pe.msg[0] == 0) abort();
    pe.msg[0] = 0;
    Prog *b = parse_rule(NULL, 0, s, clen, &pe);
    if (!b && pe.msg[0] == 0) abort();
    Prog *c = then ? parse_rule(s, clen, then, tlen, &pe) : NULL;
    Prog *ps[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        if (!ps[i]) continue;
        Diags d = {0};
        check_prog(ps[i], &d);
        diags_free(&d);
        prog_free(ps[i]);
    }
    return 0;
}
