// proposals.js - a set's proposals as the page reads them: the set's
// proposalView, the proposals grouped with their polls, changes and
// ballots, their state and their tallies.  Pure functions of what the API
// answered (no DOM), tested by tests/web/proposals.test.mjs.
import {byId, num, present} from './format.js';

// What a set's proposals look like is the set's to say: the proposalView
// attribute of its engineSettings (docs/api.md, "What the page reads of a
// set"), one line per role, each line words KEY=VALUE:
//   proposal type=T,.. id=A,.. key=A author=A title=A text=A status=A|type batch=A
//            open=S,.. decided=S,.. passed=S,.. failed=S,.. labels=S:L,..
//            closes=A record=OPTION:A,.. recordChanges=A ai=A
//   poll     type=T of=A id=A status=A open=S,.. outcome=A passed=S,.. closes=A
//   change   type=T,.. of=A kind=A target=A amend=K,.. in=T key=A what=WORD
//            compare=NEW:OLD,.. show=A,.. order=A
//   ballot   type=T of=A voter=A vote=A form=KEYWORD
// A change's `of` names its proposal's key; a ballot's names its poll's id
// when the set has polls (Agora's decisions), else its proposal's key.
// The server reads it (src/scams_proposal.c, which `nomic scams --proposal`
// reads it with too) and gives it parsed in GET api/game's proposalView:
// each line an object of its words, its lists as arrays, its pairs as
// [A, B] arrays; null when the set declares no proposal.  Here each line
// gets every key the panels read, and its defaults.
export function readProposalView(pv) {
  if (!pv || !pv.proposal) return null;
  return {proposal: viewEntry(pv.proposal), polls: (pv.polls || []).map(viewEntry),
    changes: (pv.changes || []).map(viewEntry), ballots: (pv.ballots || []).map(viewEntry)};
}

function viewEntry(d) {
  const list = (k) => (Array.isArray(d[k]) ? d[k] : []);
  return {
    types: list('type'), ids: list('id'), key: d.key, of: d.of, author: d.author, title: d.title, text: d.text,
    status: d.status, open: list('open'), decided: list('decided'), passed: list('passed'), failed: list('failed'),
    labels: Object.fromEntries(list('labels')), closes: d.closes, record: list('record'),
    recordChanges: d.recordChanges, ai: d.ai, outcome: d.outcome, kind: d.kind, target: d.target,
    amend: list('amend'), in: d.in, targetKey: d.key || 'objectId', compare: list('compare'), show: list('show'),
    order: d.order, voter: d.voter, vote: d.vote, form: d.form, batch: d.batch, what: d.what,
  };
}

// Every type the view names, and the types of the rules its changes are
// shown against (`rule` objects come with the rules list).
export function viewTypes(view) {
  const types = [].concat(view.proposal.types, ...view.polls.map((p) => p.types), ...view.changes.map((c) => c.types),
    ...view.ballots.map((b) => b.types));
  const targetTypes = view.changes.map((c) => c.in).filter((t) => t && t !== 'rule');
  return {types, targetTypes};
}

export function firstOf(o, attrs) {
  for (const a of attrs) if (present(o[a])) return String(o[a]);
  return '';
}

export function statusOf(o, d) { return d.status === 'type' ? o.type : (d.status ? String(o[d.status] || '') : ''); }

// The proposals of the set, each with its polls, changes and ballots:
// byType maps each type of viewTypes() to its objects.
export function groupProposals(view, byType) {
  const P = view.proposal;
  const groups = new Map();
  const keyAttr = P.key || P.ids[0] || 'objectId';
  for (const t of P.types) {
    for (const o of byType[t] || []) {
      const k = String(present(o[keyAttr]) ? o[keyAttr] : o.objectId);
      if (!groups.has(k)) groups.set(k, {key: k, main: o, objects: [], polls: [], changes: [], ballots: []});
      groups.get(k).objects.push(o);
    }
  }
  const pollsById = new Map();
  for (const d of view.polls) {
    for (const t of d.types) {
      for (const o of byType[t] || []) {
        const g = groups.get(String(o[d.of]));
        if (!g) continue;
        const poll = {def: d, obj: o, id: firstOf(o, d.ids) || String(o.objectId), ballots: []};
        g.polls.push(poll);
        pollsById.set(poll.id, poll);
      }
    }
  }
  for (const d of view.changes) {
    for (const t of d.types) {
      for (const o of byType[t] || []) {
        const g = groups.get(String(o[d.of]));
        if (g) g.changes.push({def: d, obj: o});
      }
    }
  }
  for (const d of view.ballots) {
    for (const t of d.types) {
      for (const o of byType[t] || []) {
        const b = {def: d, obj: o, voter: String(o[d.voter] || '?'), vote: String(o[d.vote] || '?')};
        if (view.polls.length) {
          const poll = pollsById.get(String(o[d.of]));
          if (poll) poll.ballots.push(b);
        } else {
          const g = groups.get(String(o[d.of]));
          if (g) g.ballots.push(b);
        }
      }
    }
  }
  for (const g of groups.values()) {
    g.id = firstOf(g.main, P.ids) || String(g.main.objectId);
    g.status = statusOf(g.main, P);
    const pollOpen = g.polls.some((p) => p.def.open.includes(statusOf(p.obj, p.def)));
    if (P.decided.length) g.decided = P.decided.includes(g.status);
    else if (view.polls.length) g.decided = g.polls.length > 0 && !pollOpen;
    else g.decided = P.open.length > 0 && !P.open.includes(g.status);
  }
  return groups;
}

// The groups as the page lists them: open and decided, newest first.
export function openAndDecided(groups) {
  const open = [], decided = [];
  for (const g of groups.values()) (g.decided ? decided : open).push(g);
  const desc = (a, b) => (num(b.id) - num(a.id)) || (a.id < b.id ? 1 : -1);
  open.sort(desc);
  decided.sort(desc);
  return {open, decided};
}

// Is a poll (or, with none, the proposal) voted on now?
export function votable(g, d, poll) {
  return poll ? poll.def.open.includes(statusOf(poll.obj, poll.def)) : !g.decided && d.open.includes(g.status);
}

// The proposals open to the vote, each with its key (what its changes name
// it by) and its number.
export function openForVote(view, groups) {
  const out = [];
  for (const g of groups.values()) {
    const open = g.polls.length ? g.polls.some((p) => votable(g, p.def, p)) : votable(g, view.proposal, null);
    if (open) out.push({key: g.key, id: g.id});
  }
  return out;
}

// The colour of a status: passed, failed, open, or decided otherwise.
export function badgeKind(status, d, decided) {
  if (d.passed.includes(status)) return 'good';
  if (d.failed.includes(status)) return 'bad';
  if (d.open.includes(status)) return 'info';
  if (decided && d.passed.length) return 'bad';
  return decided ? '' : 'warn';
}

// The set's vote form from its sugar: KEYWORD <what> <name:OPT|OPT...>;
// the one named by keyword when the set names it, else the first such.
export function voteForm(sugar, keyword) {
  for (const form of sugar || []) {
    const m = /^(\S+)\s+<[^>:]+>\s+<[^>:]+:([^>]+)>\s*$/.exec(form);
    if (m && (!keyword || m[1] === keyword)) return {keyword: m[1], options: m[2].split('|').filter((o) => o)};
  }
  return null;
}

// The voters by option, [[OPTION, [voter...]]...]: the vote form's options
// first, from the ballots while they stand, else from the record the rules
// kept of a proposal (record=OPTION:ATTR on its main object).
export function tally(ballots, d, g, poll, options) {
  const byOption = new Map((options || []).map((o) => [o, []]));
  const add = (opt, voter) => {
    if (!byOption.has(opt)) byOption.set(opt, []);
    byOption.get(opt).push(voter);
  };
  const recorded = (poll ? [] : d.record || []).filter(([, attr]) => present(g.main[attr]));
  if (ballots.length) {
    for (const b of ballots.slice().sort((x, y) => byId(x.obj, y.obj))) add(b.vote, b.voter);
  } else if (recorded.length) {
    for (const [opt, attr] of recorded) for (const n of String(g.main[attr]).split(/\s+/).filter(Boolean)) add(opt, n);
  }
  return [...byOption];
}

// An option's colour: for, against, or neither.
export function voteKind(opt) {
  return /^(FOR|YES|AYE)$/i.test(opt) ? 'good' : /^(AGAINST|NO|NAY)$/i.test(opt) ? 'bad' : '';
}
