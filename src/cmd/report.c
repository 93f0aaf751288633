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

enum { REPORT_TIME };
static const OptSpec report_opts[] = {
    [REPORT_TIME] = {"--time", "T", 0, "the time the report is asked at (default: now)"},
    {NULL},
};

typedef struct ReportArgs {
    int64_t t; /* --time, or now */
} ReportArgs;

static int report_check(CmdCall *c)
{
    if (!cli_time(&c->opt[REPORT_TIME], &((ReportArgs *)c->data)->t)) return EXIT_USAGE;
    if (!report_kind_ok(c->pos[1])) {
        fprintf(stderr, "nomic report: a kind is one word of letters, digits, - and _ (not \"%s\")\n", c->pos[1]);
        cli_print_usage(c);
        return EXIT_USAGE;
    }
    return CMD_GO_ON;
}

static int report_ask(CmdCall *c)
{
    int rc = EXIT_USAGE;
    Report r = {0};
    if (!report_run(c->g, c->pos[1], ((ReportArgs *)c->data)->t, &r)) {
        fprintf(stderr, "nomic report: the store failed: %s\n", store_error(c->g->st));
        goto out;
    }
    rc = EXIT_REFUSED;
    if (r.refused) fprintf(stderr, "nomic report: the report move was refused: %s\n", r.why ? r.why : "(no reason)");
    else if (!r.text.len)
        fprintf(stderr, "nomic report: the rules answered no report %s (a set's report rules answer the move "
                        "subtype: report, kind: KIND; docs/cli.md lists the shipped sets' kinds)\n", c->pos[1]);
    else {
        fputs(buf_str(&r.text), stdout);
        rc = 0;
    }
out:
    report_free(&r);
    return rc;
}

const CmdSpec cmd_report = {
    .name = "report",
    .args = "GAME KIND",
    .minpos = 2,
    .maxpos = 2,
    .opts = report_opts,
    .doc = "what a game-keeper posts (standings, the Proposal Pool...), as the set's report rules write it; "
           "nothing kept",
    .more = "It runs, dry (nothing is kept, timers due by T included), the move `subtype: report`, `kind: KIND`\n"
            "from the address `report`, and prints what the rules answer to that address.  The layouts are the\n"
            "set's report rules, not C: a player who sends `REPORT KIND` gets the same text by mail.  It plays\n"
            "on the public view: every private value reads `\"\"`.  The shipped kinds:\n"
            "\n"
            "- `agora`: `assessor` (every resolved decision with its method, AI, quorum, ballots, voters by\n"
            "  option with their strength, and outcome; then the open decisions), `promotor` (the Proposal\n"
            "  Pool), `registrar` (the players and former players);\n"
            "- `suber` and `suber1982`: `standings` (the turn, the players ranked by score, the open\n"
            "  proposals);\n"
            "- `favor` and `favor-draft`: `standings` (the players ranked by score, the open proposals with\n"
            "  their votes so far);\n"
            "- `mathflag` (on its host): `mathflag` (the stage and what comes next, the last Computation's\n"
            "  results, every MathNaut's account, the former MathNauts and why, the winner; docs/mathflag.md).\n"
            "\n"
            "A set without report rules answers nothing: the command says so and exits 1; an unknown kind is\n"
            "the rules' to answer.  A halted game refuses every move, so it has no reports.  The server answers\n"
            "the same at `GET /api/report/KIND` (docs/api.md).\n",
    .data_size = sizeof(ReportArgs),
    .check = report_check,
    .run = report_ask,
};
