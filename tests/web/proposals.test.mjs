// The proposals as the page reads them (web/proposals.js): the view the
// server parsed, the proposals grouped with their polls, changes and
// ballots, what is open, the tallies; on the shipped sets' views.
import assert from 'node:assert/strict';
import {test} from 'node:test';
import {
  badgeKind, groupProposals, openAndDecided, openForVote, readProposalView, tally, viewTypes, voteForm, votable,
} from '../../web/proposals.js';
import * as views from './views.mjs';

const favorObjects = () => ({
  voteInProgress: [{objectId: '50', type: 'voteInProgress', propId: '41', from: 'carol@x', expiryTime: '1000'}],
  voteCompleted: [], proposal: [],
  proposalPassed: [{objectId: '30', type: 'proposalPassed', propId: '40', votersFor: 'alice bob', votersAgainst: ''}],
  proposalFailed: [{objectId: '20', type: 'proposalFailed', propId: '39'}],
  changeBeingVotedOn: [{objectId: '51', type: 'changeBeingVotedOn', moveBatch: '41', ruleChangeType: 'amend',
    target: '16', newif: 'true'}],
  changePassed: [],
  vote: [{objectId: '53', type: 'vote', propId: '41', from: 'bob@x', vote: 'FOR'},
    {objectId: '52', type: 'vote', propId: '41', from: 'alice@x', vote: 'AGAINST'}],
});
const FAVOR_SUGAR = ['REGISTER <nickname>', 'VOTE <propId> <vote:FOR|AGAINST>', 'REPEAL <target>'];

test('no view, or one without a proposal line: the page says the set does not declare it', () => {
  assert.equal(readProposalView(null), null);
  assert.equal(readProposalView({proposal: null, polls: [], changes: [], ballots: []}), null);
});

test('a line gets every key the panels read, lists empty and the target key objectId by default', () => {
  const v = readProposalView({proposal: {type: ['p']}, polls: [], changes: [{type: ['c'], of: 'x'}], ballots: []});
  assert.deepEqual(v.proposal.open, []);
  assert.deepEqual(v.proposal.labels, {});
  assert.equal(v.proposal.key, undefined);
  assert.equal(v.changes[0].targetKey, 'objectId');
  assert.deepEqual(v.changes[0].compare, []);
});

test("favor's view: statuses by type, labels, the record of the votes, one change line on rules", () => {
  const v = readProposalView(views.favor);
  assert.deepEqual(v.proposal.types.slice(0, 2), ['voteInProgress', 'voteCompleted']);
  assert.equal(v.proposal.status, 'type');
  assert.equal(v.proposal.labels.voteInProgress, 'voting');
  assert.deepEqual(v.proposal.record, [['FOR', 'votersFor'], ['AGAINST', 'votersAgainst']]);
  assert.equal(v.changes.length, 1);
  assert.equal(v.changes[0].in, 'rule');
  assert.deepEqual(v.changes[0].compare, [['newif', 'if'], ['newthen', 'then']]);
  const {types, targetTypes} = viewTypes(v);
  assert.ok(types.includes('vote') && types.includes('changeBeingVotedOn'));
  assert.deepEqual(targetTypes, [], 'rules come with the rules list');
});

test('favor: the open proposal with its change and ballots, the decided ones newest first', () => {
  const v = readProposalView(views.favor);
  const {open, decided} = openAndDecided(groupProposals(v, favorObjects()));
  assert.deepEqual(open.map((g) => g.id), ['41']);
  assert.deepEqual(decided.map((g) => g.id), ['40', '39']);
  const g = open[0];
  assert.equal(g.status, 'voteInProgress');
  assert.equal(g.changes.length, 1);
  assert.equal(g.ballots.length, 2);
  assert.equal(votable(g, v.proposal, null), true);
  assert.equal(votable(decided[0], v.proposal, null), false);
  assert.deepEqual(openForVote(v, groupProposals(v, favorObjects())), [{key: '41', id: '41'}]);
});

test('a tally: the options of the vote form first, the voters by ballot id; else the record the rules kept', () => {
  const v = readProposalView(views.favor);
  const groups = groupProposals(v, favorObjects());
  const options = voteForm(FAVOR_SUGAR, 'VOTE').options;
  const open = groups.get('41');
  assert.deepEqual(tally(open.ballots, v.proposal, open, null, options), [['FOR', ['bob@x']], ['AGAINST', ['alice@x']]]);
  const passed = groups.get('40');
  assert.deepEqual(tally(passed.ballots, v.proposal, passed, null, options), [['FOR', ['alice', 'bob']], ['AGAINST', []]]);
  const failed = groups.get('39');
  assert.deepEqual(tally(failed.ballots, v.proposal, failed, null, options), [['FOR', []], ['AGAINST', []]]);
  assert.deepEqual(tally([{obj: {objectId: '1'}, vote: 'MAYBE', voter: 'x'}], v.proposal, open, null, []), [['MAYBE', ['x']]],
    'an option the form does not name is counted too');
});

test("suber: a proposal is its own change to a rule's text, its formal change to a rule beside it", () => {
  const v = readProposalView(views.suber);
  const byType = {
    proposal: [{objectId: '70', type: 'proposal', number: '301', status: 'open', proposer: 'bob'},
      {objectId: '60', type: 'proposal', number: '300', status: 'adopted'}],
    formalChange: [{objectId: '71', type: 'formalChange', proposal: '301', change: 'amend', formalTarget: '79'}],
    ballot: [{objectId: '72', type: 'ballot', proposal: '301', player: 'alice', vote: 'FOR'}],
  };
  const groups = groupProposals(v, byType);
  const g = groups.get('301');
  assert.equal(g.decided, false);
  assert.equal(groups.get('300').decided, true, 'a status not open is decided when the set names no decided ones');
  assert.deepEqual(g.changes.map((c) => c.obj.objectId), ['70', '71']);
  assert.equal(g.changes[1].def.what, 'formal');
  assert.deepEqual(g.ballots.map((b) => b.voter + ' ' + b.vote), ['alice FOR']);
  assert.deepEqual(openForVote(v, groups), [{key: '301', id: '301'}]);
});

test("agora: a proposal keyed by objectId, numbered, voted on in its decision (a poll)", () => {
  const v = readProposalView(views.agora);
  const byType = (status) => ({
    proposal: [{objectId: '60', type: 'proposal', number: '1', status: 'distributed', title: 'Hats'}],
    decision: [{objectId: '61', type: 'decision', proposal: '60', number: '1', status}],
    change: [{objectId: '62', type: 'change', proposal: '60', change: 'amend', rule: '2125'}],
    ballot: [{objectId: '63', type: 'ballot', decision: '1', voter: 'alice', vote: 'FOR'}],
  });
  const g = groupProposals(v, byType('open')).get('60');
  assert.equal(g.id, '1');
  assert.equal(g.decided, false);
  assert.equal(g.polls[0].id, '1');
  assert.deepEqual(g.polls[0].ballots.map((b) => b.voter), ['alice'], 'a ballot names its decision');
  assert.equal(votable(g, g.polls[0].def, g.polls[0]), true);
  assert.deepEqual(viewTypes(v).targetTypes, ['ruleText']);
  const resolved = groupProposals(v, byType('resolved')).get('60');
  assert.equal(resolved.decided, true, 'decided once every poll is closed');
  assert.deepEqual(openForVote(v, groupProposals(v, byType('resolved'))), []);
});

test("a status's colour: passed, failed, open, or decided otherwise", () => {
  const P = readProposalView(views.favor).proposal;
  assert.equal(badgeKind('proposalPassed', P, true), 'good');
  assert.equal(badgeKind('proposalFailed', P, true), 'bad');
  assert.equal(badgeKind('voteInProgress', P, false), 'info');
  assert.equal(badgeKind('voteCompleted', P, false), 'warn');
  assert.equal(badgeKind('withdrawn', P, true), 'bad', 'decided and not passed, in a set that names passing');
});

test('the vote form from the sugar: the one the set names, else the first', () => {
  const suber = ['JOIN <nickname> <surname>', 'VOTE <proposal> <vote:FOR|AGAINST>', 'OVERRULE <judgment> <vote:FOR|AGAINST>'];
  assert.deepEqual(voteForm(suber, 'VOTE'), {keyword: 'VOTE', options: ['FOR', 'AGAINST']});
  assert.equal(voteForm(suber).keyword, 'VOTE');
  assert.equal(voteForm(suber, 'OVERRULE').keyword, 'OVERRULE');
  assert.deepEqual(voteForm(['VOTE <decision> <vote:FOR|AGAINST|PRESENT>'], 'VOTE').options, ['FOR', 'AGAINST', 'PRESENT']);
  assert.equal(voteForm(['REGISTER <nickname>'], 'VOTE'), null);
  assert.equal(voteForm(undefined, 'VOTE'), null);
});
