/*
 * cmd/init.c - nomic init: a new game from initial sets.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

int cmd_init(int argc, char **argv)
{
    Opt o[] = {{"--ruleset", true, true}, {"--seed", true}, {"--time", true}, {"--force", false}};
    const char *pos[1];
    int npos;
    const char *usage = commands[0].usage;
    int rc = EXIT_USAGE;
    int64_t t;
    if (!cli_parse(argc, argv, o, 4, pos, 1, 1, &npos, usage) || !cli_time(&o[2], &t)) goto out;
    uint64_t seed = 0;
    if (o[1].set) {
        char *end;
        seed = strtoull(o[1].value, &end, 10);
        if (*end || !*o[1].value) {
            fprintf(stderr, "nomic init: --seed %s: expected a whole number\n", o[1].value);
            goto out;
        }
    }
    const char *def[] = {"favor"};
    const char **sets = o[0].nvalues ? o[0].values : def;
    int nsets = o[0].nvalues ? o[0].nvalues : 1;
    Buf err = {0};
    Game *g = game_init(pos[0], sets, nsets, o[1].set, seed, t, o[3].set, &err);
    if (!g) {
        fprintf(stderr, "nomic init: %s\n", buf_str(&err));
        buf_free(&err);
        goto out;
    }
    printf("created %s: %zu objects from", pos[0], pool_size(g->pool));
    for (int i = 0; i < nsets; i++) printf(" %s", sets[i]);
    printf("\n");
    char *commitment = store_meta_get(g->st, "seed_commitment");
    if (commitment) printf("the generator's seed is committed: sha256 %s (nomic reveal, after the game)\n", commitment);
    free(commitment);
    game_close(g);
    rc = 0;
out:
    cli_free_opts(o, 4);
    return rc;
}
