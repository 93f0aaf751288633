/*
 * cli.h - what the command files share: the command table's types, option
 * parsing, and printing of outcomes.
 *
 * Each command lives in a file of src/cmd/ (as git keeps builtin/), which
 * owns its CmdSpec: its arguments, its options (OptSpec), its one-line doc,
 * its paragraphs for docs/cli.md and the man page, and its functions.
 * nomic.c lists them in one table, with a flag for the commands that open
 * GAME: for those, cli_run opens it between the command's check of its
 * arguments and its run, reports a game that does not open, and closes it.
 * The usage lines, nomic help, docs/cli.md and docs/nomic.1 are all made
 * from the table (cmd/help.c); a command never writes its usage by hand.
 *
 * A command returns the process exit status: 0 success, 1 refused or
 * failed check, 2 bad usage or an unusable game (some commands have their
 * own: deliver, scams).
 */
#ifndef NOMIC_CLI_H
#define NOMIC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"

/* This build's version: nomic --version prints it with the format of the
 * game files it writes (store_format). */
#define NOMIC_VERSION "0.9.0"

#define EXIT_REFUSED 1
#define EXIT_USAGE 2
#define CMD_GO_ON (-1) /* a check's answer: the arguments are good, go on */
#define MAX_OPTS 12    /* options of one command */
#define MAX_POS 256    /* positional arguments of one command */

/* One option of a command: the parser, the usage line and the docs read it. */
typedef struct OptSpec {
    const char *name; /* "--time" */
    const char *arg;  /* the value's placeholder in the usage line ("T"); NULL: a flag, it takes none */
    unsigned flags;   /* OPT_* */
    const char *doc;  /* one line */
} OptSpec;
enum {
    OPT_MULTI = 1,    /* may be repeated: every value is kept */
    OPT_REQUIRED = 2, /* shown without brackets; the command checks it and says so its own way */
    OPT_OR_NEXT = 4,  /* one choice with the next option: [--json|--objects] */
};

/* What was given of one option. */
typedef struct OptVal {
    bool set;
    const char *value;   /* the last value given */
    const char **values; /* OPT_MULTI: all of them */
    int nvalues;
} OptVal;

typedef struct CmdCall CmdCall;
typedef struct Command Command;

/* One command, in its own file of src/cmd/. */
typedef struct CmdSpec {
    const char *name;    /* as usage lines and messages say it: "show", "slr parse" */
    const char *args;    /* its positional arguments in the usage line: "GAME [KEY [VALUE]]" */
    int minpos, maxpos;  /* how many positional arguments it takes */
    const OptSpec *opts; /* in the usage line's order, ending with {NULL}; NULL: none */
    const char *doc;     /* one line, for nomic help */
    const char *more;    /* docs/cli.md's and the man page's paragraphs (markdown: `code`, "- " items), or NULL */
    bool first_only;     /* help: reads its first argument alone, and ignores what it does not know */
    int bad_usage;       /* exit status of bad usage; 0: EXIT_USAGE */
    int bad_game;        /* exit status when GAME does not open; 0: EXIT_USAGE */
    size_t data_size;    /* the command's own state between check and run, zeroed, at CmdCall.data */
    int (*check)(CmdCall *c);   /* before GAME opens: CMD_GO_ON, or the exit status; NULL: none */
    int (*run)(CmdCall *c);     /* the command; GAME is open in c->g if its row says CMD_GAME */
    void (*cleanup)(CmdCall *c); /* frees what check or run kept in c->data, whatever happened; or NULL */
    const Command *subs; /* a command made of subcommands (slr): their table, ending with {NULL} */
} CmdSpec;

/* One row of a command table. */
struct Command {
    const CmdSpec *spec;
    unsigned flags; /* CMD_* */
};
enum {
    CMD_GAME = 1, /* opens GAME, its first argument, before run (git's RUN_SETUP) */
    CMD_DIR = 2,  /* with CMD_GAME: a directory of games instead is not opened (c->g NULL) */
    CMD_ELSEWHERE = 4, /* speaks mail or HTTP: `nomic` runs it in nomic-net (nomic.c) */
};
extern const Command commands[]; /* nomic.c; ends with {NULL} */

/* One call of a command: its arguments, read by the spec's options. */
struct CmdCall {
    const CmdSpec *spec;
    const CmdSpec *usage; /* whose usage line the errors print: the spec, or its parent command's */
    const char *pos[MAX_POS];
    int npos;
    OptVal opt[MAX_OPTS]; /* indexed as spec->opts: each file names them by an enum */
    Game *g;              /* CMD_GAME: the open game */
    void *data;           /* spec->data_size bytes, the command's own */
};

/* Runs the command of one table row on argv[1..] (argv[0] is its name):
 * parses, checks, opens GAME, runs, cleans up.  Returns the exit status. */
int cli_run(const Command *c, int argc, char **argv);

/* The usage line of a command ("nomic show GAME [--type T]..."); a command
 * of subcommands joins theirs with " | ".  Appended to b. */
void cli_usage_line(const CmdSpec *s, Buf *b);
/* Prints "usage: LINE" of c's command on standard error. */
void cli_print_usage(const CmdCall *c);
/* --time's value in *out, or the wall clock when it was not given;
 * prints why and returns false when it does not read. */
bool cli_time(const OptVal *o, int64_t *out);

/* Whether this program links mail and HTTP: false in `nomic`, true in
 * nomic-net (nomic.c). */
extern const bool cli_mail_here;
/* nomic-net's path: beside this program (the build), or in ../lib/nomic
 * (as installed: tools/install.sh).  malloc'd; NULL when it is in
 * neither. */
char *cli_net_program(void);

/* Opens GAME or prints why not (returns NULL). */
Game *cli_open(const char *path);
/* Prints one event's outcome for people; replies_to: show the messages
 * for this address in full. */
void cli_print_outcome(const Outcome *o, const char *replies_to, bool with_trace);
/* Hands the messages due to the game's transport, saying on stderr what
 * could not be sent (quiet: and nothing of what was).  all: also those
 * waiting out a backoff or given up.  False if the store failed. */
typedef struct SendCount {
    int delivered, not_sent;
} SendCount;
bool cli_send_mail(Game *g, const char *path, bool all, bool quiet, SendCount *count);

/* The commands' specs, each in its file of src/cmd/. */
extern const CmdSpec cmd_init, cmd_move, cmd_try, cmd_tick, cmd_show, cmd_export, cmd_log, cmd_outbox, cmd_check,
    cmd_replay, cmd_help, cmd_config, cmd_token, cmd_sugar, cmd_deliver, cmd_send, cmd_serve, cmd_slr, cmd_reveal,
    cmd_scams, cmd_report, cmd_suspend, cmd_resume, cmd_backup;

#endif
