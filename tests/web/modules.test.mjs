// The page's modules (web/*.js): every import names a module of web/, and
// the pure logic (what node tests here) imports nothing that touches the
// DOM; no module over 600 lines.
import assert from 'node:assert/strict';
import {readdirSync, readFileSync} from 'node:fs';
import {test} from 'node:test';

const WEB = new URL('../../web/', import.meta.url);
const modules = readdirSync(WEB).filter((f) => f.endsWith('.js'));
const imports = (f) => [...readFileSync(new URL(f, WEB), 'utf8').matchAll(/^import .* from '\.\/([^']+)';$/gm)].map((m) => m[1]);
const PURE = ['format.js', 'diff.js', 'proposals.js', 'scams.js', 'answer.js'];

test('every import is a module of web/', () => {
  for (const f of modules) for (const i of imports(f)) assert.ok(modules.includes(i), f + ' imports ' + i);
});

test('the pure logic imports only pure logic, and names no document or window', () => {
  for (const f of PURE) {
    for (const i of imports(f)) assert.ok(PURE.includes(i), f + ' imports ' + i);
    assert.doesNotMatch(readFileSync(new URL(f, WEB), 'utf8'), /\b(document|window|localStorage|fetch)\b/, f);
  }
});

test('the page loads app.js as a module, and no module is over 600 lines', () => {
  assert.match(readFileSync(new URL('index.html', WEB), 'utf8'), /<script type="module" src="app.js"><\/script>/);
  for (const f of modules) assert.ok(readFileSync(new URL(f, WEB), 'utf8').split('\n').length <= 600, f);
});
