// answer.js - a move's answer (POST api/move, docs/api.md) read to be laid
// out: its outcome first, then the reason, then the rest (why rule by rule,
// what changed, the replies, the code check).  Pure functions of the
// answer's body (no DOM), tested by tests/web/answer.test.mjs.

// status -> the outcome's heading and its badge's kind
const OUTCOMES = {
  applied: ['Applied', 'good'],
  'no effect': ['No effect', 'info'],
  refused: ['Refused', 'bad'],
  halted: ['Halted: a rule ended the game', 'warn'],
  loop: ['Loop: the game ended in a loop', 'warn'],
};

// what a status says when the answer has no message
const NO_MESSAGE = {
  applied: 'The rules took the move and changed the game.',
  'no effect': 'The rules changed nothing but the move itself.',
  refused: 'The move was refused.',
};

function sentence(s) {
  s = s.trim();
  if (!s) return s;
  if (/^[a-z]+([ ,]|$)/.test(s)) s = s[0].toUpperCase() + s.slice(1);   // not "move:2:9: expected ..."
  return /[a-z0-9"']$/i.test(s) ? s + '.' : s;
}

// A line of the rule-by-rule explanation: "rule 7 (ruleOrder 30050): `code`
// does not hold (with ...)" -> {rule, order, parts: [[isCode, text], ...]};
// a line of another form -> {rule: null, order: null, parts: [[false, line]]}.
export function whyLine(line) {
  const m = /^rule (\S+) \(ruleOrder ([^)]*)\): ?(.*)$/.exec(line.trim());
  const rest = m ? m[3] : line.trim();
  const parts = [];
  rest.split('`').forEach((piece, i) => { if (piece) parts.push([i % 2 === 1, piece]); });
  return {rule: m ? m[1] : null, order: m ? m[2] : null, parts};
}

// What each firing changed, from the trace: the firings that changed
// something, each with how many objects it created and deleted and how
// many values it set.
export function changesOf(trace) {
  const out = [];
  for (const f of Array.isArray(trace) ? trace : []) {
    const ch = Array.isArray(f.changes) ? f.changes : [];
    if (!f.changed || !ch.length) continue;
    const n = {create: 0, set: 0, delete: 0};
    for (const c of ch) if (c.op in n) n[c.op]++;
    const said = [];
    if (n.create) said.push(n.create + (n.create === 1 ? ' object created' : ' objects created'));
    if (n.set) said.push(n.set + (n.set === 1 ? ' value set' : ' values set'));
    if (n.delete) said.push(n.delete + (n.delete === 1 ? ' object deleted' : ' objects deleted'));
    out.push({rule: String(f.rule), order: String(f.ruleOrder ?? ''), text: said.join(', ') || ch.length + ' changes'});
  }
  return out;
}

// The answer's body -> {status, title, kind, reason, why, changes, firings}:
// the reason is the message's first line as a sentence (its "no effect: "
// dropped: the heading says it), why its further lines.
export function readAnswer(b) {
  const status = String(b.status);
  const [title, kind] = OUTCOMES[status] || [status, ''];
  const lines = b.message === null || b.message === undefined ? [] : String(b.message).split('\n');
  let first = (lines.shift() || '').trim();
  if (first.toLowerCase().startsWith(status + ':')) first = first.slice(status.length + 1);
  const reason = first.trim() ? sentence(first) : (NO_MESSAGE[status] || null);
  const why = lines.filter((l) => l.trim()).map(whyLine);
  const trace = Array.isArray(b.trace) ? b.trace : [];
  return {status, title, kind, reason, why, changes: changesOf(trace), firings: trace.length};
}
