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
  move: a=x b="y z"         some move has these attributes, in the order of
                            the move: lines (tests/data/agora-mail/README.md)
  no-move: a=x              no move has these attributes
  aside: KEYWORD            the answer says the act is not supported (its
                            name, e.g. "conditional", in the answer)
  known: CHECK               a check the reader does not pass yet, with why
                            after " # ": printed, not failed; when it
                            passes, that is a failure (make it a check)
  source:, setup:           for the reader, not checked
  says: TEXT                the event's message holds TEXT
  answer: TEXT              the answer to SENDER holds TEXT

Prints one line per check, "ok: ..." or "FAIL: ...", and exits with the
number of failed checks.
"""
import json
import shlex
import sys


def parse_moves(text):
    """The moves of an event's input (object format) as dicts."""
    moves, cur = [], {}
    for line in text.split("\n"):
        if line.strip() == "---":
            if cur:
                moves.append(cur)
            cur = {}
        elif ": " in line and not line.startswith((" ", "#")):
            name, _, value = line.partition(": ")
            if value.startswith('"'):
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
            cur[name] = value
    if cur:
        moves.append(cur)
    return moves


def wanted(spec):
    return dict(w.split("=", 1) for w in shlex.split(spec))


def has(moves, spec, start=0):
    """The index of the first move from start with these attributes, or -1."""
    want = wanted(spec)
    for i in range(start, len(moves)):
        if all(moves[i].get(k) == v for k, v in want.items()):
            return i
    return -1


# what an answer says of an act the game does not support
ASIDE_WORDS = {"coe": "claims of error", "cfj": "cfj", "intent": "intent", "fee": "fee"}


def main():
    expect, log, outbox, sender = sys.argv[1:5]
    events = json.load(open(log, encoding="utf-8"))["events"]
    ev = events[-1] if events else {}
    moves = ev.get("input") or ""
    said = ev.get("message") or ""
    answer = "\n".join(m["text"] for m in json.load(open(outbox, encoding="utf-8"))["messages"]
                       if m.get("event") == ev.get("event") and sender in m["to"].split())
    fails = 0
    parsed, next_move = parse_moves(moves), 0
    for line in open(expect, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        key, _, want = line.partition(": ")
        known = key == "known"
        if known:
            want, _, why = want.partition(" # ")
            key, _, want = want.partition(": ")
        if key in ("source", "setup"):
            continue
        if key in ("move", "no-move") and "=" in want.split(" ")[0]:
            got = moves
            if key == "move":
                at = has(parsed, want, next_move)
                good = at >= 0
                next_move = at + 1 if good else next_move
            else:
                good = has(parsed, want) < 0
        elif key == "aside":
            word = ASIDE_WORDS.get(want, want).lower()
            good, got = word in answer.lower() or word in said.lower(), answer
        elif key == "status":
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
        if known:
            if good:
                fails += 1
                print("FAIL: %s: known gap %s %r now passes: make it a check" % (expect, key, want))
            else:
                print("ok: known gap: %s %s (%s)" % (key, want, why))
        elif good:
            print("ok: %s %s" % (key, want))
        else:
            fails += 1
            print("FAIL: %s: %s %r; got %r" % (expect, key, want, got))
    sys.exit(min(fails, 100))


main()
