/*
 * cli.c - running a command of the table (cli.h): option parsing by the
 * command's spec, its usage line, GAME opened for the commands that say
 * so; and the printing the commands share.
 */
#include "cli.h"
#include "host.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int nopts(const CmdSpec *s)
{
    int n = 0;
    while (s->opts && s->opts[n].name) n++;
    return n;
}

/* One option in the usage line: "[--time T]", "--from ADDR",
 * "[--ruleset NAME|FILE]...", "[--json|--objects]"; returns the index of
 * the last option it showed. */
static int usage_option(const OptSpec *opts, int i, Buf *b)
{
    bool required = opts[i].flags & OPT_REQUIRED;
    buf_puts(b, required ? " " : " [");
    for (;; i++) {
        buf_puts(b, opts[i].name);
        if (opts[i].arg) buf_printf(b, " %s", opts[i].arg);
        if (!(opts[i].flags & OPT_OR_NEXT) || !opts[i + 1].name) break;
        buf_putc(b, '|');
    }
    if (!required) buf_putc(b, ']');
    if (opts[i].flags & OPT_MULTI) buf_puts(b, "...");
    return i;
}

void cli_usage_line(const CmdSpec *s, Buf *b)
{
    if (s->subs) {
        for (const Command *c = s->subs; c->spec; c++) {
            if (c != s->subs) buf_puts(b, " | ");
            cli_usage_line(c->spec, b);
        }
        return;
    }
    buf_printf(b, "nomic %s", s->name);
    if (s->args) buf_printf(b, " %s", s->args);
    for (int i = 0; s->opts && s->opts[i].name; i++) i = usage_option(s->opts, i, b);
}

void cli_print_usage(const CmdCall *c)
{
    Buf b = {0};
    cli_usage_line(c->usage, &b);
    fprintf(stderr, "usage: %s\n", buf_str(&b));
    buf_free(&b);
}

/* Reads argv[1..] by the spec into c.  Prints a message and returns false
 * on a usage error. */
static bool parse_args(CmdCall *c, int argc, char **argv)
{
    const CmdSpec *s = c->spec;
    int n = nopts(s);
    assert(n <= MAX_OPTS && s->maxpos <= MAX_POS);
    if (s->first_only) {
        for (int k = 0; argc > 1 && k < n; k++)
            if (strcmp(argv[1], s->opts[k].name) == 0) c->opt[k].set = true;
        return true;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] == '-') {
            const char *eq = strchr(a, '=');
            size_t nl = eq ? (size_t)(eq - a) : strlen(a);
            int k = 0;
            while (k < n && !(strlen(s->opts[k].name) == nl && strncmp(s->opts[k].name, a, nl) == 0)) k++;
            if (k == n) {
                fprintf(stderr, "nomic %s: unknown option %.*s\n", s->name, (int)nl, a);
                cli_print_usage(c);
                return false;
            }
            const OptSpec *spec = &s->opts[k];
            OptVal *o = &c->opt[k];
            if (o->set && !(spec->flags & OPT_MULTI)) {
                fprintf(stderr, "nomic %s: %s given twice\n", s->name, spec->name);
                return false;
            }
            o->set = true;
            if (!spec->arg) {
                if (eq) {
                    fprintf(stderr, "nomic %s: %s takes no value\n", s->name, spec->name);
                    return false;
                }
                continue;
            }
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v) {
                fprintf(stderr, "nomic %s: %s needs a value\n", s->name, spec->name);
                cli_print_usage(c);
                return false;
            }
            o->value = v;
            if (spec->flags & OPT_MULTI) {
                o->values = xrealloc(o->values, (size_t)(o->nvalues + 1) * sizeof *o->values);
                o->values[o->nvalues++] = v;
            }
        } else {
            if (c->npos >= s->maxpos) {
                fprintf(stderr, "nomic %s: unexpected argument \"%s\"\n", s->name, a);
                cli_print_usage(c);
                return false;
            }
            c->pos[c->npos++] = a;
        }
    }
    if (c->npos < s->minpos) {
        cli_print_usage(c);
        return false;
    }
    return true;
}

static int run_command(const Command *c, const CmdSpec *parent, int argc, char **argv);

/* A command of subcommands: argv[1] names one ("slr parse"). */
static int run_sub(const Command *c, int argc, char **argv)
{
    const CmdSpec *s = c->spec;
    size_t n = strlen(s->name);
    for (const Command *sub = s->subs; argc >= 2 && sub->spec; sub++) {
        const char *name = sub->spec->name; /* "slr parse" */
        if (strncmp(name, s->name, n) == 0 && name[n] == ' ' && strcmp(name + n + 1, argv[1]) == 0)
            return run_command(sub, s, argc - 1, argv + 1);
    }
    cli_print_usage(&(CmdCall){.spec = s, .usage = s});
    return s->bad_usage ? s->bad_usage : EXIT_USAGE;
}

/* parent: the command of subcommands c is one of (its usage line is the
 * one c's errors print), or NULL. */
static int run_command(const Command *c, const CmdSpec *parent, int argc, char **argv)
{
    const CmdSpec *s = c->spec;
    if (s->subs) return run_sub(c, argc, argv);
    CmdCall call = {.spec = s, .usage = parent ? parent : s};
    int rc = s->bad_usage ? s->bad_usage : EXIT_USAGE;
    if (s->data_size) call.data = xcalloc(1, s->data_size);
    if (!parse_args(&call, argc, argv)) goto out;
    if (s->check && (rc = s->check(&call)) != CMD_GO_ON) goto out;
    bool opens = (c->flags & CMD_GAME) && !((c->flags & CMD_DIR) && host_is_dir(call.pos[0]));
    if (opens && !(call.g = cli_open(call.pos[0]))) {
        rc = s->bad_game ? s->bad_game : EXIT_USAGE;
        goto out;
    }
    rc = s->run(&call);
out:
    if (s->cleanup) s->cleanup(&call);
    game_close(call.g);
    for (int i = 0; i < MAX_OPTS; i++) free(call.opt[i].values);
    free(call.data);
    return rc;
}

int cli_run(const Command *c, int argc, char **argv) { return run_command(c, NULL, argc, argv); }

bool cli_time(const OptVal *o, int64_t *out)
{
    if (!o->set) {
        *out = time_now_wall();
        return true;
    }
    if (time_parse(o->value, out)) return true;
    fprintf(stderr, "nomic: --time %s: expected seconds since 1970 or YYYY-MM-DD[THH:MM:SS]Z\n", o->value);
    return false;
}

char *cli_net_program(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return NULL;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    static const char *const places[] = {"%s/nomic-net", "%s/../lib/nomic/nomic-net"};
    for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
        Buf b = {0};
        buf_printf(&b, places[i], self);
        if (access(buf_str(&b), X_OK) == 0) return buf_take(&b);
        buf_free(&b);
    }
    return NULL;
}

Game *cli_open(const char *path)
{
    Buf err = {0};
    Game *g = game_open(path, &err);
    if (!g) fprintf(stderr, "nomic: %s\n", buf_str(&err));
    buf_free(&err);
    char *note = g ? game_upgrade_note(g, path) : NULL;
    if (note) fprintf(stderr, "nomic: %s\n", note);
    free(note);
    return g;
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
    if (with_trace && o->ran) print_indented(buf_str((Buf *)&o->run.trace), "  ");
    if (!o->ran) return;
    size_t others = 0;
    for (size_t i = 0; i < o->run.sent.len; i++) {
        const Message *m = &o->run.sent.m[i];
        if (replies_to && addressed_to(m->to, replies_to)) {
            printf("reply to %s:\n", replies_to);
            print_indented(sym_text(m->text), "  ");
        } else {
            others++;
        }
    }
    if (others) printf("(%zu other message%s sent; see nomic outbox)\n", others, others == 1 ? "" : "s");
}
