#!/bin/sh
# t71-postfix.sh - mail in through a real Postfix, on loopback only.  A
# private Postfix instance (its own config, queue and data directories in
# the scratch directory, smtpd on a free high port of 127.0.0.1, nothing
# relayed out) hands mail for nomic.test to `nomic deliver` through pipe(8)
# transports of its master.cf, run as an unprivileged delivery user, exactly
# as on a host: game@nomic.test to one game (`nomic deliver GAME`), every
# other address of the domain to the game of a directory whose `address`
# setting it is (`nomic deliver DIR --to ${recipient}`).  swaks sends the
# mails; Postfix's log, its queue (postqueue -p), the bounces it sends back
# and the games (nomic show, nomic log) say what became of each: a move
# applied; a mail with no move journaled, refused and answered; a mail with
# no From bounced to its sender with nomic's reason, the mail attached; a
# game its delivery user cannot write (exit 75) keeps the mail in the queue
# until the permission is fixed and the queue flushed; a mail to two games
# taken by each once; a mail for no game (exit 67) bounced, saying so.
#
# Run as root on Debian: `sh tests/t71-postfix.sh` from the repository
# (NOMIC gives the binary, default build/nomic).  Postfix conflicts with
# OpenSMTPD (t70), so tests/mail/setup.sh unpacks its package into
# POSTFIX_ROOT (default /opt/nomic-tests/postfix) rather than installing it
# as the machine's MTA, and the test runs that copy (POSTFIX_ROOT=/: the
# machine's own Postfix, where that is its MTA).  A part that cannot run says SKIP and
# why, and the script then fails unless MAIL_ALLOW_SKIP=1.  Everything the
# test starts is stopped, the users it added removed, and its scratch
# directory removed (kept with MAIL_KEEP=1, to look at the logs), on any
# exit.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HELP=$ROOT/tests/mail
NOMIC=${NOMIC:-$ROOT/build/nomic}
case $NOMIC in /*) ;; *) NOMIC=$(pwd)/$NOMIC ;; esac
export PYTHONIOENCODING=utf-8
PY=/usr/bin/python3
. "$ROOT/tests/lib.sh"
chmod 711 "$T"   # the delivery user and Postfix's own must reach their files below
SUITE=postfix
MAILUSER=nomicmail         # runs the pipe: nomic deliver
PFUSER=nomicpostfix        # Postfix's mail_owner (its daemons, its queue)
PFGROUP=nomicpostdrop      # Postfix's setgid_group
MADE=                      # the users and group the test added: "user:NAME group:NAME ..."
NOMIC_RUN=$T/bin/nomic     # a copy of $NOMIC, made below
PF=$T/postfix              # the instance: main.cf, master.cf; queue/, data/, maillog, bounces/
. "$HELP/mta.sh"

# --- helpers -----------------------------------------------------------
cleanup() {
    st=$?
    trap - EXIT HUP INT TERM
    trap '' PIPE   # the reader may be gone: clean up all the same
    cd /
    if [ -s "$T/postfix.pid" ]; then
        pfx postfix stop > /dev/null 2>&1
        stop_group postfix
    fi
    reap_groups
    for m in $MADE; do
        case $m in
        user:*) userdel "${m#user:}" > /dev/null 2>&1 ;;
        group:*) groupdel "${m#group:}" > /dev/null 2>&1 ;;
        esac
    done
    if [ -n "${MAIL_KEEP:-}" ]; then echo "postfix: kept $T"; else rm -rf "$T"; fi
    exit "$st"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 141' PIPE
pfx() { # PROGRAM ARGS...: one of Postfix's commands, on the test's instance
    prog=$1
    shift
    LD_LIBRARY_PATH=$PFROOT/usr/lib/postfix "$PFROOT/usr/sbin/$prog" -c "$PF" "$@"
}
add_user() { # NAME: a system user with no home and no shell (and its group), unless there is one
    getent passwd "$1" > /dev/null && return 0
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$1" || return 1
    MADE="$MADE user:$1"
}
players() { # GAME: the players' nicknames, in order
    nm show "$1" --type player --json | jq_ '" ".join(o["nickname"] for o in d["objects"])'
}
nevents() { nm log "$1" --json | jq_ 'len(d["events"])'; }   # GAME
last_event() { nm log "$1" --json | jq_ "$2"; }              # GAME EXPR: EXPR on d, the journal

# send DESCRIPTION SWAKS-ARGS...: one mail to the instance; QID its queue id
send() {
    what=$1
    shift
    QID=
    swaks --server "127.0.0.1:$PORT" --timeout 15 "$@" > swaks.out 2>&1
    got=$?
    QID=$(sed -n 's/.* Ok: queued as \([0-9A-Za-z]*\).*/\1/p' swaks.out | tail -n 1)
    if [ "$got" -ne 0 ] || [ -z "$QID" ]; then
        fail "$what: swaks exit $got and queue id '$QID' (expected 0 and one: Postfix takes the mail)"
        tail -n 8 swaks.out
        return 1
    fi
    ok
}
# The verdict of Postfix's log on the delivery of queue id $1 to $2, its last
# (sent, bounced, deferred), and the reason it gives, unwrapped.
verdict() { sed -n "s/^.* postfix\/[a-z]*\[[0-9]*\]: $1: to=<$2>,.* status=\([a-z]*\) .*/\1/p" "$PF/maillog" | tail -n 1; }
reason() { sed -n "s/^.* postfix\/[a-z]*\[[0-9]*\]: $1: to=<$2>,.* status=[a-z]* (\(.*\))\$/\1/p" "$PF/maillog" | tail -n 1; }
has_verdict() { [ -n "$(verdict "$1" "$2")" ]; }
is_verdict() { [ "$(verdict "$1" "$2")" = "$3" ]; }
# expect_verdict RCPT STATUS DESCRIPTION: waits up to 20 s for Postfix to
# deliver $QID to RCPT; its verdict is STATUS
expect_verdict() {
    if ! wait_until 20 has_verdict "$QID" "$1"; then
        fail "$3: after 20 s Postfix's log has no verdict on $QID to $1; its log:"
        grep -v 'dict_nis_init' "$PF/maillog" | tail -n 12
        return 1
    fi
    got=$(verdict "$QID" "$1")
    if [ "$got" = "$2" ]; then ok; else fail "$3: Postfix's delivery of $QID to $1 is '$got' ($(reason "$QID" "$1")), expected $2"; fi
}
# bounce MARKER: the unwrapped text of the bounce that holds MARKER (the
# original's Message-ID), as Postfix delivered it into the players' maildir
bounce() {
    $PY -c 'import os, re, sys
top, marker = sys.argv[1], sys.argv[2]
for sub in ("new", "cur"):
    d = os.path.join(top, sub)
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        raw = open(os.path.join(d, name), "rb").read().decode("utf-8", "replace")
        if marker in raw and "MAILER-DAEMON" in raw:
            print(re.sub(r"\r?\n[ \t]+", " ", raw))' "$PF/bounces/inbox" "$1"
}
has_bounce() { [ -n "$(bounce "$1")" ]; }
queue_empty() { pfx postqueue -p 2>&1 | grep -q 'Mail queue is empty'; }

# --- what the test needs -------------------------------------------------
[ "$(id -u)" -eq 0 ] || abort "tests/t71-postfix.sh runs as root (it starts Postfix, adds users): running as uid $(id -u)"
[ -x "$NOMIC" ] || abort "no nomic binary at $NOMIC (run make, or set NOMIC)"
case "$NOMIC$T" in *[[:space:]\"\'\$,{}]*) abort "the paths '$NOMIC' and '$T' must hold no blanks, quotes, \$, commas or braces: they go into main.cf and master.cf" ;; esac
have() { [ "$(dpkg-query -W -f='${Status}' "$1" 2> /dev/null)" = "install ok installed" ]; }
PFROOT=${POSTFIX_ROOT:-/opt/nomic-tests/postfix}   # POSTFIX_ROOT=/ runs the machine's Postfix
if [ ! -x "$PFROOT/usr/sbin/postfix" ] || ! have swaks || ! have python3-aiosmtpd; then
    echo "postfix: installing postfix (unpacked into $PFROOT), swaks (tests/mail/setup.sh)"
    POSTFIX_ROOT=$PFROOT sh "$HELP/setup.sh" || abort "tests/mail/setup.sh could not install what the test needs"
fi
[ -x "$PFROOT/usr/sbin/postfix" ] || abort "no $PFROOT/usr/sbin/postfix after setup (package postfix, unpacked)"
[ -x "$PFROOT/usr/lib/postfix/sbin/master" ] || abort "no $PFROOT/usr/lib/postfix/sbin/master (Postfix's daemons)"
command -v swaks > /dev/null || abort "no swaks after setup (package swaks)"

add_user "$MAILUSER" || abort "cannot add the delivery user $MAILUSER"
add_user "$PFUSER" || abort "cannot add Postfix's user $PFUSER"
if ! getent group "$PFGROUP" > /dev/null; then
    groupadd --system "$PFGROUP" || abort "cannot add Postfix's group $PFGROUP"
    MADE="$MADE group:$PFGROUP"
fi
# The binaries the whole run uses: a copy of $NOMIC, so that a rebuild during
# the run changes nothing, and that $MAILUSER (who runs the pipe) may run it
# wherever the repository is.
# (nomic-net beside it: nomic runs deliver, send and serve there)
mkdir "$T/bin" && cp "$NOMIC" "$NOMIC_RUN" && cp "$(dirname "$NOMIC")/nomic-net" "$T/bin/nomic-net" &&
    chmod 755 "$T/bin" "$NOMIC_RUN" "$T/bin/nomic-net" ||
    abort "cannot copy $NOMIC and nomic-net beside it to $T/bin"
runuser -u "$MAILUSER" -- "$NOMIC_RUN" help > /dev/null 2>&1 || abort "$MAILUSER cannot run $NOMIC_RUN"
# One game (game@nomic.test), and a directory of two games routed by address.
mkdir game games
chown "$MAILUSER:" game games
chmod 700 game games
DB=$T/game/g.db
expect_status 0 "init the game of game@nomic.test" nm init "$DB" --ruleset favor
expect_status 0 "init the game one.db" nm init "$T/games/one.db" --ruleset favor
expect_status 0 "init the game two.db" nm init "$T/games/two.db" --ruleset favor
expect_status 0 "one.db's address" nm config "$T/games/one.db" address one@nomic.test
expect_status 0 "two.db's address, in capitals (addresses match case-insensitively)" nm config "$T/games/two.db" address Two@Nomic.TEST
PORT=$(free_port)

# --- 1. the instance -------------------------------------------------------
# The players' addresses are at players.test, a domain the instance keeps in
# one maildir (virtual(8), as the delivery user), so that the bounces it
# sends back can be read; any other domain is refused, and nothing leaves.
mkdir "$PF" "$PF/queue" "$PF/data" "$PF/bounces"
chown "$PFUSER:" "$PF/data"
chown "$MAILUSER:" "$PF/bounces"
cp "$PFROOT/etc/postfix/postfix-files" "$PF/" || abort "no $PFROOT/etc/postfix/postfix-files"
cat > "$PF/main.cf" << EOF
# written by tests/t71-postfix.sh: the games' MTA, a private instance on loopback only
compatibility_level = 3.6
config_directory = $PF
queue_directory = $PF/queue
data_directory = $PF/data
meta_directory = $PF
command_directory = $PFROOT/usr/sbin
daemon_directory = $PFROOT/usr/lib/postfix/sbin
shlib_directory = $PFROOT/usr/lib/postfix
mail_owner = $PFUSER
setgid_group = $PFGROUP
import_environment = MAIL_CONFIG MAIL_DEBUG MAIL_LOGTAG TZ LANG=C LD_LIBRARY_PATH
maillog_file = $PF/maillog
maillog_file_prefixes = $PF
inet_interfaces = loopback-only
inet_protocols = ipv4
myhostname = mx.nomic.test
mydomain = nomic.test
myorigin = \$myhostname
mydestination =
alias_maps =
alias_database =
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = reject_unauth_destination
smtpd_peername_lookup = no
local_header_rewrite_clients =
default_transport = error:the test mails nothing out
relay_transport = error:the test mails nothing out

# The games' domain: game@nomic.test to one game (the transport nomic), every
# other address to the game of a directory whose address it is (nomicdir).
relay_domains = nomic.test
transport_maps = inline:{ game@nomic.test=nomic:, nomic.test=nomicdir: }
nomic_destination_recipient_limit = 1
nomicdir_destination_recipient_limit = 1

# The players' domain: bounces land in one maildir.
virtual_mailbox_domains = players.test
virtual_mailbox_base = $PF/bounces
virtual_mailbox_maps = static:inbox/
virtual_uid_maps = static:$(id -u "$MAILUSER")
virtual_gid_maps = static:$(id -g "$MAILUSER")
virtual_minimum_uid = $(id -u "$MAILUSER")
EOF
cat > "$PF/master.cf" << EOF
# written by tests/t71-postfix.sh: smtpd on 127.0.0.1:$PORT, no chroot
127.0.0.1:$PORT inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
virtual   unix  -       n       n       -       -       virtual
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
nomic     unix  -       n       n       -       -       pipe
  flags=DRhu user=$MAILUSER argv=$NOMIC_RUN deliver $DB
nomicdir  unix  -       n       n       -       -       pipe
  flags=DRhu user=$MAILUSER argv=$NOMIC_RUN deliver $T/games --to \${recipient}
EOF
expect_status 0 "postfix check of the test's main.cf and master.cf" pfx postfix check
echo "postfix: Postfix $(pfx postconf -h mail_version) from $PFROOT"
start_group postfix env LD_LIBRARY_PATH="$PFROOT/usr/lib/postfix" "$PFROOT/usr/sbin/postfix" -c "$PF" start-fg
wait_port "$PORT" postfix || abort "Postfix did not start on 127.0.0.1:$PORT"
ok

# --- 2. one game: nomic deliver GAME ----------------------------------------
# A move: applied, and Postfix's log has nomic's answer.
send "REGISTER alice" --to game@nomic.test --from alice@players.test --h-Subject join --body 'REGISTER alice' &&
    expect_verdict game@nomic.test sent "REGISTER alice"
expect_eq "$(players "$DB")" "alice" "players after alice's mail"
expect_eq "$(last_event "$DB" 'd["events"][-1]["status"] + " " + d["events"][-1]["sender"]')" "applied alice@players.test" \
    "the journal: applied, from the envelope's and the mail's sender"
reason "$QID" game@nomic.test > out
expect_in out "delivered via nomic service (event 1 " "Postfix's log has nomic's word on the delivery"
expect_in "$PF/maillog" "$QID: to=<game@nomic.test>, relay=nomic," "the mail went through the transport nomic"
expect_eq "$(stat -c %U "$DB")" "$MAILUSER" "the game is still its delivery user's (the pipe never runs as root)"

# A mail with no move: taken (exit 0), journaled as refused, answered.
before=$(nevents "$DB")
nm show "$DB" > state.before
send "a mail with no move" --to game@nomic.test --from bob@players.test --h-Subject 'how?' --body 'Hello, how do I play?' &&
    expect_verdict game@nomic.test sent "a mail with no move"
expect_eq "$(nevents "$DB")" $((before + 1)) "a mail with no move: events journaled"
expect_eq "$(last_event "$DB" 'd["events"][-1]["status"] + " " + d["events"][-1]["sender"]')" "refused bob@players.test" \
    "a mail with no move: the event"
nm show "$DB" > state.after
expect_cmp state.before state.after "a mail with no move leaves the state as it was"
nm outbox "$DB" --json | jq_ '"\n".join(m["text"] for m in d["messages"] if "bob@players.test" in str(m["to"]))' > bob.txt
expect_in bob.txt "Refused (nothing of your mail was applied)" "the mail with no move is answered to its sender"

# A mail with no From: nomic exits 65 (EX_DATAERR), Postfix bounces it to
# the envelope sender, with nomic's reason and the mail itself: not lost.
printf 'Subject: no sender\r\nMessage-ID: <nofrom.1@players.test>\r\n\r\nREGISTER Nobody\r\n' > nofrom.eml
before=$(nevents "$DB")
send "a mail with no From" --to game@nomic.test --from carol@players.test --data "$T/nofrom.eml" &&
    expect_verdict game@nomic.test bounced "a mail with no From"
reason "$QID" game@nomic.test > out
expect_in out "no usable From" "Postfix's log has nomic's reason for the bounce"
grep "$QID: to=<game@nomic.test>" "$PF/maillog" > out
expect_in out "dsn=5.6.0" "the bounce's status: 5.6.0, the data's format (EX_DATAERR)"
expect_eq "$(nevents "$DB")" "$before" "a mail with no From: events journaled"
wait_until 20 has_bounce nofrom.1@players.test
bounce nofrom.1@players.test > bounce.txt
expect_in bounce.txt "To: carol@players.test" "the bounce goes to the envelope sender"
expect_in bounce.txt "nomic deliver: the mail has no usable From address" "the bounce gives nomic's reason"
expect_in bounce.txt "REGISTER Nobody" "the bounce carries the mail back"

# The game cannot be written by its delivery user (a keeper's chown by
# mistake): nomic exits 75 (EX_TEMPFAIL), Postfix keeps the mail in its
# queue, and delivers it once the game is fixed and the queue flushed.
chown root: "$DB"
before=$(nevents "$DB")
send "REGISTER dora while the game is root's" --to game@nomic.test --from dora@players.test --h-Message-Id '<dora.1@players.test>' --body 'REGISTER dora' &&
    expect_verdict game@nomic.test deferred "a game its delivery user cannot write"
DQID=$QID
reason "$DQID" game@nomic.test > out
expect_in out "temporary failure. Command output: nomic deliver: " "Postfix's log has nomic's word on the deferral"
expect_in out "attempt to write a readonly database" "Postfix's log has nomic's reason for the deferral"
pfx postqueue -p > queue.txt 2>&1
expect_in queue.txt "$DQID" "postqueue -p shows the deferred mail"
expect_in queue.txt "dora@players.test" "postqueue -p shows its sender"
expect_eq "$(nevents "$DB")" "$before" "the deferred mail: events journaled"
chown "$MAILUSER:" "$DB"
expect_status 0 "postqueue -f" pfx postqueue -f
QID=$DQID
if wait_until 20 is_verdict "$DQID" game@nomic.test sent; then ok; else
    fail "after the fix and postqueue -f, Postfix's delivery of $DQID is '$(verdict "$DQID" game@nomic.test)' ($(reason "$DQID" game@nomic.test)), expected sent"
fi
expect_eq "$(players "$DB")" "alice dora" "players once the deferred mail is delivered"
expect_eq "$(nevents "$DB")" $((before + 1)) "the deferred mail, delivered: events journaled"
wait_until 20 queue_empty
pfx postqueue -p > queue.txt 2>&1
expect_in queue.txt "Mail queue is empty" "postqueue -p once the deferred mail is delivered"

# --- 3. a directory of games: nomic deliver DIR --to ${recipient} -----------
ONE=$T/games/one.db TWO=$T/games/two.db
send "REGISTER Ann to one@" --to one@nomic.test --from ann@players.test --body 'REGISTER Ann' &&
    expect_verdict one@nomic.test sent "a mail to one@nomic.test"
expect_in "$PF/maillog" "$QID: to=<one@nomic.test>, relay=nomicdir," "the mail went through the transport nomicdir"
send "REGISTER Ben to TWO@ (capitals)" --to TWO@Nomic.Test --from ben@players.test --body 'REGISTER Ben' &&
    expect_verdict TWO@Nomic.Test sent "a mail to TWO@Nomic.Test (the pipe's flags hu fold \${recipient}, the log keeps it)"
expect_eq "$(players "$ONE")" "Ann" "one.db's players: Ann alone"
expect_eq "$(players "$TWO")" "Ben" "two.db's players: Ben alone"
expect_eq "$(players "$DB")" "alice dora" "the game of game@ is not one of the directory's"

# One mail to both: the pipe runs once for each recipient (the transport's
# recipient limit 1), and each game takes it once.
send "REGISTER Cy to one@ and two@" --to one@nomic.test,two@nomic.test --from cy@players.test --body 'REGISTER Cy' &&
    expect_verdict one@nomic.test sent "one mail to two games: to one@" &&
    expect_verdict two@nomic.test sent "one mail to two games: to two@"
expect_eq "$(players "$ONE")" "Ann Cy" "one.db's players after the mail to both"
expect_eq "$(players "$TWO")" "Ben Cy" "two.db's players after the mail to both"

# A mail for no game: nomic exits 67 (EX_NOUSER) and says why; Postfix
# bounces it to its sender, saying that; the games are as they were.
n1=$(nevents "$ONE") n2=$(nevents "$TWO") n0=$(nevents "$DB")
send "REGISTER Eve to three@" --to three@nomic.test --from eve@players.test --h-Message-Id '<three.1@players.test>' --body 'REGISTER Eve' &&
    expect_verdict three@nomic.test bounced "a mail to three@nomic.test, the address of no game"
reason "$QID" three@nomic.test > out
expect_in out "nomic deliver: no game here has the address three@nomic.test" "Postfix's log has nomic's reason for the bounce"
expect_in "$PF/maillog" "$QID: to=<three@nomic.test>, relay=nomicdir, delay=" "the mail for no game went to the directory's transport"
grep "$QID: to=<three@nomic.test>" "$PF/maillog" > out
expect_in out "dsn=5.1.1" "the bounce's status: 5.1.1, no such user (EX_NOUSER)"
wait_until 20 has_bounce three.1@players.test
bounce three.1@players.test > bounce.txt
expect_in bounce.txt "To: eve@players.test" "the bounce goes to the sender"
expect_in bounce.txt "nomic deliver: no game here has the address three@nomic.test" "the bounce gives nomic's reason"
expect_in bounce.txt "REGISTER Eve" "the bounce carries the mail back"
expect_eq "$(nevents "$ONE") $(nevents "$TWO") $(nevents "$DB")" "$n1 $n2 $n0" "events of the three games after the mail for no game"
for g in "$DB" "$ONE" "$TWO"; do
    expect_status 0 "replay of $(basename "$g")" nm replay "$g"
done
wait_until 20 queue_empty
pfx postqueue -p > queue.txt 2>&1
expect_in queue.txt "Mail queue is empty" "postqueue -p at the end: nothing left behind"

finish
