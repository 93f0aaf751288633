#!/usr/bin/env python3
"""Property test of the scam search's skipping: random small rule sets
whose crown needs a number raised past a floor, searched with the skipping
and with --play-all, must give the same answer.

    scams_property.py [--cases N] [--seed S] NOMIC

Each case is a set (written out, then `nomic init`): an account whose
balance starts a few points short of the crown's floor, and for each of
three kinds of move a rule of a random form: one that makes tokens (one to
three objects a firing, or the move itself turned into one), raises the
balance at once (by a constant, a literal, the largest or least 64-bit
number among them, a value computed, the move's own amount), or re-opens
tokens already spent; and for each kind of token a rule that spends it
for points (setting a flag or deleting it), some of them making tokens
again (a chain of rounds: a cycle of tokens), some counting
in a forEach, and for one kind of token or none a rule that gives a spent
token back once (a cycle through two rules).  The goal is the crown (or,
one time in three, another: a lender, a spent coin of a later round, no
chip left, a chip given back, three coins), at depths 1 and 2.

The skipping (docs/scams.md, "States" and "How far a number can go") must
never leave out a move that leads to the goal: the search with it and the
search playing every move (`--play-all`) must agree on whether a crown is
found and on the steps of the first one found.  A build with asserts
(`make sanitize`) also plays every last move left out and checks that it
changes nothing the goal reads.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

KINDS = ["tip", "gift", "loan"]
TOKENS = ["coin", "chip"]
ACCOUNT = 'exists(type=="account" & owner=="alice@x" & balance==%b & objectId==%a)'


def move_rule(rng, kind):
    """The rule a move of this kind sets off."""
    m = f'exists(type=="move" & subtype=="{kind}" & objectId==%m)'
    tok = rng.choice(TOKENS)
    form = rng.randrange(8)
    if form == 0:  # tokens made, one to three a firing
        made = " & ".join([f'create(type=="{tok}" & spent==F & round==1)'] * rng.randint(1, 3))
        return m, f"{made} & delete(objectId==%m)"
    if form == 1:  # the move becomes a token
        return m, f'set(objectId==%m)(type=="{tok}" & spent==F & round==1)'
    if form == 2:  # a constant at once
        return f"{m} & {ACCOUNT}", f"set(objectId==%a)(balance==%b + {rng.randint(1, 4)}) & delete(objectId==%m)"
    if form == 3:  # a literal
        return f"{m} & {ACCOUNT}", f"set(objectId==%a)(balance=={rng.choice([0, 50, 99, 100, 101, 150, 9223372036854775807, -9223372036854775808])}) & delete(objectId==%m)"
    if form == 4:  # a value computed otherwise
        return f"{m} & {ACCOUNT}", "set(objectId==%a)(balance==%b * 2 - 90) & delete(objectId==%m)"
    if form == 5:  # the move's own amount
        mm = f'exists(type=="move" & subtype=="{kind}" & amount==%n & objectId==%m)'
        return f"{mm} & {ACCOUNT}", "set(objectId==%a)(balance==%b + %n) & delete(objectId==%m)"
    if form == 6:  # spent tokens opened again
        return m, f'setAll(type=="{tok}" & spent==T)(spent==F) & delete(objectId==%m)'
    # a token made only once a lender exists (made by another kind)
    return f'{m} & exists(type=="lender")', f'create(type=="{tok}" & spent==F & round==1) & delete(objectId==%m)'


def token_rule(rng, tok):
    """The rule that spends a token for points."""
    t = f'exists(type=="{tok}" & spent==F & round==%r & objectId==%t)'
    pts = rng.randint(1, 3)
    form = rng.randrange(4)
    if form == 0:
        return f"{t} & {ACCOUNT}", f"set(objectId==%t)(spent==T) & set(objectId==%a)(balance==%b + {pts})"
    if form == 1:
        return f"{t} & {ACCOUNT}", f"delete(objectId==%t) & set(objectId==%a)(balance==%b + {pts})"
    if form == 2:  # a chain of rounds: each spent token makes another, up to round 3
        return (f"{t} & {ACCOUNT}",
                f"set(objectId==%t)(spent==T) & set(objectId==%a)(balance==%b + {pts}) & "
                f'create(type=="{tok}" & spent==(%r>=3) & round==%r + 1 & back==T)')  # (given back never: no run away)
    if form == 3:  # every token at once, in a forEach
        return (f'exists(type=="{tok}" & spent==F) & {ACCOUNT}',
                f'forEach(type=="{tok}" & spent==F & objectId==%t)(set(objectId==%t)(spent==T) & '
                f"set(objectId==%a)(balance==%b + {pts}))")


def ruleset(rng):
    floor = 100
    start = rng.randint(floor - 9, floor - 1)
    op = rng.choice([">=", ">"])
    limit = floor if op == ">=" else floor - 1
    out = ["type: engineSettings", "runType: rule", "",
           "type: account", "owner: alice@x", f"balance: {start}", ""]
    rules = [move_rule(rng, k) for k in KINDS]
    rules += [token_rule(rng, t) for t in TOKENS]
    rules.append(('exists(type=="move" & subtype=="open" & objectId==%m) & !exists(type=="lender")',
                  'create(type=="lender") & delete(objectId==%m)'))
    bounce = rng.choice([None] + TOKENS)  # one kind's spent tokens given back once (a cycle through two rules)
    if bounce:
        rules.append((f'exists(type=="{bounce}" & spent==T & back!=T & objectId==%t)',
                      "set(objectId==%t)(spent==F & back==T)"))
    rules.append((f'exists(type=="account" & balance{op}{limit} & objectId==%a) & !exists(type=="crown")',
                  'create(type=="crown")'))
    rules.append(('exists(type=="move" & objectId==%m)', "delete(objectId==%m)"))
    order = list(range(len(rules)))
    rng.shuffle(order)
    for n, i in enumerate(order):
        cond, then = rules[i]
        out += ["type: rule", f"ruleOrder: {100 + 10 * n}", f"if: {cond}", f"then: {then}", ""]
    return "\n".join(out)


GOALS = ['exists(type=="crown")'] * 10 + [
    'exists(type=="lender")', 'exists(type=="coin" & spent==T & round>=2)', '!exists(type=="chip" & spent==F)',
    'exists(type=="chip" & back==T)', 'count(type=="coin")>=3']


def answer(nomic, db, depth, play_all, goal):
    args = [nomic, "scams", db, "--as", "alice@x", "--goal", goal,
            "--depth", str(depth), "--json", "--budget", "200000"]
    if play_all:
        args.append("--play-all")
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode not in (0, 3):
        return None, p.returncode, p.stderr
    a = json.loads(p.stdout)
    a.pop("explored", None)
    a["cut"] = sorted(a.get("cut", {}))
    return a, p.returncode, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("nomic")
    o = ap.parse_args()
    rng = random.Random(o.seed)
    failed = found = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(o.cases):
            text = ruleset(rng)
            path = os.path.join(tmp, f"case{case}.nomic")
            db = os.path.join(tmp, f"case{case}.db")
            with open(path, "w") as f:
                f.write(text)
            p = subprocess.run([o.nomic, "init", db, "--ruleset", path, "--time", "2026-01-01Z", "--force"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                print(f"case {case}: init failed: {p.stderr.strip()}\n{text}")
                failed += 1
                continue
            goal = rng.choice(GOALS)
            for depth in (1, 2):
                a, ra, ea = answer(o.nomic, db, depth, False, goal)
                b, rb, eb = answer(o.nomic, db, depth, True, goal)
                if a is None or b is None or a != b or ra != rb:
                    failed += 1
                    print(f"case {case} (seed {o.seed}), goal {goal}, depth {depth}: skipping {ra} {a} {ea.strip()}\n"
                          f"  every move {rb} {b} {eb.strip()}\n{text}")
                    break
                found += a.get("found", False)
    print(f"scams property: {o.cases} sets, {found} answers found, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
