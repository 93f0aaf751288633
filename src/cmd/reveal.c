/*
 * cmd/reveal.c - nomic reveal: publishes the generator's seed and the salt
 * of the commitment `init` printed, so that anyone can check the
 * commitment and every draw (replaying the journal from the seed), and the
 * key of the state hash, so that anyone can recompute the hashes the
 * journal published.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int run(CmdCall *c)
{
    Game *g = c->g;
    const char *const *pos = c->pos;
    char *salt = NULL, *published = NULL, *key = NULL, *revealed = NULL;
    int rc = 0;
    if (store_meta_read(g->st, "seed_salt", &salt) < 0 || store_meta_read(g->st, "seed_commitment", &published) < 0 ||
        store_meta_read(g->st, "hash_key", &key) < 0 || store_meta_read(g->st, "seed_revealed", &revealed) < 0) {
        fprintf(stderr, "nomic reveal: %s: %s\n", pos[0], store_error(g->st));
        rc = EXIT_FAILURE;
        goto out;
    }
    if (!salt || !published) {
        printf("seed: %" PRIu64 "\n(this game was made before seeds were committed: there is nothing to check it against)\n",
               g->seed);
    } else {
        char *again = game_commitment(g->seed, salt);
        printf("seed: %" PRIu64 "\nsalt: %s\ncommitment: sha256 %s\n", g->seed, salt, published);
        printf("check: sha256 of \"nomic seed %" PRIu64 " salt %s\" is %s: %s\n", g->seed, salt, again,
               strcmp(again, published) == 0 ? "it matches" : "IT DOES NOT MATCH");
        if (strcmp(again, published) != 0) rc = EXIT_REFUSED;
        free(again);
    }
    if (key) printf("hash key: %s\n", key);
    else printf("hash key: none (this game was made before the state hash was keyed: it is keyed with zeros)\n");
    printf("hash version: %d (docs/formats.md: how the state hash is made from the key)\n", g->pool->hash_version);
    if (!g->halted)
        fprintf(stderr, "nomic reveal: the game has not ended: from now on anyone can predict its draws "
                        "and test guesses of its private values against the published hashes\n");
    /* from now on the server's /api/game shows the seed and salt too */
    if (!revealed) {
        char when[32];
        snprintf(when, sizeof when, "%lld", (long long)time_now_wall());
        if (!store_meta_set(g->st, "seed_revealed", when)) {
            fprintf(stderr, "nomic reveal: %s: the reveal could not be recorded: %s\n", pos[0], store_error(g->st));
            rc = EXIT_FAILURE;
        }
    }
out:
    free(revealed);
    free(key);
    free(salt);
    free(published);
    return rc;
}

const CmdSpec cmd_reveal = {
    .name = "reveal",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .doc = "publish the generator's seed, checked against the commitment init printed, and the state hash's key",
    .more = "It prints the seed and the salt and checks them against the commitment `init` printed (warning when\n"
            "the game has not ended: its draws become predictable), and from then on `/api/game` shows them too.\n"
            "It also prints the key of the state hash (`hash key:`, drawn at `init` whatever the seed, and on\n"
            "`/api/game` as `hashKey` from then on) and the version of its definition (`hash version:`, and\n"
            "`hashVersion`; docs/formats.md): with them the hashes the journal published can be recomputed,\n"
            "and private values guessed and checked against them.\n",
    .run = run,
};
