/*
 * nomic.c - the command line: the table of commands and main().
 *
 * Each command is in its file of src/cmd/, which owns its spec (cli.h):
 * its usage, options and docs.  This table lists them in the order nomic
 * help, docs/cli.md and the man page show them, and says which open GAME
 * before they run (CMD_GAME, as git's RUN_SETUP).
 *
 * It is built twice.  `nomic` links the engine and the store alone, so a
 * command such as replay, move or show loads no mail or HTTP library; the
 * commands that need them (CMD_ELSEWHERE: deliver, send, serve) it runs by
 * executing nomic-net, this file built with NOMIC_NET and everything
 * linked, found beside the program (the build) or in ../lib/nomic (as
 * installed: tools/install.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const Command commands[] = {
    {&cmd_init, 0},
    {&cmd_move, CMD_GAME},
    {&cmd_try, CMD_GAME},
    {&cmd_tick, CMD_GAME},
    {&cmd_show, CMD_GAME},
    {&cmd_log, CMD_GAME},
    {&cmd_outbox, CMD_GAME},
    {&cmd_check, 0},
    {&cmd_replay, 0}, /* opens GAME itself: read-only with --strike */
    {&cmd_export, CMD_GAME},
    {&cmd_config, CMD_GAME},
    {&cmd_token, CMD_GAME},
    {&cmd_sugar, CMD_GAME},
    {&cmd_deliver, CMD_GAME | CMD_ELSEWHERE},
    {&cmd_send, CMD_GAME | CMD_ELSEWHERE},
    {&cmd_serve, CMD_GAME | CMD_DIR | CMD_ELSEWHERE},
    {&cmd_reveal, CMD_GAME},
    {&cmd_backup, CMD_GAME},
    {&cmd_slr, 0}, /* its subcommands say their own (cmd/slr.c) */
    {&cmd_scams, CMD_GAME},
    {&cmd_report, CMD_GAME},
    {&cmd_suspend, CMD_GAME},
    {&cmd_resume, CMD_GAME},
    {&cmd_help, 0},
    {NULL, 0},
};

#ifdef NOMIC_NET
const bool cli_mail_here = true;
#else
const bool cli_mail_here = false;

/* Replaces this process with nomic-net running the same command line;
 * returns only when there is none to run, having said so. */
static int run_elsewhere(char **argv)
{
    char *net = cli_net_program();
    if (!net) {
        fprintf(stderr, "nomic: %s needs nomic-net, which is not installed beside nomic (make install)\n", argv[1]);
        return EXIT_USAGE;
    }
    execv(net, argv);
    fprintf(stderr, "nomic: %s: cannot run %s: %s\n", argv[1], net, strerror(errno));
    free(net);
    return EXIT_USAGE;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 2) {
        static const Command help = {&cmd_help, 0};
        static char name[] = "help";
        cli_run(&help, 1, (char *[]){name, NULL});
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0) {
        printf("nomic %s\ngame files of format %s (older ones are upgraded when opened, a copy of each kept)\n",
               NOMIC_VERSION, store_format());
        return 0;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) name = "help";
    for (const Command *c = commands; c->spec; c++)
        if (strcmp(c->spec->name, name) == 0) {
#ifndef NOMIC_NET
            if (c->flags & CMD_ELSEWHERE) return run_elsewhere(argv);
#endif
            int rc = cli_run(c, argc - 1, argv + 1);
            value_shutdown();
            return rc;
        }
    fprintf(stderr, "nomic: unknown command \"%s\" (see nomic help)\n", argv[1]);
    return EXIT_USAGE;
}
