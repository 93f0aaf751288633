#!/bin/sh
# t54-tokens.sh - tokens and addresses against strangers, through the real
# command line (nomic deliver with crafted mails, nomic token) and server:
# a stranger's "mail me my token" for alice does not stop alice's token;
# token mail goes only to addresses the game knows, within its ceilings
# (per address, per client, in all), and only where mail leaves the host;
# every spelling of an address is one player (case, IDNA); a forged mail
# with alice's next Message-ID does not cost her real vote.
# Run from the project root: sh tests/t54-tokens.sh
. "$(dirname "$0")/lib.sh"
. "$SRCDIR/tests/serve.sh"

mail() { # FROM MESSAGE-ID BODY: an RFC 5322 message on stdout
    printf 'From: %s\r\nTo: game@localhost\r\nSubject: moves\r\nDate: Thu, 01 Jan 2026 00:05:00 +0000\r\nMessage-ID: <%s>\r\nContent-Type: text/plain\r\n\r\n%s\r\n' \
        "$1" "$2" "$3"
}
q() { sqlite3 "$1" "$2"; }
mails_to() { q "$1" "select count(*) from outbox o join recipients r on r.id=o.to_id where r.list='$2'"; } # DB ADDRESS
tokens_to() { q "$1" "select count(*) from outbox o join recipients r on r.id=o.to_id where r.list='$2' and instr(o.text, '    token: ')"; }
tally() { "$NOMIC" report "$1" standings | sed -n 's/.*; \([0-9]* FOR, [0-9]* AGAINST\) so far.*/\1/p'; } # of the open proposal

# ---- one address, one player: case ----
"$NOMIC" init a.db --ruleset favor --time 2026-01-01Z >/dev/null
printf 'REGISTER alice\n' | "$NOMIC" move a.db --from alice@EXAMPLE.org >/dev/null
printf 'REGISTER bob\n' | "$NOMIC" move a.db --from bob@example.org >/dev/null
expect_eq "$("$NOMIC" show a.db --type player | grep defaultEmail: | sort | tr '\n' ' ')" \
    "defaultEmail: alice@example.org defaultEmail: bob@example.org " "a domain in capitals is kept in lower case"
printf 'CREATE 30300 IF F THEN halt()\n' | "$NOMIC" move a.db --from alice@example.org >out
P=$(sed -n 's/.*(proposal \([0-9]*\)).*/\1/p' out)
expect_in out "(proposal $P)" "alice proposes"
printf 'VOTE %s FOR\n' "$P" >vote
expect_status 0 "alice votes as Alice@example.org" "$NOMIC" move a.db --from Alice@example.org --file vote
expect_in out "applied" "the local part in capitals is alice: her vote counts"
expect_status 0 "alice votes again as ALICE@Example.Org" "$NOMIC" move a.db --from ALICE@Example.Org --file vote
expect_in out "no effect" "the third spelling is alice again: no second vote"
mail 'Alice <aLiCe@eXample.org>' 'v3@alice' "VOTE $P FOR" >v3.eml
expect_status 0 "alice votes by mail under a fourth spelling" "$NOMIC" deliver a.db <v3.eml
expect_in out "no effect" "a mail's From is alice too"
expect_eq "$(tally a.db)" "1 FOR, 0 AGAINST" "one vote counted for four spellings"
expect_eq "$(q a.db "select group_concat(distinct sender) from events where kind='move'")" "alice@example.org,bob@example.org" \
    "the journal knows each sender by one form"
T1=$("$NOMIC" token a.db ALICE@example.ORG)
T2=$("$NOMIC" token a.db alice@example.org)
expect_eq "$(q a.db "select group_concat(address) from tokens")" "alice@example.org" "one token for the spellings, kept under the one form"
"$NOMIC" config a.db mailPolicy tokens >/dev/null
mail 'Alice@Example.org' 'v4@alice' "token: $T1
VOTE $P AGAINST" >v4.eml
"$NOMIC" deliver a.db <v4.eml >out
expect_in out "the token given is not this sender's" "the keeper's second token voided the first at once, whatever the spelling"
mail 'Alice@Example.org' 'v5@alice' "token: $T2
REGISTER alice" >v5.eml
"$NOMIC" deliver a.db <v5.eml >out
expect_not_in out "not this sender's" "the token is good for another spelling of its address"

# addressCase keep: the rare host whose local parts differ by case
"$NOMIC" init k.db --ruleset favor --time 2026-01-01Z >/dev/null
expect_status 0 "addressCase keep" "$NOMIC" config k.db addressCase keep
expect_status 2 "addressCase takes fold or keep" "$NOMIC" config k.db addressCase upper
printf 'REGISTER ann\n' | "$NOMIC" move k.db --from Ann@EXAMPLE.org >/dev/null
printf 'REGISTER ann2\n' | "$NOMIC" move k.db --from ann@example.org >/dev/null
expect_eq "$("$NOMIC" show k.db --type player | grep defaultEmail: | sort | tr '\n' ' ')" \
    "defaultEmail: Ann@example.org defaultEmail: ann@example.org " "kept: the local part as written, the domain still in lower case"

# ---- one address, one player: IDNA ----
printf 'REGISTER jorg\n' | "$NOMIC" move a.db --from 'jörg@Bücher.example' >out
expect_in out "reply to jörg@xn--bcher-kva.example:" "nomic move shows the rules' reply to the address in its one form"
expect_eq "$("$NOMIC" show a.db --type player | grep -c 'defaultEmail: jörg@xn--bcher-kva.example')" 1 \
    "a U-label domain is kept as its A-label (xn--)"
TJ=$("$NOMIC" token a.db 'jörg@xn--BCHER-kva.example')
mail 'jörg@bücher.example' 'j1@jorg' "token: $TJ
REGISTER jorg" >j1.eml
"$NOMIC" deliver a.db <j1.eml >out
expect_not_in out "not this sender's" "a token issued to the A-label form is good for a mail from the U-label form"
expect_eq "$(q a.db "select count(*) from tokens where address like 'jörg@%'")" 1 "one token for the two forms"

# ---- a copy is a copy: the forged Message-ID ----
"$NOMIC" init f.db --ruleset favor --time 2026-01-01Z >/dev/null
printf 'REGISTER alice\n' | "$NOMIC" move f.db --from alice@example.org >/dev/null
printf 'REGISTER bob\n' | "$NOMIC" move f.db --from bob@example.org >/dev/null
printf 'CREATE 30300 IF F THEN halt()\n' | "$NOMIC" move f.db --from bob@example.org >out
P=$(sed -n 's/.*(proposal \([0-9]*\)).*/\1/p' out | head -1)
"$NOMIC" config f.db mailPolicy tokens >/dev/null
TA=$("$NOMIC" token f.db alice@example.org)
mail 'alice@example.org' 'next.42@alice.example' "VOTE $P AGAINST" >forged.eml
expect_status 0 "a forged mail with alice's next Message-ID, no token" "$NOMIC" deliver f.db <forged.eml
expect_in out "refused" "the forgery is refused"
mail 'alice@example.org' 'next.42@alice.example' "VOTE $P FOR" >forged2.eml
expect_status 0 "another, with the very text her mail will hold" "$NOMIC" deliver f.db <forged2.eml
expect_in out "refused" "refused too"
mail 'Alice <Alice@example.org>' 'next.42@alice.example' "token: $TA
VOTE $P FOR" >real.eml
expect_status 0 "alice's real mail, the same Message-ID" "$NOMIC" deliver f.db <real.eml
expect_not_in out "a copy of the mail" "the real mail is not taken for a copy of the forgery"
expect_in out "applied" "her vote is applied"
expect_eq "$(tally f.db)" "1 FOR, 0 AGAINST" "the forgery cost her vote nothing"
expect_status 0 "the MTA gives the real mail again" "$NOMIC" deliver f.db <real.eml
expect_in out "a copy of the mail taken as event" "the same mail again is a copy"
expect_eq "$(tally f.db)" "1 FOR, 0 AGAINST" "and is not applied twice"
answers=$(mails_to f.db alice@example.org)
mail 'alice@example.org' 'next.42@alice.example' "token: $TA
VOTE $P AGAINST" >changed.eml
expect_status 0 "a mail under the same Message-ID with another text" "$NOMIC" deliver f.db <changed.eml
expect_not_in out "a copy of the mail" "a copy that differs from its original is another mail"
expect_in out "no effect" "read and run as a new mail (she has voted already)"
expect_eq "$(mails_to f.db alice@example.org)" "$((answers + 1))" "and answered, not dropped in silence"

# ---- tokens over HTTP and by mail ----
"$NOMIC" init t.db --ruleset favor >/dev/null
for p in alice bob carol dave; do printf 'REGISTER %s\n' $p | "$NOMIC" move t.db --from $p@example.org >/dev/null; done
"$NOMIC" config t.db mailPolicy tokens >/dev/null
TA=$("$NOMIC" token t.db alice@example.org)
start_server t.db || exit 1
events=$(q t.db "select count(*) from events")
expect_http 409 "mail me my token, the transport being the outbox" POST '/api/token?from=alice@example.org'
expect_json "j['error']" "this game sends no mail yet: ask the keeper for your token (nomic token GAME ADDRESS); its transport is the outbox, so nothing leaves the host" \
    "the answer says first who to ask, then that no mail leaves the host"
mail 'alice@example.org' 'tok.1@alice' 'TOKEN' >tok1.eml
"$NOMIC" deliver t.db <tok1.eml >out
expect_in out "TOKEN: this game sends no mail yet: ask the keeper for your token (nomic token GAME ADDRESS)" "by mail too"
expect_not_in out "a new token is mailed" "no claim that a token was mailed"
expect_eq "$(tokens_to t.db alice@example.org)" 0 "no token in the outbox"
"$NOMIC" config t.db transport sendmail:/bin/true >/dev/null # mail leaves the host (to nowhere)

# a stranger asks for alice's token: she still moves with hers
expect_http 200 "a stranger's POST /api/token?from=alice" POST '/api/token?from=alice@example.org'
expect_json "'a new token is mailed to alice@example.org' in j['message']" "True" "the token is mailed to alice"
expect_http 200 "alice's token still counts" POST /api/move -H "Authorization: Bearer $TA" --data-binary 'VOTE 99 FOR'
mail 'alice@example.org' 'm.2@alice' "token: $TA
VOTE 99 FOR" >m2.eml
"$NOMIC" deliver t.db <m2.eml >out
expect_not_in out "not this sender's" "and in her mail"
expect_http 429 "the stranger asks again" POST '/api/token?from=alice@example.org'
expect_json "'less than 60 minutes ago; not again yet' in j['error']" "True" "once an hour per address, said"
TN=$(q t.db "select text from outbox o join recipients r on r.id=o.to_id where r.list='alice@example.org'" | sed -n 's/^    token: //p' | tail -1)
expect_eq "${#TN}" 32 "the mailed token"
expect_http 200 "alice uses the token mailed" POST /api/move -H "Authorization: Bearer $TN" --data-binary 'VOTE 99 FOR'
expect_http 401 "then the one before is void" POST /api/move -H "Authorization: Bearer $TA" --data-binary 'VOTE 99 FOR'
TK=$("$NOMIC" token t.db alice@example.org)
expect_http 401 "the keeper's nomic token voids the token in use at once" POST /api/move -H "Authorization: Bearer $TN" --data-binary 'VOTE 99 FOR'
expect_http 200 "and the keeper's token counts" POST /api/move -H "Authorization: Bearer $TK" --data-binary 'VOTE 99 FOR'

# strangers' addresses: no mail, no event
"$NOMIC" config t.db tokenRequestsPerClient 100 >/dev/null
events=$(q t.db "select count(*) from events")
n403=0
i=0
while [ $i -lt 50 ]; do
    http POST "/api/token?from=stranger$i@example.net"
    [ "$(cat status)" = 403 ] && n403=$((n403 + 1))
    i=$((i + 1))
done
expect_eq "$n403" 50 "50 token requests for addresses the game does not know: 403 each"
expect_in body "stranger49@example.net is not an address this game knows" "saying why"
expect_eq "$(q t.db "select count(*) from outbox o join recipients r on r.id=o.to_id where r.list like 'stranger%'")" 0 \
    "and 0 mails queued"
expect_eq "$(q t.db "select count(*) from events")" "$events" "nor any event journaled"
mail 'stranger@example.net' 'tok.s@stranger' 'TOKEN' >tok2.eml
"$NOMIC" deliver t.db <tok2.eml >out
expect_in out "stranger@example.net is not an address this game knows" "a TOKEN mail from a stranger says so in the journal"
expect_eq "$(mails_to t.db stranger@example.net)" 0 "and mails nothing"

# the game's ceiling in all: tokenMailsPerHour
expect_status 2 "tokenMailsPerHour has a ceiling" "$NOMIC" config t.db tokenMailsPerHour 1001
expect_in err "a whole number from 0 to 1000" "said"
"$NOMIC" config t.db tokenMailsPerHour 2 >/dev/null
expect_http 200 "a second token mail this hour (bob)" POST '/api/token?from=bob@example.org'
expect_http 429 "a third (carol): past tokenMailsPerHour" POST '/api/token?from=carol@example.org'
expect_json "j['error']" "the game mailed 2 tokens in the last hour, the most it mails (tokenMailsPerHour 2); ask again later" \
    "the reason names the ceiling"
mail 'dave@example.org' 'tok.d@dave' 'TOKEN' >tok3.eml
"$NOMIC" deliver t.db <tok3.eml >out
expect_in out "TOKEN: the game mailed 2 tokens in the last hour" "by mail too"
expect_eq "$(tokens_to t.db carol@example.org)$(tokens_to t.db dave@example.org)" "00" "neither carol nor dave was mailed a token"

# the client's ceiling: tokenRequestsPerClient
expect_status 2 "tokenRequestsPerClient has a ceiling" "$NOMIC" config t.db tokenRequestsPerClient 101
"$NOMIC" config t.db tokenRequestsPerClient 55 >/dev/null # this client asked 55 times so far (refusals count too)
expect_http 429 "past the client's ceiling" POST '/api/token?from=carol@example.org'
expect_json "'asked for 55 tokens in the last hour, the most it may (tokenRequestsPerClient 55)' in j['error']" "True" \
    "the reason names the client's ceiling"
"$NOMIC" config t.db tokenRequestsPerClient 0 >/dev/null
expect_http 429 "tokenRequestsPerClient 0: no token by HTTP" POST '/api/token?from=carol@example.org'
stop_server

report tokens
