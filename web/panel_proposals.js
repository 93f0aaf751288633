// panel_proposals.js - the proposals panel: each proposal open for the
// vote with its text, its changes (an amendment as a diff against the rule
// as it stands), its tally and the buttons that vote; the decided ones
// below, folded but the newest.  What to read is proposals.js's.
import {getJSON, objectsOfTypes} from './api.js';
import {lineDiff} from './diff.js';
import {$, append, badge, clause, clear, codeCheckView, h, kvList} from './dom.js';
import {fmtDeadline, present} from './format.js';
import {sendMove} from './panel_move.js';
import {drawReportKinds} from './panel_reports.js';
import {
  badgeKind, groupProposals, openAndDecided, readProposalView, statusOf, tally, viewTypes, voteForm, voteKind, votable,
} from './proposals.js';
import {scamCheckLines} from './scams.js';
import {gameNow, state} from './state.js';

const DECIDED_SHOWN = 10;     // decided proposals listed before "show older"
const DECIDED_UNFOLDED = 3;   // of those, the newest shown whole; the others folded to a line

export async function loadProposals() {
  const settings = await getJSON('api/objects?type=engineSettings');
  drawReportKinds(settings);
  const view = readProposalView(state.game && state.game.proposalView);
  if (!view) {
    const key = 'none';
    if (state.drawn.proposals === key) return;
    state.drawn.proposals = key;
    clear($('proposals')).appendChild(h('p', {class: 'empty'},
      'This game\u2019s set does not say what its proposals look like (no proposalView in its engineSettings): ' +
      'see the objects panel.'));
    return;
  }
  const {types, targetTypes} = viewTypes(view);
  const byType = await objectsOfTypes(types.concat(targetTypes));
  const key = JSON.stringify(byType) + (state.drawn.rules || '') + JSON.stringify(settings) + state.codeByBatch.size +
    ' ' + (state.scamVersion || 0);
  if (state.drawn.proposals === key) return;
  state.drawn.proposals = key;
  state.targets = {};
  for (const t of targetTypes) state.targets[t] = byType[t];
  state.proposalLists = {...openAndDecided(groupProposals(view, byType)), view};
  drawProposals();
}

function drawProposals() {
  const {open, decided, view} = state.proposalLists;
  const root = clear($('proposals'));
  if (open.length === 0) {
    root.appendChild(h('p', {class: 'empty'}, decided.length ? 'No open proposals.' :
      'No proposals: nothing is being voted on.'));
  }
  for (const g of open) root.appendChild(proposalCard(g, view));
  if (decided.length) {
    const shown = Math.min(decided.length, state.decidedShown || DECIDED_SHOWN);
    // decided proposals are folded but the newest few: a long game's page stays short
    const det = h('details', {class: 'decided', open: true, 'data-testid': 'decided'},
      h('summary', null, 'Decided (' + decided.length + ')'));
    decided.slice(0, shown).forEach((g, i) => det.appendChild(proposalCard(g, view, i >= DECIDED_UNFOLDED)));
    if (decided.length > shown) {
      det.appendChild(h('button', {type: 'button', class: 'secondary more', 'data-testid': 'decided-more',
        onclick: () => { state.decidedShown = shown + DECIDED_SHOWN; drawProposals(); }},
      'Show ' + Math.min(DECIDED_SHOWN, decided.length - shown) + ' older of ' + (decided.length - shown)));
    }
    root.appendChild(det);
  }
}

// folded: a decided proposal shown as one line, unfolded on a click
function proposalCard(g, view, folded) {
  const P = view.proposal, main = g.main;
  const label = P.labels[g.status] || g.status || 'pending';
  const author = P.author ? main[P.author] : undefined;
  const title = P.title ? main[P.title] : undefined;
  const head = h('div', {class: 'proposal-head'},
    h('h3', null, 'Proposal ' + g.id),
    badge(label, badgeKind(g.status, P, g.decided)),
    g.polls.map((p) => pollBadge(p)),
    present(author) ? h('span', {class: 'hint'}, 'by ' + author) : null,
    P.ai && present(main[P.ai]) ? h('span', {class: 'hint'}, 'AI ' + main[P.ai]) : null);
  const card = h('article', {class: 'proposal', dataset: {propId: g.id, status: g.status || 'pending'}});
  const body = [];
  if (present(title)) body.push(h('p', {class: 'proposal-title'}, String(title)));
  const closes = closingLine(g, P);
  if (closes) body.push(closes);
  if (P.text && present(main[P.text])) body.push(h('pre', {class: 'proposal-text'}, String(main[P.text])));
  const notes = P.batch && present(main[P.batch]) ? state.codeByBatch.get(String(main[P.batch])) : null;
  if (notes && notes.length) body.push(h('div', {class: 'proposal-code-check'}, codeCheckView(notes)));
  const scams = state.scamByKey.get(String(g.key));
  if (scams) body.push(scamCheckView(scams));
  for (const c of g.changes) body.push(changeView(c, !g.decided));
  const ownChanges = g.changes.filter((c) => !g.objects.includes(c.obj));
  if (!ownChanges.length && P.recordChanges && present(main[P.recordChanges])) {
    // the record the rules kept of the changes, their objects gone once decided
    body.push(h('pre', {class: 'code record'}, String(main[P.recordChanges])));
  }
  if (g.polls.length) for (const p of g.polls) body.push(tallyView(p.ballots, p.def, g, view, p));
  else body.push(tallyView(g.ballots, P, g, view, null));
  const all = g.objects.concat(g.polls.map((p) => p.obj), g.changes.map((c) => c.obj),
    g.ballots.map((b) => b.obj), ...g.polls.map((p) => p.ballots.map((b) => b.obj)));
  const seen = new Set();
  const objs = all.filter((o) => !seen.has(o.objectId) && seen.add(o.objectId));
  body.push(h('details', null, h('summary', null, 'Objects (' + objs.length + ')'), objs.map((o) => kvList(o))));
  if (folded) {
    card.appendChild(h('details', {class: 'folded'}, h('summary', null, head), body));
  } else {
    card.appendChild(head);
    append(card, body);
  }
  return card;
}

// The Mechanics' scam check of the proposal, as if adopted (docs/scams.md):
// a line, or a line per flagged goal with the moves that reach it.
function scamCheckView(entries) {
  const r = scamCheckLines(entries);
  return h('div', {class: 'scam-check' + (r.flagged ? ' flagged' : ''), 'data-testid': 'scam-check',
    dataset: {flagged: String(r.flagged)}},
  r.lines.map(([kind, text]) => h('p', {class: kind === 'bad' ? 'bad' : 'hint'}, text)));
}

function pollBadge(p) {
  const d = p.def, st = statusOf(p.obj, d);
  const outcome = d.outcome ? p.obj[d.outcome] : undefined;
  const text = present(outcome) ? String(outcome) : st;
  return badge(text, badgeKind(text, d, !d.open.includes(st)));
}

function closingLine(g, P) {
  const at = g.polls.length ? g.polls.map((p) => [p.def.closes, p.obj, p.def]).find((x) => x[0] && present(x[1][x[0]])) :
    (P.closes && present(g.main[P.closes]) ? [P.closes, g.main, P] : null);
  if (!at) return null;
  const [attr, obj] = at;
  // against the game's time: a game played ahead of the clock has closed what the clock has not reached
  const d = fmtDeadline(obj[attr], gameNow(), g.decided);
  return h('p', {class: 'meta closes', dataset: {closed: String(d.closed)}}, 'Voting ' + d.text);
}

// The tally by option with the voters' names, and the buttons of the vote
// form while voting is open.
function tallyView(ballots, d, g, view, poll) {
  const out = h('div', {class: 'poll', dataset: poll ? {poll: poll.id} : {}});
  if (poll) out.appendChild(h('p', {class: 'meta'}, 'Decision ' + poll.id));
  const bdef = view.ballots[0] || {};
  const form = voteForm(state.game && state.game.sugar, bdef.form);
  const byOption = tally(ballots, d, g, poll, form ? form.options : []);
  const total = byOption.reduce((n, [, l]) => n + l.length, 0);
  out.appendChild(h('div', {class: 'tally'}, byOption.map(([opt, l]) => badge(opt + ' ' + l.length, voteKind(opt)))));
  if (total) {
    out.appendChild(h('ul', {class: 'votes'}, byOption.map(([opt, l]) => l.map((n) =>
      h('li', {class: voteKind(opt) === 'good' ? 'for' : voteKind(opt) === 'bad' ? 'against' : null, dataset: {voter: n, vote: opt}},
        n + ' ' + opt)))));
  } else {
    out.appendChild(h('p', {class: 'hint'}, g.decided ? 'Nobody voted.' : 'No votes yet.'));
  }
  if (votable(g, d, poll) && form) {
    const what = poll ? poll.id : g.id;
    out.appendChild(h('div', {class: 'vote-buttons'}, h('span', {class: 'hint'}, 'Vote:'),
      form.options.map((opt) => h('button', {
        type: 'button', class: 'vote', dataset: {vote: opt},
        title: 'Send ' + form.keyword + ' ' + what + ' ' + opt + ' under the address (or token) of the move form',
        onclick: () => sendMove(null, form.keyword + ' ' + what + ' ' + opt),
      }, opt))));
  }
  return out;
}

function diffClause(kw, old, now) {
  if (now === undefined || now === '' || now === old) {
    return h('div', {class: 'clause kept'}, h('span', {class: 'kw'}, kw + ' (kept)'), h('pre', {class: 'code'}, old));
  }
  return h('div', {class: 'clause diff'}, h('span', {class: 'kw'}, kw),
    h('pre', {class: 'code diff'}, lineDiff(old, now).map(([op, line]) =>
      h('span', {class: op === '-' ? 'del' : op === '+' ? 'ins' : 'same'}, op + ' ' + line + '\n'))));
}

// One change of a proposal: what it does, then an amendment as a diff
// against the rule as it stands while the vote is open, else its texts.
function changeView(ch, open) {
  const d = ch.def, c = ch.obj;
  const kind = (d.kind && present(c[d.kind])) ? String(c[d.kind]) : 'change';
  const target = d.target ? c[d.target] : undefined;
  const order = d.order ? c[d.order] : undefined;
  const title = h('div', {class: 'change-title'});
  const rule = (d.what ? d.what + ' ' : '') + 'rule';   // suber's "formal rule" beside its texts
  if (present(target)) {
    append(title, [kind + ' ' + rule + ' ', d.in === 'rule' ? h('a', {href: '#rule-' + target}, String(target)) : String(target)]);
    if (present(order)) append(title, [', new order ' + order]);
  } else {
    append(title, [kind + (present(order) ? ' a ' + rule + ', order ' + order : '')]);
  }
  const parts = [title];
  const old = open && d.amend.includes(kind) && present(target) ? targetRule(d, target) : null;
  if (old && d.compare.length) {
    // an amendment, against the rule as it stands; a part it leaves out is kept
    for (const [now, was] of d.compare) parts.push(diffClause(now === was ? now : was, String(old[was] || ''), c[now]));
  } else {
    for (const a of d.show) if (present(c[a])) parts.push(clause(a.replace(/^new/, ''), String(c[a])));
  }
  return h('div', {class: 'change', dataset: {objectId: c.objectId, kind}}, parts);
}

// The object a change targets (d.in whose d.targetKey is target), or null.
function targetRule(d, target) {
  if (d.in === 'rule') return state.rules ? (d.targetKey === 'objectId' ? state.rules.get(String(target)) :
    [...state.rules.values()].find((r) => String(r[d.targetKey]) === String(target))) || null : null;
  return ((state.targets || {})[d.in] || []).find((o) => String(o[d.targetKey]) === String(target)) || null;
}
