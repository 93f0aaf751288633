/*
 * game_lock.c - the writer's turn (game.h game_lock, game_group_begin):
 * the lock between programs, the game loaded again when another program
 * wrote it, and, before anything else, the event a crash left unsettled
 * finished (game_recover, game_event.c).  Above the event code, which it
 * calls; game.c, below both, loads and keeps the game.
 */
#include "game_int.h"

#include <stdlib.h>

Game *game_open(const char *path, Buf *err)
{
    Store *st = store_open(path, false, false, err);
    if (!st) return NULL;
    Game *g = game_new();
    g->st = st;
    if (!game_load(g, err)) goto failed;
    /* an event left half done is finished by whoever next takes the lock;
     * if another program holds it, that program is busy with it */
    bool ok = true;
    if (store_lock(st, 0)) {
        ok = game_recover(g);
        store_unlock(st);
    }
    if (ok) return g;
    buf_printf(err, "%s: %s", path, store_error(st));
failed:
    game_close(g);
    return NULL;
}

Game *game_open_readonly(const char *path, Buf *err)
{
    Store *st = store_open_readonly(path, err);
    if (!st) return NULL;
    Game *g = game_new();
    g->st = st;
    if (game_load(g, err)) return g;
    game_close(g);
    return NULL;
}

/* Loads the game again from the store, when another program wrote it. */
static bool game_reload(Game *g, Buf *err)
{
    engine_free(g->eng);
    pool_free(g->pool);
    sugar_free(g->sugar);
    free(g->last_mover);
    g->sugar = NULL;
    g->last_mover = NULL;
    g->pool = pool_new();
    g->eng = engine_new(g->pool);
    g->halted = g->have_timer = false;
    g->reload = false;
    if (game_load(g, err) && game_recover(g)) return true;
    if (!err->len) buf_puts(err, store_error(g->st));
    g->reload = true; /* what was loaded in part is not the game */
    return false;
}

/* Another connection wrote the database: a new event means a new state;
 * otherwise only the sugar can have changed (settings and tokens are read
 * when used, and the outbox's deliveries are no part of the game). */
static bool game_refresh(Game *g, Buf *err)
{
    if (!game_state_flush(g)) {
        buf_puts(err, store_error(g->st));
        return false;
    }
    long settled = game_settled_event(g->st);
    if (settled < 0) {
        buf_puts(err, store_error(g->st));
        return false;
    }
    if (g->reload || settled != g->known_event) return game_reload(g, err);
    char *v;
    if (store_meta_read(g->st, "sugar", &v) < 0) {
        buf_puts(err, store_error(g->st));
        return false;
    }
    sugar_free(g->sugar);
    g->sugar = v && *v ? sugar_parse(v, "sugar", err) : NULL;
    free(v);
    return true;
}

bool game_lock(Game *g, Buf *err)
{
    if (!g->st) return true;
    if (!store_lock(g->st, LOCK_WAIT_MS)) {
        buf_puts(err, store_error(g->st));
        return false;
    }
    if ((g->reload || store_changed_elsewhere(g->st)) && !game_refresh(g, err)) {
        store_unlock(g->st);
        return false;
    }
    return true;
}

void game_unlock(Game *g)
{
    if (g->st) store_unlock(g->st);
}

bool game_group_begin(Game *g, Buf *err)
{
    if (!g->st) return true;
    if (!game_lock(g, err)) return false;
    /* the group's commit is the one that waits for the disk, unless the
     * caller syncs itself */
    if (!store_sync_commits(g->st, !g->defer_sync) || !store_group_begin(g->st)) {
        buf_puts(err, store_error(g->st));
        game_unlock(g);
        return false;
    }
    return true;
}

bool game_group_end(Game *g, Buf *err)
{
    if (!g->st) return true;
    /* the group's events wrote neither the state row (kept from the last
     * event kept) nor a checkpoint (made from memory, which holds that
     * event's state unless a later one failed: the game loads again) */
    bool ok = game_state_flush(g) && (g->reload || game_objects_checkpoint(g, g->known_event));
    if (!ok) store_group_abort(g->st);
    ok = ok && store_group_end(g->st);
    game_state_unsaved_drop(g);
    if (!ok) {
        /* the pool, the generator and the queue hold events the store
         * did not keep */
        g->reload = true;
        buf_puts(err, store_error(g->st));
    }
    game_unlock(g);
    return ok;
}
