/*
 * host.c - a host's games: the game files of a directory, and the one a
 * mail is for (host.h).
 */
#include "host.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "store.h"

bool host_is_dir(const char *dir)
{
    struct stat sb;
    return stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
}

bool host_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > HOST_NAME_MAX_LEN || name[0] == '.' || name[0] == '-' || strcmp(name, "api") == 0)
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '_' || *p == '-'))
            return false;
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const HostGame *)a)->name, ((const HostGame *)b)->name);
}

bool host_list(const char *dir, HostList *out, Buf *err)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d) {
        buf_printf(err, "%s: %s", dir, strerror(errno));
        return false;
    }
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n <= 3 || strcmp(e->d_name + n - 3, ".db") != 0) continue;
        char *name = xstrndup(e->d_name, n - 3);
        Buf path = {0};
        buf_printf(&path, "%s/%s", dir, e->d_name);
        struct stat sb;
        bool file = stat(buf_str(&path), &sb) == 0 && S_ISREG(sb.st_mode);
        if (!file || !host_name_ok(name)) {
            if (file) {
                out->odd = xrealloc(out->odd, (size_t)(out->nodd + 1) * sizeof *out->odd);
                out->odd[out->nodd++] = xstrdup(e->d_name);
            }
            free(name);
            buf_free(&path);
            continue;
        }
        if (out->n == cap) out->games = xrealloc(out->games, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *out->games);
        out->games[out->n++] = (HostGame){name, buf_take(&path)};
    }
    closedir(d);
    if (out->n) qsort(out->games, (size_t)out->n, sizeof *out->games, by_name);
    return true;
}

void host_list_free(HostList *l)
{
    for (int i = 0; i < l->n; i++) free(l->games[i].name), free(l->games[i].path);
    for (int i = 0; i < l->nodd; i++) free(l->odd[i]);
    free(l->games);
    free(l->odd);
    memset(l, 0, sizeof *l);
}

/* Is `address` (a game's setting) the address `to`, or `to` without its
 * local part's "+detail"?  Compared in any case: MTAs hand the recipient
 * in the case the sender wrote it. */
static bool address_is(const char *address, const char *to)
{
    if (!*address) return false;
    if (strcasecmp(address, to) == 0) return true;
    const char *plus = strchr(to, '+'), *at = strrchr(to, '@');
    if (!plus || !at || plus > at) return false;
    size_t local = (size_t)(plus - to);
    return strncasecmp(address, to, local) == 0 && strcasecmp(address + local, at) == 0;
}

/* The game named as the address's local part (spring of spring@... or
 * spring+x@...), when its address is `to`: the path, malloc'd, or NULL.
 * Most hosts name a game so; it is then found without reading every
 * game of the directory. */
static char *named_as_address(const char *dir, const char *to)
{
    size_t local = strcspn(to, "+@");
    if (!to[local] || local == 0 || local > HOST_NAME_MAX_LEN) return NULL;
    char *name = xstrndup(to, local), *found = NULL;
    if (host_name_ok(name)) {
        Buf path = {0}, err = {0};
        buf_printf(&path, "%s/%s.db", dir, name);
        char *address = NULL;
        struct stat sb;
        if (stat(buf_str(&path), &sb) == 0 && S_ISREG(sb.st_mode) &&
            store_peek_config(buf_str(&path), "address", &address, &err) > 0 && address_is(address, to))
            found = buf_take(&path);
        free(address);
        buf_free(&path);
        buf_free(&err);
    }
    free(name);
    return found;
}

int host_find_address(const char *dir, const char *to, char **path, char **why)
{
    *path = NULL;
    *why = NULL;
    if ((*path = named_as_address(dir, to))) return 1;
    HostList l;
    Buf err = {0}, unread = {0};
    int rc = -1;
    if (!host_list(dir, &l, &err)) {
        *why = buf_take(&err);
        return -1;
    }
    const char *found = NULL;
    for (int i = 0; i < l.n; i++) {
        char *address = NULL;
        buf_reset(&err);
        int got = store_peek_config(l.games[i].path, "address", &address, &err);
        if (got < 0) {
            buf_printf(&unread, "%s%s", unread.len ? "; " : "", buf_str(&err));
            continue;
        }
        bool match = got > 0 && address_is(address, to);
        free(address);
        if (!match) continue;
        if (found) {
            buf_reset(&err);
            buf_printf(&err, "%s is the address of two games of %s, %s and %s: set one's address apart (nomic "
                             "config GAME address ...)",
                       to, dir, found, l.games[i].name);
            *why = buf_take(&err);
            goto done;
        }
        found = l.games[i].name;
        *path = xstrdup(l.games[i].path);
    }
    if (found) {
        rc = 1;
    } else if (unread.len) {
        buf_reset(&err);
        buf_printf(&err, "no game of %s has the address %s, but some could not be read (%s)", dir, to, buf_str(&unread));
        *why = buf_take(&err);
    } else {
        /* said to the sender too (the MTA's bounce): it names no other game */
        buf_reset(&err);
        buf_printf(&err, "no game here has the address %s", to);
        *why = buf_take(&err);
        rc = 0;
    }
done:
    if (rc != 1) free(*path), *path = NULL;
    host_list_free(&l);
    buf_free(&err);
    buf_free(&unread);
    return rc;
}
