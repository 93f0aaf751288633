/*
 * nomic.c - the command line: the table of subcommands and main().
 * Each subcommand is in its own cmd_<name>.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const Command commands[] = {
    {"init", cmd_init, "nomic init GAME [--ruleset NAME|FILE]... [--seed N] [--time T] [--force]",
     "create a new game from one or more initial sets"},
    {"move", cmd_move, "nomic move GAME --from ADDR [--time T] [--file F]",
     "submit a message of moves (from F or stdin); prints the replies"},
    {"try", cmd_try, "nomic try GAME --from ADDR [--time T] [--file F]",
     "dry run of a move: the trace and the changes; nothing is kept"},
    {"tick", cmd_tick, "nomic tick GAME [--time T]", "run the timers due at T (default: now)"},
    {"show", cmd_show, "nomic show GAME [--type T] [--id N] [--at N] [--json] [--as ADDR]", "print objects"},
    {"log", cmd_log, "nomic log GAME [--event N] [--json] [--as ADDR]", "the journal: events, outcomes, traces"},
    {"outbox", cmd_outbox, "nomic outbox GAME [--json]", "every message: recipients, time, state, text"},
    {"check", cmd_check, "nomic check FILE...", "parse and lint a ruleset or a rule text"},
    {"replay", cmd_replay, "nomic replay GAME", "rebuild the game from its initial sets and journal, checking every hash"},
    {"export", cmd_export, "nomic export GAME", "the whole state in the object text format"},
    {"config", cmd_config, "nomic config GAME [KEY [VALUE]] [--unset]",
     "settings of the Mechanics: transport, mailFrom, mailPolicy, listen"},
    {"token", cmd_token, "nomic token GAME ADDRESS", "issue (or re-issue) the token of a player's address"},
    {"sugar", cmd_sugar, "nomic sugar GAME [--set FILE]", "print or replace the game's sugar (one-line moves)"},
    {"deliver", cmd_deliver, "nomic deliver GAME [--mbox FILE]", "take one RFC 5322 mail on stdin, as an MTA's delivery program; --mbox: every mail of a mailbox"},
    {"send", cmd_send, "nomic send GAME [--all]",
     "hand the messages sendNow() released to the transport; --all: retry even those waiting or given up"},
    {"serve", cmd_serve, "nomic serve GAME [--listen HOST:PORT]",
     "serve the game over HTTP: the web page, the JSON API, the clock and the mail out"},
    {"reveal", cmd_reveal, "nomic reveal GAME",
     "publish the generator's seed, checked against the commitment init printed, and the state hash's key"},
    {"slr", cmd_slr, "nomic slr parse FILE [--json|--objects] | nomic slr emit GAME",
     "Agora's Short Logical Ruleset: read one (a summary, JSON or objects), or print a game's"},
    {"scams", cmd_scams, "nomic scams GAME --as ADDR [--with ADDR]... --goal CONDITION [--depth K] [--budget N] [--wait] [--proposal ID] [--json]",
     "search the moves after which a goal holds (a scam), in memory: found 0, none 3"},
    {"report", cmd_report, "nomic report GAME KIND [--time T]",
     "what a game-keeper posts (standings, the Proposal Pool...), as the set's report rules write it; nothing kept"},
    {"suspend", cmd_suspend, "nomic suspend GAME RULE_ID",
     "the game-keeper sets a rule aside (the engine skips it) until resumed; journaled"},
    {"resume", cmd_resume, "nomic resume GAME RULE_ID", "the game-keeper takes a suspended rule back; journaled"},
    {"help", cmd_help, "nomic help [--markdown]", "this summary and the rule language's verbs and functions"},
    {NULL, NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        static char help[] = "help";
        cmd_help(1, (char *[]){help, NULL});
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) name = "help";
    for (const Command *c = commands; c->name; c++)
        if (strcmp(c->name, name) == 0) {
            int rc = c->fn(argc - 1, argv + 1);
            value_shutdown();
            return rc;
        }
    fprintf(stderr, "nomic: unknown command \"%s\" (see nomic help)\n", argv[1]);
    return EXIT_USAGE;
}
