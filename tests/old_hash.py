#!/usr/bin/env python3
"""old_hash.py - the attacks the state hash once allowed, against a
reimplementation of that hash (unkeyed: FNV-1a texts and a reversible
mixer, summed over the pool), for tests/t52-hostile_loop.sh.

  forge ID SENDER TIME FROM
      prints the lines of a move that, created as object ID by SENDER at
      TIME with `from: FROM`, adds nothing to the old hash: its own terms
      cancel, so deleting it again left the hash as it was before the move,
      which the engine took for a repeated state.  A generalized birthday
      search (Wagner's tree over 16 lists) finds sixteen attribute values.
  secret BEFORE AFTER LOG [--control OLD NEW]
      the search that read private values from consecutive public hashes:
      BEFORE and AFTER are `show --json` of the public state around the
      last event of LOG (`log --json`); the difference of the two published
      hashes, less what the public attributes explain, is the term of the
      private value that changed, which a search over short expressions
      finds.  Prints each expression found, or "nothing found".  With
      --control, the difference is computed from OLD and NEW under the old
      hash instead (the test knows them): the search must find NEW.
"""
import json
import sys

M = (1 << 64) - 1


def fnv(text):
    h = 1469598103934665603
    for b in text.encode():
        h = ((h ^ b) * 1099511628211) & M
    return h


def mix(h):
    h ^= h >> 33
    h = (h * 0xff51afd7ed558ccd) & M
    h ^= h >> 33
    h = (h * 0xc4ceb9fe1a85ec53) & M
    return h ^ (h >> 33)


def triple(oid, name, value):
    return mix((mix(((oid * 0x9e3779b97f4a7c15) & M) ^ fnv(name)) + fnv(value)) & M)


def exist(oid):
    return mix(oid ^ 0x5bd1e9955bd1e995)


def obj_hash(obj):
    oid = int(obj["objectId"])
    return (exist(oid) + sum(triple(oid, k, v) for k, v in obj.items() if k != "objectId")) & M


# ---- the forged move ----

# three merges zero 39 bits; the last matches the other 25 among 2**28 pairs
LISTS, SIZE, BITS = 16, 1 << 14, 13


def merge(a, b, bits):
    """Pairs of a and b whose sum is 0 modulo 2**bits, at most SIZE."""
    mask = (1 << bits) - 1
    by_low = {}
    for s, picks in b:
        by_low.setdefault(s & mask, []).append((s, picks))
    out = []
    for s, picks in a:
        for t, more in by_low.get(-s & mask, ()):
            out.append(((s + t) & M, picks + more))
            if len(out) >= SIZE:
                return out
    return out


def forge(oid, sender, time, sender_from):
    fixed = {"type": "move", "moveSender": sender, "moveTimeStamp": str(time), "moveBatch": str(oid), "from": sender_from}
    target = (exist(oid) + sum(triple(oid, k, v) for k, v in fixed.items())) & M
    names = ["f%02d" % i for i in range(LISTS)]
    lists = []
    for i, name in enumerate(names):
        lst = [(triple(oid, name, "v%x" % j), [(name, "v%x" % j)]) for j in range(SIZE)]
        if i == 0:  # the move's own terms go with the first list: the total must be 0
            lst = [((s + target) & M, p) for s, p in lst]
        lists.append(lst)
    bits = BITS
    while len(lists) > 2:
        lists = [merge(lists[k], lists[k + 1], bits) for k in range(0, len(lists), 2)]
        bits += BITS
    found = merge(lists[0], lists[1], 64)
    if not found:
        return None
    picks = found[0][1]
    assert (target + sum(triple(oid, n, v) for n, v in picks)) & M == 0
    return ["from: " + sender_from] + ["%s: %s" % p for p in picks]


# ---- the private value ----


def expressions():
    """Short Secret Expressions: an atom, a op b, and (a op b) op c."""
    atoms = ["i", "v"] + [str(n) for n in range(21)]
    ops = "+-*/"
    two = [a + o + b for a in atoms for o in ops for b in atoms]
    yield from atoms
    yield from two
    for e in two:
        for o in ops:
            for c in atoms:
                yield "(" + e + ")" + o + c
                yield c + o + "(" + e + ")"


def search(oid, name, diff):
    """Expressions x (old value "") or pairs (x, y) with
    triple(x) - triple(y) == diff."""
    terms = {}
    for e in expressions():
        terms.setdefault(triple(oid, name, e), e)
    found = []
    for t, e in terms.items():
        if t == diff:
            found.append(e)
        y = terms.get((t - diff) & M)
        if y is not None:
            found.append("%s (was %s)" % (e, y))
    return found


def changed_private(log):
    """The (object, attribute) the last event set to a hidden value."""
    last = log["events"][-1]
    for firing in last["trace"]:
        for c in firing["changes"]:
            if c.get("op") == "set" and c.get("value") is None:  # hidden
                return last, int(c["id"]), c["attr"]
    sys.exit("the last event set no private value")


def secret(before, after, log, control):
    objs = [json.load(open(f))["objects"] for f in (before, after)]
    events = json.load(open(log))["events"]
    last, oid, name = changed_private({"events": events})
    if control:
        old, new = control
        diff = (triple(oid, name, new) - (triple(oid, name, old) if old else 0)) & M
    else:
        prev = [e for e in events if e["hash"] and e["event"] < last["event"]][-1]
        published = (int(last["hash"], 16) - int(prev["hash"], 16)) & M
        public = (sum(map(obj_hash, objs[1])) - sum(map(obj_hash, objs[0]))) & M
        diff = (published - public) & M
    found = search(oid, name, diff)
    print("\n".join(found) if found else "nothing found")


def main(argv):
    if len(argv) == 5 and argv[0] == "forge":
        lines = forge(int(argv[1]), argv[2], int(argv[3]), argv[4])
        if not lines:
            sys.exit("no forgery found")
        print("\n".join(lines))
    elif len(argv) in (4, 7) and argv[0] == "secret":
        control = argv[5:7] if len(argv) == 7 and argv[4] == "--control" else None
        secret(argv[1], argv[2], argv[3], control)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
