/*
 * cmd/backup.c - nomic backup: a consistent copy of a game, taken while
 * it is served, written atomically and checked by replaying it before it
 * takes the copy's name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The copy is the same file as the game (a keeper's slip that would
 * replace the game by itself, half written). */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The check a copy passes before it takes FILE's name: it opens as a game
 * and replays (every state hash its journal recorded).  replay prints
 * its own lines. */
static bool replays(void *ud, const char *copy, Buf *err)
{
    Buf why = {0};
    Game *g = game_open(copy, &why);
    bool ok = g && game_replay(g);
    if (!g) buf_printf(err, "the copy does not open: %s", buf_str(&why));
    else if (!ok) buf_puts(err, "the copy does not replay");
    game_close(g);
    buf_free(&why);
    return ok;
}

static int run(CmdCall *c)
{
    const char *game = c->pos[0], *file = c->pos[1];
    if (same_file(game, file)) {
        fprintf(stderr, "nomic backup: %s is the game itself\n", file);
        return EXIT_USAGE;
    }
    Buf err = {0};
    bool ok = store_backup(c->g->st, file, replays, NULL, &err);
    if (ok) printf("%s: a copy of %s, checked by replay\n", file, game);
    else fprintf(stderr, "nomic backup: %s: %s is left as it was\n", buf_str(&err), file);
    buf_free(&err);
    return ok ? 0 : EXIT_FAILURE;
}

const CmdSpec cmd_backup = {
    .name = "backup",
    .args = "GAME FILE",
    .minpos = 2,
    .maxpos = 2,
    .doc = "a consistent copy of the game, taken while it is served, checked by replay",
    .more = "The copy is one moment of the game: every event committed before it began, none after, however\n"
            "many moves the server takes meanwhile (SQLite's backup API, in one read transaction).  It is\n"
            "written under another name, replayed (as `nomic replay` does: every state hash the journal\n"
            "recorded), and only then renamed to FILE, so FILE is never half a copy, nor a copy that does not\n"
            "replay.  A plain `cp` of a served game is not a backup: the latest events are in GAME-wal until a\n"
            "checkpoint, and a copy of the file alone can lack them or hold half of one (docs/hosting.md).\n"
            "Exit status: 0 done; 1 the copy could not be made or does not replay (FILE is left as it was);\n"
            "2 bad usage, FILE is GAME itself, or a game that cannot be opened.\n",
    .run = run,
};
