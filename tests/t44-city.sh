#!/bin/sh
# t44-city.sh - Engine City (../shared/bench/clips: the paper's game at a
# size, every player voting on every proposal) played by build/engine-city
# on two streams of its generator kept in tests/data/city: alone, with
# the SQLite store in groups of 64 events and with a transaction per
# event, every one of the 47 figures (per-rule firing counts included) is
# the generator's, and the two stores' journals (moves, outcomes, messages)
# are the same; the store's game replays hash for hash, its outbox holds
# one mail per address per event, some to every player at once, and the
# write path kept no snapshot but event 0's.  Run from the project root, with build/engine-city built.
. "$(dirname "$0")/lib.sh"

EC=${EC:-$SRCDIR/build/engine-city}
DATA=$SRCDIR/tests/data/city

# figures EXPECTED OUT: the keys of EXPECTED whose value differs in OUT
figures() {
    awk 'NR == FNR { want[$1] = $2; next } ($1 in want) { got[$1] = $2 }
         END { for (k in want) if (got[k] != want[k]) printf "%s: want %s got %s\n", k, want[k], got[k] }' "$1" "$2"
}

for pk in 100_10 200_20; do
    S=$DATA/moves_$pk.txt E=$DATA/expected_$pk.txt
    "$EC" "$S" > alone.out 2> alone.err
    expect_eq "$(figures "$E" alone.out)" "" "$pk alone: every figure is the generator's"
    "$EC" "$S" --store city.db > store.out 2> store.err
    expect_eq "$(figures "$E" store.out)" "" "$pk with the store: every figure is the generator's"
    "$EC" "$S" --store each.db --group 1 > each.out 2> each.err
    expect_eq "$(figures "$E" each.out)" "" "$pk a transaction per event: every figure is the generator's"
    journal() { sqlite3 "$1" "SELECT n, kind, time, sender, input, status, message FROM events ORDER BY n" | sha256sum; }
    expect_eq "$(journal city.db)" "$(journal each.db)" "$pk: in groups or one by one, the same journal"
    events=$(awk '$1 == "events" { print $2 }' store.out)
    expect_status 0 "$pk: the store's game replays" "$NOMIC" replay city.db
    expect_in out "replayed $events events" "$pk: every event replayed"
    python3 - city.db > db.out <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
twice, widest = 0, 0
for (n,) in db.execute("SELECT DISTINCT event FROM outbox"):
    seen = []
    for (l,) in db.execute("SELECT r.list FROM outbox o JOIN recipients r ON r.id=o.to_id WHERE o.event=?", (n,)):
        seen += l.split()
        widest = max(widest, len(set(l.split())))
    twice += len(seen) - len(set(seen))
print("addresses mailed twice by one event", twice)
print("widest mail", widest)
print("snapshots", db.execute("SELECT group_concat(event) FROM snapshots").fetchone()[0])
PY
    players=$(awk '$1 == "players" { print $2 }' store.out)
    expect_in db.out "addresses mailed twice by one event 0" "$pk: one mail per address per event"
    expect_in db.out "widest mail $players" "$pk: a mail reaches every player at once"
    expect_in db.out "snapshots 0" "$pk: the write path kept only event 0's snapshot"
    rm -f city.db city.db-wal city.db-shm city.db.favor.nomic each.db each.db-wal each.db-shm each.db.favor.nomic
done

report city
