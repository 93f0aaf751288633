// The page's formatting (web/format.js): times, spans, numbers.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {
  byId, clockText, fmtAgo, fmtDeadline, fmtRel, fmtSpan, fmtTime, gameTime, num, present,
} from '../../web/format.js';

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

test("the game's time: the server's clock, or its last event's time when later", () => {
  assert.equal(gameTime(1000, null), 1000, 'no event yet');
  assert.equal(gameTime(1000, 400), 1000, 'a game played in the past moves at the clock\'s time');
  assert.equal(gameTime(1000, 951000), 951000, 'a game played ahead with --time stays ahead');
  assert.equal(gameTime(1000, 'x'), 1000);
  assert.equal(gameTime(undefined, 5), 5);
});

test('the clock: one time where the clocks agree within a minute, both labelled where not', () => {
  const game = 1767614400; // 2026-01-05 12:00:00 UTC
  assert.deepEqual(clockText(game, game + 59), {differ: false, text: '2026-01-05 12:00:00 UTC'});
  assert.deepEqual(clockText(game + 0.9, game - 59), {differ: false, text: '2026-01-05 12:00:00 UTC'}, 'to the second');
  const yours = 1795824000; // 2026-11-28 00:00:00 UTC
  assert.deepEqual(clockText(game, yours), {differ: true,
    text: 'Game time 2026-01-05 12:00:00 UTC \u00b7 your clock 2026-11-28 00:00:00 UTC (326 d 12 h ahead)'});
  assert.deepEqual(clockText(yours, game), {differ: true,
    text: 'Game time 2026-11-28 00:00:00 UTC \u00b7 your clock 2026-01-05 12:00:00 UTC (326 d 12 h behind)'});
  assert.equal(clockText(game, game + 61).differ, true, 'a minute and a second apart');
  assert.equal(clockText(game, NaN).differ, false, 'no clock to compare with');
});

test("a deadline against the game's time: closed once passed, closes while ahead, never closed and in", () => {
  const day = 86400, at = 1767225600 + 10 * day; // 2026-01-11
  assert.deepEqual(fmtDeadline(at, at - 10 * day, false), {closed: false, text: 'closes 2026-01-11 00:00:00 UTC (in 10 d 0 h)'});
  assert.deepEqual(fmtDeadline(String(at), at + 2 * day, false), {closed: true, text: 'closed 2026-01-11 00:00:00 UTC (2 d 0 h ago)'});
  assert.deepEqual(fmtDeadline(at, at + 2 * day, true), {closed: true, text: 'closed 2026-01-11 00:00:00 UTC (2 d 0 h ago)'});
  assert.deepEqual(fmtDeadline(at, at, false), {closed: true, text: 'closed 2026-01-11 00:00:00 UTC (just now)'});
  // decided before its deadline (the game's time has not reached it): closed, and no "in ..."
  assert.deepEqual(fmtDeadline(at, at - day, true), {closed: true, text: 'closed before its deadline, 2026-01-11 00:00:00 UTC'});
  assert.deepEqual(fmtDeadline('soon', at, false), {closed: false, text: 'closes soon'});
  // every combination: "closed" never with "in", "closes" never with "ago"
  for (const now of [at - day, at - 1, at, at + 1, at + day]) {
    for (const ended of [false, true]) {
      const {closed, text} = fmtDeadline(at, now, ended);
      assert.ok(closed ? /^closed/.test(text) && !/\(in /.test(text) : /^closes/.test(text) && !/ago/.test(text), text);
      assert.equal(closed, ended || at <= now, text);
    }
  }
});

test("how long ago: a time ahead of the reader's clock says so, not \"in ...\"", () => {
  assert.equal(fmtAgo(988, 1000), '12 s ago');
  assert.equal(fmtAgo(1000.5, 1000), 'now');
  assert.equal(fmtAgo(1030, 1000), 'now', 'within a minute: clocks a little apart');
  assert.equal(fmtAgo(1000 + 11 * 86400, 1000), '11 d 0 h ahead of your clock');
  assert.equal(fmtAgo('x', 1000), '');
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
