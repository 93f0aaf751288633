/*
 * cmd/init.c - nomic init: a new game from initial sets.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

enum { INIT_RULESET, INIT_SEED, INIT_TIME, INIT_FORCE };
static const OptSpec init_opts[] = {
    [INIT_RULESET] = {"--ruleset", "NAME|FILE", OPT_MULTI, "a shipped set or a file of objects (default: favor)"},
    [INIT_SEED] = {"--seed", "N", 0, "the random generator's seed (default: from the system)"},
    [INIT_TIME] = {"--time", "T", 0, "the game's first time (default: now)"},
    [INIT_FORCE] = {"--force", NULL, 0, "overwrite GAME if it exists"},
    {NULL},
};

static int init_run(CmdCall *c)
{
    const OptVal *o = c->opt;
    int64_t t;
    if (!cli_time(&o[INIT_TIME], &t)) return EXIT_USAGE;
    uint64_t seed = 0;
    if (o[INIT_SEED].set) {
        char *end;
        seed = strtoull(o[INIT_SEED].value, &end, 10);
        if (*end || !*o[INIT_SEED].value) {
            fprintf(stderr, "nomic init: --seed %s: expected a whole number\n", o[INIT_SEED].value);
            return EXIT_USAGE;
        }
    }
    const char *def[] = {"favor"};
    const OptVal *rs = &o[INIT_RULESET];
    const char **sets = rs->nvalues ? rs->values : def;
    int nsets = rs->nvalues ? rs->nvalues : 1;
    Buf err = {0};
    Game *g = game_init(c->pos[0], sets, nsets, o[INIT_SEED].set, seed, t, o[INIT_FORCE].set, &err);
    if (!g) {
        fprintf(stderr, "nomic init: %s\n", buf_str(&err));
        buf_free(&err);
        return EXIT_USAGE;
    }
    printf("created %s: %zu objects from", c->pos[0], pool_size(g->pool));
    for (int i = 0; i < nsets; i++) printf(" %s", sets[i]);
    printf("\n");
    char *commitment = store_meta_get(g->st, "seed_commitment");
    if (commitment) printf("the generator's seed is committed: sha256 %s (nomic reveal, after the game)\n", commitment);
    free(commitment);
    game_close(g);
    return 0;
}

const CmdSpec cmd_init = {
    .name = "init",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = init_opts,
    .doc = "create a new game from one or more initial sets",
    .more = "It refuses to overwrite a GAME unless `--force`.  `--ruleset` takes a shipped set (`favor`,\n"
            "`favor-draft`, `suber`, `suber1982`, `mathflag`, `agora`, `tiny`; docs/favor.md, docs/suber.md,\n"
            "docs/mathflag.md, docs/agora.md) or a file path; given several times, later sets add objects after\n"
            "the earlier ones.  A shipped name is looked up first: to load a file called `favor`, write\n"
            "`./favor`.\n"
            "\n"
            "`--seed` fixes the game's random generator (default: from the system); the seed is kept in the\n"
            "database, private, so `replay` repeats every draw.  `init` prints a commitment to it, the SHA-256\n"
            "of `nomic seed SEED salt SALT` with a random salt, which `reveal` checks.\n",
    .run = init_run,
};
