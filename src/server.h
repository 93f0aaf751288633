/*
 * server.h - nomic serve: one game over HTTP (libmicrohttpd), with its
 * clock and its postman.
 *
 * One thread runs the game: it answers the requests (the JSON API of
 * docs/api.md and the web page in web/), runs the timers when the wall
 * clock reaches them, and notices when another program (nomic deliver,
 * nomic move) wrote the game.  The HTTP library reads and writes every
 * connection without blocking, so a slow client holds up no one.  A second
 * thread, with its own connection to the database, hands the messages the
 * rules released to the transport (mailout.h), since a mail server may
 * take seconds to answer.
 */
#ifndef NOMIC_SERVER_H
#define NOMIC_SERVER_H

#include <stddef.h>

#include "game.h"

/* The web page's files, compiled in (tools/embed-web.sh). */
typedef struct WebFile {
    const char *path;  /* "/", "/app.js" */
    const char *type;  /* Content-Type */
    const char *data;
    size_t len;
} WebFile;
extern const WebFile web_files[]; /* ends with {0} */

#define MAX_BODY (256 * 1024)  /* a request body */
#define MAX_CONNECTIONS 256
#define IDLE_TIMEOUT 15        /* seconds a connection may say nothing */

/* Serves the game at `path` (already open as g) on host:port until SIGINT
 * or SIGTERM.  Prints the address once listening.  Returns the exit
 * status. */
int server_run(Game *g, const char *path, const char *host, int port);

#endif
