#!/bin/sh
# mechanics.sh - the Mechanics from the command line: sugar, settings,
# tokens and mail intake (`nomic deliver` fed the mails an MTA would hand
# it: multipart, quoted-printable, base64, replies with quotes and
# signatures, forged senders under mailPolicy tokens).  Uses $NOMIC.
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
expect_in out "VOTE <propId> <vote:FOR|AGAINST>" "favor's sugar has VOTE"
expect_in out "REGISTER <nickname>" "favor's sugar has REGISTER"
printf 'REGISTER Ann\n' > m
expect_status 0 "a sugar move" "$NOMIC" move g.db --from ann@x.org --time 2026-01-01T00:01:00Z --file m
[ "$(players g.db)" = "Ann " ] && ok || fail "REGISTER Ann made no player: $(players g.db)"
printf 'VOTE 12 maybe\n' > m
expect_status 1 "a sugar line with a wrong word is refused" "$NOMIC" move g.db --from ann@x.org --time 2026-01-01T00:02:00Z --file m
expect_in out "line 1: \`VOTE 12 maybe\` is not a move" "the refusal names the line"
expect_in out "VOTE <propId> <vote:FOR|AGAINST>" "the refusal shows the form"
printf 'FROB <x>\n    subtype: frob\n    x: <y>\n' > bad.sugar
expect_status 1 "a sugar table naming what its pattern does not take" "$NOMIC" sugar g.db --set bad.sugar
expect_in err "bad.sugar:3:" "the sugar error says where"
expect_status 1 "check finds the sugar error" "$NOMIC" check bad.sugar
expect_in out "bad.sugar:3:" "check says where in the sugar"
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
expect_in out "mailPolicy open" "the default policy is open"
expect_in out "transport  outbox" "the default transport is the outbox"
expect_status 2 "config refuses an unknown key" "$NOMIC" config g.db colour blue
expect_in err "colour is not a setting" "unknown key message"
expect_status 2 "config refuses a bad value" "$NOMIC" config g.db mailPolicy closed
expect_in err "expected open or tokens" "bad value message"
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
expect_in out "Your message was not applied" "the mail with no move is answered"
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
