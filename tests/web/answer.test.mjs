// A move's answer read to be laid out (web/answer.js): the outcome, the
// reason, why rule by rule, what changed.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {changesOf, readAnswer, whyLine} from '../../web/answer.js';

// as favor answers a vote on a proposal already closed (POST api/move)
const NO_EFFECT = {
  event: 8, status: 'no effect', codeCheck: [], replies: [{to: 'alice@example.org', text: "This move didn't do anything"}],
  message: 'no effect: the rules changed nothing but the move itself\n' +
    '  rule 7 (ruleOrder 30050): `!exists(type=="player" & nickname==%f)` does not hold (with %f="alice")\n' +
    '  rule 31 (ruleOrder 99940): fired in this event, changing nothing but moves (it may have answered)',
  trace: [
    {rule: 6, ruleOrder: '30040', changed: true, changes: [{op: 'set', id: 38, attr: 'from', value: 'alice'}], messages: []},
    {rule: 31, ruleOrder: '99940', changed: true, changes: [{op: 'delete', id: 38}], messages: []},
    {rule: 33, ruleOrder: '99990', changed: false, changes: [], messages: []}],
};

test('no effect: the outcome, the reason as a sentence without its status, why rule by rule', () => {
  const a = readAnswer(NO_EFFECT);
  assert.equal(a.status, 'no effect');
  assert.equal(a.title, 'No effect');
  assert.equal(a.kind, 'info');
  assert.equal(a.reason, 'The rules changed nothing but the move itself.');
  assert.equal(a.firings, 3);
  assert.deepEqual(a.why, [
    {rule: '7', order: '30050', parts: [[true, '!exists(type=="player" & nickname==%f)'], [false, ' does not hold (with %f="alice")']]},
    {rule: '31', order: '99940', parts: [[false, 'fired in this event, changing nothing but moves (it may have answered)']]}]);
  assert.deepEqual(a.changes, [
    {rule: '6', order: '30040', text: '1 value set'},
    {rule: '31', order: '99940', text: '1 object deleted'}]);
});

test('applied without a message: the status says what happened; what changed is counted by firing', () => {
  const a = readAnswer({status: 'applied', message: null, trace: [{rule: 3, ruleOrder: '30010', changed: true, changes: [
    {op: 'create', id: 36}, {op: 'set', id: 36, attr: 'type', value: 'player'}, {op: 'set', id: 36, attr: 'score', value: '0'},
    {op: 'create', id: 37}]}]});
  assert.equal(a.title, 'Applied');
  assert.equal(a.kind, 'good');
  assert.equal(a.reason, 'The rules took the move and changed the game.');
  assert.deepEqual(a.why, []);
  assert.deepEqual(a.changes, [{rule: '3', order: '30010', text: '2 objects created, 2 values set'}]);
});

test('refused: the message is the reason, as it is where it is no sentence', () => {
  assert.equal(readAnswer({status: 'refused', message: "move:2:9: expected ':' after the attribute name"}).reason,
    "move:2:9: expected ':' after the attribute name.");
  const quota = readAnswer({status: 'refused', message: "this game takes moves only with the sender's token: the move was " +
    "not applied (counted in the sender's tally for this hour, not journaled again)", trace: []});
  assert.equal(quota.title, 'Refused');
  assert.equal(quota.kind, 'bad');
  assert.equal(quota.reason, "This game takes moves only with the sender's token: the move was not applied " +
    "(counted in the sender's tally for this hour, not journaled again)");
  assert.equal(readAnswer({status: 'refused'}).reason, 'The move was refused.');
});

test('halted, loop and a status the page does not know', () => {
  assert.equal(readAnswer({status: 'halted', message: null}).title, 'Halted: a rule ended the game');
  assert.equal(readAnswer({status: 'loop', message: null}).kind, 'warn');
  const odd = readAnswer({status: 'received', message: 'queued'});
  assert.equal(odd.title, 'received');
  assert.equal(odd.reason, 'Queued.');
});

test('a line of another form is kept whole; a trace left out (cut) changes nothing', () => {
  assert.deepEqual(whyLine('  the timers ran first'), {rule: null, order: null, parts: [[false, 'the timers ran first']]});
  assert.deepEqual(changesOf(null), []);
  assert.deepEqual(changesOf([{rule: 1, ruleOrder: 1, changed: true, changes: []}]), []);
});
