/*
 * cmd/replay.c - nomic replay: rebuild a game in memory from its initial
 * sets, its seed and its journal, and check every recorded state hash
 * (game_replay.c); with --strike, the game as if an event never happened
 * (game_strike.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { REPLAY_STRIKE, REPLAY_INTO, REPLAY_FORCE, REPLAY_JSON };
static const OptSpec replay_opts[] = {
    [REPLAY_STRIKE] = {"--strike", "N", 0, "replay without event N (a ruling that it never happened) and say what differs"},
    [REPLAY_INTO] = {"--into", "NEWGAME", 0, "with --strike: write the corrected game there (GAME is never changed)"},
    [REPLAY_FORCE] = {"--force", NULL, 0, "with --into: replace NEWGAME if it exists"},
    [REPLAY_JSON] = {"--json", NULL, 0, "with --strike: as JSON (docs/engine.md)"},
    {NULL},
};

static int check(CmdCall *c)
{
    const OptVal *o = c->opt;
    if (!o[REPLAY_STRIKE].set && (o[REPLAY_INTO].set || o[REPLAY_FORCE].set || o[REPLAY_JSON].set)) {
        fprintf(stderr, "nomic replay: --into, --force and --json go with --strike N\n");
        cli_print_usage(c);
        return EXIT_USAGE;
    }
    if (o[REPLAY_FORCE].set && !o[REPLAY_INTO].set) {
        fprintf(stderr, "nomic replay: --force goes with --into NEWGAME\n");
        return EXIT_USAGE;
    }
    if (o[REPLAY_STRIKE].set) {
        char *end;
        const char *v = o[REPLAY_STRIKE].value;
        long n = strtol(v, &end, 10);
        if (end == v || *end || n < 1) {
            fprintf(stderr, "nomic replay: --strike %s: expected an event's number (1 or more)\n", v);
            return EXIT_USAGE;
        }
    }
    return CMD_GO_ON;
}

static int run(CmdCall *c)
{
    const OptVal *o = c->opt;
    if (!o[REPLAY_STRIKE].set) {
        Game *g = cli_open(c->pos[0]);
        if (!g) return EXIT_USAGE;
        int rc = game_replay(g) ? 0 : EXIT_REFUSED;
        game_close(g);
        return rc;
    }
    /* read-only: a strike never changes the game (not even an unsettled
     * event's recovery, or an upgrade) */
    Buf err = {0};
    Game *g = game_open_readonly(c->pos[0], &err);
    if (!g) {
        fprintf(stderr, "nomic: %s\n", buf_str(&err));
        buf_free(&err);
        return EXIT_USAGE;
    }
    StrikeOpts so = {.strike = strtol(o[REPLAY_STRIKE].value, NULL, 10),
                     .into = o[REPLAY_INTO].set ? o[REPLAY_INTO].value : NULL,
                     .game_path = c->pos[0],
                     .force = o[REPLAY_FORCE].set,
                     .json = o[REPLAY_JSON].set};
    int rc = game_strike(g, &so);
    game_close(g);
    return rc;
}

const CmdSpec cmd_replay = {
    .name = "replay",
    .args = "GAME",
    .minpos = 1,
    .maxpos = 1,
    .opts = replay_opts,
    .doc = "rebuild the game from its initial sets and journal, checking every hash; or strike an event",
    .more = "It rebuilds the game in memory from the initial sets and the journal, with the game's seed and hash\n"
            "key, and compares every event's state hash; on a difference it names the first event that differs\n"
            "and exits 1.  A game made before the hash was keyed (no `hash_key` in its meta) is hashed with a\n"
            "zero key; the hashes it recorded before do not replay.\n"
            "\n"
            "With `--strike N` it settles a ruling that event N (a move or a timer) never happened: it replays the\n"
            "game twice, as journaled and without event N, and lists every later event whose outcome or changes\n"
            "differ, then the final states' differences (objects only before, only after, or different).  Event\n"
            "N's draws of the generator are skipped, not handed to the next event; an object that only got\n"
            "another id is not a difference (docs/engine.md, \"Striking an event\", says how ids are matched).\n"
            "Private attributes are left out, as in the public view.  GAME is opened read-only and never\n"
            "changed.  `--into NEWGAME` writes the corrected game as a new game file (the same initial sets, seed,\n"
            "hash key, settings and tokens; at event N, a `strike` record), which `nomic replay NEWGAME` checks; it\n"
            "refuses an existing NEWGAME unless `--force`, and never GAME itself.  An N that is not an event of the\n"
            "journal exits 2; a GAME that does not replay exits 1.\n",
    .check = check,
    .run = run,
};
