#!/usr/bin/env python3
"""corpus_check.py EXPECT LOG.json OUTBOX.json SENDER - checks what one mail
of tests/mail/corpus/ yielded against its .expect file.

The last event of the journal (`nomic log --json`) is the mail's; its
`input` is the moves it yielded, its `message` what the Mechanics said.
The answer is every outbox message (`nomic outbox --json`) of that event to
SENDER.  An .expect file holds lines `key: text`:

  status: applied|refused   the event's status
  move: TEXT                the moves hold TEXT (one line per thing)
  no-move: TEXT             the moves do not hold TEXT (a quoted move, a signature)
  says: TEXT                the event's message holds TEXT
  answer: TEXT              the answer to SENDER holds TEXT

Prints one line per check, "ok: ..." or "FAIL: ...", and exits with the
number of failed checks.
"""
import json
import sys


def main():
    expect, log, outbox, sender = sys.argv[1:5]
    events = json.load(open(log, encoding="utf-8"))["events"]
    ev = events[-1] if events else {}
    moves = ev.get("input") or ""
    said = ev.get("message") or ""
    answer = "\n".join(m["text"] for m in json.load(open(outbox, encoding="utf-8"))["messages"]
                       if m.get("event") == ev.get("event") and sender in m["to"].split())
    fails = 0
    for line in open(expect, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        key, _, want = line.partition(": ")
        if key == "status":
            good, got = ev.get("status") == want, ev.get("status")
        elif key == "move":
            good, got = want in moves, moves
        elif key == "no-move":
            good, got = want not in moves, moves
        elif key == "says":
            good, got = want in said, said
        elif key == "answer":
            good, got = want in answer, answer
        else:
            good, got = False, "an unknown key in " + expect
        if good:
            print("ok: %s %s" % (key, want))
        else:
            fails += 1
            print("FAIL: %s: %s %r; got %r" % (expect, key, want, got))
    sys.exit(min(fails, 100))


main()
