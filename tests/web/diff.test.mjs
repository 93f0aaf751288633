// The diff an amendment is shown as (web/diff.js).
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {lineDiff} from '../../web/diff.js';

test('the same text: every line kept', () => {
  assert.deepEqual(lineDiff('a\nb', 'a\nb'), [[' ', 'a'], [' ', 'b']]);
});

test('a line changed: the old gone, then the new', () => {
  assert.deepEqual(lineDiff('a\nb\nc', 'a\nB\nc'), [[' ', 'a'], ['-', 'b'], ['+', 'B'], [' ', 'c']]);
});

test('lines added and removed around the kept ones', () => {
  assert.deepEqual(lineDiff('x\na\nb', 'a\nb\ny'), [['-', 'x'], [' ', 'a'], [' ', 'b'], ['+', 'y']]);
});

test('the longest common part is kept', () => {
  const d = lineDiff('a\nb\nc\nd', 'b\nc\nd\na');
  assert.deepEqual(d.filter(([op]) => op === ' ').map(([, l]) => l), ['b', 'c', 'd']);
});

test('past 300 lines a side: all gone, then all new', () => {
  const long = Array.from({length: 301}, (_, i) => 'line ' + i).join('\n');
  const d = lineDiff(long, 'line 0');
  assert.equal(d.length, 302);
  assert.deepEqual(d[0], ['-', 'line 0']);
  assert.deepEqual(d[301], ['+', 'line 0']);
});
