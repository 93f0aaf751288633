/*
 * cmd/report.c - nomic report: what a game-keeper posts (the standings,
 * the Proposal Pool, the Assessor's resolutions), printed from the state.
 *
 * The layouts are the set's, not the command's: report.c asks the rules,
 * in a dry run that keeps nothing, and this prints what they answer.  A
 * set without report rules answers nothing, and the command says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

int cmd_report(int argc, char **argv)
{
    Opt o[] = {{"--time", true}};
    const char *pos[2];
    int npos, rc = EXIT_USAGE;
    const char *usage = "nomic report GAME KIND [--time T]";
    int64_t t;
    Game *g = NULL;
    Report r = {0};
    if (!cli_parse(argc, argv, o, 1, pos, 2, 2, &npos, usage) || !cli_time(&o[0], &t)) goto out;
    if (!report_kind_ok(pos[1])) {
        fprintf(stderr, "nomic report: a kind is one word of letters, digits, - and _ (not \"%s\")\nusage: %s\n", pos[1],
                usage);
        goto out;
    }
    if (!(g = cli_open(pos[0]))) goto out;
    if (!report_run(g, pos[1], t, &r)) {
        fprintf(stderr, "nomic report: the store failed: %s\n", store_error(g->st));
        goto out;
    }
    rc = EXIT_REFUSED;
    if (r.refused) fprintf(stderr, "nomic report: the report move was refused: %s\n", r.why ? r.why : "(no reason)");
    else if (!r.text.len)
        fprintf(stderr, "nomic report: the rules answered no report %s (a set's report rules answer the move "
                        "subtype: report, kind: KIND; docs/cli.md lists the shipped sets' kinds)\n", pos[1]);
    else {
        fputs(buf_str(&r.text), stdout);
        rc = 0;
    }
out:
    report_free(&r);
    game_close(g);
    cli_free_opts(o, 1);
    return rc;
}
