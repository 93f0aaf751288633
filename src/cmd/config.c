/*
 * cmd/config.c - nomic config, nomic token and nomic sugar: the settings,
 * identities and sugar of the Mechanics, kept in the game's database
 * outside the game state (game_mechanics.h, move_sugar.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game_mechanics.h"

enum { CONFIG_UNSET };
static const OptSpec config_opts[] = {
    [CONFIG_UNSET] = {"--unset", NULL, 0, "set KEY back to its default"},
    {NULL},
};

/* Every key with its value, in one column. */
static void print_all(Game *g)
{
    int width = 0;
    for (const ConfigKey *k = config_keys; k->key; k++)
        if ((int)strlen(k->key) > width) width = (int)strlen(k->key);
    for (const ConfigKey *k = config_keys; k->key; k++) {
        char *v = game_config(g, k->key);
        printf("%-*s %s\n", width, k->key, *v ? v : "(unset)");
        free(v);
    }
}

static int config_run(CmdCall *c)
{
    Game *g = c->g;
    const char *const *pos = c->pos;
    bool unset = c->opt[CONFIG_UNSET].set;
    int rc = EXIT_USAGE;
    Buf err = {0};
    if (c->npos == 1) {
        print_all(g);
        rc = 0;
    } else if (c->npos == 2 && !unset) {
        if (!config_known(pos[1], &err)) {
            fprintf(stderr, "nomic config: %s\n", buf_str(&err));
        } else {
            char *v = game_config(g, pos[1]);
            printf("%s\n", v);
            free(v);
            rc = 0;
        }
    } else {
        if (game_config_set(g, pos[1], unset ? NULL : c->npos == 3 ? pos[2] : NULL, &err)) rc = 0;
        else fprintf(stderr, "nomic config: %s\n", buf_str(&err));
    }
    buf_free(&err);
    return rc;
}

const CmdSpec cmd_config = {
    .name = "config",
    .args = "GAME [KEY [VALUE]]",
    .minpos = 1,
    .maxpos = 3,
    .opts = config_opts,
    .doc = "settings of the Mechanics: transport, mailFrom, mailPolicy, listen",
    .more = "Without KEY it prints every setting; with KEY, its value; with VALUE (or `--unset`), it sets it.\n"
            "docs/mechanics.md describes the settings.\n",
    .run = config_run,
};

static int token_check(CmdCall *c)
{
    const char *addr = c->pos[1];
    if (!strchr(addr, '@') || strpbrk(addr, " \t\r\n<>")) {
        fprintf(stderr, "nomic token: %s is not a bare mail address\n", addr);
        return EXIT_USAGE;
    }
    return CMD_GO_ON;
}

static int token_run(CmdCall *c)
{
    Game *g = c->g;
    const char *addr = c->pos[1], *bad;
    char *canon = game_address(g, addr, &bad);
    if (!canon) {
        fprintf(stderr, "nomic token: %s: %s\n", addr, bad);
        return EXIT_USAGE;
    }
    free(canon);
    char *t = game_issue_token(g, addr);
    if (!t) {
        fprintf(stderr, "nomic token: could not issue a token: %s\n", store_error(g->st));
        return EXIT_USAGE;
    }
    printf("%s\n", t);
    free(t);
    return 0;
}

const CmdSpec cmd_token = {
    .name = "token",
    .args = "GAME ADDRESS",
    .minpos = 2,
    .maxpos = 2,
    .doc = "issue (or re-issue) the token of a player's address",
    .more = "Re-issuing voids the old token at once.  docs/mechanics.md says what a token is for.\n",
    .check = token_check,
    .run = token_run,
};

enum { SUGAR_SET };
static const OptSpec sugar_opts[] = {
    [SUGAR_SET] = {"--set", "FILE", 0, "replace the sugar by the table in FILE"},
    {NULL},
};

static int print_sugar(CmdCall *c)
{
    char *v;
    int got = store_meta_read(c->g->st, "sugar", &v);
    if (got < 0) fprintf(stderr, "nomic sugar: %s: %s\n", c->pos[0], store_error(c->g->st));
    else if (got && *v) fputs(v, stdout);
    else printf("# this game has no sugar: moves are written in the object format\n");
    free(v);
    return got < 0 ? EXIT_FAILURE : 0;
}

static int sugar_run(CmdCall *c)
{
    Game *g = c->g;
    const char *file = c->opt[SUGAR_SET].value;
    if (!c->opt[SUGAR_SET].set) return print_sugar(c);
    char *text = read_file(file, NULL);
    if (!text) {
        fprintf(stderr, "nomic sugar: cannot read %s\n", file);
        return EXIT_USAGE;
    }
    int rc = EXIT_USAGE;
    Buf err = {0};
    Sugar *s = sugar_parse(text, file, &err);
    if (!s) {
        fprintf(stderr, "%s\n", buf_str(&err));
        rc = EXIT_REFUSED;
    } else if (!store_meta_set(g->st, "sugar", text)) {
        fprintf(stderr, "nomic sugar: %s\n", store_error(g->st));
        sugar_free(s);
    } else {
        sugar_free(g->sugar);
        g->sugar = s;
        rc = 0;
    }
    buf_free(&err);
    free(text);
    return rc;
}

const CmdSpec cmd_sugar = {
    .name = "sugar",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = sugar_opts,
    .doc = "print or replace the game's sugar (one-line moves)",
    .more = "docs/formats.md describes a sugar table; `nomic check FILE.sugar` checks one.\n",
    .run = sugar_run,
};
