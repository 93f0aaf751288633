/*
 * game_replay.c - the check `nomic replay` makes (game.h): the game rebuilt in
 * memory from its initial sets, its seed and its journal, every recorded
 * state hash compared.  Apart from the command so that the unit tests
 * check a game the same way.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"

typedef struct Replay {
    Game *mem;
    long events, mismatches;
    bool store_failed;
    long index_from; /* events from this one on gave their moves moveIndex */
} Replay;

static bool load_initial(void *ud, const char *label, const char *text)
{
    Replay *r = ud;
    Buf err = {0};
    bool ok = game_load_set(r->mem, label, text, &err);
    if (!ok) fprintf(stderr, "nomic replay: initial set %s: %s\n", label, buf_str(&err));
    buf_free(&err);
    return ok;
}

static bool replay_event(void *ud, const JournalRow *row)
{
    Replay *r = ud;
    Outcome o;
    /* the event's input as the journal has it */
    EventInput in = {.kind = row->kind,
                     .sender = row->sender ? row->sender : "",
                     .time = row->time,
                     .stamp = row->stamp,
                     .moves = row->input ? row->input : ""};
    r->mem->unindexed = row->n < r->index_from;
    r->mem->unexplained = true; /* only outcomes and hashes are compared */
    if (strcmp(row->kind, "suspend") == 0 || strcmp(row->kind, "resume") == 0) game_event_keeper(r->mem, &in, &o);
    else if (strcmp(row->kind, "strike") == 0) game_event_strike(r->mem, &in, &o); /* a corrected game's */
    else game_event(r->mem, &in, &o);
    r->events++;
    if (strcmp(row->status, "received") == 0) {
        /* never settled: nothing recorded to compare */
    } else if (strcmp(verdict_name(o.verdict), row->status) != 0 &&
               !(strcmp(row->status, "applied") == 0 && o.verdict == VERDICT_NO_EFFECT)) {
        /* (a journal written before "no effect" was a status of its own says applied) */
        printf("event %ld: recorded %s, replay gives %s\n", row->n, row->status, verdict_name(o.verdict));
        r->mismatches++;
    } else if (row->hash && strcmp(row->hash, o.hash) != 0) {
        printf("event %ld: state hash recorded %s, replay gives %s\n", row->n, row->hash, o.hash);
        r->mismatches++;
    }
    outcome_free(&o);
    return true;
}

bool game_replay(Game *g)
{
    Replay r = {game_memory(g->seed), 0, 0, false, g->move_index_from ? g->move_index_from : LONG_MAX};
    r.mem->eng->created = g->eng->created;
    /* what is compared is each event's status and state hash: the traces
     * (a fifth of the time) would be built for nothing, and they change
     * neither (the meter does not count them) */
    r.mem->eng->trace_on = false;
    /* the game's key and version: every hash depends on them */
    pool_set_hash_key(r.mem->pool, g->pool->hash_key, g->pool->hash_version);
    bool ok = false;
    if (store_each_initial(g->st, load_initial, &r)) {
        if (!store_each_event(g->st, 1, 0x7fffffffL, replay_event, &r)) {
            printf("the journal cannot be read: %s\n", store_error(g->st));
            r.mismatches++;
        } else if (r.mem->pool->state_hash != g->pool->state_hash) {
            printf("the replayed state differs from the stored objects\n");
            r.mismatches++;
        }
        if (r.mismatches == 0) {
            printf("replayed %ld event%s from the initial sets: every state hash matches\n", r.events,
                   r.events == 1 ? "" : "s");
            ok = true;
        } else {
            printf("replay FAILED: %ld mismatch%s in %ld events\n", r.mismatches, r.mismatches == 1 ? "" : "es",
                   r.events);
        }
    } else if (*store_error(g->st)) {
        printf("the initial sets cannot be read: %s\n", store_error(g->st));
    }
    game_close(r.mem);
    return ok;
}
