/*
 * server.h - nomic serve: one game over HTTP (libmicrohttpd), with its
 * clock and its postman.
 *
 * Each connection has a thread; the game (its pool, its engine, its
 * interned texts) is one thread's at a time: a move's, or the clock's,
 * which runs the timers when the wall clock reaches them and notices when
 * another program (nomic deliver, nomic move) wrote the game.  Reads never
 * wait for an event: they answer from the views of the last committed
 * state, rendered after each change, and read the journal through
 * database connections of their own.  A further thread, with its own
 * connection, hands the messages the rules released to the transport
 * (game_postman.h), since a mail server may take seconds to answer.
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
#define MAX_CONNECTIONS 512    /* connections at once, all addresses */
#define MAX_PER_ADDRESS 16     /* connections at once from one IP address */
#define IDLE_TIMEOUT 15        /* seconds a connection may say nothing */
#define REQUEST_DEADLINE 30    /* seconds for a request to come whole (headers and body) */
#define READERS_KEPT 8         /* database connections kept open for reading, per game */
#define CLOCK_WORKERS 4        /* threads running the timers of a directory's games */
#define SCAN_EVERY_MS 2000     /* how often a directory served is looked at for new games */
#define REPORTS_KEPT 16        /* answers of /api/report kept, one per kind, until the next event */
#define REPORT_FRESH_MS 60000  /* ... or a minute: the rules may read the clock */

/* POST /api/scams */
#define SCAMS_AT_ONCE 2        /* searches at once, all the games of a server together (each takes a core) */
#define SCAMS_BUDGET 200000    /* events, by default (about two seconds) */
#define SCAMS_BUDGET_MAX 1000000 /* events at most (budget=) */
#define SCAMS_DEPTH_MAX 4      /* messages at most (depth=) */
#define SCAMS_GOAL_MAX 4096    /* bytes of goal */
#define SCAMS_WITH_MAX 4       /* accomplices at most (with=): each multiplies the moves tried */
#define SCAMS_SECONDS 60       /* a search still running then is stopped */
#define SCAMS_ANSWER_MAX (64 * 1024) /* bytes of answer kept */
#define SCAM_CHECKS_AT_ONCE 4  /* proposals' scam checks running at once, per game (scams_check.h) */

/* /api/log: a page's events, and what of each a page shows */
#define LOG_PAGE 100                    /* events, by default */
#define LOG_PAGE_MAX 500                /* events at most (limit=) */
#define LOG_PAGE_BYTES (512 * 1024)     /* a page ends after the event that passes this */
#define LOG_INPUT_CUT (4 * 1024)        /* bytes of moves per event in a page */
#define LOG_TRACE_CUT (64 * 1024)       /* a longer trace is left out of a page */
#define EVENT_INPUT_MAX (4 * 1024 * 1024) /* /api/log/N: moves */
#define EVENT_TRACE_MAX (4 * 1024 * 1024) /* /api/log/N and a move's answer: the trace */
/* GET /api/outbox, a page of the caller's messages: as a page of the log,
 * so that a player who made the rules write them megabytes of answers
 * gets them a page at a time, and slow readers hold a page each */
#define OUTBOX_PAGE 100                  /* messages, by default */
#define OUTBOX_PAGE_MAX 500              /* messages at most (limit=) */
#define OUTBOX_PAGE_BYTES (512 * 1024)   /* a page ends after the message that passes this */
#define OUTBOX_TEXT_CUT (64 * 1024)      /* bytes of one message's text in a page */
#define MESSAGE_TEXT_MAX (4 * 1024 * 1024) /* /api/outbox/ID: the text */

/* Serves every game of the directory dir, each at /NAME/ (host.h), the
 * list of them at / and /api/games, on host:port until SIGINT or SIGTERM;
 * a game made in dir meanwhile is served within seconds.  One clock and
 * one postman serve them all.  False, having said why, when it cannot
 * start.  proxy: requests come through the keeper's reverse proxy on
 * loopback, which names the client in X-Forwarded-For. */
bool server_run_dir(const char *dir, const char *host, int port, bool proxy);

/* Serves the game at `path` (already open as g) on host:port until SIGINT
 * or SIGTERM.  Prints the address once listening.  False, having said
 * why, when it cannot start (a bad address, a port in use). */
bool server_run(Game *g, const char *path, const char *host, int port, bool proxy);

#endif
