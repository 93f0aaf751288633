// diff.js - the lines of two texts as a diff, for an amendment shown
// against the rule as it stands: a pure function (no DOM), tested by
// tests/web/diff.test.mjs.

// [op, line] pairs, op ' ' kept, '-' gone, '+' new (longest common
// subsequence; past 300 lines a side, all gone then all new).
export function lineDiff(a, b) {
  const x = a.split('\n'), y = b.split('\n'), n = x.length, m = y.length;
  if (n > 300 || m > 300) return x.map((l) => ['-', l]).concat(y.map((l) => ['+', l]));
  const L = Array.from({length: n + 1}, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) { out.push([' ', x[i]]); i++; j++; }
    else if (L[i + 1][j] >= L[i][j + 1]) out.push(['-', x[i++]]);
    else out.push(['+', y[j++]]);
  }
  while (i < n) out.push(['-', x[i++]]);
  while (j < m) out.push(['+', y[j++]]);
  return out;
}
