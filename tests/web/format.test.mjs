// The page's formatting (web/format.js): times, spans, numbers.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {byId, fmtRel, fmtSpan, fmtTime, num, present} from '../../web/format.js';

test('a time is written in UTC to the second', () => {
  assert.equal(fmtTime(0), '1970-01-01 00:00:00 UTC');
  assert.equal(fmtTime('1767225600'), '2026-01-01 00:00:00 UTC');
  assert.equal(fmtTime(1767225600 + 86399), '2026-01-01 23:59:59 UTC');
});

test('what is not a time is written as it is', () => {
  assert.equal(fmtTime('soon'), 'soon');
  assert.equal(fmtTime('1e21'), '1e21', 'past the last date');
});

test('a span in its two largest units', () => {
  assert.equal(fmtSpan(12), '12 s');
  assert.equal(fmtSpan(-12.4), '12 s');
  assert.equal(fmtSpan(300), '5 min 0 s');
  assert.equal(fmtSpan(3 * 3600 + 125), '3 h 2 min');
  assert.equal(fmtSpan(3 * 86400 + 4 * 3600 + 59), '3 d 4 h');
});

test('a time against now: ahead, behind, now', () => {
  assert.equal(fmtRel(1300, 1000), 'in 5 min 0 s');
  assert.equal(fmtRel(988, 1000), '12 s ago');
  assert.equal(fmtRel(1000.5, 1000), 'now');
  assert.equal(fmtRel('never', 1000), '');
});

test('an attribute value as a number: integers, decimals, fractions', () => {
  assert.equal(num('-12'), -12);
  assert.equal(num(' 3.75 '), 3.75);
  assert.equal(num('2/5'), 0.4);
  assert.ok(Number.isNaN(num('1/0')));
  assert.ok(Number.isNaN(num('ten')));
  assert.ok(Number.isNaN(num(5)), 'a value from the API is text');
});

test('objects by id, as numbers', () => {
  const objs = [{objectId: '10'}, {objectId: '9'}, {objectId: '100'}];
  assert.deepEqual(objs.sort(byId).map((o) => o.objectId), ['9', '10', '100']);
});

test('present: a value given and not empty', () => {
  assert.deepEqual(['', null, undefined, '0', 0].map(present), [false, false, false, true, true]);
});
