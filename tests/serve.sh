# serve.sh - a server of the suite's own, sourced after lib.sh (as
# "$SRCDIR/tests/serve.sh": lib.sh has moved to its scratch directory) by the
# suites that need one: start_server GAME serves GAME on a free port of
# loopback (URL, SERVER), stop_server stops it, and so does the end of the
# suite, whatever way it ends.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
SERVER=""
stop_server() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null; SERVER=""; }
trap 'stop_server; rm -rf "$T"' EXIT
start_server() { # GAME
    PORT=$(free_port)
    # under AddressSanitizer freed memory waits in a quarantine before
    # reuse: keep it small, so that RSS says what the server holds
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8" \
        "$NOMIC" serve "$1" --listen 127.0.0.1:"$PORT" >serve.out 2>serve.err &
    SERVER=$!
    i=0
    until grep -q "http://127.0.0.1:$PORT/" serve.out 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 200 ]; then fail "serve did not print its address"; cat serve.out serve.err; return 1; fi
        sleep 0.05
    done
    URL=http://127.0.0.1:$PORT
}
