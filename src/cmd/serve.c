/*
 * cmd/serve.c - nomic serve: the game over HTTP (server.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game_mechanics.h"
#include "server.h"

int cmd_serve(int argc, char **argv)
{
    Opt o[] = {{"--listen", true}};
    const char *pos[1];
    int npos, rc = EXIT_USAGE;
    Game *g = NULL;
    char *listen = NULL;
    if (!cli_parse(argc, argv, o, 1, pos, 1, 1, &npos, "nomic serve GAME [--listen HOST:PORT]")) goto out;
    if (!(g = cli_open(pos[0]))) goto out;
    listen = o[0].set ? xstrdup(o[0].value) : game_config(g, "listen");
    char *colon = strrchr(listen, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || colon == listen || !end || *end || port <= 0 || port > 65535) {
        fprintf(stderr, "nomic serve: --listen %s: expected HOST:PORT, such as 127.0.0.1:8080\n", listen);
        goto out;
    }
    *colon = 0;
    rc = server_run(g, pos[0], listen, (int)port) ? 0 : EXIT_USAGE;
out:
    free(listen);
    game_close(g);
    cli_free_opts(o, 1);
    return rc;
}
