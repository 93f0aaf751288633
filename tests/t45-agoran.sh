#!/bin/sh
# t45-agoran.sh - real Agoran mail (tests/data/agora-mail/, each with its
# source in Agora's public record) handed to `nomic deliver` on a game of
# the agora set, as an MTA would, and checked against its .expect file
# (tests/mail/corpus_check.py): the moves the phrases of agora.sugar must
# read from it, in order, those they must not, and the acts the answer
# must say the game does not support.  tests/t70-mail.sh sends the same
# mails through OpenSMTPD.  Uses $NOMIC.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
CORPUS=$HERE/data/agora-mail
count=0
for eml in "$CORPUS"/*.eml; do
    name=$(basename "$eml" .eml)
    count=$((count + 1))
    rm -f a.db a.db-wal a.db-shm
    "$NOMIC" init a.db --ruleset agora > /dev/null
    sender=$(mail_sender "$eml")
    "$NOMIC" deliver a.db < "$eml" > deliver.out 2>&1
    st=$?
    [ $st -eq 0 ] && ok || { fail "$name: nomic deliver exit $st"; cat deliver.out; }
    "$NOMIC" log a.db --json > log.json
    "$NOMIC" outbox a.db --json > outbox.json
    corpus_checks "$name" "$CORPUS/$name.expect" "$sender"
done
[ "$count" -ge 20 ] && ok || fail "the Agoran corpus holds $count mails, expected at least 20"
report agoran
