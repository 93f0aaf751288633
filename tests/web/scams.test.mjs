// What the scams panel offers (web/scams.js): the proposals open to the
// vote as the set declares them, and the ready goals.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {readProposalView} from '../../web/proposals.js';
import {scamCheckLines, scamGoals, scamProposals, scamStepLine, scamStepText} from '../../web/scams.js';
import * as views from './views.mjs';

test('favor: the proposals being voted on, by propId; not those proposed, counted or decided', () => {
  const byType = {
    voteInProgress: [{objectId: '50', type: 'voteInProgress', propId: '41'}],
    voteCompleted: [{objectId: '45', type: 'voteCompleted', propId: '40'}],
    proposal: [{objectId: '55', type: 'proposal', propId: '42'}],
    proposalPassed: [{objectId: '30', type: 'proposalPassed', propId: '39'}],
  };
  assert.deepEqual(scamProposals(readProposalView(views.favor), byType, 'rule'), [{key: '41', id: '41'}]);
});

test('suber: the open proposals, by number', () => {
  const byType = {proposal: [{objectId: '70', type: 'proposal', number: '301', status: 'open'},
    {objectId: '60', type: 'proposal', number: '300', status: 'adopted'}]};
  assert.deepEqual(scamProposals(readProposalView(views.suber), byType, undefined), [{key: '301', id: '301'}]);
});

test('none when the set declares no change to the rules the engine runs', () => {
  const byType = {proposal: [{objectId: '60', type: 'proposal', number: '1', status: 'distributed'}],
    decision: [{objectId: '61', type: 'decision', proposal: '60', number: '1', status: 'open'}]};
  assert.deepEqual(scamProposals(readProposalView(views.agora), byType, 'rule'), [], "agora's changes are to ruleText");
  const suber = {proposal: [{objectId: '70', type: 'proposal', number: '301', status: 'open'}]};
  assert.deepEqual(scamProposals(readProposalView(views.suber), suber, 'formalRule'), []);
  assert.deepEqual(scamProposals(null, {}, 'rule'), []);
});

test("the ready goals: someone wins, each player wins, each scores more than now", () => {
  const goals = scamGoals([{objectId: '7', nickname: 'alice', score: '3'}, {objectId: '8'}]);
  assert.deepEqual(goals, [
    ['someone wins', 'exists(type=="win")'],
    ['alice wins', 'exists(type=="win" & (who=="7" | player=="alice"))'],
    ['alice scores more than now (3)', 'exists(type=="player" & nickname=="alice" & score>3)'],
  ]);
  assert.equal(scamGoals([{objectId: '9', nickname: 'b"o'}])[2][1], 'exists(type=="player" & nickname=="b\\"o" & score>0)');
});

test("a step's moves in the object format, a message's moves apart", () => {
  assert.equal(scamStepText({moves: [{subtype: 'vote', propId: '41'}, {subtype: 'vote', propId: '41'}]}),
    'subtype: vote\npropId: 41\n---\nsubtype: vote\npropId: 41');
});

test('the scam check of a proposal: flagged goals with their steps, else "no goal reached"', () => {
  const win = {proposal: '46', goal: 'win', kind: 'scam', flagged: true, as: 'alice@x', found: true,
    steps: [{from: 'alice@x', time: 1, moves: [{subtype: 'bonus', from: 'carol'}]}]};
  const calm = {proposal: '46', goal: 'twoBallots', kind: 'scam', flagged: false, as: null, found: false};
  const lock = {proposal: '46', goal: 'adoptable', kind: 'lockout', flagged: true, as: 'a@x', found: false};
  const r = scamCheckLines([win, calm]);
  assert.equal(r.flagged, true);
  assert.deepEqual(r.lines, [['bad', 'flagged: win: alice@x can reach it in 1 message: alice@x sends subtype=bonus from=carol']]);
  assert.deepEqual(scamCheckLines([calm]).lines, [['info', 'scam check: no goal reached']]);
  assert.match(scamCheckLines([calm, lock]).lines[0][1], /^flagged: adoptable \(lock-out\)/);
  const spent = {...lock, flagged: false, budgetSpent: true};
  assert.deepEqual(scamCheckLines([spent]).lines, [['info', 'scam check: no goal reached (adoptable: the search ran out of budget)']]);
  assert.equal(scamCheckLines('pending').pending, true);
  assert.equal(scamStepLine({wait: 1768096800}), 'wait until 2026-01-11T02:00:00Z');
});
