// scams.js - what the "what does this open up?" panel offers, read from
// what the set declares and the state as it stands: pure functions (no
// DOM), tested by tests/web/scams.test.mjs.
import {num} from './format.js';
import {groupProposals, openForVote} from './proposals.js';

// The proposals a search can play as if adopted: those open to the vote
// (proposalView's `open`, or its polls'), when the view declares changes
// to the rules the engine runs (a `change` line whose `in` is runType:
// what `nomic scams --proposal` applies, docs/scams.md).  Each is
// {key, id}: the key the search takes, the number the page shows.
export function scamProposals(view, byType, runType) {
  if (!view || !view.changes.some((c) => c.in === (runType || 'rule'))) return [];
  const seen = new Set();
  return openForVote(view, groupProposals(view, byType)).filter((p) => !seen.has(p.key) && seen.add(p.key));
}

// Ready goals, from the players as they stand: [[label, condition]...].  A
// win names the player by objectId (who) in some sets, by nickname
// (player) in others: the condition takes either.
export function scamGoals(players) {
  const q = (t) => JSON.stringify(String(t));
  const goals = [['someone wins', 'exists(type=="win")']];
  for (const p of players.filter((x) => x.nickname !== undefined)) {
    goals.push([p.nickname + ' wins', 'exists(type=="win" & (who==' + q(p.objectId) + ' | player==' + q(p.nickname) + '))']);
    goals.push([p.nickname + ' scores more than now (' + (p.score || 0) + ')',
      'exists(type=="player" & nickname==' + q(p.nickname) + ' & score>' + (num(p.score) || 0) + ')']);
  }
  return goals;
}

// One step of an answer as the panel writes it: a wait, or a message's
// moves in the object format.
export function scamStepText(st) {
  return st.moves.map((m) => Object.keys(m).map((k) => k + ': ' + m[k]).join('\n')).join('\n---\n');
}

// The Mechanics' scam check of a proposal (docs/scams.md, "The check of
// every proposal"): its entries (scamCheck in the log), as lines to show.
// {flagged, lines}: lines is [[kind, text]...], kind 'bad' for a flagged
// goal, 'info' else.  A scam goal is flagged when found (its steps
// given); a lock-out goal when not found though searched to its depth.
export function scamCheckLines(entries) {
  if (entries === 'pending') return {flagged: false, pending: true, lines: [['info', 'scam check: running']]};
  const list = Array.isArray(entries) ? entries : [];
  const lines = [];
  for (const e of list) {
    const goal = String(e.goal || '?');
    if (e.error) {
      lines.push(['info', 'scam check of ' + goal + ': not run: ' + e.error]);
    } else if (e.flagged && e.kind === 'lockout') {
      lines.push(['bad', 'flagged: ' + goal + ' (lock-out): not reachable by the players together within ' +
        'the search, once this passes']);
    } else if (e.flagged) {
      const steps = (e.steps || []).map(scamStepLine);
      lines.push(['bad', 'flagged: ' + goal + ': ' + (e.as || 'a player') + ' can reach it in ' +
        steps.length + (steps.length === 1 ? ' message' : ' messages') + (steps.length ? ': ' + steps.join('; ') : '')]);
    }
  }
  const flagged = lines.some(([k]) => k === 'bad');
  if (!flagged && list.length) {
    const unsure = list.filter((e) => !e.error && e.budgetSpent && e.kind === 'lockout').map((e) => e.goal);
    lines.unshift(['info', 'scam check: no goal reached' + (unsure.length ?
      ' (' + unsure.join(', ') + ': the search ran out of budget)' : '')]);
  }
  return {flagged, pending: false, lines};
}

// One step, on one line: "alice@x sends subtype=bonus from=carol", or a wait.
export function scamStepLine(st) {
  if (st.wait !== undefined) return 'wait until ' + new Date(Number(st.wait) * 1000).toISOString().replace('.000Z', 'Z');
  return String(st.from) + ' sends ' + (st.moves || []).map((m) => Object.keys(m).map((k) => k + '=' + m[k]).join(' '))
    .join(' + ');
}
