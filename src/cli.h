/*
 * cli.h - what the command files share: option parsing, the command table,
 * and printing of outcomes.  Each command lives in its own cmd_<name>.c
 * and returns the process exit status: 0 success, 1 refused or failed
 * check, 2 bad usage or an unusable game.
 */
#ifndef NOMIC_CLI_H
#define NOMIC_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "game.h"

#define EXIT_REFUSED 1
#define EXIT_USAGE 2

typedef struct Opt {
    const char *name;   /* "--time" */
    bool takes_value;
    bool multi;         /* may be repeated (values collected) */
    /* filled by cli_parse: */
    bool set;
    const char *value;
    const char **values;
    int nvalues;
} Opt;

/* Parses argv[1..] (argv[0] is the command name).  Positional arguments
 * go to pos (at most maxpos).  Prints a message and returns false on a
 * usage error. */
bool cli_parse(int argc, char **argv, Opt *opts, int nopts, const char **pos, int minpos, int maxpos, int *npos,
               const char *usage);
void cli_free_opts(Opt *opts, int nopts);
bool cli_time(const Opt *o, int64_t *out); /* --time, default now */

typedef int (*CmdFn)(int argc, char **argv);
typedef struct Command {
    const char *name;
    CmdFn fn;
    const char *usage;
    const char *doc;
} Command;
extern const Command commands[];

int cmd_init(int argc, char **argv);
int cmd_move(int argc, char **argv);
int cmd_try(int argc, char **argv);
int cmd_tick(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_outbox(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_token(int argc, char **argv);
int cmd_sugar(int argc, char **argv);
int cmd_deliver(int argc, char **argv);
int cmd_send(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_slr(int argc, char **argv);
int cmd_reveal(int argc, char **argv);
int cmd_scams(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_suspend(int argc, char **argv);
int cmd_resume(int argc, char **argv);

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

#endif
