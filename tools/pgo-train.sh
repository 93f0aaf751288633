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
# A game that fails stops the build, saying which and where its output is
# (`make PGO=no` builds without the profile meanwhile).
set -eu
DIR=$1
T=$DIR/train
rm -rf "$T" && mkdir -p "$T"
CITY=tests/data/city/moves_200_20.txt
# play NAME COMMAND...: COMMAND's output into $T/NAME.out
play() {
    name=$1
    shift
    "$@" > "$T/$name.out" 2>&1 && return
    echo "pgo-train.sh: the training game '$name' failed (exit $?): $*; its output is in $T/$name.out;" \
        "make PGO=no builds without a profile" >&2
    exit 1
}
play city "$DIR/engine-city" "$CITY"
play store "$DIR/engine-city" "$CITY" --store "$T/city.db"
play replay "$DIR/nomic" replay "$T/city.db"
play suber "$DIR/suber-random" --variant suber --games 30 --quiet
play suber1982 "$DIR/suber-random" --variant suber1982 --games 10 --quiet
play demo env NOMIC="$DIR/nomic" sh tools/demo.sh "$T/demo.db"
rm -rf "$T"
