#!/bin/sh
# demo.sh [GAME] - creates a new game of favor (the paper's Initial State)
# in a SQLite file and plays a short game through the command line: three
# players register (one name twice, one without a name), alice proposes
# three rule changes in one message, the others vote, the voting period
# ends on a timer, the new rule makes bob win, and the game halts.
set -eu
NOMIC=${NOMIC:-build/nomic}
GAME=${1:-build/demo.db}
run() {
    printf '\n$ %s\n' "$*"
    "$@" || true
}
move() { # move FROM TIME BODY
    printf '\n$ nomic move %s --from %s --time %s <<.\n%s\n.\n' "$GAME" "$1" "$2" "$3"
    printf '%s\n' "$3" | "$NOMIC" move "$GAME" --from "$1" --time "$2" || true
}
run "$NOMIC" init "$GAME" --ruleset favor --time 2026-01-01Z --force
move alice@example.org 2026-01-01T10:00:00Z 'subtype: register
nickname: alice'
move bob@example.org 2026-01-01T10:05:00Z 'subtype: register
nickname: bob'
move carol@example.org 2026-01-01T10:10:00Z 'subtype: register
nickname: alice'
move carol@example.org 2026-01-01T10:11:00Z 'subtype: register'
move carol@example.org 2026-01-01T10:12:00Z 'subtype: register
nickname: carol'
# One message, three rule changes: one proposal.  The created rule gives
# bob 101 points; the amendment lets rule 9 announce it; rule 5 goes.
move alice@example.org 2026-01-02T09:00:00Z 'subtype: ruleChange
ruleChangeType: create
newif: exists(type=="player" & nickname=="bob" & score<101 & objectId==%o)
newthen: set(%o)(score==101)
neworder: 20000
---
subtype: ruleChange
ruleChangeType: amend
target: 9
newthen: create(type=="win" & who==%o) & send(%pl, %n "wins the game, by rule!")
---
subtype: ruleChange
ruleChangeType: repeal
target: 5'
P=$("$NOMIC" show "$GAME" --type voteInProgress | awk '$1 == "propId:" { print $2; exit }')
move alice@example.org 2026-01-03T08:00:00Z "subtype: vote
propId: $P
vote: FOR"
move bob@example.org 2026-01-03T08:30:00Z "subtype: vote
propId: $P
vote: FOR"
move bob@example.org 2026-01-03T08:31:00Z "subtype: vote
propId: $P
vote: AGAINST"
move carol@example.org 2026-01-03T09:00:00Z "subtype: vote
propId: $P
vote: AGAINST"
run "$NOMIC" tick "$GAME" --time 2026-01-13Z
run "$NOMIC" show "$GAME" --type player
run "$NOMIC" show "$GAME" --type win
run "$NOMIC" log "$GAME" --event 10
run "$NOMIC" replay "$GAME"
printf '\nThe game is in %s; try "%s show %s" or "%s log %s".\n' "$GAME" "$NOMIC" "$GAME" "$NOMIC" "$GAME"
