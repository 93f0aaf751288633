#!/bin/sh
# fuzz.sh smoke|long SECONDS - builds the libFuzzer targets in tests/fuzz
# (object format, rule language, mail intake, mailboxes, sugar tables,
# eval, the SLR)
# with ASan and UBSan (`make fuzz`, into build/fuzz) and runs each one:
# `smoke` for 20 seconds (the test suite), `long N` for N seconds.  A crash,
# a leak or an abort() of a target's own check fails the run; the input
# that did it is left in build/fuzz/.  TARGETS="slr eval" runs only those.
# Inputs reach a megabyte for the rule language and the object format and
# 256 KB for the others.  Each target first runs, once each, the deep and
# long inputs of deep_seeds.py (nesting far past the parser's limit,
# megabyte lines); they stay out of the corpus it then mutates, where they
# would take most of the time.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-smoke}
case $mode in
smoke) secs=20 ;;
long) secs=${2:?usage: fuzz.sh long SECONDS} ;;
*) echo "usage: fuzz.sh smoke | long SECONDS" >&2; exit 2 ;;
esac
OUT=build/fuzz
mkdir -p "$OUT"
make -s fuzz >/dev/null
for t in ${TARGETS:-$(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_||; s|\.c$||')}; do
    case $t in
    rule | objfmt) maxlen=1048576 ;;
    *) maxlen=262144 ;;
    esac
    work=$(mktemp -d) deep=$(mktemp -d)
    cp tests/fuzz/corpus_$t/* "$work/"
    python3 tests/fuzz/deep_seeds.py "$t" "$deep" "$maxlen"
    echo "fuzz_$t: the deep inputs, then $secs s"
    if ! (cd "$OUT" && "./fuzz_$t" "$deep"/* > "fuzz_$t.log" 2>&1 &&
        "./fuzz_$t" -max_total_time="$secs" -max_len="$maxlen" -print_final_stats=1 "$work" >> "fuzz_$t.log" 2>&1); then
        tail -40 "$OUT/fuzz_$t.log"
        echo "fuzz_$t: crash; the input is in $OUT, the log in $OUT/fuzz_$t.log"
        rm -rf "$work" "$deep"
        exit 1
    fi
    grep -aE "^Executed .* in [0-9]+ ms$" "$OUT/fuzz_$t.log" | wc -l | sed 's/^/  deep inputs run: /'
    grep -aE "^Done|stat::number_of_executed_units|stat::peak_rss" "$OUT/fuzz_$t.log" | sed 's/^/  /'
    rm -rf "$work" "$deep"
done
echo "fuzz: no crash"
