/*
 * host.h - a host's games: the game files of one directory, as `nomic
 * serve DIR` serves them and `nomic deliver DIR` routes mail to them.
 *
 * A game of DIR is a file NAME.db whose NAME is a word of letters,
 * digits, '.', '_' and '-' (it is the game's path on the server: /NAME/),
 * not beginning with '.' or '-', and not "api".  Other files (a backup's
 * copy in the making, GAME.db.format3, the -wal and -shm) are not games.
 * Which game a mail is for is the game's `address` setting: the host
 * reads it of each file without opening it as a game.
 */
#ifndef NOMIC_HOST_H
#define NOMIC_HOST_H

#include <stdbool.h>

#include "util.h"

#define HOST_NAME_MAX_LEN 64 /* bytes of a game's name */

typedef struct HostGame {
    char *name; /* NAME of NAME.db */
    char *path; /* DIR/NAME.db */
} HostGame;

typedef struct HostList {
    HostGame *games; /* by name */
    int n;
    char **odd;      /* the files NAME.db whose NAME is not a game's (said, not served) */
    int nodd;
} HostList;

/* Is dir a directory (not a game file)? */
bool host_is_dir(const char *dir);
/* Is name a game's name (the rule above)? */
bool host_name_ok(const char *name);
/* The games of dir, by name: false (err) when dir cannot be read. */
bool host_list(const char *dir, HostList *out, Buf *err);
void host_list_free(HostList *l);

/* The game of dir whose `address` is `to` (in any case; a local part's
 * "+detail" is tried without it too): first the game named as the
 * address's local part (spring.db for spring@...), at once; else every
 * game of dir is read: 1 and *path (malloc'd), 0 none
 * (*why, naming no other game: the MTA may bounce it to the sender), -1 it cannot be told (*why): dir
 * unreadable, two games with that address, or a game file that could not
 * be read and may be the one.  *why is malloc'd, or NULL. */
int host_find_address(const char *dir, const char *to, char **path, char **why);

#endif
