/*
 * cmd/serve.c - nomic serve: the game, or every game of a directory,
 * over HTTP (server.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game_mechanics.h"
#include "server.h"

#define DIR_LISTEN "127.0.0.1:8080" /* a directory has no settings of its own */

enum { SERVE_LISTEN, SERVE_PROXY };
static const OptSpec serve_opts[] = {
    [SERVE_LISTEN] = {"--listen", "HOST:PORT", 0,
                      "where to listen (default: the game's setting listen; for DIR, 127.0.0.1:8080)"},
    [SERVE_PROXY] = {"--proxy", NULL, 0,
                     "behind a reverse proxy on loopback: the client is the last address of X-Forwarded-For"},
    {NULL},
};

static int serve_run(CmdCall *c)
{
    const OptVal *o = &c->opt[SERVE_LISTEN];
    char *listen = o->set ? xstrdup(o->value) : c->g ? game_config(c->g, "listen") : xstrdup(DIR_LISTEN);
    char *colon = strrchr(listen, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    int rc = EXIT_USAGE;
    if (!colon || colon == listen || !end || *end || port <= 0 || port > 65535) {
        fprintf(stderr, "nomic serve: --listen %s: expected HOST:PORT, such as 127.0.0.1:8080\n", listen);
    } else {
        *colon = 0;
        bool proxy = c->opt[SERVE_PROXY].set;
        bool ok = c->g ? server_run(c->g, c->pos[0], listen, (int)port, proxy)
                       : server_run_dir(c->pos[0], listen, (int)port, proxy);
        rc = ok ? 0 : EXIT_USAGE;
    }
    free(listen);
    return rc;
}

const CmdSpec cmd_serve = {
    .name = "serve",
    .args = "GAME|DIR",
    .minpos = 1,
    .maxpos = 1,
    .opts = serve_opts,
    .doc = "serve the game (or every game of DIR) over HTTP: the web page, the JSON API, the clock and the mail out",
    .more = "docs/api.md describes the API.  Given a directory DIR, it serves every game file of DIR (`NAME.db`)\n"
            "in one process: `/` lists them (`/api/games` as JSON), each game's page is at `/NAME/` and its API\n"
            "at `/NAME/api/`.  A game made in DIR while it runs (`nomic init DIR/NAME.db`) is served within\n"
            "seconds.  One clock and one postman serve them all; a game's slow event holds up no other game.\n"
            "\n"
            "Behind a reverse proxy (TLS), give `--proxy`: a request from loopback is then the client's that\n"
            "the last address of its `X-Forwarded-For` names (the one the proxy added), for the quotas of\n"
            "strangers and of token requests, and the limit of connections per address is left to the proxy.\n"
            "docs/hosting.md.\n",
    .run = serve_run,
};
