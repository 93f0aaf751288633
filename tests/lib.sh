# lib.sh - what the shell tests share: a scratch directory, the tally, and
# checks of exit statuses and output.  Sourced with $NOMIC set (default
# build/nomic); the caller ends with `report NAME`.
NOMIC=${NOMIC:-$(pwd)/build/nomic}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 2
FAILS=0
N=0
ok() { N=$((N + 1)); }
fail() { N=$((N + 1)); FAILS=$((FAILS + 1)); echo "FAIL: $*"; }
expect_status() { # WANT DESCRIPTION CMD...
    want=$1 what=$2
    shift 2
    "$@" >out 2>err
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else fail "$what: exit $got, expected $want"; cat out err; fi
}
expect_in() { # FILE TEXT DESCRIPTION
    if grep -qF -- "$2" "$1"; then ok; else fail "$3: '$2' not in $1"; cat "$1"; fi
}
expect_not_in() { # FILE TEXT DESCRIPTION
    if grep -qF -- "$2" "$1"; then fail "$3: '$2' in $1"; else ok; fi
}
report() { # NAME
    echo "$1: $N checks, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}
