#!/usr/bin/env python3
"""Golden scenario runner: plays games through the command line.

    run_scenarios.py [--update] DIR|FILE...

A scenario (tests/scenarios/*.scn) is a transcript.  Each command is run
in a fresh temporary directory holding the game `G`, and its output must
be exactly the lines written under it:

    # a comment (ignored)
    @ file NAME          write the '<' lines below it to the file NAME
    < line               input: the body of the file, or the command's stdin
    $ ARGS               run `nomic ARGS` (the game is the file G)
    ! line               expected line on standard error
    ? N                  expected exit status (0 when absent)
    anything else        expected line on standard output

With --update the expected parts are rewritten from what the program
printed (then read the diff: a golden file is only as good as its review).
The program is $NOMIC (default build/nomic).
"""
import os
import shlex
import re
import subprocess
import sys
import tempfile

NOMIC = os.environ.get("NOMIC", os.path.abspath("build/nomic"))


class Step:
    def __init__(self, kind, arg, line):
        self.kind, self.arg, self.line = kind, arg, line
        self.input = []
        self.out = []
        self.err = []
        self.status = 0


def parse(path):
    steps = []
    with open(path, encoding="utf-8") as fh:
        for no, raw in enumerate(fh, 1):
            line = raw.rstrip("\n")
            if line.startswith("#") or (not line.strip() and (not steps or steps[-1].kind == "file")):
                continue
            if line.startswith("@ file "):
                steps.append(Step("file", line[7:].strip(), no))
            elif line.startswith("$ "):
                steps.append(Step("run", line[2:], no))
            elif not steps:
                raise SystemExit("%s:%d: expected '$ ' or '@ file' first" % (path, no))
            elif line.startswith("< ") or line == "<":
                steps[-1].input.append(line[2:])
            elif line.startswith("? "):
                steps[-1].status = int(line[2:])
            elif line.startswith("! ") or line == "!":
                steps[-1].err.append(line[2:])
            else:
                steps[-1].out.append(line)
    for s in steps:  # blank lines between steps are not output
        while s.out and not s.out[-1].strip():
            s.out.pop()
    return steps


def run_steps(steps, workdir):
    results = []
    for s in steps:
        if s.kind == "file":
            with open(os.path.join(workdir, s.arg), "w", encoding="utf-8") as fh:
                fh.write("\n".join(s.input) + "\n")
            results.append(None)
            continue
        args = [NOMIC] + shlex.split(s.arg)
        stdin = ("\n".join(s.input) + "\n") if s.input else ""
        p = subprocess.run(args, cwd=workdir, input=stdin.encode(), capture_output=True, timeout=120)
        out = p.stdout.decode("utf-8", "replace").rstrip("\n").split("\n") if p.stdout else []
        err = p.stderr.decode("utf-8", "replace").rstrip("\n").split("\n") if p.stderr else []
        # the seed's commitment is salted at random: compare its form only
        out = [re.sub(r"sha256 [0-9a-f]{64}", "sha256 <hash>", x) for x in out]
        # and a state's digest is keyed by the game's secret key, random too
        out = [re.sub(r'"hash":"[0-9a-f]{16}"', '"hash":"<digest>"', x) for x in out]
        while out and not out[-1].strip():
            out.pop()
        results.append((out, err, p.returncode))
    return results


def write_back(path, steps, results):
    lines = []
    for s, r in zip(steps, results):
        if s.kind == "file":
            lines.append("@ file " + s.arg)
        else:
            lines.append("$ " + s.arg)
        lines += [("< " + x) if x else "<" for x in s.input]
        if r is not None:
            out, err, rc = r
            lines += [("! " + x) if x else "!" for x in err]
            lines += out
            if rc:
                lines.append("? %d" % rc)
        lines.append("")
    with open(path, encoding="utf-8") as fh:
        head = []
        for raw in fh:
            if raw.startswith("#") or not raw.strip():
                head.append(raw.rstrip("\n"))
            else:
                break
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(head + lines).rstrip("\n") + "\n")


def check(path, update):
    steps = parse(path)
    with tempfile.TemporaryDirectory() as d:
        results = run_steps(steps, d)
    if update:
        write_back(path, steps, results)
        return True
    ok = True
    for s, r in zip(steps, results):
        if r is None:
            continue
        out, err, rc = r
        problems = []
        if out != s.out:
            problems.append(("stdout", s.out, out))
        if err != s.err:
            problems.append(("stderr", s.err, err))
        if rc != s.status:
            problems.append(("exit status", [str(s.status)], [str(rc)]))
        for what, want, got in problems:
            ok = False
            print("%s:%d: $ %s\n  %s differs:" % (path, s.line, s.arg, what))
            import difflib
            for d in difflib.unified_diff(want, got, "expected", "got", lineterm="", n=2):
                print("    " + d)
    return ok


def main():
    argv = sys.argv[1:]
    update = "--update" in argv
    argv = [a for a in argv if a != "--update"]
    files = []
    for a in argv or ["tests/scenarios"]:
        if os.path.isdir(a):
            files += sorted(os.path.join(a, f) for f in os.listdir(a) if f.endswith(".scn"))
        else:
            files.append(a)
    if not files:
        sys.exit("no scenario files found")
    failed = [f for f in files if not check(f, update)]
    print("scenarios: %d run, %d failed%s" % (len(files), len(failed), " (updated)" if update else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
