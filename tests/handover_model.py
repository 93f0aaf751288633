#!/usr/bin/env python3
"""The hand-over of an event's messages, against a model of what
docs/limits.md and docs/mechanics.md promise: one mail per set of addresses
that get the same messages, the addresses in the order the messages name
them, the first 1,000 distinct ones mailed and the rest counted in the
journal.  Moves come in one mailbox, so one process hands them over, as the
server does: lists that grow by an address at a time (the players' list
after each registration), lists that overlap, repeat themselves, end in a
separator or run past the ceiling.

usage: handover_model.py NOMIC DIR SEED EVENTS
Prints one line per difference and a last line "same: ..." or "differ: ...".
"""
import os
import random
import re
import sqlite3
import subprocess
import sys

MAX_ADDRESSES = 1000
RULES = """type: rule
ruleOrder: 10
if: exists(type=="move" & subtype=="m" & l1==%a & l2==%b & l3==%c & l4==%d & objectId==%m)
then: send(%a, "to a") & send(%b, "to b") & send(%c, "to c") & send(%a, "to a again") &
      send(%d, "to d") & delete(objectId==%m) & sendNow()
"""
MOVER = "k@x.org"
TEXTS = ["to a", "to b", "to c", "to a again", "to d"]
WHICH = ["l1", "l2", "l3", "l1", "l4"]


def words(text):
    return [w for w in re.split(r"[ \t\r\n,]+", text) if w]


def expected(lists):
    """The mails of one event, (to, text) in order, and the dropped count."""
    tos = [" ".join(words(lists[k])) for k in WHICH]  # send() normalises
    distinct = []
    for t in tos + [MOVER]:  # the Mechanics answer the mover last
        if t not in distinct:
            distinct.append(t)
    index, order, rows, dropped = {}, [], {}, 0
    for j, t in enumerate(distinct):
        for a in words(t):
            if a not in index:
                if len(order) < MAX_ADDRESSES:
                    index[a] = len(order)
                    order.append(a)
                    rows[a] = set()
                else:
                    index[a] = None
                    dropped += 1
            if index[a] is not None:
                rows[a].add(j)
    mails = []  # [row, [addresses]]
    for a in order:
        for m in mails:
            if m[0] == rows[a]:
                m[1].append(a)
                break
        else:
            mails.append([rows[a], [a]])
    out = []
    for row, addrs in mails:
        if addrs == [MOVER]:  # the answer, whose text is not the model's
            continue
        msgs = [TEXTS[i] for i, t in enumerate(tos) if distinct.index(t) in row]
        text = msgs[0]
        for k, m in enumerate(msgs[1:], 2):
            text += "\n\n-------- message %d of %d --------\n\n%s" % (k, len(msgs), m)
        out.append((" ".join(addrs), text))
    return out, dropped


def main():
    nomic, d, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rnd = random.Random(seed)
    pool = ["u%d@x.org" % i for i in range(3000)]
    events, grow = [], 0
    box = []
    for i in range(n):
        grow += rnd.choice([1, 1, 2, 40, 300])
        big = " ".join(pool[:grow]) + rnd.choice(["", "", ","])

        def small():
            return ", ".join(rnd.choice(pool[:grow + 20]) for _ in range(rnd.choice([1, 3, 12])))

        def wide():  # past the ceiling, with repeats and its own order
            return " ".join(rnd.choice(pool) for _ in range(rnd.choice([900, 1500])))

        lists = {"l1": small(), "l2": big, "l3": rnd.choice([small(), wide(), big]),
                 "l4": rnd.choice([big, small(), "zz@y.org", wide()])}
        events.append(lists)
        body = "".join("%s: %s\n" % (k, v) for k, v in sorted(lists.items()))
        box.append("From k@x.org Thu Jan  1 00:00:00 2026\nFrom: k@x.org\nTo: game@x.org\n"
                   "Subject: m\nDate: Thu, 01 Jan 2026 00:%02d:%02d +0000\nMessage-ID: <m%d.%d@x.org>\n\n"
                   "subtype: m\n%s\n" % (i // 60, i % 60, seed, i, body))
    with open(os.path.join(d, "r.nomic"), "w") as f:
        f.write(RULES)
    with open(os.path.join(d, "box.mbox"), "w") as f:
        f.write("".join(box))
    db = os.path.join(d, "h.db")
    for p in (db, db + "-wal", db + "-shm"):
        if os.path.exists(p):
            os.remove(p)
    subprocess.run([nomic, "init", db, "--ruleset", os.path.join(d, "r.nomic")], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([nomic, "deliver", db, "--mbox", os.path.join(d, "box.mbox")], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    con = sqlite3.connect(db)
    evs = con.execute("select n, message from events where kind='move' order by n").fetchall()
    diffs = mails = drops = 0
    if len(evs) != n:
        print("events: %d journaled, %d sent" % (len(evs), n))
        diffs += 1
    for (ev, message), lists in zip(evs, events):
        want, dropped = expected(lists)
        got = con.execute("select r.list, o.text from outbox o join recipients r on r.id=o.to_id "
                          "where o.event=? and o.text like 'to %' order by o.id", (ev,)).fetchall()
        mails += len(got)
        drops += dropped > 0
        if [tuple(x) for x in got] != want:
            print("event %d: %d mails, the model %d; first differing: %s" % (
                ev, len(got), len(want),
                next(((g[0][:60], w[0][:60]) for g, w in zip(got, want) if tuple(g) != w), "(count)")))
            diffs += 1
        note = "%d addresses sent nothing: one event mails at most %d addresses" % (dropped, MAX_ADDRESSES)
        if (note in (message or "")) != (dropped > 0):
            print("event %d: journal says %r, the model %d dropped" % (ev, message, dropped))
            diffs += 1
    print("%s: %d events, %d mails, %d events past the ceiling" % ("same" if not diffs else "differ",
                                                                   len(evs), mails, drops))


main()
