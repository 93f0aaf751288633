#!/usr/bin/env python3
# suber-texts.py [OUTDIR] - writes texts.nomic and texts-1982.nomic (into
# rulesets/suber by default), the 29 rule texts of seeds 004 and 001, from
# the seed files kept in tests/data.  Run from the project root; the output
# is kept in git, and tests/t40-suber.sh checks it is what this script writes.
import os, re, sys
OUT = sys.argv[1] if len(sys.argv) > 1 else 'rulesets/suber'

def objs(rules, mutable_from=201):
    out = []
    for num, text in rules:
        esc = text.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
        out.append(f'type: ruleText\nnumber: {num}\ninitialNumber: {num}\nmutable: {"T" if num >= mutable_from else "F"}\ntext: "{esc}"\n')
    return '\n'.join(out)

# 004: the revised set, rules separated by lines "*"
s = open('tests/data/suber-revised-seed.txt', encoding='utf-8').read()
start = s.index('101. All players must always abide')
body = s[start:].strip()
chunks = [c.strip() for c in re.split(r'\n\*\n', body)]
rules = []
for c in chunks:
    c = re.sub(r'^Mutable Rules\s*', '', c).strip()
    m = re.match(r'(\d{3})\. (.*)', c, re.S)
    assert m, c[:60]
    paras = [p.strip() for p in m.group(2).split('\n\n') if p.strip()]
    rules.append((int(m.group(1)), '\n\n'.join(paras)))
assert [r[0] for r in rules] == list(range(101, 117)) + list(range(201, 214)), [r[0] for r in rules]
open(os.path.join(OUT, 'texts.nomic'), 'w').write(
    "# The 29 rules of Suber's revised Initial Set, with its variants for mail\n"
    "# and computer games (seed 004), as ruleText objects: number, mutable, and\n"
    "# the text as the seed gives it (paragraphs separated by a blank line).\n\n" + objs(rules))

# 001: the 1982 set, hard-wrapped; paragraphs split by blank lines
s = open('tests/data/suber-1982-seed.txt', encoding='utf-8').read()
start = s.index('101.  All players')
end = s.index('\n-- \n')
body = s[start:end]
body = re.sub(r'\n\s+Mutable Rules\s*\n', '\n\n', body)
rules = []
cur = None
for para in re.split(r'\n\s*\n', body):
    p = ' '.join(l.strip() for l in para.strip().split('\n'))
    m = re.match(r'(\d{3})\.  (.*)', p, re.S)
    if m:
        cur = [int(m.group(1)), [m.group(2)]]
        rules.append(cur)
    else:
        cur[1].append(p)
rules = [(n, '\n\n'.join(ps)) for n, ps in rules]
assert [r[0] for r in rules] == list(range(101, 117)) + list(range(201, 214)), [r[0] for r in rules]
open(os.path.join(OUT, 'texts-1982.nomic'), 'w').write(
    "# The 29 rules of Suber's Initial Set of 1982 (Metamagical Themas, as\n"
    "# posted to net.games in 1984: seed 001) as ruleText objects: number,\n"
    "# mutable, and the text, its line breaks joined (paragraphs separated by a\n"
    "# blank line), its spelling kept.\n\n" + objs(rules))
