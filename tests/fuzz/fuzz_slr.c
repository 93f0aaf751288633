/*
 * fuzz_slr.c - libFuzzer target for the Short Logical Ruleset reader: any
 * input parses or is refused with a message; an SLR that parses is
 * written out again, and what was written parses back to the same rules
 * and is written the same way (the round trip nomic slr emit promises).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slr.h"

/* libFuzzer's entry point, which no header of ours declares */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    SlrDoc d = {0}, again = {0};
    Buf err = {0}, out = {0}, out2 = {0}, why = {0};
    if (!slr_parse((const char *)data, size, "fuzz", &d, &err, NULL)) {
        if (err.len == 0) abort(); /* a refusal must say why */
    } else {
        slr_emit(&d, &out);
        if (!slr_parse(buf_str(&out), out.len, "emitted", &again, &err, NULL)) {
            fprintf(stderr, "emitted SLR does not parse: %s\n", buf_str(&err));
            abort();
        }
        if (!slr_same_rules(&d, &again, &why)) {
            fprintf(stderr, "round trip: %s\n", buf_str(&why));
            abort();
        }
        slr_emit(&again, &out2);
        if (out.len != out2.len || memcmp(buf_str(&out), buf_str(&out2), out.len) != 0) abort();
    }
    slr_doc_free(&d);
    slr_doc_free(&again);
    buf_free(&err);
    buf_free(&out);
    buf_free(&out2);
    buf_free(&why);
    return 0;
}
