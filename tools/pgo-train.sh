#!/bin/sh
# pgo-train.sh DIR - the training of the profile-guided build (Makefile,
# PGO): plays, with the instrumented programs in DIR, games that are the
# project's own, so that the compiler learns which branches and calls a
# real game takes.  What is played is what a served game does most: moves
# checked, rules run to quiescence, the journal written and replayed.
#   - favor at a size: Engine City's smaller stream kept for the tests
#     (tests/data/city, 200 players and 20 proposals: never the benchmark's
#     own streams), in memory and with the store, and then replayed;
#   - random games of Suber's Nomic, both versions (bench/suber_random.c);
#   - the demo: a short game of favor through the command line.
# The figures these runs print are not checked here: the test suites do.
set -eu
DIR=$1
T=$DIR/train
rm -rf "$T" && mkdir -p "$T"
CITY=tests/data/city/moves_200_20.txt
"$DIR/engine-city" "$CITY" > "$T/city.out" 2>&1
"$DIR/engine-city" "$CITY" --store "$T/city.db" > "$T/store.out" 2>&1
"$DIR/nomic" replay "$T/city.db" > "$T/replay.out" 2>&1
"$DIR/suber-random" --variant suber --games 30 --quiet > "$T/suber.out" 2>&1
"$DIR/suber-random" --variant suber1982 --games 10 --quiet > "$T/suber1982.out" 2>&1
NOMIC=$DIR/nomic sh tools/demo.sh "$T/demo.db" > "$T/demo.out" 2>&1
rm -rf "$T"
