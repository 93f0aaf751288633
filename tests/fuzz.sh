#!/bin/sh
# fuzz.sh smoke|long SECONDS - builds the libFuzzer targets in tests/fuzz
# (object format, rule language, mail intake, sugar tables, eval, the SLR) with ASan and UBSan and runs each one:
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
make -s build/rulesets_gen.c build/web_gen.c >/dev/null
FLAGS="-std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Isrc"
LIB=$(ls src/*.c | grep -v -e '/nomic\.c$' -e '/cmd_')
PKG_CFLAGS=$(pkg-config --cflags glib-2.0 gmime-3.0 libcurl libmicrohttpd libxml-2.0)
PKG_LIBS=$(pkg-config --libs glib-2.0 gmime-3.0 libcurl libmicrohttpd libxml-2.0)
for t in ${TARGETS:-objfmt rule mail sugar eval slr}; do
    # shellcheck disable=SC2086
    clang $FLAGS $PKG_CFLAGS -o "$OUT/fuzz_$t" "tests/fuzz/fuzz_$t.c" $LIB build/rulesets_gen.c build/web_gen.c -lsqlite3 -lgmp -lm $PKG_LIBS
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
