# lib.sh - what the shell tests share: a scratch directory, the tally, and
# checks of exit statuses and output.  Sourced with $NOMIC set (default
# build/nomic); the caller ends with `report NAME`.
NOMIC=${NOMIC:-$(pwd)/build/nomic}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd) # the project, for files it ships
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
# mail_sender EML: the bare address of the mail's From
mail_sender() {
    python3 -c 'import email.utils, email, sys; m = email.message_from_binary_file(open(sys.argv[1], "rb")); print(email.utils.parseaddr(m["From"])[1])' "$1"
}
# corpus_checks LABEL EXPECT SENDER: what one mail yielded (log.json and
# outbox.json of its game, written by the caller) against its .expect
# file (tests/mail/corpus_check.py), each check counted
corpus_checks() {
    python3 "$SRCDIR/tests/mail/corpus_check.py" "$2" log.json outbox.json "$3" > check.out
    while IFS= read -r line; do
        case $line in
        ok:*) ok ;;
        *) fail "$1: ${line#FAIL: }" ;;
        esac
    done < check.out
}
# expect_cmp WANT GOT DESCRIPTION: the two files are the same, byte for
# byte (git's test_cmp), for outputs that are the contract; the diff shows.
expect_cmp() {
    if cmp -s "$1" "$2"; then ok; else fail "$3: $2 differs from $1"; diff -u "$1" "$2" | head -40; fi
}
# expect_golden NAME FILE DESCRIPTION: FILE is, byte for byte, the golden
# tests/golden/SUITE/NAME (SUITE the script's name without .sh), as
# expect_cmp; with UPDATE_GOLDEN=1 in the environment FILE is written there
# instead, to be read as a reviewer would before it is committed.
GOLDEN=$SRCDIR/tests/golden/$(basename "$0" .sh)
expect_golden() {
    if [ -n "${UPDATE_GOLDEN:-}" ]; then
        mkdir -p "$GOLDEN" && cp "$2" "$GOLDEN/$1" && ok || fail "$3: cannot write $GOLDEN/$1"
    elif [ -f "$GOLDEN/$1" ]; then
        expect_cmp "$GOLDEN/$1" "$2" "$3"
    else
        fail "$3: no golden $GOLDEN/$1 (UPDATE_GOLDEN=1 writes it)"
    fi
}
# expect_mails NAME DESCRIPTION: every mail game G has sent, as `nomic
# outbox G` lists them, is the golden NAME: what the players read, refusals
# and officers' announcements with the rest.
expect_mails() {
    "$NOMIC" outbox G >mails.out 2>&1
    expect_golden "$1" mails.out "$2"
}
expect_eq() { # GOT WANT DESCRIPTION
    if [ "$1" = "$2" ]; then ok; else fail "$3: got '$1', expected '$2'"; fi
}
# The game the playing tests (suber, mathflag, agora) keep in G:
move_at() { # FROM TIME LINES...: one message of moves, its answer in out
    from=$1 time=$2
    shift 2
    printf '%s\n' "$@" | "$NOMIC" move G --from "$from" --time "$time" >out 2>&1
}
# val TYPE KEYS VALUES ATTRS [SHOW-OPTION...]: ATTRS of the first TYPE object
# whose KEYS are VALUES, or "(none)".  Several keys or attributes are
# written joined by "/" (round/investigator 1/bob; status/outcome).
val() {
    type=$1 keys=$2 values=$3 attrs=$4
    shift 4
    "$NOMIC" show G --type "$type" "$@" | awk -v k="$keys" -v v="$values" -v a="$attrs" '
        function get(names,   n, i, s, x) {
            n = split(names, x, "/")
            for (i = 1; i <= n; i++) s = s (i > 1 ? "/" : "") o[x[i]]
            return s
        }
        BEGIN { RS = ""; FS = "\n" }
        { delete o; for (i = 1; i <= NF; i++) { p = index($i, ": "); if (p) o[substr($i, 1, p - 1)] = substr($i, p + 2) }
          if (get(k) == v) { print get(a); found = 1; exit } }
        END { if (!found) print "(none)" }'
}
# wait_until SECONDS CMD...: run CMD every 0.05 s until it succeeds, for
# at most SECONDS; status 1 if it never did.  For what another process
# writes in its own time (a server's address, an event it journals): a
# fixed sleep is too short on a loaded machine and too long on an idle one.
wait_until() {
    _wait_ticks=$(($1 * 20))
    shift
    until "$@"; do
        [ "$_wait_ticks" -gt 0 ] || return 1
        _wait_ticks=$((_wait_ticks - 1))
        sleep 0.05
    done
}
report() { # NAME
    echo "$1: $N checks, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}
