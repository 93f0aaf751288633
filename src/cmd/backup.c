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

/* Replays the copy at path: its journal gives every state hash it
 * recorded.  Prints replay's own lines, prefixed. */
static bool replays(const char *path)
{
    Buf err = {0};
    Game *g = game_open(path, &err);
    bool ok = g != NULL;
    if (!g) fprintf(stderr, "nomic backup: the copy does not open: %s\n", buf_str(&err));
    else ok = game_replay(g);
    game_close(g);
    buf_free(&err);
    return ok;
}

static int run(CmdCall *c)
{
    const char *game = c->pos[0], *file = c->pos[1];
    Buf err = {0}, tmp = {0};
    int rc = 0;
    if (same_file(game, file)) {
        fprintf(stderr, "nomic backup: %s is the game itself\n", file);
        rc = EXIT_USAGE;
        goto done;
    }
    /* checked under another name: FILE is replaced only by a copy that
     * replays */
    buf_printf(&tmp, "%s.checking", file);
    if (!store_backup(c->g->st, buf_str(&tmp), &err)) {
        fprintf(stderr, "nomic backup: %s\n", buf_str(&err));
        rc = EXIT_FAILURE;
        goto done;
    }
    if (!replays(buf_str(&tmp))) {
        fprintf(stderr, "nomic backup: the copy does not replay: %s is left as it was\n", file);
        rc = EXIT_FAILURE;
        goto done;
    }
    if (rename(buf_str(&tmp), file) != 0) {
        perror(file);
        rc = EXIT_FAILURE;
        goto done;
    }
    printf("%s: a copy of %s, checked by replay\n", file, game);
done:
    if (rc) unlink(buf_str(&tmp));
    buf_free(&tmp);
    buf_free(&err);
    return rc;
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
