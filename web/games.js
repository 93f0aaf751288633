// games.js - the page of a server of many games (`nomic serve DIR`): the
// list of its games from /api/games, each a link to its page at /NAME/,
// refreshed every few seconds (a game made meanwhile appears).

import {$, h} from './dom.js';
import {fmtTime, fmtRel} from './format.js';

const REFRESH_MS = 5000;

function count(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

// One game as a card: its name (a link to its page), its sets, and its
// figures; every text from the server goes in as text, never as HTML.
function gameCard(g, now) {
  const last = g.lastEventAt === null ? 'no event yet' :
    'last event ' + fmtRel(g.lastEventAt, now);
  const open = g.openProposals === null ? null :
    h('div', null, h('dt', {text: 'Open proposals'}), h('dd', {dataset: {testid: 'game-open'}}, String(g.openProposals)));
  return h('li', {class: 'game-card', dataset: {testid: 'game', name: g.name}},
    h('div', {class: 'game-head'},
      h('a', {href: g.path, class: 'game-link', dataset: {testid: 'game-link'}}, g.title),
      g.title !== g.name ? h('span', {class: 'mono hint'}, g.name) : null,
      g.halted ? h('span', {class: 'badge bad', text: 'halted'}) : null),
    h('p', {class: 'hint game-sets'}, g.sets.length ? 'rules: ' + g.sets.join(' + ') : 'no initial set'),
    h('dl', {class: 'facts'},
      h('div', null, h('dt', {text: 'Players'}), h('dd', {dataset: {testid: 'game-players'}}, String(g.players))),
      open,
      h('div', null, h('dt', {text: 'Events'}), h('dd', {dataset: {testid: 'game-event'}}, String(g.event))),
      h('div', null, h('dt', {text: 'Last event'}),
        h('dd', {title: g.lastEventAt === null ? '' : fmtTime(g.lastEventAt)}, last))));
}

async function load() {
  let body;
  try {
    const res = await fetch('api/games', {cache: 'no-store'});
    if (!res.ok) throw new Error('the server answered ' + res.status);
    body = await res.json();
    $('connection').textContent = '';
    $('connection').classList.remove('down');
  } catch (e) {
    $('connection').textContent = 'The server cannot be reached (' + e.message + '); trying again.';
    $('connection').classList.add('down');
    return;
  }
  const games = body.games || [];
  const now = Date.now() / 1000;
  $('games-count').textContent = count(games.length, 'game', 'games');
  $('games-empty').hidden = games.length > 0;
  $('games').replaceChildren(...games.map((g) => gameCard(g, now)));
}

load();
setInterval(load, REFRESH_MS);
