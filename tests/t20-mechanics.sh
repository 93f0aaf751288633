#!/bin/sh
# t20-mechanics.sh - the Mechanics from the command line: sugar, settings,
# tokens and mail intake (`nomic deliver` fed the mails an MTA would hand
# it: multipart, quoted-printable, base64, replies with quotes and
# signatures, forged senders under mailPolicy tokens), answers threaded
# under the mail they answer, the display name, tokens by mail (TOKEN),
# moves of no effect and why, the answer to every mail, and the game's
# time going forward.  Uses $NOMIC.
set -u
. "$(dirname "$0")/lib.sh"
players() { "$NOMIC" show "$1" --type player | grep '^nickname:' | sed 's/nickname: //' | tr '\n' ' '; }
mail() { # FROM DATE CONTENT-HEADERS BODY: an RFC 5322 message on stdout
    printf 'From: %s\r\nTo: game@localhost\r\nSubject: moves\r\nDate: %s\r\nMessage-ID: <%s@test>\r\nMIME-Version: 1.0\r\n%s\r\n\r\n%s\r\n' \
        "$1" "$2" "$$.$N" "$3" "$4"
}

"$NOMIC" init g.db --ruleset favor --time 2026-01-01Z > /dev/null

# --- sugar -------------------------------------------------------------
expect_status 0 "sugar prints" "$NOMIC" sugar g.db
expect_cmp "$SRCDIR/rulesets/favor.sugar" out "a new game's sugar is its set's table, as shipped"
printf 'REGISTER Ann\n' > m
expect_status 0 "a sugar move" "$NOMIC" move g.db --from ann@x.org --time 2026-01-01T00:01:00Z --file m
[ "$(players g.db)" = "Ann " ] && ok || fail "REGISTER Ann made no player: $(players g.db)"
printf 'VOTE 12 maybe\n' > m
expect_status 1 "a sugar line with a wrong word is refused" "$NOMIC" move g.db --from ann@x.org --time 2026-01-01T00:02:00Z --file m
cat >want <<'EOF'
event 2 (move at 2026-01-01T00:02:00Z): refused
  line 1: `VOTE 12 maybe` is not a move; the forms are:
  VOTE <propId> <vote:FOR|AGAINST>
EOF
expect_cmp want out "the refusal names the line and shows the form"
printf 'FROB <x>\n    subtype: frob\n    x: <y>\n' > bad.sugar
expect_status 1 "a sugar table naming what its pattern does not take" "$NOMIC" sugar g.db --set bad.sugar
printf '%s\n' 'bad.sugar:3:8: <y> is not taken by the pattern `FROB <x>`' >want
expect_cmp want err "the sugar error says where and why"
expect_status 1 "check finds the sugar error" "$NOMIC" check bad.sugar
printf '%s\n' 'bad.sugar:3:8: error: <y> is not taken by the pattern `FROB <x>`' '0 rules checked: 1 error, 0 warnings' >want
expect_cmp want out "check says where in the sugar, as it says every error"
printf 'JOIN <nickname>\n    subtype: register\n    nickname: <nickname>\n' > new.sugar
expect_status 0 "check takes a good sugar table" "$NOMIC" check new.sugar
expect_status 0 "sugar replaced" "$NOMIC" sugar g.db --set new.sugar
printf 'join Bob\n' > m
expect_status 0 "the new sugar works at once" "$NOMIC" move g.db --from bob@y.org --time 2026-01-01T00:03:00Z --file m
[ "$(players g.db)" = "Ann Bob " ] && ok || fail "join Bob made no player: $(players g.db)"
"$NOMIC" sugar g.db --set /dev/null > /dev/null 2>&1
expect_status 0 "replay after the sugar changed" "$NOMIC" replay g.db

# --- settings ----------------------------------------------------------
expect_status 0 "config lists" "$NOMIC" config g.db
cat >want <<'EOF'
transport              outbox
mailFrom               nomic@localhost
mailPolicy             open
listen                 127.0.0.1:8080
address                (unset)
name                   (unset)
quotaEvents            600
quotaWork              1000000000
quotaJournal           16777216
addressCase            fold
tokenMailsPerHour      20
tokenRequestsPerClient 10
EOF
expect_cmp want out "config lists every setting with its default: the outbox, an open policy, no display name, the quotas of the hour, addresses in any case, the token mail ceilings"
expect_status 2 "config refuses an unknown key" "$NOMIC" config g.db colour blue
printf 'nomic config: colour is not a setting (transport, mailFrom, mailPolicy, listen, address, name, quotaEvents, quotaWork, quotaJournal, addressCase, tokenMailsPerHour, tokenRequestsPerClient)\n' >want
expect_cmp want err "unknown key message, with the settings there are"
expect_status 2 "config refuses a bad value" "$NOMIC" config g.db mailPolicy closed
printf 'nomic config: mailPolicy closed: expected open or tokens\n' >want
expect_cmp want err "bad value message"
expect_status 0 "config sets" "$NOMIC" config g.db transport smtp://127.0.0.1:2525
expect_status 0 "config reads" "$NOMIC" config g.db transport
expect_in out "smtp://127.0.0.1:2525" "the setting is kept"
expect_status 0 "config unsets" "$NOMIC" config g.db transport --unset
"$NOMIC" config g.db transport > out
expect_in out "outbox" "back to the default"

# --- mail in -----------------------------------------------------------
"$NOMIC" init m.db --ruleset favor --time 2026-01-01Z > /dev/null
mail 'Cy Young <cy@z.org>' 'Thu, 01 Jan 2026 00:05:00 +0000' 'Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable' 'REGISTER C=
y

On Wed, 31 Dec 2025, Ann wrote:
> REGISTER Ann
> VOTE 1 FOR

--=20
Cy, who signs with REGISTER Mallory' > cy.eml
expect_status 0 "a quoted-printable mail with a quote and a signature" "$NOMIC" deliver m.db < cy.eml
[ "$(players m.db)" = "Cy " ] && ok || fail "quoted-printable mail: players are $(players m.db)"
"$NOMIC" show m.db --type player > out
expect_in out "registeredAt: 1767225900" "Date gives moveTimeStamp"
b64=$(printf 'REGISTER Dee\n' | base64)
mail 'dee@w.org' 'Thu, 01 Jan 2026 00:06:00 +0000' 'Content-Type: multipart/mixed; boundary="b1"' "--b1
Content-Type: multipart/alternative; boundary=\"b2\"

--b2
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: base64

$b64
--b2
Content-Type: text/html

<p>REGISTER Eve</p>
--b2--
--b1
Content-Type: text/plain
Content-Disposition: attachment; filename=notes.txt

REGISTER Fay
--b1--" > dee.eml
expect_status 0 "a multipart mail with base64 text, html and an attachment" "$NOMIC" deliver m.db < dee.eml
[ "$(players m.db)" = "Cy Dee " ] && ok || fail "multipart mail: players are $(players m.db)"
mail 'gus@v.org' 'Thu, 01 Jan 2026 00:07:00 +0000' 'Content-Type: text/plain' 'Hello, how do I play?' > gus.eml
expect_status 0 "a mail with no move is taken (and answered)" "$NOMIC" deliver m.db < gus.eml
"$NOMIC" outbox m.db > out
expect_in out "Refused (nothing of your mail was applied): no move found in the mail" "the mail with no move is answered, its outcome first"
expect_in out 'line 1 ("Hello, how do I play?") was set aside as prose' "each line set aside quoted by its start"
expect_in out "gus@v.org" "the answer goes to its sender"
printf 'Subject: no sender\r\n\r\nREGISTER Nobody\r\n' > nofrom.eml
expect_status 65 "a mail with no From bounces" "$NOMIC" deliver m.db < nofrom.eml
expect_status 75 "a game that cannot be opened: try again later" "$NOMIC" deliver nosuch.db < cy.eml
mail 'MAILER-DAEMON@y.org' 'Thu, 01 Jan 2026 00:08:00 +0000' 'Content-Type: text/plain' 'Delivery failed' > bounce.eml
n_before=$("$NOMIC" outbox m.db | grep -c '^')
expect_status 0 "a bounce is taken" "$NOMIC" deliver m.db < bounce.eml
[ "$("$NOMIC" outbox m.db | grep -c '^')" -eq "$n_before" ] && ok || fail "a bounce must not be answered (mail loop)"
"$NOMIC" log m.db > out
expect_in out "event 4" "the bounce is journaled all the same"

# --- mailPolicy tokens -------------------------------------------------
expect_status 0 "policy tokens" "$NOMIC" config m.db mailPolicy tokens
expect_status 0 "token issued" "$NOMIC" token m.db cy@z.org
tok=$(cat out)
[ ${#tok} -eq 32 ] && ok || fail "a token is 32 hex digits, got '$tok'"
expect_status 2 "token refuses a non-address" "$NOMIC" token m.db 'not an address'
mail 'cy@z.org' 'Thu, 01 Jan 2026 00:09:00 +0000' 'Content-Type: text/plain' 'REGISTER Mallory' > forged.eml
before=$("$NOMIC" export m.db | sha1sum)
expect_status 0 "a mail without the token is taken" "$NOMIC" deliver m.db < forged.eml
expect_in out "refused" "without its token the move is refused"
mail 'cy@z.org' 'Thu, 01 Jan 2026 00:09:30 +0000' 'Content-Type: text/plain' "token: 0123456789abcdef0123456789abcdef
REGISTER Mallory" > forged2.eml
expect_status 0 "a mail with a wrong token is taken" "$NOMIC" deliver m.db < forged2.eml
expect_in out "not this sender's" "a wrong token is refused"
[ "$("$NOMIC" export m.db | sha1sum)" = "$before" ] && ok || fail "a refused move changed the game"
mail 'cy@z.org' 'Thu, 01 Jan 2026 00:10:00 +0000' 'Content-Type: text/plain' "token: $tok
REGISTER Cy2" > good.eml
expect_status 0 "a mail with the token" "$NOMIC" deliver m.db < good.eml
[ "$(players m.db)" = "Cy Dee Cy2 " ] && ok || fail "the move with its token is applied: players are $(players m.db)"
"$NOMIC" log m.db > out
expect_not_in out "$tok" "the token never appears in the log"
sqlite3 m.db "select count(*) from events where status='refused' and input is null" > out
[ "$(cat out)" -ge 2 ] && ok || fail "the refused mails are journaled"
expect_status 0 "token re-issued" "$NOMIC" token m.db cy@z.org
mail 'cy@z.org' 'Thu, 01 Jan 2026 00:11:00 +0000' 'Content-Type: text/plain' "token: $tok
REGISTER Cy3" > good2.eml
expect_status 0 "the old token no longer counts" "$NOMIC" deliver m.db < good2.eml
expect_in out "not this sender's" "a re-issued token voids the old one"
expect_status 0 "replay with refused mails" "$NOMIC" replay m.db


# --- the queue waits for sendNow across commands ------------------------
cat >q.nomic <<'EOF'
type: rule
ruleOrder: 10
if: exists(type=="move" & subtype=="later" & moveSender==%s & objectId==%m)
then: send(%s, "queued by one command, sent by another") & delete(objectId==%m)

type: rule
ruleOrder: 20
if: exists(type=="move" & subtype=="flush" & objectId==%m)
then: sendNow() & delete(objectId==%m)
EOF
"$NOMIC" init q.db --ruleset q.nomic >/dev/null
printf 'subtype: later\n' | "$NOMIC" move q.db --from a@q.org >/dev/null
"$NOMIC" outbox q.db --json > out
expect_in out '"state":"queued"' "the message waits for sendNow"
printf 'subtype: flush\n' | "$NOMIC" move q.db --from b@q.org >/dev/null
"$NOMIC" outbox q.db --json > out
expect_in out '"state":"sent"' "a later command's sendNow hands it over"
expect_in out 'queued by one command, sent by another' "the text survived between the commands"
expect_status 0 "replay with the queue" "$NOMIC" replay q.db

# --- mail out through sendmail: --------------------------------------
cat >sendmail <<EOF
#!/bin/sh
# a sendmail stand-in: fails while $T/down exists, else keeps the mail
[ -f "$T/down" ] && { echo "451 try later" >&2; exit 75; }
n=\$(ls "$T/sent" | wc -l)
{ echo "ARGS: \$*"; cat; } > "$T/sent/\$n.eml"
EOF
chmod +x sendmail
mkdir sent
expect_status 2 "a transport that is not one" "$NOMIC" config q.db transport "$T/sendmail"
expect_status 0 "transport sendmail:" "$NOMIC" config q.db transport "sendmail:$T/sendmail"
expect_status 0 "mailFrom" "$NOMIC" config q.db mailFrom game@q.org
touch down
printf 'subtype: later\n---\nsubtype: flush\n' | "$NOMIC" move q.db --from 'zoë@q.org' >out 2>err
expect_in err "not sent" "a failed hand-over is reported"
"$NOMIC" outbox q.db --json > out
expect_in out '"delivery":"pending","attempts":1' "the failed message waits, one attempt counted"
expect_in out '451 try later' "with the transport's complaint"
id1=$(python3 -c 'import json; m=json.load(open("out"))["messages"][-1]; print(m["messageId"])')
expect_status 0 "nothing is due during the backoff" "$NOMIC" send q.db
expect_in out "nothing to send" "the backoff is kept"
expect_status 1 "send --all while still down" "$NOMIC" send q.db --all
rm down
expect_status 0 "send --all once up" "$NOMIC" send q.db --all
expect_in out "delivered <$id1>" "delivered with the Message-ID it was given at the first attempt"
expect_status 0 "send again" "$NOMIC" send q.db
expect_in out "nothing to send" "nothing goes twice"
[ "$(ls sent | wc -l)" -eq 1 ] && ok || fail "one mail handed over, found $(ls sent | wc -l)"
m=sent/0.eml
expect_in $m "ARGS: -oi -f game@q.org -- zoë@q.org" "the program is given the envelope"
expect_in $m "From: game@q.org" "From is mailFrom"
expect_in $m "Message-Id: <$id1>" "the Message-ID"
expect_in $m "Subject: q: queued by one command" "the subject: the game and the first line"
expect_in $m "Content-Type: text/plain; charset=utf-8" "UTF-8 text"
expect_in $m "Auto-Submitted: auto-generated" "marked automatic"
grep -q '^Date: ' $m && ok || fail "a Date header"
grep -q '^To: ' $m && ok || fail "a To header"
"$NOMIC" outbox q.db --json > out
expect_in out '"delivery":"delivered","attempts":3' "three attempts in all"

# --- a mail is applied once, whatever the MTA retries --------------------
# The test hooks of docs/mechanics.md: NOMIC_TEST_STALL_EVENT=N holds event
# N for a minute (an MTA's timeout kills it), NOMIC_TEST_FAIL_COMMIT=N makes
# its commit fail as on a full disk, NOMIC_TEST_CRASH_EVENT=N aborts there.
ulimit -c 0 # the aborts below leave no core
"$NOMIC" init d.db --ruleset favor --time 2026-01-01Z > /dev/null
nplayers() { "$NOMIC" show "$1" --type player | grep -c '^nickname:'; }
last_n() { sqlite3 "$1" 'select max(n) from events'; }
applied_from() { "$NOMIC" log "$1" | grep -c "^event .*  \(applied\|no effect\)  from $2\$"; } # DB ADDRESS: events from ADDRESS the rules ran on
mail 'ann@d.org' 'Thu, 01 Jan 2026 00:05:00 +0000' 'Content-Type: text/plain' 'REGISTER Ann' > ann.eml
NOMIC_TEST_STALL_EVENT=1 "$NOMIC" deliver d.db < ann.eml > stalled.out 2>&1 &
pid=$!
received() { "$NOMIC" log d.db 2>/dev/null | grep -q '^event 1 .* received '; }
wait_until 10 received && ok || fail "the slow event is journaled as received while it runs"
kill -9 $pid
wait $pid 2> /dev/null
expect_status 0 "the MTA's retry of a killed delivery" "$NOMIC" deliver d.db < ann.eml
expect_in out "a copy of the mail taken as event 1" "the retry is recognised, and says so"
expect_eq "$(nplayers d.db)" 1 "players after a killed delivery and its retry"
expect_eq "$(applied_from d.db ann@d.org)" 1 "events applied from the killed and retried mail"
expect_eq "$(sqlite3 d.db "select count(*) from outbox o join recipients r on r.id=o.to_id where r.list='ann@d.org'")" 1 \
    "welcomes to ann (the killed event finished once, by the retry)"

mail 'bob@d.org' 'Thu, 01 Jan 2026 00:06:00 +0000' 'Content-Type: text/plain' 'REGISTER Bob' > bob.eml
n=$(($(last_n d.db) + 1))
expect_status 75 "a commit that fails (disk full): try again later" env NOMIC_TEST_FAIL_COMMIT=$n "$NOMIC" deliver d.db < bob.eml
expect_in err "disk is full" "the failure says why"
expect_not_in out "applied" "a failed commit is not reported as applied"
expect_not_in out "event -1" "nor as an event -1"
expect_status 0 "the MTA's retry after the failed commit" "$NOMIC" deliver d.db < bob.eml
expect_in out "a copy of the mail taken as event $n" "the retry after a failed commit is recognised"
expect_eq "$(nplayers d.db)" 2 "players after a failed commit and its retry"
expect_eq "$(applied_from d.db bob@d.org)" 1 "events applied from the mail whose commit failed"

# without a Message-ID, the digest of the whole mail tells a copy
printf 'From: cy@d.org\r\nSubject: moves\r\n\r\nREGISTER Cy\r\n' > nomid.eml
expect_status 0 "a mail without Message-ID" "$NOMIC" deliver d.db < nomid.eml
expect_status 0 "the same mail again" "$NOMIC" deliver d.db < nomid.eml
expect_in out "a copy of the mail taken as event" "a copy without Message-ID is recognised by its digest"
# the same text under another Message-ID is another mail
mail 'cy@d.org' 'Thu, 01 Jan 2026 00:07:00 +0000' 'Content-Type: text/plain' 'REGISTER Cy' > cy1.eml
expect_status 0 "the same moves in a new mail" "$NOMIC" deliver d.db < cy1.eml
expect_not_in out "a copy of the mail" "a new Message-ID is a new mail"
expect_eq "$(applied_from d.db cy@d.org)" 2 "cy's two mails (not the copy) are applied"

# --- an event the engine dies on is set aside after two tries ------------
mail 'eve@d.org' 'Thu, 01 Jan 2026 00:08:00 +0000' 'Content-Type: text/plain' 'REGISTER Eve' > eve.eml
n=$(($(last_n d.db) + 1))
before=$(nplayers d.db)
NOMIC_TEST_CRASH_EVENT=$n "$NOMIC" deliver d.db < eve.eml > out 2>&1
st=$?
[ $st -ne 0 ] && [ $st -ne 75 ] && ok || fail "the engine dies on event $n (the hook): exit $st"
expect_eq "$(sqlite3 d.db "select status from events where n=$n")" received "the event it died on stays received"
NOMIC_TEST_CRASH_EVENT=$n "$NOMIC" log d.db > out 2>&1
st=$?
[ $st -ne 0 ] && ok || fail "the second try (the next program to open the game) dies too: exit $st"
expect_eq "$(sqlite3 d.db "select value from meta where key='attempts'")" "$n 2" "the tries are counted before each retry"
expect_status 0 "the third program sets it aside and goes on" env NOMIC_TEST_CRASH_EVENT=$n "$NOMIC" log d.db
expect_in out "the engine failed on this event twice; it was set aside" "nomic log shows the event set aside"
expect_eq "$(sqlite3 d.db "select status from events where n=$n")" refused "the set-aside event's status"
"$NOMIC" outbox d.db > out
expect_in out "set aside" "its sender is told"
expect_in out "to: eve@d.org" "the notice goes to eve"
mail 'fay@d.org' 'Thu, 01 Jan 2026 00:09:00 +0000' 'Content-Type: text/plain' 'REGISTER Fay' > fay.eml
expect_status 0 "another player's ordinary move after the poison event" env NOMIC_TEST_CRASH_EVENT=$n "$NOMIC" deliver d.db < fay.eml
expect_in out "applied" "fay's move is applied"
expect_eq "$(nplayers d.db)" $((before + 1)) "players: fay, not eve"
expect_status 0 "the MTA's retry of the poison mail" "$NOMIC" deliver d.db < eve.eml
expect_in out "a copy of the mail taken as event $n" "the poison mail is not run again"
expect_status 0 "replay after the set-aside event" "$NOMIC" replay d.db

# --- no amplification ----------------------------------------------------
to_count() { # DB ADDRESS [EVENT]: outbox rows whose recipients include ADDRESS (of EVENT)
    sqlite3 "$1" "select count(*) from outbox o join recipients r on r.id=o.to_id where (' '||r.list||' ') like '% $2 %'${3:+ and o.event=$3}"
}
moves() { python3 -c 'import sys; sys.stdout.write("".join("REGISTER p%d\n" % i for i in range(int(sys.argv[1]))))' "$1"; }
mail 'victim@v.org' 'Thu, 01 Jan 2026 00:10:00 +0000' 'Content-Type: text/plain' "$(moves 5000)" > flood.eml
expect_status 0 "a forged mail of 5,000 moves" "$NOMIC" deliver d.db < flood.eml
expect_in out "the message holds 5000 moves; a message may hold at most 1000" "the refusal gives the limit"
expect_eq "$(to_count d.db victim@v.org)" 1 "mails to the victim after 5,000 moves in one mail"
mail 'victim2@v.org' 'Thu, 01 Jan 2026 00:11:00 +0000' 'Content-Type: text/plain' "$(moves 300)" > flood2.eml
expect_status 0 "a mail of 300 moves, each answered by the rules" "$NOMIC" deliver d.db < flood2.eml
n=$(last_n d.db)
expect_eq "$(to_count d.db victim2@v.org "$n")" 1 "mails to its sender from that one event"
sqlite3 d.db "select text from outbox o join recipients r on r.id=o.to_id where r.list='victim2@v.org'" > out
expect_in out "-------- message 2 of " "the messages of the event are one mail, separated"
head -c 2200000 /dev/zero | tr '\0' 'x' | fold -w 70 > big.txt
mail 'big@v.org' 'Thu, 01 Jan 2026 00:12:00 +0000' 'Content-Type: text/plain' "$(cat big.txt)" > big.eml
expect_status 0 "a 2 MB mail is taken, and refused" "$NOMIC" deliver d.db < big.eml
expect_in out "a mail to the game may hold at most 1 MiB" "the refusal gives the limit"
n=$(last_n d.db)
raw=$(sqlite3 d.db "select length(raw) from events where n=$n")
[ "$raw" -lt 8192 ] && ok || fail "a refused 2 MB mail is journaled whole: $raw bytes kept"
sqlite3 d.db "select raw from events where n=$n" > out
expect_in out "From: big@v.org" "its header is kept"
expect_in out "SHA-256 $(sha256sum < big.eml | cut -d' ' -f1)" "with the digest of the whole mail"
expect_eq "$(to_count d.db big@v.org)" 1 "answers to the sender of the large mail"

# the ceilings on what one event sends: 1,000 messages, 1,000 addresses
python3 - << 'EOF'
objs = ["""type: rule
ruleOrder: 10
if: exists(type=="move" & subtype=="each" & objectId==%m)
then: forEach(type=="addr" & a==%a)(send(%a, "one of many")) & delete(objectId==%m) & sendNow()""",
        """type: rule
ruleOrder: 20
if: exists(type=="move" & subtype=="list" & objectId==%m) & exists(type=="list" & all==%l)
then: send(%l, "one to all") & delete(objectId==%m) & sendNow()""",
        "type: list\nall: " + " ".join("q%d@c.org" % i for i in range(1500))]
objs += ["type: addr\na: p%d@c.org" % i for i in range(1500)]
open("c.nomic", "w").write("\n\n".join(objs) + "\n")
EOF
"$NOMIC" init c.db --ruleset c.nomic > /dev/null
printf 'subtype: each\n' | "$NOMIC" move c.db --from k@c.org > out 2>&1
expect_in out "500 messages not sent: one event sends at most 1000" "an event sending 1,500 messages says what it dropped"
expect_eq "$(sqlite3 c.db 'select count(*) from outbox where event=1')" 1000 "mails from the event of 1,500 messages"
printf 'subtype: list\n' | "$NOMIC" move c.db --from k@c.org > out 2>&1
expect_in out "500 addresses sent nothing: one event mails at most 1000 addresses" "a message to 1,500 addresses says what it dropped"
expect_eq "$(sqlite3 c.db "select group_concat(words) from (select length(r.list) - length(replace(r.list, ' ', '')) + 1 as words from outbox o join recipients r on r.id=o.to_id where o.event=2)")" 1000 \
    "recipients of the message to 1,500 addresses"
"$NOMIC" log c.db > out
expect_in out "500 addresses sent nothing" "nomic log shows the ceiling's note"
# the hand-over against a model of it, one process handing over 60 events:
# lists that overlap, repeat addresses, grow by a few addresses (kept from
# one event to the next and extended) and run past the ceiling
mkdir -p handover
python3 "$SRCDIR/tests/handover_model.py" "$NOMIC" handover 7 60 > out 2>&1
expect_in out "same: 60 events" "each event's mails and the journal's count of addresses dropped, as the model says"

# a mail from the game holds at most 1 MiB of text, and says what it left out
cat > big.nomic << 'EOF'
type: rule
ruleOrder: 10
if: exists(type=="move" & subtype=="big" & moveSender==%s & text==%t & objectId==%m)
then: send(%s, %t) & send(%s, %t) & delete(objectId==%m) & sendNow()
EOF
"$NOMIC" init big.db --ruleset big.nomic > /dev/null
python3 -c 'import sys; sys.stdout.write("subtype: big\ntext: " + "z" * 1100000 + "\n")' |
    "$NOMIC" move big.db --from k@b.org > out 2>&1
expect_in out "1 message left out of its mail: a mail holds at most 1024 KiB" "the event says what a full mail left out"
len=$(sqlite3 big.db 'select max(length(text)) from outbox')
[ "$len" -le 1048576 ] && ok || fail "a mail from the game holds $len bytes of text, more than 1 MiB"
sqlite3 big.db 'select text from outbox' | tail -c 300 > out
expect_in out "[this message is cut here: a mail from the game holds at most 1024 KiB]" "the cut message says so"
expect_in out "[1 more message of this event left out" "the mail says a message was left out"

# forged mails under mailPolicy tokens: answered once an hour per address
"$NOMIC" config d.db mailPolicy tokens > /dev/null
"$NOMIC" token d.db ann@d.org > /dev/null
for k in 1 2 3; do
    mail 'ann@d.org' 'Thu, 01 Jan 2026 00:13:00 +0000' 'Content-Type: text/plain' "REGISTER Forged$k" > forged$k.eml
    expect_status 0 "forged mail $k under tokens" "$NOMIC" deliver d.db < forged$k.eml
done
expect_in out "not journaled again" "a forged mail after the first of the hour is counted, not journaled"
expect_eq "$(sqlite3 d.db "select refused from tallies where who='ann@d.org'")" 3 "the sender's tally counts the three"
expect_eq "$(sqlite3 d.db "select count(*) from outbox o join recipients r on r.id=o.to_id where r.list='ann@d.org' and o.text like '%token%'")" 1 \
    "answers to three forged mails within the hour"
n=$(last_n d.db)
sqlite3 d.db "select raw from events where n=$n" > out
expect_not_in out "REGISTER Forged3" "a mail failing authentication is not journaled whole"
expect_in out "SHA-256" "only its header and digest"
"$NOMIC" config d.db mailPolicy --unset > /dev/null

# --- mail out is never raw ------------------------------------------------
# A 3,000-character line and a bare CR go out quoted-printable: no line
# over 76 characters, no CR in the mail the local program is handed.
"$NOMIC" init l.db --ruleset favor > /dev/null
"$NOMIC" config l.db transport "sendmail:$T/sendmail" > /dev/null
rm -rf sent && mkdir sent
python3 -c 'import sys; sys.stdout.write("subtype: register\nnickname: " + "y" * 3000 + "a\rb\n")' |
    "$NOMIC" move l.db --from long@l.org > /dev/null 2>&1
m=sent/0.eml
[ -f $m ] && ok || fail "the welcome with a long line was handed to the program"
expect_in $m "Content-Transfer-Encoding: quoted-printable" "a long line and a bare CR are sent quoted-printable"
expect_eq "$(awk 'length($0) > 998' $m | wc -l)" 0 "lines over 998 characters in the mail"
expect_eq "$(tr -cd '\r' < $m | wc -c)" 0 "CRs in the mail as handed to a local program"
python3 -c '
import email, email.policy, sys
m = email.message_from_bytes(open(sys.argv[1], "rb").read().split(b"\n", 1)[1], policy=email.policy.default)
t = m.get_content()
sys.exit(0 if ("y" * 3000 + "a\rb") in t else 1)' $m && ok || fail "the text decodes to the long line with its bare CR"

# --- answers thread under the mail they answer; the game's display name --------
"$NOMIC" init th.db --ruleset favor --time 2026-01-01Z > /dev/null
"$NOMIC" config th.db transport "sendmail:$T/sendmail" > /dev/null
expect_status 2 "a display name with a line end is refused" "$NOMIC" config th.db name "$(printf 'a\nb')"
expect_status 0 "the game's display name" "$NOMIC" config th.db name "Engine City Nomic"
rm -rf sent && mkdir sent
printf 'From: Ann <ann@th.org>\r\nTo: game@localhost\r\nSubject: join\r\nDate: Thu, 01 Jan 2026 00:05:00 +0000\r\nMessage-ID: <join.1@th.org>\r\nReferences: <nomic.x.1@localhost>\r\nContent-Type: text/plain\r\n\r\nREGISTER Ann\r\n' > th.eml
expect_status 0 "a mail answered by the rules" "$NOMIC" deliver th.db < th.eml
expect_in sent/0.eml "In-Reply-To: <join.1@th.org>" "the answer says which mail it answers"
expect_in sent/0.eml "References: <nomic.x.1@localhost> <join.1@th.org>" "and the thread it belongs to"
expect_in sent/0.eml "Subject: Engine City Nomic: " "the subject has the game's display name"
printf 'From: Ann <ann@th.org>\r\nTo: game@localhost\r\nSubject: oops\r\nDate: Thu, 01 Jan 2026 00:06:00 +0000\r\nMessage-ID: <oops.2@th.org>\r\nContent-Type: text/plain\r\n\r\nVOTE 1 maybe\r\n' > th2.eml
expect_status 0 "a mail refused by the Mechanics" "$NOMIC" deliver th.db < th2.eml
expect_in sent/1.eml "In-Reply-To: <oops.2@th.org>" "the Mechanics' refusal threads too"
# a subject is the first line, cut at a word with an ellipsis (or at the
# end of its first sentence), never inside a word
expect_eq "$(python3 -c 'import email, email.header, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"))
print(str(email.header.make_header(email.header.decode_header(m["Subject"]))).replace("\n", "").replace("\r", ""))' sent/1.eml)" \
    'Engine City Nomic: Refused (nothing of your mail was applied): line 1: `VOTE 1 maybe` ...' "a long subject is cut at a word, with an ellipsis"

# --- a token by mail: a line TOKEN ---------------------------------------
"$NOMIC" init tk.db --ruleset favor --time 2026-01-01Z > /dev/null
"$NOMIC" config tk.db mailPolicy tokens > /dev/null
"$NOMIC" token tk.db nia@tk.org > /dev/null # nia is known to the game: the keeper gave her a token, which she lost
mail 'Nia <nia@tk.org>' 'Thu, 01 Jan 2026 00:04:00 +0000' 'Content-Type: text/plain' 'TOKEN' > tk0.eml
expect_status 0 "TOKEN where the transport is the outbox" "$NOMIC" deliver tk.db < tk0.eml
expect_in out "TOKEN: this game sends no mail yet: ask the keeper for your token" "the event says the game sends no mail, and who to ask"
expect_in out "its transport is the outbox, so nothing leaves the host" "and why"
expect_not_in out "a new token is mailed" "and does not claim one was mailed"
expect_eq "$(sqlite3 tk.db "select count(*) from outbox o join recipients r on r.id=o.to_id where r.list='nia@tk.org'")" 0 \
    "no token was put in the outbox"
"$NOMIC" config tk.db transport sendmail:/bin/true > /dev/null # mail leaves the host (to nowhere)
mail 'Nia <nia@tk.org>' 'Thu, 01 Jan 2026 00:05:00 +0000' 'Content-Type: text/plain' 'Hello, may I have my token?
TOKEN
Thanks, Nia' > tk1.eml
expect_status 0 "a mail asking for a token, with no token, under mailPolicy tokens" "$NOMIC" deliver tk.db < tk1.eml
expect_in out "a new token is mailed to nia@tk.org" "the event says the token is mailed"
tk=$(sqlite3 tk.db "select text from outbox o join recipients r on r.id=o.to_id where r.list='nia@tk.org'" | sed -n 's/^    token: //p')
[ ${#tk} -eq 32 ] && ok || fail "the mail to nia holds a token line, got '$tk'"
expect_eq "$(sqlite3 tk.db "select count(*) from outbox o join recipients r on r.id=o.to_id where r.list='nia@tk.org'")" 1 \
    "mails to nia: the token alone (no refusal besides)"
mail 'nia@tk.org' 'Thu, 01 Jan 2026 00:06:00 +0000' 'Content-Type: text/plain' "token: $tk
REGISTER Nia" > tk2.eml
expect_status 0 "a move with the token mailed" "$NOMIC" deliver tk.db < tk2.eml
[ "$(players tk.db)" = "Nia " ] && ok || fail "the token mailed lets nia move: players are $(players tk.db)"
mail 'nia@tk.org' 'Thu, 01 Jan 2026 00:07:00 +0000' 'Content-Type: text/plain' 'TOKEN' > tk3.eml
expect_status 0 "a second TOKEN within the hour" "$NOMIC" deliver tk.db < tk3.eml
expect_in out "not again yet" "a token is mailed at most once an hour per address"
"$NOMIC" log tk.db > out
expect_not_in out "$tk" "the token mailed never appears in the log"
mail 'Omar <omar@tk.org>' 'Thu, 01 Jan 2026 00:08:00 +0000' 'Content-Type: text/plain' 'TOKEN
VOTE 1 maybe' > tk4.eml
expect_status 0 "TOKEN beside a line that does not read" "$NOMIC" deliver tk.db < tk4.eml
expect_in out "line 2: \`VOTE 1 maybe\` is not a move" "the bad line is named"
expect_in out "omar@tk.org is not an address this game knows" "and a stranger's address is mailed no token"
expect_eq "$(sqlite3 tk.db "select count(*) from outbox o join recipients r on r.id=o.to_id where r.list='omar@tk.org' and instr(text, '    token: ') > 0")" 0 \
    "no token is mailed to the stranger"
mail 'Omar <omar@tk.org>' 'Thu, 01 Jan 2026 00:09:00 +0000' 'Content-Type: text/plain' 'TOKEN
VOTE 2 maybe' > tk5.eml
expect_status 0 "TOKEN beside a bad line again" "$NOMIC" deliver tk.db < tk5.eml
expect_eq "$(sqlite3 tk.db "select count(*) from outbox o join recipients r on r.id=o.to_id where r.list='omar@tk.org'")" 1 \
    "without a token, a TOKEN mail's refusal is answered at most once an hour, as any mail refused unread"

# --- a move that changed nothing: "no effect", and why ---------------------
"$NOMIC" init ne.db --ruleset favor --time 2026-01-01Z > /dev/null
printf 'REGISTER Ann\n' > m
"$NOMIC" move ne.db --from ann@x.org --time 2026-01-01T01:00:00Z --file m > /dev/null
before=$("$NOMIC" export ne.db | tail -n +2 | sha1sum) # the objects (the next objectId moves on: the move had one)
printf 'VOTE 45 FOR\n' > m
expect_status 0 "a vote on a proposal that is not being voted on" "$NOMIC" move ne.db --from ann@x.org --time 2026-01-01T02:00:00Z --file m
expect_in out "no effect, " "its status is no effect, not applied"
expect_not_in out "): applied" "never applied"
expect_in out 'rule 16 (ruleOrder 30220): `exists(type=="voteInProgress" & propId==%p & !timeGE(expiryTime))` does not hold (with %p="45"' \
    "the rule that reads votes, the first part of its condition that did not hold, and the values"
[ "$("$NOMIC" export ne.db | tail -n +2 | sha1sum)" = "$before" ] && ok || fail "a move of no effect, explained, changed the objects"
"$NOMIC" log ne.db --json > out
expect_in out '"status":"no effect"' "the journal keeps the status"
printf 'subtype: dance\n' > m
expect_status 0 "a move no rule reads" "$NOMIC" move ne.db --from ann@x.org --time 2026-01-01T03:00:00Z --file m
expect_in out "no effect" "a move no rule acts on has no effect"
expect_status 0 "replay with moves of no effect" "$NOMIC" replay ne.db
mail 'ann@x.org' 'Thu, 01 Jan 2026 00:05:00 +0000' 'Content-Type: text/plain' 'Hi, my vote:
VOTE 45 FOR
Ann' > ne.eml
expect_status 0 "a vote of no effect by mail" "$NOMIC" deliver ne.db < ne.eml
expect_in out "no effect" "by mail too"
expect_in out 'line 1 ("Hi, my vote:") was set aside as prose' "with the lines set aside, each quoted by its start"
expect_in out 'line 3 ("Ann") was set aside as prose' "every one"
sqlite3 ne.db "select text from outbox o join recipients r on r.id=o.to_id where r.list='ann@x.org' order by o.id desc limit 1" > out
expect_in out "The game read your mail as 1 move:" "the mail's answer lists the moves understood"
expect_in out "1. subtype: vote; propId: 45; vote: FOR" "each move as it was read"
[ "$(sed -n '/^-------- message 2 of 2/{n;n;p;q}' out)" = "No effect: your vote on proposal 45 was not counted: a player votes on an open proposal once, FOR or AGAINST" ] && ok ||
    fail "the Mechanics' answer opens with the outcome and the reason of the rule that came nearest (its because): $(cat out)"
expect_in out 'line 1 ("Hi, my vote:") was set aside as prose' "the lines set aside, quoted"
expect_in out 'rule 16 (ruleOrder 30220): `exists(type=="voteInProgress"' "and the reason"

# --- the game's time goes forward ------------------------------------------
"$NOMIC" init tf.db --ruleset favor --time 2026-01-01Z > /dev/null
printf 'REGISTER Ann\n' > m
expect_status 0 "a move on the 5th" "$NOMIC" move tf.db --from ann@x.org --time 2026-01-05Z --file m
n_events=$(sqlite3 tf.db 'select count(*) from events')
printf 'REGISTER Bob\n' > m
expect_status 1 "a move dated before the last event is refused" "$NOMIC" move tf.db --from bob@x.org --time 2026-01-03Z --file m
expect_in out "2026-01-03T00:00:00Z is before the last event, at 2026-01-05T00:00:00Z" "the refusal gives both times"
expect_status 1 "a tick before the last event is refused" "$NOMIC" tick tf.db --time 2026-01-02Z
expect_in out "the game's time goes forward only" "the tick's refusal says why"
expect_eq "$(sqlite3 tf.db 'select count(*) from events')" "$n_events" "events journaled by the refused move and tick"
expect_status 0 "a move at the last event's time is taken" "$NOMIC" move tf.db --from bob@x.org --time 2026-01-05Z --file m
expect_eq "$(sqlite3 tf.db 'select count(*) from events where time < (select max(time) from events where n < events.n)')" 0 \
    "events journaled before an earlier one"

# --- one writer at a time ---------------------------------------------
"$NOMIC" init w.db --ruleset favor >/dev/null
i=0
while [ $i -lt 12 ]; do
    echo "REGISTER p$i" | "$NOMIC" move w.db --from "p$i@w.org" >/dev/null 2>&1 &
    i=$((i + 1))
done
wait
"$NOMIC" log w.db --json > out
python3 -c 'import json; e=json.load(open("out"))["events"]; assert [x["event"] for x in e] == list(range(1, 13)), e; assert all(x["status"] == "applied" for x in e)' \
    && ok || fail "twelve moves at once: twelve events, numbered in order, all applied"
[ "$("$NOMIC" show w.db --type player | grep -c '^nickname:')" -eq 12 ] && ok || fail "twelve players"
expect_status 0 "replay after moves at once" "$NOMIC" replay w.db

report mechanics
