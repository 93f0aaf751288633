/*
 * cmd/serve.c - nomic serve: the game over HTTP (server.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game_mechanics.h"
#include "server.h"

enum { SERVE_LISTEN };
static const OptSpec serve_opts[] = {
    [SERVE_LISTEN] = {"--listen", "HOST:PORT", 0, "where to listen (default: the setting listen)"},
    {NULL},
};

static int serve_run(CmdCall *c)
{
    const OptVal *o = &c->opt[SERVE_LISTEN];
    char *listen = o->set ? xstrdup(o->value) : game_config(c->g, "listen");
    char *colon = strrchr(listen, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    int rc = EXIT_USAGE;
    if (!colon || colon == listen || !end || *end || port <= 0 || port > 65535) {
        fprintf(stderr, "nomic serve: --listen %s: expected HOST:PORT, such as 127.0.0.1:8080\n", listen);
    } else {
        *colon = 0;
        rc = server_run(c->g, c->pos[0], listen, (int)port) ? 0 : EXIT_USAGE;
    }
    free(listen);
    return rc;
}

const CmdSpec cmd_serve = {
    .name = "serve",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = serve_opts,
    .doc = "serve the game over HTTP: the web page, the JSON API, the clock and the mail out",
    .more = "docs/api.md describes the API.\n",
    .run = serve_run,
};
