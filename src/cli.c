/*
 * cli.c - option parsing and printing shared by the commands.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cli_parse(int argc, char **argv, Opt *opts, int nopts, const char **pos, int minpos, int maxpos, int *npos,
               const char *usage)
{
    *npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] == '-') {
            const char *eq = strchr(a, '=');
            size_t nl = eq ? (size_t)(eq - a) : strlen(a);
            Opt *o = NULL;
            for (int k = 0; k < nopts; k++)
                if (strlen(opts[k].name) == nl && strncmp(opts[k].name, a, nl) == 0) o = &opts[k];
            if (!o) {
                fprintf(stderr, "nomic %s: unknown option %.*s\nusage: %s\n", argv[0], (int)nl, a, usage);
                return false;
            }
            if (o->set && !o->multi) {
                fprintf(stderr, "nomic %s: %s given twice\n", argv[0], o->name);
                return false;
            }
            o->set = true;
            if (!o->takes_value) {
                if (eq) {
                    fprintf(stderr, "nomic %s: %s takes no value\n", argv[0], o->name);
                    return false;
                }
                continue;
            }
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v) {
                fprintf(stderr, "nomic %s: %s needs a value\nusage: %s\n", argv[0], o->name, usage);
                return false;
            }
            o->value = v;
            if (o->multi) {
                o->values = xrealloc(o->values, (size_t)(o->nvalues + 1) * sizeof *o->values);
                o->values[o->nvalues++] = v;
            }
        } else {
            if (*npos >= maxpos) {
                fprintf(stderr, "nomic %s: unexpected argument \"%s\"\nusage: %s\n", argv[0], a, usage);
                return false;
            }
            pos[(*npos)++] = a;
        }
    }
    if (*npos < minpos) {
        fprintf(stderr, "usage: %s\n", usage);
        return false;
    }
    return true;
}

void cli_free_opts(Opt *opts, int nopts)
{
    for (int i = 0; i < nopts; i++) free(opts[i].values);
}

bool cli_time(const Opt *o, int64_t *out)
{
    if (!o->set) {
        *out = time_now_wall();
        return true;
    }
    if (time_parse(o->value, out)) return true;
    fprintf(stderr, "nomic: --time %s: expected seconds since 1970 or YYYY-MM-DD[THH:MM:SS]Z\n", o->value);
    return false;
}

Game *cli_open(const char *path)
{
    Buf err = {0};
    Game *g = game_open(path, &err);
    if (!g) fprintf(stderr, "nomic: %s\n", buf_str(&err));
    buf_free(&err);
    return g;
}


static void print_indented(const char *text)
{
    const char *s = text;
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        printf("  %.*s\n", (int)n, s);
        if (!e) break;
        s = e + 1;
    }
}

void cli_print_outcome(const Outcome *o, const char *replies_to, bool with_trace)
{
    char when[32];
    time_format(o->time, when);
    const char *status = verdict_name(o->verdict);
    if (o->event) printf("event %ld (%s at %s): %s", o->event, o->kind, when, status);
    else printf("%s at %s: %s", o->kind, when, status);
    if (o->ran) printf(", %ld rule firing%s", o->run.firings, o->run.firings == 1 ? "" : "s");
    printf("\n");
    if (o->message) printf("  %s\n", o->message);
    if (with_trace && o->ran) print_indented(buf_str((Buf *)&o->run.trace));
    if (!o->ran) return;
    size_t others = 0;
    for (size_t i = 0; i < o->run.sent.len; i++) {
        const Message *m = &o->run.sent.m[i];
        if (replies_to && addressed_to(m->to, replies_to)) {
            printf("reply to %s:\n", replies_to);
            print_indented(sym_text(m->text));
        } else {
            others++;
        }
    }
    if (others) printf("(%zu other message%s sent; see nomic outbox)\n", others, others == 1 ? "" : "s");
}
