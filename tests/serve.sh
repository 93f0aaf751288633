# serve.sh - a server of the suite's own, sourced after lib.sh (as
# "$SRCDIR/tests/serve.sh": lib.sh has moved to its scratch directory) by the
# suites that need one: start_server GAME serves GAME on a free port of
# loopback (URL, SERVER), stop_server stops it, and so does the end of the
# suite, whatever way it ends.  The requests' checks, on the files body
# and status of the scratch directory: http, expect_http, json, expect_json.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
SERVER=""
stop_server() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null; SERVER=""; }
trap 'stop_server; rm -rf "$T"' EXIT
rss() { awk '/^VmRSS/ { print $2 }' /proc/$SERVER/status; } # the server's resident memory, in KiB
start_server() { # GAME [SERVE-OPTION...]
    game=$1
    shift
    PORT=$(free_port)
    # under AddressSanitizer freed memory waits in a quarantine before
    # reuse: keep it small, so that RSS says what the server holds
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8" \
        "$NOMIC" serve "$game" "$@" --listen 127.0.0.1:"$PORT" >serve.out 2>serve.err &
    SERVER=$!
    if ! wait_until 10 grep -qs "http://127.0.0.1:$PORT/" serve.out; then
        fail "serve did not print its address"; cat serve.out serve.err; return 1
    fi
    URL=http://127.0.0.1:$PORT
}

# json FILE EXPR: evaluates a Python expression on the parsed JSON `j`
json() { python3 -c "import json,sys; j=json.load(open('$1')); print($2)"; }
# http METHOD PATH [curl args...]: the body into body, the status into status
http() {
    m=$1 p=$2
    shift 2
    curl -s -o body -w '%{http_code}' -X "$m" "$@" "$URL$p" >status
}
expect_http() { # WANT DESCRIPTION METHOD PATH [curl args]
    want=$1 what=$2
    shift 2
    http "$@"
    if [ "$(cat status)" = "$want" ]; then ok; else fail "$what: HTTP $(cat status), expected $want"; cat body; echo; fi
}
expect_json() { # EXPR WANT DESCRIPTION (on body)
    got=$(json body "$1" 2>&1)
    if [ "$got" = "$2" ]; then ok; else fail "$3: $1 = $got, expected $2"; fi
}
