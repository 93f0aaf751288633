#!/bin/sh
# t70-mail.sh - the Mechanics' mail through real servers, on loopback only.
# OpenSMTPD (smtpd -d, the test's own config, a free high port) hands each
# mail for game@nomic.test to `nomic deliver GAME` through an `mda` action,
# exactly as in production; swaks sends the players' mails (plain,
# multipart/alternative with quoted-printable, base64, a reply with quotes
# and a signature, an attachment); the journal and the state are checked
# after each; a directory of games routed by address (`nomic deliver
# DIR`); then the corpus of tests/mail/corpus/, each mail checked
# against what it must yield.  Then the policy (`mailPolicy tokens`) against forged senders,
# and mail out: `nomic send` hands the rules' messages to an SMTP transport,
# here python3's aiosmtpd writing a maildir.
#
# Run as root on Debian: `sh tests/t70-mail.sh` from the repository (NOMIC gives
# the binary, default build/nomic).  Missing packages are installed by
# tests/mail/setup.sh.  A part that cannot run yet says SKIP and why, and
# the script then fails unless MAIL_ALLOW_SKIP=1.  Everything the test
# starts is stopped, and its scratch directory removed (kept with
# MAIL_KEEP=1, to look at the logs), on any exit.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HELP=$ROOT/tests/mail
NOMIC=${NOMIC:-$ROOT/build/nomic}
case $NOMIC in /*) ;; *) NOMIC=$(pwd)/$NOMIC ;; esac
export PYTHONIOENCODING=utf-8
PY=/usr/bin/python3
. "$ROOT/tests/lib.sh"
chmod 711 "$T"   # the delivery user must reach its game below
SUITE=mail
MAILUSER=nomicmail
MADEUSER=
NOMIC_RUN=$T/bin/nomic   # a copy of $NOMIC, made below
. "$HELP/mta.sh"

# --- helpers -----------------------------------------------------------
cleanup() {
    st=$?
    trap - EXIT HUP INT TERM
    trap '' PIPE   # the reader may be gone: clean up all the same
    cd /
    stop_group smtpd
    stop_group aiosmtpd
    reap_groups
    [ -n "$MADEUSER" ] && userdel "$MAILUSER" > /dev/null 2>&1
    if [ -n "${MAIL_KEEP:-}" ]; then echo "mail: kept $T"; else rm -rf "$T"; fi
    exit "$st"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 141' PIPE
nevents() { nm log "$DB" --json | jq_ 'len(d["events"])'; }
last_event() { nm log "$DB" --json | jq_ "$1"; }   # EXPR on e, the last event
players() { nm show "$DB" --type player --json | jq_ '" ".join(o["nickname"] + ":" + o.get("score", "") for o in d["objects"])'; }
expect_players() { # WANT DESCRIPTION
    got=$(players)
    if [ "$got" = "$1" ]; then ok; else fail "$2: players (nickname:score) are '$got', expected '$1'"; fi
}
expect_ok() { # DESCRIPTION CMD...: CMD prints its problems and fails if it finds any
    what=$1
    shift
    if "$@" > check.out 2>&1; then ok; else fail "$what: expected no problem, found:"; cat check.out; fi
}
wait_event() { # N DESCRIPTION LOGLINES: wait up to 20 s until the journal holds N events
    # (LOGLINES: smtpd.log's length before the mail; a failed delivery after it ends the wait)
    i=0
    while :; do
        got=$(nevents 2> /dev/null)
        case $got in '' | *[!0-9]*) n=0 ;; *) n=$got ;; esac
        if [ "$n" -ge "$1" ]; then ok; return 0; fi
        if tail -n "+$(($3 + 1))" "$T/smtpd.log" | grep -q 'mda delivery.*result=\(PermFail\|TempFail\)'; then
            fail "$2: OpenSMTPD could not hand the mail to nomic deliver (the journal has '$got' events, expected $1); smtpd's log:"
            tail -n "+$(($3 + 1))" "$T/smtpd.log" | grep -v '^debug' | head -n 15
            return 1
        fi
        [ $i -ge 100 ] && break
        sleep 0.2
        i=$((i + 1))
    done
    fail "$2: after 20 s the journal has '$got' events, expected $1 (the mail did not reach nomic deliver); smtpd's log:"
    tail -n 15 "$T/smtpd.log"
    return 1
}
mail_in() { # FROM DESCRIPTION SWAKS-ARGS...: one mail to the game through OpenSMTPD, then wait for its event
    from=$1 what=$2
    shift 2
    before=$(nevents)
    loglines=$(wc -l < "$T/smtpd.log")
    swaks --server "127.0.0.1:$PORT" --to game@nomic.test --from "$from" --timeout 15 "$@" > swaks.out 2>&1
    got=$?
    if [ "$got" -ne 0 ]; then
        fail "$what: swaks exit $got, expected 0 (OpenSMTPD takes the mail)"
        tail -n 8 swaks.out
        return 1
    fi
    ok
    case $before in '' | *[!0-9]*) fail "$what: the journal cannot be read before the mail: $before"; return 1 ;; esac
    wait_event $((before + 1)) "$what" "$loglines" || return 1
    status=$(last_event 'd["events"][-1]["status"]')
}

# refusals of one sender in an hour after the first are counted in its
# tally, not journaled (docs/limits.md): such a mail makes no event
refused_of() { runuser -u "$MAILUSER" -- sqlite3 "$DB" "select coalesce(sum(refused),0) from tallies where who='$1'" 2>/dev/null || echo 0; }  # as the delivery user: WAL mode, one owner
mail_counted() { # FROM DESCRIPTION SWAKS-ARGS...: one mail the game refuses and only counts
    from=$1 what=$2
    shift 2
    before=$(refused_of "$from") events_before=$(nevents)
    swaks --server "127.0.0.1:$PORT" --to game@nomic.test --from "$from" --timeout 15 "$@" > swaks.out 2>&1
    got=$?
    if [ "$got" -ne 0 ]; then
        fail "$what: swaks exit $got, expected 0 (OpenSMTPD takes the mail)"
        tail -n 8 swaks.out
        return 1
    fi
    i=0
    until [ "$(refused_of "$from")" -gt "$before" ]; do
        i=$((i + 1))
        if [ $i -gt 200 ]; then fail "$what: after 20 s the sender's tally still counts $before refusals"; return 1; fi
        sleep 0.1
    done
    expect_eq "$(nevents)" "$events_before" "$what: counted, not journaled"
}

# --- what the test needs -------------------------------------------------
[ "$(id -u)" -eq 0 ] || abort "tests/t70-mail.sh runs as root (it starts OpenSMTPD, adds a delivery user): running as uid $(id -u)"
[ -x "$NOMIC" ] || abort "no nomic binary at $NOMIC (run make, or set NOMIC)"
case "$NOMIC$T" in *[[:space:]%\"]*) abort "the paths '$NOMIC' and '$T' must hold no blanks, quotes or %: they go into smtpd.conf" ;; esac
have() { [ "$(dpkg-query -W -f='${Status}' "$1" 2> /dev/null)" = "install ok installed" ]; }
if ! have opensmtpd || ! have swaks || ! have python3-aiosmtpd; then
    echo "mail: installing opensmtpd, swaks, python3-aiosmtpd (tests/mail/setup.sh)"
    sh "$HELP/setup.sh" || abort "tests/mail/setup.sh could not install what the test needs"
fi
[ -x /usr/sbin/smtpd ] || abort "no /usr/sbin/smtpd after setup (package opensmtpd)"
command -v swaks > /dev/null || abort "no swaks after setup (package swaks)"
$PY -c 'import aiosmtpd.handlers' 2> /dev/null || abort "python3 cannot import aiosmtpd (package python3-aiosmtpd)"

if ! getent passwd "$MAILUSER" > /dev/null; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$MAILUSER" ||
        abort "cannot add the delivery user $MAILUSER"
    MADEUSER=1
fi
# The binaries the whole run uses: a copy of $NOMIC, so that a rebuild during
# the run changes nothing, and that $MAILUSER (who runs the mda) may run it
# wherever the repository is.
# (nomic-net beside it: nomic runs deliver, send and serve there)
mkdir "$T/bin" && cp "$NOMIC" "$NOMIC_RUN" && cp "$(dirname "$NOMIC")/nomic-net" "$T/bin/nomic-net" &&
    chmod 755 "$T/bin" "$NOMIC_RUN" "$T/bin/nomic-net" ||
    abort "cannot copy $NOMIC and nomic-net beside it to $T/bin"
runuser -u "$MAILUSER" -- "$NOMIC_RUN" help > /dev/null 2>&1 || abort "$MAILUSER cannot run $NOMIC_RUN"
mkdir game games spool run maildir maildir/cur maildir/new maildir/tmp
chown "$MAILUSER:" game games
chmod 700 game games
DB=$T/game/g.db
expect_status 0 "init a favor game" nm init "$DB" --ruleset favor
PORT=$(free_port)
PORT2=$(free_port)
while [ "$PORT2" = "$PORT" ]; do PORT2=$(free_port); done

# --- 1. OpenSMTPD hands mail to nomic deliver -----------------------------
# The recipient is mapped (virtual) to the delivery user, who runs the mda.
cat > smtpd.conf << EOF
# written by tests/t70-mail.sh: the game's MTA, on loopback only
table game { "game@nomic.test" = "$MAILUSER" }
listen on 127.0.0.1 port $PORT hostname mx.nomic.test
action "nomic" mda "$NOMIC_RUN deliver $DB" virtual <game> user $MAILUSER
match from any for rcpt-to "game@nomic.test" action "nomic"
# every other address of nomic.test: the game of the directory whose address
# it is (nomic deliver DIR reads the recipient from the mda's RECIPIENT)
table games { "@nomic.test" = "$MAILUSER" }
action "games" mda "$NOMIC_RUN deliver $T/games" virtual <games> user $MAILUSER
match from any for domain "nomic.test" action "games"
# the game's own mail to players at relay.test goes through this server, to aiosmtpd
action "relay" relay host smtp+notls://127.0.0.1:$PORT2
match from any for domain "relay.test" action "relay"
EOF
/usr/sbin/smtpd -n -f smtpd.conf > out 2>&1 || { cat out; abort "smtpd -n refuses the test's smtpd.conf"; }
start_group smtpd sh "$HELP/run-smtpd.sh" "$T"
wait_port "$PORT" smtpd || abort "OpenSMTPD did not start on 127.0.0.1:$PORT"
ok

# --- 2. moves by mail, as players write them ------------------------------
# A plain mail.
mail_in alice@example.org "plain REGISTER alice" --h-Subject 'join' --body 'REGISTER alice' &&
    expect_eq "$status" applied "plain REGISTER alice: the event"
expect_players "alice:0" "after the plain mail"
expect_eq "$(last_event 'd["events"][-1]["sender"]')" alice@example.org "the sender is the From address"

# multipart/alternative: quoted-printable UTF-8 text (a soft line break in
# the nickname) beside an HTML part that must be left alone.
cat > alt.eml << 'EOF'
Date: %DATE%
From: =?utf-8?q?Bj=C3=B6rn?= <bjorn@example.net>
To: %TO_ADDRESS%
Subject: =?utf-8?q?Anmeldung_f=C3=BCr_das_Spiel?=
Message-Id: <%MESSAGEID%>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="alt-b0und"

This is a multi-part message in MIME format.

--alt-b0und
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

REGISTER Bj=
=C3=B6rn
--alt-b0und
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: quoted-printable

<html><body><p>REGISTER Mallory</p></body></html>
--alt-b0und--
EOF
mail_in bjorn@example.net "multipart/alternative, quoted-printable" --data @alt.eml &&
    expect_eq "$status" applied "multipart/alternative mail: the event"
expect_players "alice:0 Björn:0" "after the quoted-printable mail (not the HTML part)"
expect_eq "$(last_event 'd["events"][-1]["sender"]')" bjorn@example.net "the sender is the bare address, without the display name"

# base64 text/plain, UTF-8.
b64=$(printf 'REGISTER Zo\303\253\r\n' | base64)
mail_in zoe@example.com "base64 text/plain" --add-header 'MIME-Version: 1.0' \
    --add-header 'Content-Type: text/plain; charset=utf-8' \
    --add-header 'Content-Transfer-Encoding: base64' --body "$b64" &&
    expect_eq "$status" applied "base64 mail: the event"
expect_players "alice:0 Björn:0 Zoë:0" "after the base64 mail"

# A reply: Björn proposes; the quote, the "wrote:" line and the signature
# hold moves that must not count.
mail_in bjorn@example.net "a reply with quotes and a signature" --h-Subject 'Re: join' \
    --add-header 'In-Reply-To: <welcome@nomic.test>' --body 'REPEAL 19

On Mon, 23 Nov 2026 at 09:00, alice <alice@example.org> wrote:
> REGISTER Mallory
> VOTE 1 FOR

-- 
Bjorn
REGISTER Sig' && expect_eq "$status" applied "the reply: the event"
expect_players "alice:0 Björn:0 Zoë:0" "the quote and the signature register no one"
nm show "$DB" --type voteInProgress --json > vip.json
expect_eq "$(jq_ 'len(d["objects"])' < vip.json)" 1 "the reply's REPEAL opens one vote"
PROP=$(jq_ 'd["objects"][0]["propId"] if d["objects"] else ""' < vip.json)
expect_eq "$(jq_ 'd["objects"][0]["from"] if d["objects"] else ""' < vip.json)" "Björn" "the proposal is Björn's"
nm outbox "$DB" > out
expect_in out "Proposed rule-change (proposal $PROP" "the proposal is announced"

# The vote, with an attachment whose moves must not count.
printf 'VOTE %s AGAINST\n' "$PROP" > notes.txt
mail_in alice@example.org "VOTE $PROP FOR, with an attachment" --body "VOTE $PROP FOR" \
    --attach-type text/plain --attach-name notes.txt --attach @notes.txt &&
    expect_eq "$status" applied "the vote: the event"
nm show "$DB" --type vote --json > votes.json
expect_eq "$(jq_ '" ".join(o.get("from", "") + ":" + o.get("vote", "") + ":" + o.get("propId", "") for o in d["objects"])' < votes.json)" \
    "alice:FOR:$PROP" "one vote, alice's FOR (not the attachment's AGAINST)"
expect_players "alice:1 Björn:0 Zoë:0" "a vote scores its point"

# The MTA hands the same mail over twice (a retry, a second route): it is
# applied once, and the journal says so.
nm show "$DB" > state.before
mail_in bjorn@example.net "a mail with a Message-ID" --h-Message-Id '<twice.1@example.net>' --body 'REGISTER Twice' &&
    expect_eq "$status" applied "the first copy: the event"
nm show "$DB" > state.after
mail_in bjorn@example.net "the same mail again" --h-Message-Id '<twice.1@example.net>' --body 'REGISTER Twice' &&
    expect_eq "$status" refused "the second copy: the event"
expect_eq "$(last_event 'd["events"][-1]["message"].startswith("a copy of the mail taken as event %d " % d["events"][-2]["event"])')" True \
    "the journal says the second copy is one of the first"
nm show "$DB" > state.again
cmp -s state.after state.again && ok || fail "the second copy changed the state: $(diff state.after state.again | head -5)"
expect_players "alice:1 Björn:0 Zoë:0 Twice:0" "one player from the mail handed over twice"

# --- 3. answers and the token policy ---------------------------------------
nm show "$DB" > state.before
mail_in dave@example.com "a mail with no move" --body 'Hello, how do I play?' &&
    expect_eq "$status" refused "a mail with no move: the event"
nm show "$DB" > state.after
cmp -s state.before state.after && ok || fail "a mail with no move changed the state: $(diff state.before state.after | head -5)"
nm outbox "$DB" --json > outbox.json
jq_ '"\n".join(m["text"] for m in d["messages"] if "dave@example.com" in str(m["to"]))' < outbox.json > dave.txt
expect_in dave.txt "Refused (nothing of your mail was applied)" "the mail with no move is answered to its sender"

expect_status 0 "mailPolicy tokens" nm config "$DB" mailPolicy tokens
expect_status 0 "a token for alice" nm token "$DB" alice@example.org
TOKA=$(cat out)
expect_status 0 "a token for zoe" nm token "$DB" zoe@example.com
TOKZ=$(cat out)
[ ${#TOKA} -eq 32 ] && [ ${#TOKZ} -eq 32 ] && ok || fail "tokens are 32 hex digits: got '$TOKA' and '$TOKZ'"
nm show "$DB" > state.before
mail_in alice@example.org "forged: no token" --body 'REGISTER Mallory' &&
    expect_eq "$status" refused "a mail without its sender's token: the event"
nm show "$DB" > state.after
cmp -s state.before state.after && ok || fail "a mail without a token changed the state: $(diff state.before state.after | head -5)"
# alice's second refusal of the hour: counted in her tally, not journaled
mail_counted alice@example.org "forged: another address's token" --body "token: $TOKZ
REGISTER Mallory"
nm show "$DB" > state.after
cmp -s state.before state.after && ok || fail "a mail with another address's token changed the state: $(diff state.before state.after | head -5)"
expect_players "alice:1 Björn:0 Zoë:0 Twice:0" "no forged move counted"
nm outbox "$DB" --json > outbox.json
expect_eq "$(jq_ 'len([m for m in d["messages"] if "alice@example.org" in str(m["to"]) and "token" in m["text"]])' < outbox.json)" 1 \
    "answers to alice about the two forged mails within the hour"
mail_in alice@example.org "with alice's token" --body "token: $TOKA
REGISTER Alicia" && expect_eq "$status" applied "a mail with its sender's token: the event"
expect_players "alice:1 Björn:0 Zoë:0 Twice:0 Alicia:0" "the move with its token is applied"
nm log "$DB" > log.txt
expect_not_in log.txt "$TOKA" "the token never appears in the journal"
expect_status 0 "replay after the mail" nm replay "$DB"
expect_status 0 "back to mailPolicy open" nm config "$DB" mailPolicy --unset

# --- a full disk ------------------------------------------------------------
# In a private mount namespace a 4 MiB tmpfs holds a game; its disk is
# filled while a delivery's event runs (held 5 s by the test hook
# NOMIC_TEST_STALL_EVENT), so the event's commit fails: exit 75, the MTA
# will try again.  Once there is room, the retry is recognised: the mail is
# applied once.
printf 'From: disk@example.org\r\nSubject: moves\r\nMessage-ID: <full.1@example.org>\r\n\r\nREGISTER Disk\r\n' > full.eml
mkdir full
cat > full.sh << 'EOF'
D=$1 NOMIC=$2 T=$3
mount --make-rprivate / && mount -t tmpfs -o size=4m tmpfs "$D" || exit 3
"$NOMIC" init "$D/g.db" --ruleset favor > /dev/null || exit 4
NOMIC_TEST_STALL_EVENT=1:5 "$NOMIC" deliver "$D/g.db" < "$T/full.eml" > "$T/full1.out" 2>&1 &
pid=$!
i=0
while [ $i -lt 40 ] && ! "$NOMIC" log "$D/g.db" 2> /dev/null | grep -q '^event 1 .* received '; do sleep 0.1; i=$((i + 1)); done
dd if=/dev/zero of="$D/fill" bs=4k > /dev/null 2>&1
wait $pid
echo $? > "$T/full1.rc"
rm -f "$D/fill"
"$NOMIC" deliver "$D/g.db" < "$T/full.eml" > "$T/full2.out" 2>&1
echo $? > "$T/full2.rc"
"$NOMIC" show "$D/g.db" --type player > "$T/full.players"
"$NOMIC" log "$D/g.db" > "$T/full.log"
EOF
if ! unshare -m true 2> /dev/null; then
    skip "a full disk: no private mount namespace here for a tmpfs"
else
    unshare -m sh full.sh "$T/full" "$NOMIC_RUN" "$T" > full.sh.out 2>&1
    st=$?
    if [ $st -ne 0 ]; then
        fail "a full disk: the tmpfs game could not be set up (exit $st)"
        cat full.sh.out
    else
        expect_eq "$(cat full1.rc)" 75 "a delivery whose commit meets a full disk: the exit status"
        expect_in full1.out "full" "it says the disk is full"
        expect_not_in full1.out "applied" "it reports nothing applied"
        expect_eq "$(cat full2.rc)" 0 "the MTA's retry once there is room: the exit status"
        expect_in full2.out "a copy of the mail taken as event 1" "the retry is recognised"
        expect_eq "$(grep -c '^nickname: Disk$' full.players)" 1 "players registered by the mail that met the full disk"
        expect_eq "$(grep -c '^event .*  applied  from disk@example.org$' full.log)" 1 "events applied from that mail"
    fi
fi

# --- a directory of games: nomic deliver DIR --------------------------------
# Two games, each with its address; the mda is given the directory, and
# nomic deliver takes the recipient from the RECIPIENT OpenSMTPD sets.  A
# mail for no game exits 67 (EX_NOUSER): OpenSMTPD's permanent failure.
ONE=$T/games/one.db TWO=$T/games/two.db
expect_status 0 "init the game one.db" nm init "$ONE" --ruleset favor
expect_status 0 "init the game two.db" nm init "$TWO" --ruleset favor
expect_status 0 "one.db's address" nm config "$ONE" address one@nomic.test
expect_status 0 "two.db's address, in capitals" nm config "$TWO" address Two@Nomic.TEST
dir_players() { nm show "$1" --type player --json | jq_ '" ".join(o["nickname"] for o in d["objects"])'; }
dir_events() { nm log "$1" --json | jq_ 'len(d["events"])'; }
mda_result() { # RCPT: OpenSMTPD's result for its last mda delivery to RCPT (Ok, TempFail, PermFail), its words
    grep "mda delivery .* rcpt=<$1> " "$T/smtpd.log" | tail -n 1 | sed 's/.* result=//'
}
mda_results() { grep -c "mda delivery .* rcpt=<$1> " "$T/smtpd.log"; }   # RCPT: how many
more_mda_results() { [ "$(mda_results "$1")" -gt "$2" ]; }                # RCPT N: more than N?
dir_mail() { # TO FROM BODY DESCRIPTION: one mail to the directory's domain, then OpenSMTPD's mda result for TO
    n=$(mda_results "$1")
    swaks --server "127.0.0.1:$PORT" --to "$1" --from "$2" --timeout 15 --body "$3" > swaks.out 2>&1
    got=$?
    if [ "$got" -ne 0 ]; then fail "$4: swaks exit $got, expected 0 (OpenSMTPD takes the mail)"; tail -n 8 swaks.out; return 1; fi
    ok
    wait_until 20 more_mda_results "$1" "$n" || { fail "$4: after 20 s smtpd's log has no mda delivery to $1"; tail -n 15 "$T/smtpd.log"; return 1; }
}
dir_mail one@nomic.test ann@example.org 'REGISTER Ann' "a mail to one@nomic.test" &&
    mda_result one@nomic.test > out && expect_in out "Ok stat=Delivered" "a mail to one@nomic.test: OpenSMTPD's mda result"
dir_mail TWO@nomic.test ben@example.org 'REGISTER Ben' "a mail to TWO@nomic.test" &&
    mda_result TWO@nomic.test > out && expect_in out "Ok stat=Delivered" "a mail to TWO@nomic.test: OpenSMTPD's mda result"
expect_eq "$(dir_players "$ONE")" "Ann" "one.db's players: Ann alone"
expect_eq "$(dir_players "$TWO")" "Ben" "two.db's players: Ben alone"
n1=$(dir_events "$ONE") n2=$(dir_events "$TWO")
dir_mail three@nomic.test eve@example.org 'REGISTER Eve' "a mail to three@nomic.test, the address of no game" &&
    mda_result three@nomic.test > out && expect_in out 'PermFail stat=Error (user unknown: "nomic deliver: no game here has the address three@nomic.test")' \
        "a mail for no game: OpenSMTPD's mda result gives nomic's reason"
expect_eq "$(dir_events "$ONE") $(dir_events "$TWO")" "$n1 $n2" "events of the two games after the mail for no game"

# A game its delivery user cannot write (a keeper's chown by mistake): exit
# 75 (EX_TEMPFAIL), OpenSMTPD keeps the mail in its queue (smtpctl show
# queue) and delivers it once the game is fixed and the queue run
# (smtpctl schedule all).  smtpctl finds smtpd's socket at /run/smtpd.sock:
# in run-smtpd.sh's namespace that is $T/run, bound there again for it.
smtpctl_() { # ARGS...: smtpctl on the test's smtpd
    if [ -S "$T/run/smtpd.sock" ]; then
        unshare -m sh -c 'mount --make-rprivate / && mount --bind "$0/run" /run && exec smtpctl "$@"' "$T" "$@"
    else
        smtpctl "$@"   # run-smtpd.sh had no namespace: the machine's paths
    fi
}
chown root: "$ONE"
dir_mail one@nomic.test fay@example.org 'REGISTER Fay' "a mail to one@ while its game is root's" &&
    mda_result one@nomic.test > out && expect_in out "TempFail" "a game its delivery user cannot write: OpenSMTPD's mda result"
expect_in out "attempt to write a readonly database" "OpenSMTPD's log has nomic's reason for the temporary failure"
smtpctl_ show queue > queue.txt 2>&1
expect_in queue.txt "fay@example.org" "smtpctl show queue shows the mail kept"
expect_eq "$(dir_events "$ONE")" "$n1" "the mail kept: events of one.db"
chown "$MAILUSER:" "$ONE"
expect_status 0 "smtpctl schedule all" smtpctl_ schedule all
ok_result() { mda_result one@nomic.test | grep -q '^Ok '; }
if wait_until 20 ok_result; then ok; else fail "after the fix and smtpctl schedule all, OpenSMTPD's mda result is '$(mda_result one@nomic.test)', expected Ok"; fi
expect_eq "$(dir_players "$ONE")" "Ann Fay" "one.db's players once the kept mail is delivered"

# --- 4. mail out: nomic send to an SMTP server -----------------------------
if "$NOMIC_RUN" send 2>&1 | grep -q 'unknown command'; then
    skip "mail out: $NOMIC has no 'send' command yet (nomic send GAME [--all])"
else
    outbox() { nm outbox "$DB" --json > outbox.json; }
    msg() { # ADDRESS TEXT FIELD: FIELD of the message to ADDRESS whose text holds TEXT ("" if none)
        jq_ "[m.get('$3', '') for m in d['messages'] if '$1' in str(m['to']) and '$2' in m['text']][-1:] or ['']" < outbox.json |
            $PY -c 'import json, sys; v = json.load(sys.stdin)[0]; print("" if v is None else v)'
    }
    in_maildir() { $PY "$HELP/maildir.py" "$T/maildir" count "$1"; }
    outbox
    expect_eq "$(jq_ '" ".join(sorted(set(str(m.get("delivery")) for m in d["messages"])))' < outbox.json)" kept \
        "messages released under the outbox transport are kept"
    start_group aiosmtpd $PY -m aiosmtpd -n -l "127.0.0.1:$PORT2" -c aiosmtpd.handlers.Mailbox "$T/maildir"
    wait_port "$PORT2" aiosmtpd || abort "aiosmtpd did not start on 127.0.0.1:$PORT2"
    expect_status 0 "transport smtp" nm config "$DB" transport "smtp://127.0.0.1:$PORT2"
    expect_status 0 "mailFrom" nm config "$DB" mailFrom game@nomic.test

    # A welcome, handed over and received as a proper mail.
    mail_in erin@example.org "REGISTER Jürgen" --add-header 'MIME-Version: 1.0' \
        --add-header 'Content-Type: text/plain; charset=utf-8' \
        --add-header 'Content-Transfer-Encoding: 8bit' --body 'REGISTER Jürgen'
    expect_players "alice:1 Björn:0 Zoë:0 Twice:0 Alicia:0 Jürgen:0" "Jürgen registered by mail"
    expect_status 0 "nomic send" nm send "$DB"
    outbox
    WELCOME="Welcome to Engine City, Jürgen !"
    expect_eq "$(msg erin@example.org "$WELCOME" delivery)" delivered "the welcome's delivery"
    MID=$(msg erin@example.org "$WELCOME" messageId)
    [ -n "$MID" ] && ok || fail "the delivered welcome has no messageId in the outbox"
    [ -n "$(msg erin@example.org "$WELCOME" deliveredAt)" ] && ok || fail "the delivered welcome has no deliveredAt"
    expect_eq "$(in_maildir "$MID")" 1 "copies of the welcome <$MID> in the maildir"
    expect_ok "the welcome as received (RFC 5322, From mailFrom, UTF-8 text)" $PY "$HELP/maildir.py" "$T/maildir" check "$MID" game@nomic.test erin@example.org "$WELCOME"

    # The broadcast to every player (one message, several recipients).
    NEWP="New player Jürgen registered at"
    BMID=$(msg bjorn@example.net "$NEWP" messageId)
    expect_eq "$(msg bjorn@example.net "$NEWP" delivery)" delivered "the broadcast's delivery"
    expect_ok "the broadcast <$BMID> as received" $PY "$HELP/maildir.py" "$T/maildir" check "$BMID" game@nomic.test bjorn@example.net "$NEWP"

    # The receiver is down: a failed attempt, kept for later.
    stop_group aiosmtpd
    port_open "$PORT2" && fail "aiosmtpd still listens on $PORT2 after it was stopped"
    mail_in frank@example.org "REGISTER Frank" --body 'REGISTER Frank'
    expect_players "alice:1 Björn:0 Zoë:0 Twice:0 Alicia:0 Jürgen:0 Frank:0" "Frank registered while the receiver is down"
    nm send "$DB" > out 2>&1
    note "nomic send with the receiver down: exit $?"
    outbox
    FW="Welcome to Engine City, Frank !"
    expect_eq "$(msg frank@example.org "$FW" delivery)" pending "with the receiver down, the delivery"
    expect_eq "$(msg frank@example.org "$FW" attempts)" 1 "with the receiver down, the attempts"
    [ -n "$(msg frank@example.org "$FW" error)" ] && ok || fail "the failed attempt records no error"
    [ -z "$(msg frank@example.org "$FW" deliveredAt)" ] && ok || fail "an undelivered message has a deliveredAt"
    NEXT=$(msg frank@example.org "$FW" nextTry)
    [ "${NEXT:-0}" -gt "$(date +%s)" ] 2> /dev/null && ok ||
        fail "after a failed attempt the next try is later: nextTry is '$NEXT', now is $(date +%s)"
    # Its backoff has not passed: a plain send leaves it alone.
    nm send "$DB" > out 2>&1
    outbox
    expect_eq "$(msg frank@example.org "$FW" attempts)" 1 "nomic send before the backoff has passed: the attempts"
    # --all retries now, and fails again while the receiver is down.
    nm send "$DB" --all > out 2>&1
    note "nomic send --all with the receiver down: exit $?"
    outbox
    expect_eq "$(msg frank@example.org "$FW" attempts)" 2 "nomic send --all with the receiver down: the attempts"
    expect_eq "$(msg frank@example.org "$FW" delivery)" pending "nomic send --all with the receiver down: the delivery"
    expect_eq "$(in_maildir "$(msg frank@example.org "$FW" messageId)")" 0 "copies of Frank's welcome while the receiver is down"

    # The receiver is back: --all delivers, once.
    start_group aiosmtpd $PY -m aiosmtpd -n -l "127.0.0.1:$PORT2" -c aiosmtpd.handlers.Mailbox "$T/maildir"
    wait_port "$PORT2" aiosmtpd || abort "aiosmtpd did not start again on 127.0.0.1:$PORT2"
    expect_status 0 "nomic send --all" nm send "$DB" --all
    outbox
    expect_eq "$(msg frank@example.org "$FW" delivery)" delivered "after send --all, the delivery"
    [ -n "$(msg frank@example.org "$FW" deliveredAt)" ] && ok || fail "Frank's delivered welcome has no deliveredAt"
    FMID=$(msg frank@example.org "$FW" messageId)
    expect_eq "$(in_maildir "$FMID")" 1 "copies of Frank's welcome <$FMID> in the maildir"
    expect_ok "Frank's welcome as received" $PY "$HELP/maildir.py" "$T/maildir" check "$FMID" game@nomic.test frank@example.org "$FW"
    expect_status 0 "nomic send again" nm send "$DB"
    expect_status 0 "nomic send --all again" nm send "$DB" --all
    outbox
    expect_eq "$(in_maildir "$MID")" 1 "the welcome is still delivered once"
    expect_eq "$(in_maildir "$FMID")" 1 "Frank's welcome is still delivered once"
    expect_eq "$(jq_ 'len([m for m in d["messages"] if m.get("delivery") == "pending"])' < outbox.json)" 0 \
        "messages still pending after send --all"
    expect_ok "each delivered message reaches each of its recipients once, and nothing else arrives" $PY "$HELP/maildir.py" "$T/maildir" delivered outbox.json

    # Never raw: a 3,000-character line and a bare CR, through OpenSMTPD
    # (which relays relay.test to aiosmtpd), arrive intact.
    DB2=$T/game/long.db
    expect_status 0 "init a second game" nm init "$DB2" --ruleset favor
    expect_status 0 "its transport is OpenSMTPD" nm config "$DB2" transport "smtp://127.0.0.1:$PORT"
    expect_status 0 "its mailFrom" nm config "$DB2" mailFrom game@nomic.test
    $PY -c 'import sys; sys.stdout.write("subtype: register\nnickname: " + "y" * 3000 + "a\rb\n")' > long.move
    expect_status 0 "a nickname of 3,000 characters and a bare CR" nm move "$DB2" --from long@relay.test --file "$T/long.move"
    expect_status 0 "nomic send through OpenSMTPD" nm send "$DB2"
    nm outbox "$DB2" --json > outbox2.json
    expect_eq "$(jq_ 'len(d["messages"])' < outbox2.json)" 1 "mails of the event to its one player (the welcome and the news, as one)"
    LMID=$(jq_ 'd["messages"][0].get("messageId") or ""' < outbox2.json)
    i=0
    while [ $i -lt 100 ] && [ "$(in_maildir "$LMID")" != 1 ]; do sleep 0.2; i=$((i + 1)); done
    expect_eq "$(in_maildir "$LMID")" 1 "copies of <$LMID> relayed by OpenSMTPD to the maildir"
    expect_ok "the long line and the bare CR arrive intact, in lines of at most 998 characters, CRLF only" $PY -c '
import email, email.policy, os, sys
top, mid = sys.argv[1], sys.argv[2]
for sub in ("new", "cur"):
    for name in os.listdir(os.path.join(top, sub)):
        raw = open(os.path.join(top, sub, name), "rb").read()
        m = email.message_from_bytes(raw, policy=email.policy.default)
        if (m["Message-ID"] or "").strip().strip("<>") != mid:
            continue
        body = raw.split(b"\n\n", 1)[-1] if b"\r\n\r\n" not in raw else raw.split(b"\r\n\r\n", 1)[1]
        long = [len(l) for l in raw.split(b"\n") if len(l.rstrip(b"\r")) > 998]
        if long: print("lines over 998 characters:", long)
        if m["Content-Transfer-Encoding"] != "quoted-printable": print("encoding:", m["Content-Transfer-Encoding"])
        if b"\r" in body.replace(b"\r\n", b""): print("a bare CR in the body as it arrived")
        t = m.get_content()
        if "y" * 3000 + "a\rb" not in t: print("the decoded text lacks the long line with its bare CR:", repr(t[:80]))
        if "New player" not in t: print("the news is not in the same mail:", repr(t[-200:]))
        sys.exit(0)
print("no message", mid)' "$T/maildir" "$LMID"
fi


# The corpus (tests/mail/corpus/): mails as Gmail, Outlook, Thunderbird,
# Apple Mail and Yahoo write them, in seven languages and three charsets,
# each sent whole (swaks --data) and checked against its .expect file: the
# moves it must yield, those it must not, what the event says, the answer.
# Last, so that the players it adds change no list checked above.
nm config "$DB" mailPolicy --unset > /dev/null
for eml in "$HELP"/corpus/*.eml; do
    name=$(basename "$eml" .eml)
    sender=$(mail_sender "$eml")
    mail_in "$sender" "corpus $name" --data "$eml" || continue
    nm log "$DB" --json > log.json
    nm outbox "$DB" --json > outbox.json
    corpus_checks "corpus $name (through OpenSMTPD)" "$HELP/corpus/$name.expect" "$sender"
done

# Real Agoran mail (tests/data/agora-mail/, the corpus tests/t45-agoran.sh
# delivers directly): the same mails through OpenSMTPD, each to a new game
# of the agora set, checked against its .expect file.
AGORA=$HELP/../data/agora-mail
for eml in "$AGORA"/*.eml; do
    name=$(basename "$eml" .eml)
    nm init "$DB" --ruleset agora --force > /dev/null || { fail "agora $name: cannot init the agora game"; continue; }
    sender=$(mail_sender "$eml")
    mail_in "$sender" "agora $name" --data "$eml" || continue
    nm log "$DB" --json > log.json
    nm outbox "$DB" --json > outbox.json
    corpus_checks "agora $name (through OpenSMTPD)" "$AGORA/$name.expect" "$sender"
done

finish
