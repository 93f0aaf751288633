#!/usr/bin/env python3
"""deep_seeds.py TARGET DIR MAXLEN - writes deep and long seeds for a fuzz
target into DIR, each at most MAXLEN bytes: nesting far past the parser's
limit of 256 and flat chains far past its 4,096 nodes, megabyte lines and
values, long sugar lines and SLR texts, deeply nested MIME.  They are made
here rather than kept in the corpora, which stay small enough to read."""
import os
import sys


def fit(text, maxlen):
    """The text, cut to maxlen bytes (the fuzzer would cut it anyway)."""
    return text.encode()[:maxlen]


def nested(open_, close, inner, budget):
    """open_ * n + inner + close * n, as deep as budget bytes allow."""
    n = max(1, (budget - len(inner)) // (len(open_) + len(close)))
    return open_ * n + inner + close * n


def chain(item, sep, budget):
    """item sep item sep ... item, as long as budget bytes allow."""
    n = max(1, (budget + len(sep)) // (len(item) + len(sep)))
    return sep.join([item] * n)


def rule(m):
    half = m // 2
    return {
        "deep-parens": nested("(", ")", "T", m),
        "deep-not": "!" * (m - 1) + "T",
        "deep-neg": "1 == " + "-" * (m - 6) + "1",
        "deep-call": nested("if(", ", T, F)", "T", m),
        "deep-match": nested("exists(", ")", "T", m),
        "flat-and": chain("T", " & ", m),
        "flat-or": chain("F", " | ", m),
        "flat-concat": "%x == " + chain('"a"', " ", m - 6),
        "flat-sum": "1 == " + chain("1", " + ", m - 5),
        "flat-args": "if(" + chain("T", ", ", m - 10) + ")",
        "flat-verbs": "T\x01" + chain("halt()", " & ", half),
        "both-deep": nested("(", ")", "T", half) + "\x01" + chain("halt()", " & ", half),
    }


def objfmt(m):
    lines = ["   line %d" % i for i in range(m // 12)]
    return {
        "long-line": "type: note\nbig: " + "x" * (m - 20) + "\n",
        "long-value": "type: note\nlong: first\n" + "\n".join(lines) + "\n",
        "deep-rule": "type: rule\nruleOrder: 1\nif: " + nested("(", ")", "T", m - 60) + "\nthen: halt()\n",
        "many-objects": chain("a: b", "\n---\n", m),
    }


def sugar(m):
    table = "SAY <what...>\n    subtype: say\n    what: <what>\n\nPICK <a> <b...> AND <c...> OR <d...>\n    a: <a>\n    b: <b>\n    c: <c>\n    d: <d>\n\n"
    return {
        "long-line": table + "\x01SAY " + chain("word", " ", m - len(table) - 10) + "\n",
        "long-rests": table + "\x01PICK x " + chain("AND OR", " ", m - len(table) - 10) + "\n",
        "deep-line": table + "\x01SAY " + nested("(", ")", "T", m - len(table) - 10) + "\n",
        "wide-pattern": chain("W", " ", 200) + "\n    a: b\n",
    }


def eval_(m):
    return {
        "deep-parens": nested("(", ")", "i", m - 4) + "\x011\x012",
        "deep-neg": "-" * (m - 8) + "1\x011\x012",
        "long-operand": "i+v\x01" + "9" * (m // 2) + "\x01" + "1/" + "7" * (m // 2 - 10),
    }


def slr(m):
    rules = "".join("Rule %d/0 (Power=1)\nTitle %d\n\n      text\n\n" % (i + 1, i) for i in range(m // 40))
    return {
        "long-line": "Rule 1/0 (Power=1)\nA Rule\n\n      " + "(" * (m - 50) + "\n",
        "many-rules": rules,
        "long-title": "Rule 1/0 (Power=1)\n" + chain("Word", " ", m - 40) + "\n\n      text\n",
    }


def mail(m):
    head = "From: a@x\nTo: g@y\nSubject: m\nMIME-Version: 1.0\n"
    n = m // 80
    parts = [head + 'Content-Type: multipart/mixed; boundary="b0"\n']
    for i in range(1, n):
        parts.append('--b%d\nContent-Type: multipart/mixed; boundary="b%d"\n' % (i - 1, i))
    parts.append("--b%d\nContent-Type: text/plain\n\nVOTE 1 FOR\n--b%d--\n" % (n - 1, n - 1))
    parts += ["--b%d--\n" % i for i in range(n - 2, -1, -1)]
    return {
        "deep-multipart": "\n".join(parts),
        "deep-rfc822": head + "Content-Type: message/rfc822\n\n" + "From: a@x\nContent-Type: message/rfc822\n\n" * (m // 50) + "hello\n",
        "long-line": head + "\n" + "VOTE 1 " + chain("FOR", " ", m - 100) + "\n",
    }


def mbox(m):
    mail = "From: a@x\nSubject: m\n\nREGISTER a\n"
    return {
        "many-mails": chain("From a@x Mon Nov 23 10:00:00 2026\n" + mail, "\n", m),
        "long-from-line": "From " + "x" * (m - 100) + "\n" + mail,
        "long-body-line": "From a@x\n" + mail + "y" * (m - 100) + "\n",
        "escaped-froms": "From a@x\n" + mail + chain(">>From here", "\n", m - 100) + "\n",
    }


TARGETS = {"rule": rule, "objfmt": objfmt, "sugar": sugar, "eval": eval_, "slr": slr, "mail": mail, "mbox": mbox}

if __name__ == "__main__":
    target, out, maxlen = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for name, text in TARGETS[target](maxlen).items():
        with open(os.path.join(out, "gen-" + name), "wb") as f:
            f.write(fit(text, maxlen))
