#!/usr/bin/env python3
"""Property test of eval(text, i, v), MathFlag's arithmetic.

    eval_property.py [--cases N] [--seed S] EVAL_CHECK

Generates N random cases (texts of 1 to 8 characters over 0-9 + - * / ( ) i v,
biased so that many are well-formed; some malformed, too long or with other
characters; random rational i and v, zeros, big numbers, empty texts and
non-numbers) and compares what the program EVAL_CHECK (build/eval-check,
tests/eval_check.c) prints for each with a second evaluator written here.

The second evaluator shares no code with src/eval_math.c: it lets Python's
own parser read the text (after making each numeral a plain decimal
literal) and accepts only the tree shapes of the grammar in eval_math.h:
numbers, i, v, binary + - * /, unary minus.  Python's precedence and left
associativity for these operators are the usual ones.  Anything else
(unary plus, **, //, calls such as 2(i), names such as iv) is malformed.
Values are fractions.Fraction; undefined is None, printed as "".
"""
import argparse
import ast
import random
import re
import subprocess
import sys
import warnings
from fractions import Fraction

ALPHABET = "0123456789+-/*()iv"
EMPTY = "_"  # the driver's word for the empty text


class Undefined(Exception):
    pass


def operand(text):
    """i or v as eval reads it: "" is 0, a number is itself, else undefined."""
    if text == "":
        return Fraction(0)
    if not re.fullmatch(r"-?[0-9]+(\.[0-9]+|/[0-9]+)?", text):
        raise Undefined
    try:
        return Fraction(text)
    except ZeroDivisionError:  # "1/0" is not a number in the value model
        raise Undefined


def walk(node, env):
    if isinstance(node, ast.Expression):
        return walk(node.body, env)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Fraction(node.value)
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -walk(node.operand, env)
    if isinstance(node, ast.BinOp):
        a, b = walk(node.left, env), walk(node.right, env)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Div):
            if b == 0:
                raise Undefined
            return a / b
    raise Undefined  # any other shape is not in the grammar


def reference(text, i, v):
    """The exact value, or None when it is not a defined real number."""
    try:
        env = {"i": operand(i), "v": operand(v)}
        if not 1 <= len(text) <= 8 or any(c not in ALPHABET for c in text):
            raise Undefined
        # 007 is 7: Python refuses leading zeros, so write each numeral plainly
        src = re.sub(r"[0-9]+", lambda m: str(int(m.group())), text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "int is not callable" for 2(i)
            tree = ast.parse(src, mode="eval")
        return walk(tree, env)
    except (Undefined, SyntaxError):
        return None


def canonical(q):
    """DESIGN.md's printing rule: integer, else exact decimal, else p/q."""
    if q is None:
        return ""
    if q.denominator == 1:
        return str(q.numerator)
    d, twos, fives = q.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    if d != 1:
        return f"{q.numerator}/{q.denominator}"
    k = max(twos, fives)
    digits = str(abs(q.numerator) * 10**k // q.denominator).rjust(k + 1, "0")
    return ("-" if q < 0 else "") + digits[:-k] + "." + digits[-k:]


# ---- generators ----

def numeral(rng):
    n = str(rng.choice([0, 1, 2, 3, 5, 7, 10, 12, 99, rng.randrange(1000)]))
    return "0" + n if rng.random() < 0.1 else n


def tree(rng, depth):
    """A random well-formed expression (possibly longer than 8)."""
    r = rng.random()
    if depth <= 0 or r < 0.3:
        return rng.choice(["i", "v", "i", "v", numeral(rng)])
    if r < 0.4:
        return "-" + tree(rng, depth - 1)
    if r < 0.5:
        return "(" + tree(rng, depth - 1) + ")"
    return tree(rng, depth - 1) + rng.choice("+-*/") + tree(rng, depth - 1)


def wellformed(rng):
    for _ in range(50):
        t = tree(rng, rng.randint(1, 4))
        if len(t) <= 8:
            return t
    return "i"


def mutated(rng):
    t = list(wellformed(rng))
    for _ in range(rng.randint(1, 2)):
        k = rng.randrange(len(t) + 1)
        op = rng.random()
        if op < 0.4 or not t:
            t.insert(k, rng.choice(ALPHABET))
        elif op < 0.7:
            del t[min(k, len(t) - 1)]
        else:
            t[min(k, len(t) - 1)] = rng.choice(ALPHABET)
    return "".join(t)


def text(rng):
    r = rng.random()
    if r < 0.5:
        return wellformed(rng)
    if r < 0.75:
        return mutated(rng)
    if r < 0.95:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8)))
    if r < 0.98:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(9, 12)))
    s = list(wellformed(rng))
    s[rng.randrange(len(s))] = rng.choice("xI.=%a")
    return "".join(s)


def number(rng):
    """i or v as a text: mostly numbers in the value model's forms."""
    r = rng.random()
    if r < 0.15:
        return "0"
    if r < 0.5:
        return str(rng.randint(-1000, 1000))
    if r < 0.65:
        return f"{rng.randint(-50, 50)}/{rng.randint(1, 30)}"
    if r < 0.75:
        return f"{rng.choice(['', '-'])}{rng.randint(0, 99)}.{rng.randint(0, 999):03d}"
    if r < 0.85:
        return str(rng.choice([-1, 1]) * rng.randint(10**15, 10**40))
    if r < 0.9:
        return "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 4)))  # leading zeros
    if r < 0.95:
        return ""
    return rng.choice(["abc", "T", "1/0", "2/-3", "1e5", "--1"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("program")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    cases = [(text(rng), number(rng), number(rng)) for _ in range(a.cases)]
    lines = "".join(" ".join(w or EMPTY for w in c) + "\n" for c in cases)
    out = subprocess.run([a.program], input=lines, capture_output=True, text=True, check=True).stdout
    got = out.split("\n")[:-1]
    if len(got) != len(cases):
        sys.exit(f"eval_property: {len(got)} answers for {len(cases)} cases (seed {seed})")
    bad, defined = 0, 0
    for (t, i, v), g in zip(cases, got):
        want = canonical(reference(t, i, v))
        defined += want != ""
        if g != want:
            bad += 1
            if bad <= 20:
                print(f"eval({t!r}, {i!r}, {v!r}) = {g!r}, expected {want!r}")
    print(f"eval_property: {len(cases)} cases compared ({defined} defined, "
          f"{len(cases) - defined} undefined), {bad} differ (seed {seed})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
