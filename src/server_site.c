/*
 * server_site.c - the games of a directory served by one process
 * (server.h, server_run_dir): found when the server starts and while it
 * runs (a game made by `nomic init DIR/NAME.db` is served within
 * SCAN_EVERY_MS), opened, and listed at / and /api/games.
 */
#include "server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "host.h"
#include "store.h"

#define UNFINISHED_GRACE 10 /* seconds a file may be in the making before it is said not to be a game */

/* Adds key to the list unless it holds it already: true when it was new. */
static bool remember(char ***list, int *n, const char *key)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*list)[i], key) == 0) return false;
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
    (*list)[(*n)++] = xstrdup(key);
    return true;
}

/* Says why a file of the directory is not served, once for each reason
 * (a scan every few seconds must not repeat it). */
static void refused_once(Site *w, const char *name, const char *why)
{
    Buf key = {0};
    buf_printf(&key, "%s\t%s", name, why);
    if (remember(&w->refused, &w->nrefused, buf_str(&key)))
        fprintf(stderr, "nomic serve: %s is not served: %s\n", name, why);
    buf_free(&key);
}

/* Has the file at path failed to open as it is now?  A game that did not
 * open (unreadable, another build's format, damaged) is tried again only
 * once its file changed (its ctime: written, or its owner or mode set
 * right), not at every scan: opening a game reads all of it. */
static bool failed_as_it_is(Site *w, const char *path, bool failed_now)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return false;
    Buf key = {0};
    buf_printf(&key, "%s\t%lld.%09ld", path, (long long)sb.st_ctim.tv_sec, (long)sb.st_ctim.tv_nsec);
    bool failed = false;
    if (failed_now) remember(&w->failed, &w->nfailed, buf_str(&key));
    else
        for (int i = 0; i < w->nfailed && !failed; i++) failed = strcmp(w->failed[i], buf_str(&key)) == 0;
    buf_free(&key);
    return failed;
}

/* Each game holds a few database connections (the game's, the clock's,
 * the fsync's, the postman's, the readers'), two descriptors each: the
 * soft limit of descriptors is raised to the hard one, once. */
static void raise_file_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &r);
    }
}

/* Opens the game at path and serves it; false, having said why. */
static bool site_open_game(Site *w, const HostGame *hg)
{
    Buf err = {0};
    char *created = NULL;
    /* a file nomic init is still making has not its last key yet: wait,
     * and say so once it has stayed so for a while */
    int ready = store_peek_meta(hg->path, "created", &created, &err);
    free(created);
    if (ready <= 0) {
        struct stat sb;
        if (stat(hg->path, &sb) == 0 && time(NULL) - sb.st_mtime > UNFINISHED_GRACE)
            refused_once(w, hg->name, ready < 0 ? buf_str(&err) : "not a whole game (made by no nomic init)");
        buf_free(&err);
        return false;
    }
    if (failed_as_it_is(w, hg->path, false)) {
        buf_free(&err);
        return false;
    }
    buf_reset(&err);
    /* each game its own interned texts, so that games run at once
     * (value.h): the game is made in its table, and every thread that
     * holds it later uses that table (server_hold) */
    SymTable *t = sym_table_new();
    sym_use(t);
    Game *g = game_open(hg->path, &err);
    Server *s = NULL;
    char *path = xstrdup(hg->path); /* the server's, once it is made */
    if (g) {
        char *note = game_upgrade_note(g, hg->path);
        if (note) fprintf(stderr, "nomic serve: %s\n", note);
        free(note);
        s = server_new(w, g, path, &err);
        if (!s) game_close(g);
    }
    sym_use(NULL);
    if (!s) {
        refused_once(w, hg->name, buf_str(&err));
        failed_as_it_is(w, hg->path, true);
        free(path);
        sym_table_free(t);
        buf_free(&err);
        return false;
    }
    site_add(w, s);
    buf_free(&err);
    return true;
}

void site_scan(Site *w)
{
    static bool raised;
    if (!raised) raise_file_limit(), raised = true;
    HostList l;
    Buf err = {0};
    if (!host_list(w->dir, &l, &err)) {
        refused_once(w, w->dir, buf_str(&err));
        buf_free(&err);
        return;
    }
    for (int i = 0; i < l.nodd; i++)
        refused_once(w, l.odd[i],
                     "a game's name (its path, /NAME/) is letters, digits, '.', '_' and '-', not first '.' or '-', "
                     "and not api: rename the file");
    for (int i = 0; i < l.n; i++) {
        if (site_find(w, l.games[i].name, strlen(l.games[i].name))) continue;
        if (site_open_game(w, &l.games[i]) && w->serving) { /* the banner named the first ones */
            printf("nomic serve: %s on http://%s:%d/%s/ (new)\n", l.games[i].name, w->host, w->port, l.games[i].name);
            fflush(stdout);
        }
    }
    host_list_free(&l);
    buf_free(&err);
}

void site_games_json(Site *w, Buf *b)
{
    buf_puts(b, "{\"games\":[");
    Server *s;
    for (int i = 0; (s = site_game(w, i)); i++) {
        Snapshot *snap = snapshot_get(s);
        buf_puts(b, i ? ",\n" : "\n");
        buf_puts(b, snap->summary);
        snapshot_put(s, snap);
    }
    buf_puts(b, "\n]}");
}
