/*
 * game.h - one game: its pool, its engine, its store, and the Mechanics
 * that turn a received message or a timer into an event.
 *
 * An event is journaled before it is processed (so no move is lost), then
 * processed, then its outcome and effects are committed in one store
 * transaction.  A game without a store (game_memory) runs the same code
 * and keeps everything in memory: replay and the benchmark use it.
 */
#ifndef NOMIC_GAME_H
#define NOMIC_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "move_code.h"
#include "engine.h"
#include "store.h"
#include "move_sugar.h"
#include "mail_addrs.h"

typedef struct Incoming Incoming;

/* A recipient list (the R of send(R, text)) read once: its distinct
 * addresses in order of first appearance, and the first
 * MAX_EVENT_ADDRESSES of them as one mail's recipients (game_mechanics.c
 * reads it; the game keeps the last long one, game.c frees it). */
typedef struct RecipientList {
    Sym list;  /* the list read last (its text is in addrs: the Sym may be collected) */
    Addrs addrs;
    Buf to;    /* the first MAX_EVENT_ADDRESSES addresses, a space between */
} RecipientList;
void recipient_list_free(RecipientList *r);

/* The game's own state as an event leaves it: the meta row "state"
 * (game.c). */
typedef struct StateRow {
    long settled;
    ObjId next_id;
    bool halted, have_timer;
    int64_t next_timer;
    uint64_t rng[4];
    char *last_mover;
} StateRow;

/* One open game, its fields grouped by how long they live.  Nothing of
 * one event is kept here: an event's input is an EventInput, built by
 * its way in and passed down; what it did is its Outcome. */
typedef struct Game {
    /* -- as long as the game is open -- */
    Store *st;           /* NULL: in memory */
    Pool *pool;
    Engine *eng;
    SymTable *syms;      /* the table of interned texts its pool and engine use (value.h); NULL: the process's */
    Sugar *sugar;        /* the game's sugar table, NULL: none */
    uint64_t seed;
    bool legacy_meta;    /* the store keeps the state in the keys of before the "state" row (game.c) */
    bool defer_sync;     /* commits do not wait for the disk: the caller syncs before it acknowledges (the server) */
    long move_index_from; /* the first event whose moves carry moveIndex (the meta key move_index_from;
                           * 0: none yet, the next journaled is) */
    bool unindexed;      /* the event being run is older than that: its moves get no moveIndex (replay) */
    bool unexplained;    /* nobody reads its answers (a replay in memory, the benchmark's stream): a move
                          * with no effect is not explained (explain_no_effect), which only answers need */
    bool keep_changes;   /* each event's changes are also given in Outcome.changes (replay --strike) */
    /* the game's own state as the last event left it (the meta row "state") */
    bool halted;
    bool have_timer;
    int64_t next_timer;
    char *last_mover;    /* sender of the most recent move */
    char *winner_note;   /* set when the loop meta-rule ended the game */
    int timer_fails;     /* timer events in a row that ran past the budget (the back-off, */
    int64_t timer_retry; /* game.c), and when the timer is tried again (0: none) */
    int64_t clock;       /* the time the caller last ran the timers at (the wall clock, --time): a
                          * timer's back-off counts from it */
    /* -- what memory and the store hold of each other, until the next commit or load -- */
    long known_event;    /* the journal's last event as this process knows it */
    bool reload;         /* memory holds what the store did not keep (a failed commit): load again at the next lock */
    bool queue_stored_empty; /* the store holds no message waiting for sendNow: a commit need not clear them */
    bool backoff_unsaved; /* the back-off changed since the meta timer_backoff was written (game_save_state) */
    struct Dirty *dirty; /* the objects changed since the store's objects table was brought up to date */
    size_t ndirty, dirty_cap; /* (repeats allowed), and how many changes that was: game_objects_checkpoint */
    long changes_since;
    /* -- one group of events (game_group_begin .. game_group_end) -- */
    StateRow unsaved;    /* the state row of the group's last event kept, */
    bool state_unsaved;  /* written at the group's end (game_state_kept); last_mover owned */
    /* -- the Mechanics' scam check (scams_check.h): called once an event that opened a proposal is
     * committed, the lock held, with the journal's pending marker that `opened` made of the event's
     * undo log (malloc'd; NULL: none opened); NULL: proposals are not checked -- */
    char *(*opened)(struct Game *g);
    void (*on_opened)(void *ud, struct Game *g, long event, int64_t time, const char *pending);
    void *on_opened_ud;
    /* -- caches: dropped or rebuilt at will, they change no outcome -- */
    RecipientList *last_list; /* the recipient list the last hand-over read (game_mechanics.c) */
} Game;

/* How long an event waits for another program's event to finish. */
#define LOCK_WAIT_MS 10000

/* How a message reached the Mechanics. */
typedef enum { VIA_CLI, VIA_MAIL, VIA_HTTP } Via;

/* A message as the Mechanics receive it. */
struct Incoming {
    Via via;             /* VIA_CLI is the game-keeper: mailPolicy does not apply */
    const char *sender;  /* bare address */
    int64_t time;        /* when the Mechanics took it: the event's time */
    int64_t stamp;       /* the moves' moveTimeStamp (a mail's Date); 0: time */
    const char *body;    /* the moves: object format or sugar lines */
    const char *raw;     /* as received (a whole mail) for the journal; NULL: body */
    const char *token;   /* the token presented (mail `token:` line, HTTP bearer), or NULL */
    bool automatic;      /* an automatic mail (a bounce, an auto-reply): never answered */
    const char *key;     /* a mail's identity (Message-ID and sender, or a digest): taken at most once; or NULL */
    const char *refusal; /* the Mechanics refuse it unread, for this reason (too large), and raw is
                          * then only what the journal may keep of it; or NULL */
    const int *lines;    /* a mail's text: body is the lines its reader kept, line i being line
                          * lines[i] of the mail, and moves are read among prose (move_prose.h);
                          * NULL: body is moves only */
    int nlines;
    const char *how;     /* how the mail's text was found, for its answer (an HTML part), or NULL */
    bool wants_token;    /* a mail's line `TOKEN`: mail the sender's address its token */
    const char *client;  /* the HTTP client's IP, billed with the sender (game_billing.h), or NULL */
    bool public_view;    /* answered to whoever asked, with no proof that it is its sender (an HTTP move
                          * without a token, a report): its dry run and its "no effect" explanation read
                          * the public view (game_event.c) */
    const char *quotes;  /* a mail's quoted lines (their text after the > marks), each ending in \n, line i
                          * being line qlines[i] of the mail: context for the sugar's phrases; or NULL */
    const int *qlines;
    int nquotes;
    const char *subject; /* a mail's Subject, or NULL */
};

/* The attributes the Mechanics give a move, written to a (room for
 * MOVE_MECHANICS): type, moveSender, moveTimeStamp, moveBatch and, when
 * index > 0, moveIndex (its place in its message, from 1; 0 for a game
 * begun before moves had it); their number.  The scam search makes its
 * moves with them too. */
#define MOVE_MECHANICS 5
int move_mechanics(Attr *a, Sym from, Sym when, Sym batch, int index);

/* The most moves one message may hold (docs/limits.md). */
#define MAX_MOVES 1000
/* How long an address waits between two answers about mails refused
 * unread (no token, too large): forged mail cannot make the game a
 * mail cannon aimed at someone. */
#define ANSWER_PERIOD 3600

/* An event's verdict: what became of it.  Refused: the Mechanics refused it, or the
 * rules ran past the event's budget, and nothing of it was kept but the
 * journal's record; no effect: the rules changed nothing but the move
 * objects; loop: a state repeated and the loop meta-rule ended the
 * event; halted: halt() ended the game. */
typedef enum Verdict { VERDICT_APPLIED, VERDICT_NO_EFFECT, VERDICT_REFUSED, VERDICT_LOOP, VERDICT_HALTED } Verdict;
/* The journal's word for it: applied, no effect, refused, loop, halted. */
const char *verdict_name(Verdict s);

/* What the caller is told of one event (OutcomeFn), the journal's row
 * before it is written: its number, its verdict, what the engine did
 * (its run) and the Mechanics' message. */
typedef struct Outcome {
    long event;          /* journal number (0 in memory) */
    const char *kind;    /* "move", "tick" or "check" */
    int64_t time;
    Verdict verdict;
    bool ran;            /* the rules ran (and run is filled) */
    char *message;       /* why refused, or a note from the Mechanics */
    EventRun run;        /* what the engine did */
    char hash[17];       /* state hash after the event, hex */
    bool failed_read;    /* a read of the store failed while the event ran: it is not committed */
    CodeNotes code;      /* the Mechanics' check of the moves' rule code (move_code.h) */
    bool over_quota;     /* refused: its sender is over a quota (game_billing.h) */
    char *changes;       /* Game.keep_changes: the event's changes as its journal row keeps them, or NULL */
    char *scam_pending;  /* the proposals it opened, to be checked (scams_check.h), or NULL */
} Outcome;

void outcome_free(Outcome *o);

/* Called once per event (timers included) as they complete. */
typedef void (*OutcomeFn)(void *ud, Game *g, const Outcome *o);

Game *game_init(const char *path, const char **sets, int nsets, bool have_seed, uint64_t seed, int64_t time,
                bool force, Buf *err);
Game *game_open(const char *path, Buf *err);
/* The game at path as its store has it, opened read-only (store_open_readonly):
 * no event a crash left unsettled is finished, nothing is written; for
 * reading alone (replay --strike). */
Game *game_open_readonly(const char *path, Buf *err);
/* A new game file at path with the initial sets, seed, hash key, creation
 * time, moveIndex's first event and sugar of `from` (its seed's
 * commitment too), and no event yet: the start of the corrected game of
 * replay --strike --into.  Refused if path exists, unless force. */
Game *game_init_copy(const char *path, Game *from, bool force, Buf *err);
Game *game_memory(uint64_t seed);
/* SHA-256 (hex) of "nomic seed SEED salt SALT": the commitment init publishes. */
char *game_commitment(uint64_t seed, const char *salt);
bool game_load_set(Game *g, const char *label, const char *text, Buf *err);
void game_close(Game *g);
/* The game's name from its file, where no display name is set:
 * "games/agora.db" -> "agora".  malloc'd. */
char *game_file_name(const char *path);
/* When opening the game at path upgraded its format: what the keeper is
 * told (what it was, and where the file as it was is kept), malloc'd;
 * else NULL. */
char *game_upgrade_note(Game *g, const char *path);
/* Frees the interned texts no open game uses any more; every event starts
 * with it, and it works only once they outnumber the live ones, unless
 * `force`.  `g` is the game about to run an event (all open games are
 * kept). */
void game_collect(Game *g, bool force);

/* A message from `sender` at `time`: first the timers due by then, then
 * the move itself.  dry: nothing is kept (try).  Returns the move's
 * outcome through fn as well. Returns false only on a store failure. */
bool game_move(Game *g, const char *sender, int64_t time, const char *body, bool dry, OutcomeFn fn, void *ud);
/* The Mechanics' way in: runs the timers due by m->time, then checks the
 * message against mailPolicy, rewrites its sugar, journals it (raw and
 * moves) and runs the rules.  A refused mail is answered by mail. */
bool game_submit(Game *g, const Incoming *m, bool dry, OutcomeFn fn, void *ud);

/* The writer's lock around one event, for the server and the commands: it
 * waits for another program's event to finish, then reloads the game if
 * that program changed it.  game_submit and game_tick take it themselves. */
bool game_lock(Game *g, Buf *err);
void game_unlock(Game *g);

/* A group of events (a stream's moves; store_group_begin): the lock held
 * and one transaction from begin to end, each event a savepoint in it.
 * What the group's events did is neither durable nor visible to other
 * programs before game_group_end commits it, so nothing of it may be
 * acknowledged before; when the commit fails (or an error ended the
 * group earlier), every event since game_group_begin is lost, the game is
 * reloaded before the next, and the caller says the group's moves were
 * not kept.  A game in memory groups nothing. */
bool game_group_begin(Game *g, Buf *err);
bool game_group_end(Game *g, Buf *err);

/* The game's time goes forward: the time of the journal's last event
 * (INT64_MIN: none), and, for a time before it, why it is refused
 * (malloc'd; NULL: the time is not before it).  A move given a time on
 * the command line, or a tick, before the last event is refused, reported
 * through fn as an outcome with no event, and not journaled; a mail or a
 * request (the wall clock, stepped back) happens at the last event's
 * time instead. */
/* The last event's time in *t (INT64_MIN: no event); 1, 0 when there is
 * none, -1 when the journal cannot be read (store_error says why). */
int game_last_time(Game *g, int64_t *t);
/* 1 with *why (malloc'd) when time is before the last event, 0 when it
 * is not, -1 when the journal cannot be read. */
int game_time_refusal(Game *g, int64_t time, char **why);
/* A time for game_move and game_tick that says "now": the wall clock,
 * read once the game is locked and never before the last event, so that
 * commands run at once take their turns in time order. */
#define GAME_TIME_NOW INT64_MIN

/* When the next timer event runs: the rules' timer, or, while its
 * events run past the budget, the back-off's later time (game.c:
 * TIMER_BACKOFF_FIRST doubling, at most TIMER_BACKOFF_MAX); have_timer
 * says whether there is one. */
int64_t game_timer_due(const Game *g);
/* A timer event that ran past the budget waits 1 minute, then 2, 4, ...,
 * at most a day, counted from when it was tried (docs/limits.md). */
#define TIMER_BACKOFF_FIRST 60
#define TIMER_BACKOFF_MAX 86400

/* Runs every timer due at or before `time`. */
bool game_tick(Game *g, int64_t time, bool dry, OutcomeFn fn, void *ud);

/* One event's input: what the event code (game_event.c) runs, and all it
 * is told of where it came from.  Built by the way in -- game_submit.c
 * for a message, the timers (game_tick), replay from the journal (a
 * suspend or resume too, game_event_keeper), the recovery of an event a
 * crash left unsettled -- and passed down, as SQLite keeps a statement's
 * Parse and Vdbe apart from the connection: nothing of one event is
 * parked on the Game (docs/engine.md, the glossary). */
typedef struct EventInput {
    const char *kind;     /* "move", "tick", "check" (a scam check's answer offered to the rules,
                           * scams_check.h: moves holds its objects); "suspend", "resume" (game_suspend.c) */
    const char *sender;   /* a move's sender, in its one form (game_address), or NULL */
    int64_t time;         /* the event's time */
    int64_t stamp;        /* the moves' moveTimeStamp (a mail's Date; else time) */
    const char *moves;    /* a move: the object text to run; NULL: the Mechanics refused it, for `why`.
                           * suspend, resume: "rule: N" */
    const char *why;      /* why the Mechanics refused the message, or NULL */
    const char *raw;      /* as received, for the journal, or NULL */
    const char *key;      /* a mail's identity, journaled with it (taken at most once), or NULL */
    bool dry;             /* nothing is kept (try, a report, the timer's probe) */
    bool public_view;     /* Incoming.public_view: a dry run and a "no effect" explanation read the public view */
    const Incoming *answer; /* a mail to answer if it is refused (and whose moves are summed), or NULL */
    bool answer_unread;   /* that answer is about a mail refused unread (at most one an hour per address) */
    const char *reading;  /* how the Mechanics read the mail's text (lines set aside), or NULL */
    const char *summing;  /* the moves of a mail, answered with what they did (game_answer_summary), or NULL */
    const char *token_to; /* an address the event mails a new token, or NULL */
    const struct Payers *payers; /* who pays for the event (game_billing.h), or NULL: nobody */
} EventInput;

/* Runs one event, a move or a tick, without running timers first (replay
 * feeds the journal through it): journaled (unless dry or in memory),
 * run, settled and committed.  False only on a store failure. */
bool game_event(Game *g, const EventInput *in, Outcome *o);
/* game_event for a move from sender at time (the unit tests, benchmarks). */
bool game_event_move(Game *g, const char *sender, int64_t time, int64_t stamp, const char *body, bool dry, Outcome *o);

/* nomic replay's check (game_replay.c): the game rebuilt from its initial
 * sets and journal; prints what differs, true when every hash matches. */
bool game_replay(Game *g);

/* nomic replay --strike (game_strike.c): the game replayed twice in
 * memory, as journaled and without event `strike`, which a ruling says
 * never happened (its draws of the generator skipped, not handed to the
 * next event); prints the later events whose status or changes differ
 * and the final states' differences, ids compared as docs/engine.md
 * says ("Striking an event"); with `into`, writes the corrected game
 * there (force: over a file).  `g` is only read (game_open_readonly).
 * Returns the exit status: 0, 1 (the game does not replay, a store
 * failed, `into` not written), 2 (no event `strike` to strike). */
typedef struct StrikeOpts {
    long strike;          /* the event struck */
    const char *into;     /* where the corrected game goes, or NULL */
    const char *game_path; /* g's file, which `into` may not be */
    bool force, json;
} StrikeOpts;
int game_strike(Game *g, const StrikeOpts *opt);
/* A struck event's place in a corrected game's journal (kind "strike",
 * input "event: N" and "draws: K"): the generator steps K draws, nothing
 * else happens; journaled if g has a store.  Replay repeats it. */
bool game_event_strike(Game *g, const EventInput *in, Outcome *o);

/* The game-keeper's way out of a rule that stops the game (game_suspend.c):
 * rule `rule` is set aside (on) or taken back (off), as an event of its
 * own, kind "suspend" or "resume", journaled with the time it happens
 * (the wall clock, never before the last event).  The engine leaves a
 * suspended rule out of its run order; the timer's back-off starts
 * again.  A request that cannot be done (no such rule, suspended
 * already, not suspended) is reported through fn with no event and
 * nothing kept.  False only when the store failed. */
bool game_suspend(Game *g, ObjId rule, bool on, OutcomeFn fn, void *ud);
/* replay: the same event as the journal has it (in: kind, time, moves "rule: N"). */
bool game_event_keeper(Game *g, const EventInput *in, Outcome *o);

/* Is `addr` one of the words of the recipient list `to`? */
bool addressed_to(Sym to, const char *addr);

#endif
