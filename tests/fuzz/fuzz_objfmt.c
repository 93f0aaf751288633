/*
 * fuzz_objfmt.c - libFuzzer target for the object text format: any input
 * either parses or is refused with a message; what parses, printed and
 * read back, gives the same objects.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "objfmt.h"
#include "pool.h"

static Pool *load(const FmtDoc *doc)
{
    Pool *p = pool_new();
    for (int i = 0; i < doc->n; i++) {
        ObjId id = pool_create(p);
        for (int k = 0; k < doc->objs[i].n; k++) pool_set(p, id, doc->objs[i].attrs[k].name, doc->objs[i].attrs[k].value);
    }
    return p;
}

/* libFuzzer's entry point, which no header of ours declares */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FmtDoc doc = {0};
    Buf err = {0};
    bool ok = fmt_read((const char *)data, size, "fuzz", &doc, &err);
    if (!ok && err.len == 0) abort(); /* a refusal must say why */
    if (ok) {
        Pool *p = load(&doc);
        Buf out = {0};
        for (ObjId id = 1; id < p->next_id; id++) {
            if (id > 1) buf_puts(&out, "\n");
            fmt_print_obj(&out, pool_get(p, id), NULL, NULL);
        }
        FmtDoc again = {0};
        Buf err2 = {0};
        if (!fmt_read(out.s ? out.s : "", out.len, "printed", &again, &err2)) abort();
        Pool *q = load(&again);
        /* the same objects (each printed with its objectId, so an object
         * with no attribute survives too), with the same attributes */
        if (q->next_id != p->next_id) abort();
        for (ObjId id = 1; id < p->next_id; id++) {
            const Obj *a = pool_get(p, id), *b = pool_get(q, id);
            if (!b || obj_n(a) != obj_n(b)) abort();
            for (uint32_t k = 0; k < obj_n(a); k++)
                if (obj_name(a, k) != obj_name(b, k) || obj_value(a, k) != obj_value(b, k)) abort();
        }
        fmt_doc_free(&again);
        buf_free(&err2);
        buf_free(&out);
        pool_free(p);
        pool_free(q);
    }
    fmt_doc_free(&doc);
    buf_free(&err);
    return 0;
}
