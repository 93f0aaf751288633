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

static const char *config_usage = "nomic config GAME [KEY [VALUE]] [--unset]";

int cmd_config(int argc, char **argv)
{
    Opt o[] = {{"--unset", false}};
    const char *pos[3];
    int npos, rc = EXIT_USAGE;
    Game *g = NULL;
    if (!cli_parse(argc, argv, o, 1, pos, 1, 3, &npos, config_usage)) goto out;
    if (!(g = cli_open(pos[0]))) goto out;
    if (npos == 1) {
        int width = 0; /* the values in one column */
        for (const ConfigKey *k = config_keys; k->key; k++)
            if ((int)strlen(k->key) > width) width = (int)strlen(k->key);
        for (const ConfigKey *k = config_keys; k->key; k++) {
            char *v = game_config(g, k->key);
            printf("%-*s %s\n", width, k->key, *v ? v : "(unset)");
            free(v);
        }
        rc = 0;
    } else if (npos == 2 && !o[0].set) {
        Buf err = {0};
        if (!config_known(pos[1], &err)) {
            fprintf(stderr, "nomic config: %s\n", buf_str(&err));
        } else {
            char *v = game_config(g, pos[1]);
            printf("%s\n", v);
            free(v);
            rc = 0;
        }
        buf_free(&err);
    } else {
        Buf err = {0};
        if (game_config_set(g, pos[1], o[0].set ? NULL : npos == 3 ? pos[2] : NULL, &err)) rc = 0;
        else fprintf(stderr, "nomic config: %s\n", buf_str(&err));
        buf_free(&err);
    }
out:
    game_close(g);
    cli_free_opts(o, 1);
    return rc;
}

int cmd_token(int argc, char **argv)
{
    const char *pos[2];
    int npos, rc = EXIT_USAGE;
    Game *g = NULL;
    if (!cli_parse(argc, argv, NULL, 0, pos, 2, 2, &npos, "nomic token GAME ADDRESS")) goto out;
    if (!strchr(pos[1], '@') || strpbrk(pos[1], " \t\r\n<>")) {
        fprintf(stderr, "nomic token: %s is not a bare mail address\n", pos[1]);
        goto out;
    }
    if (!(g = cli_open(pos[0]))) goto out;
    const char *bad;
    char *canon = game_address(g, pos[1], &bad);
    if (!canon) {
        fprintf(stderr, "nomic token: %s: %s\n", pos[1], bad);
        goto out;
    }
    free(canon);
    char *t = game_issue_token(g, pos[1]);
    if (!t) {
        fprintf(stderr, "nomic token: could not issue a token: %s\n", store_error(g->st));
        goto out;
    }
    printf("%s\n", t);
    free(t);
    rc = 0;
out:
    game_close(g);
    return rc;
}

int cmd_sugar(int argc, char **argv)
{
    Opt o[] = {{"--set", true}};
    const char *pos[1];
    int npos, rc = EXIT_USAGE;
    Game *g = NULL;
    char *text = NULL;
    if (!cli_parse(argc, argv, o, 1, pos, 1, 1, &npos, "nomic sugar GAME [--set FILE]")) goto out;
    if (!(g = cli_open(pos[0]))) goto out;
    if (!o[0].set) {
        char *v;
        int got = store_meta_read(g->st, "sugar", &v);
        if (got < 0) fprintf(stderr, "nomic sugar: %s: %s\n", pos[0], store_error(g->st));
        else if (got && *v) fputs(v, stdout);
        else printf("# this game has no sugar: moves are written in the object format\n");
        free(v);
        rc = got < 0 ? EXIT_FAILURE : 0;
        goto out;
    }
    if (!(text = read_file(o[0].value, NULL))) {
        fprintf(stderr, "nomic sugar: cannot read %s\n", o[0].value);
        goto out;
    }
    Buf err = {0};
    Sugar *s = sugar_parse(text, o[0].value, &err);
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
out:
    free(text);
    game_close(g);
    cli_free_opts(o, 1);
    return rc;
}
