#!/bin/sh
# t21-corpus.sh - the mails of tests/mail/corpus/ (Gmail, Outlook, Thunderbird,
# Apple Mail, Yahoo on Android; German, Spanish, French, Italian, Dutch,
# Portuguese, English; UTF-8, ISO-8859-1, windows-1252; quoted-printable,
# base64, 8bit; multipart/alternative, format=flowed, HTML-only), each
# handed to `nomic deliver` on a new favor game, as an MTA would, and
# checked against its .expect file (tests/mail/corpus_check.py says the
# format): the moves it must yield, those it must not, what the event
# says and the answer its sender gets.  tests/t70-mail.sh sends the same mails
# through OpenSMTPD.  Uses $NOMIC.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
CORPUS=$HERE/mail/corpus
count=0
for eml in "$CORPUS"/*.eml; do
    name=$(basename "$eml" .eml)
    count=$((count + 1))
    rm -f c.db c.db-wal c.db-shm
    "$NOMIC" init c.db --ruleset favor --time 2026-01-01Z > /dev/null
    sender=$(mail_sender "$eml")
    "$NOMIC" deliver c.db < "$eml" > deliver.out 2>&1
    st=$?
    [ $st -eq 0 ] && ok || { fail "$name: nomic deliver exit $st"; cat deliver.out; }
    "$NOMIC" log c.db --json > log.json
    "$NOMIC" outbox c.db --json > outbox.json
    corpus_checks "$name" "$CORPUS/$name.expect" "$sender"
done
[ "$count" -ge 12 ] && ok || fail "the corpus holds $count mails, expected at least 12"
report corpus
