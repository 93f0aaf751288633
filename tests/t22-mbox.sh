#!/bin/sh
# t22-mbox.sh - `nomic deliver GAME --mbox FILE`: a mailbox taken mail by
# mail as `nomic deliver` takes one, in groups of 64 mails per transaction
# and fsync.  The corpus's mails, written into a mailbox by Python's
# mailbox module (a real mbox writer), must read as each reads alone; a
# mailbox taken twice applies nothing twice; a mail that is not mail, a
# file that is not a mailbox, a huge mail and a store that fails in the
# middle of a group are each said, and nothing taken is lost.  Uses $NOMIC.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
CORPUS=$HERE/mail/corpus

new_game() { # DB
    rm -f "$1" "$1-wal" "$1-shm"
    "$NOMIC" init "$1" --ruleset favor --time 2026-01-01Z > /dev/null
}
# events DB: one line per event, "status<TAB>sender<TAB>moves" (moves on one line)
events() {
    "$NOMIC" log "$1" --json | python3 -c '
import json, sys
for e in json.load(sys.stdin)["events"]:
    print("\t".join([e.get("status", ""), e.get("sender", "") or "", (e.get("input", "") or "").replace("\n", "|")]))'
}

# ---- the corpus, one by one and as one mailbox ----
python3 - "$CORPUS" box <<'EOF'
import mailbox, sys, glob, os
box = mailbox.mbox(sys.argv[2])
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.eml"))):
    box.add(mailbox.mboxMessage(open(f, "rb").read()))
box.flush()
box.close()
EOF
new_game alone.db
for eml in "$CORPUS"/*.eml; do
    "$NOMIC" deliver alone.db < "$eml" > /dev/null 2>&1
done
new_game box.db
expect_status 0 "the corpus as a mailbox" "$NOMIC" deliver box.db --mbox box
mails=$(ls "$CORPUS"/*.eml | wc -l)
expect_eq "$(grep -c '^mail [0-9]* (line [0-9]* of the mailbox):$' out)" "$mails" "a heading per mail"
events alone.db > alone.ev
events box.db > box.ev
expect_cmp alone.ev box.ev "each mail of the mailbox reads as it reads alone (moves, status, sender)"
expect_status 0 "the replay of the mailbox's game" "$NOMIC" replay box.db

# ---- taken twice: recognised, nothing applied twice ----
expect_status 0 "the same mailbox again" "$NOMIC" deliver box.db --mbox box
expect_eq "$(grep -c 'a copy of the mail taken as event' out)" "$mails" "every mail of the second pass is a copy"
events box.db > again.ev
expect_eq "$(grep -c '^applied' again.ev)" "$(grep -c '^applied' box.ev)" "the second pass applied nothing"

# ---- many mails: several groups ----
python3 - many <<'EOF'
import mailbox, sys
from email.message import EmailMessage
box = mailbox.mbox(sys.argv[1])
for i in range(150):
    m = EmailMessage()
    m["From"] = "p%d@example.org" % i
    m["To"] = "game@example.org"
    m["Message-ID"] = "<reg%d@example.org>" % i
    m["Subject"] = "joining"
    m.set_content("Hello,\nFrom now on I play.\nREGISTER p%d\n" % i)
    box.add(m)
box.flush()
EOF
new_game many.db
expect_status 0 "150 mails, three groups" "$NOMIC" deliver many.db --mbox many
"$NOMIC" show many.db --type player --json > players.json
expect_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["objects"]))' players.json)" 150 \
    "150 players registered"
expect_status 0 "the replay of 150 mails" "$NOMIC" replay many.db

# ---- the mailbox on standard input (--mbox -), as a pipe gives it ----
new_game stdin.db
cat many | "$NOMIC" deliver stdin.db --mbox - > out 2> err
expect_eq "$?" 0 "a mailbox on standard input: exit 0"
expect_in out "mail 150 (line " "its last mail is taken"
"$NOMIC" show stdin.db --type player --json > players.json
expect_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["objects"]))' players.json)" 150 \
    "150 players registered from standard input"
cat many | "$NOMIC" deliver stdin.db --mbox - > out 2> err
expect_eq "$?" 0 "the same mailbox piped again: exit 0"
"$NOMIC" show stdin.db --type player --json > players.json
expect_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["objects"]))' players.json)" 150 \
    "piped again, no mail applied twice"

# ---- the store fails in the middle of a group: the rest on the next try ----
new_game fail.db
NOMIC_TEST_FAIL_COMMIT=100 "$NOMIC" deliver fail.db --mbox many > out 2> err
expect_eq "$?" 75 "a store failure in mail 100: exit 75"
expect_in err "the mails before mail 100 are kept; run the command again" "the failure says what is kept"
expect_status 0 "the same mailbox once the store works" "$NOMIC" deliver fail.db --mbox many
"$NOMIC" show fail.db --type player --json > players.json
expect_eq "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["objects"]))' players.json)" 150 \
    "every player once, none twice, after the failure and the second try"
expect_status 0 "the replay after the failure" "$NOMIC" replay fail.db

# ---- a mail that is not mail; a file that is not a mailbox ----
cat > odd <<'EOF'
From x Mon Nov 23 10:00:00 2026
Subject: no sender at all

REGISTER nobody

From zoe@example.org Mon Nov 23 10:01:00 2026
From: zoe@example.org
Message-ID: <z1@example.org>

REGISTER zoe
EOF
new_game odd.db
expect_status 65 "a mail without a sender in the mailbox: exit 65" "$NOMIC" deliver odd.db --mbox odd
expect_in out "mail 1 (line 1 of the mailbox):" "the unreadable mail is named"
expect_in out "  not taken: " "and said not taken"
expect_in out "mail 2 (line 6 of the mailbox):" "the next mail is taken"
expect_in out "Welcome to Engine City, zoe" "zoe registered"
printf 'Hello\nthis is not a mailbox\n' > notbox
expect_status 65 "a file that is not a mailbox: exit 65" "$NOMIC" deliver odd.db --mbox notbox
expect_in err 'line 1 does not begin with "From ": not a mailbox (mbox)' "it says why"
expect_status 64 "a mailbox that does not exist: exit 64" "$NOMIC" deliver odd.db --mbox nosuchfile
expect_in err "nosuchfile: No such file or directory" "it says so"

# ---- a huge mail: refused as deliver refuses it, in bounded memory ----
python3 - huge <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("From big@example.org Mon Nov 23 10:00:00 2026\nFrom: big@example.org\nMessage-ID: <big@example.org>\n\n")
    line = "x" * 1000 + "\n"
    for i in range(40000):
        f.write(line)
    f.write("\nFrom small@example.org Mon Nov 23 10:01:00 2026\nFrom: small@example.org\nMessage-ID: <s@example.org>\n\nREGISTER small\n")
EOF
# the peak is weighed against the same program taking the small mail
# alone: a build with AddressSanitizer starts near 36 MB, one without
# near 17, and the huge mail must add well under its own size to either
tail -5 huge > small
new_game small.db
/usr/bin/time -f '%M' -o rss "$NOMIC" deliver small.db --mbox small > out 2> err
expect_in out "Welcome to Engine City, small" "the small mail alone is applied"
base=$(tail -1 rss)
new_game huge.db
/usr/bin/time -f '%M' -o rss "$NOMIC" deliver huge.db --mbox huge > out 2> err
expect_eq "$?" 0 "a 40 MB mail in the mailbox: taken (refused) and the next one too"
expect_in out "a mail to the game may hold at most 1 MiB" "the huge mail is refused for its size"
expect_in out "Welcome to Engine City, small" "the mail after it is applied"
rss=$(tail -1 rss)
[ "$rss" -lt $((base + 20000)) ] && ok ||
    fail "taking a 40 MB mail took $rss KiB at its peak, the small one alone $base: it must not hold the mail whole"

report mbox
