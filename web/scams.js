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
