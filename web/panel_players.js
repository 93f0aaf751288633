// panel_players.js - the players, ranked by score; a score that changed
// since the last drawing flashes.
import {getJSON} from './api.js';
import {$, addressParts, clear, h} from './dom.js';
import {byId, fmtTime, num} from './format.js';
import {state} from './state.js';

// Highest score first (no score last), then by nickname and id.
export function rankOrder(a, b) {
  const x = num(a.score), y = num(b.score);
  const xs = Number.isNaN(x) ? -Infinity : x, ys = Number.isNaN(y) ? -Infinity : y;
  if (xs !== ys) return ys - xs;
  return String(a.nickname || '').localeCompare(String(b.nickname || '')) || byId(a, b);
}

export async function loadPlayers() {
  const players = await getJSON('api/objects?type=player');
  const key = JSON.stringify(players);
  if (state.drawn.players === key) return;
  const before = state.drawn.playersScores || {};
  const scores = {};
  state.drawn.players = key;
  players.sort(rankOrder);
  const tbody = clear($('players').tBodies[0]);
  let rank = 0, last = null;
  players.forEach((p, i) => {
    const s = num(p.score);
    if (i === 0 || s !== last) rank = i + 1;
    last = s;
    const id = p.objectId;
    scores[id] = p.score;
    const changed = before[id] !== undefined && before[id] !== p.score;
    const nick = p.nickname !== undefined ? p.nickname : '(no nickname)';
    const top = players.length > 1 && rank === 1 && !Number.isNaN(s) && s > 0;
    tbody.appendChild(h('tr', {
      class: [top ? 'leader' : '', changed ? 'flash' : ''].join(' ').trim() || null,
      dataset: {nickname: nick, objectId: id},
      title: 'object ' + id + (p.registeredAt ? ', registered ' + fmtTime(p.registeredAt) : ''),
    },
    h('td', {class: 'num rank'}, String(rank)),
    h('td', {class: 'nick'}, nick),
    h('td', {class: 'score'}, p.score !== undefined ? p.score : ''),
    h('td', {class: 'email'}, addressParts(p.defaultEmail || ''))));
  });
  state.drawn.playersScores = scores;
  $('players').hidden = players.length === 0;
  $('players-empty').hidden = players.length !== 0;
}
