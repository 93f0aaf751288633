#!/usr/bin/env python3
"""The modules of src/ depend on each other without a circle.

A module is the files that share a prefix (README.md, "Where things are"):
src/game_event.c is the game module's, src/cmd/*.c, cli.[ch] and nomic.c
the command line's.  A module depends on another when one of its files
includes one of the other's headers.  Circles inside a module (the
evaluator and its builtins) are the module's own business; a circle between
two modules means neither can be read, tested or replaced without the
other, so this fails on one and prints the includes that make it.

Also checks that every file of src/ opens with a comment that names it, so
that a newcomer knows what a file is for from its first lines."""
import glob
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def module(path):
    rel = os.path.relpath(path, SRC)
    base = os.path.basename(rel).rsplit(".", 1)[0]
    if rel.startswith("cmd" + os.sep) or base in ("nomic", "cli"):
        return "cli"
    return base.split("_")[0]


def includes():
    edges = {}
    for path in sorted(glob.glob(os.path.join(SRC, "*.[ch]")) + glob.glob(os.path.join(SRC, "cmd", "*.c"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        yield path, text
        for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
            a, b = module(path), module(os.path.join(SRC, inc))
            if a != b:
                edges.setdefault(a, {}).setdefault(b, []).append(os.path.relpath(path, SRC) + " includes " + inc)
    includes.edges = edges


def circles(edges):
    """Tarjan's strongly connected components of more than one module."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    failed = 0
    for path, text in includes():
        rel = os.path.relpath(path, SRC)
        first = text.split("\n", 3)[:3]
        if not (first[0] == "/*" and len(first) > 1 and first[1].startswith(" * " + rel.replace(os.sep, "/") + " - ")):
            print(f"src/{rel}: does not open with a comment '/*' then ' * {rel} - what it is for'")
            failed += 1
    for comp in circles(includes.edges):
        print("modules in a circle: " + " <-> ".join(comp))
        for a in comp:
            for b, why in sorted(includes.edges.get(a, {}).items()):
                if b in comp:
                    for w in why:
                        print(f"    {a} -> {b}: {w}")
        failed += 1
    n = len({module(p) for p, _ in includes()})
    print(f"modules: {n} modules, {failed} problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
