# mta.sh - what the tests through a real MTA share (tests/t70-mail.sh,
# tests/t71-postfix.sh): parts that say SKIP, servers run in process groups
# of their own, free ports on loopback, nomic as the delivery user, JSON.
# Sourced after tests/lib.sh, with SUITE (the name `report` gives), T,
# PY, MAILUSER and NOMIC_RUN set by the caller.
SKIPS=0
SKIPPED=""
note() { echo "note: $1"; sed -n 's/^/  | /; 1,3p' out; }   # what a command said, where the test asserts nothing
skip() { SKIPS=$((SKIPS + 1)); SKIPPED="$SKIPPED; $1"; echo "SKIP: $1"; }
finish() {
    report "$SUITE"
    st=$?
    if [ "$SKIPS" -gt 0 ]; then
        if [ "${MAIL_ALLOW_SKIP:-}" = 1 ]; then
            echo "$SUITE: $SKIPS part(s) skipped, accepted since MAIL_ALLOW_SKIP=1"
        else
            echo "$SUITE: FAIL: $SKIPS part(s) skipped (${SKIPPED#; }); MAIL_ALLOW_SKIP=1 accepts that"
            st=1
        fi
    fi
    exit "$st"
}
abort() { fail "$*"; echo "$SUITE: stopping here, the rest cannot run"; finish; }
alive() { # PID: running (not gone, not a zombie)?
    [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -c1)" != Z ]
}
BGPIDS=
start_group() { # NAME CMD...: runs CMD in a session of its own (its pid in NAME.pid, output in NAME.log)
    name=$1
    shift
    rm -f "$T/$name.pid"
    setsid sh -c 'echo $$ > "$0"; exec "$@"' "$T/$name.pid" "$@" > "$T/$name.log" 2>&1 &
    BGPIDS="$BGPIDS $!"
}
stop_group() { # NAME: ends the process group NAME started (TERM, then KILL after 5 s)
    [ -s "$T/$1.pid" ] || return 0
    g=$(cat "$T/$1.pid")
    kill -TERM "-$g" 2> /dev/null
    i=0
    while alive "$g" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -KILL "-$g" 2> /dev/null
    rm -f "$T/$1.pid"
}
reap_groups() { # after stop_group: the shells that started them
    for p in $BGPIDS; do alive "$p" || wait "$p" 2> /dev/null; done
}
free_port() {
    $PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port_open() { # PORT
    $PY -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$1" 2> /dev/null
}
wait_port() { # PORT NAME: wait up to 15 s for NAME (started by start_group) to listen on PORT
    i=0
    while [ $i -lt 150 ]; do
        port_open "$1" && return 0
        if [ -s "$T/$2.pid" ] && ! alive "$(cat "$T/$2.pid")"; then
            echo "$2 exited before listening on 127.0.0.1:$1; its log:"
            tail -n 20 "$T/$2.log"
            return 1
        fi
        sleep 0.1
        i=$((i + 1))
    done
    echo "$2 does not listen on 127.0.0.1:$1 after 15 s; its log:"
    tail -n 20 "$T/$2.log"
    return 1
}
nm() { runuser -u "$MAILUSER" -- "$NOMIC_RUN" "$@"; }   # nomic as the delivery user (the game is in WAL mode: one owner)
jq_() { # EXPR: evaluates EXPR on the JSON document d read from stdin (prints what went wrong instead)
    $PY -c 'import json, sys
try:
    d = json.load(sys.stdin)
    r = eval(sys.argv[1])
except Exception as e:
    print("(%s: %s)" % (type(e).__name__, e))
    sys.exit(1)
print(json.dumps(r, ensure_ascii=False) if isinstance(r, (list, dict)) else r)' "$1"
}
