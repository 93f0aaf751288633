// games.js - the page of a server of many games (`nomic serve DIR`): the
// list of its games from /api/games, each a link to its page at /NAME/,
// refreshed every few seconds (a game made meanwhile appears).  The cards
// are made again only when a game changed, keeping the focus on the link
// it was on; in between only the times since the last events move.

import {$, h} from './dom.js';
import {fmtAgo, fmtTime} from './format.js';

const REFRESH_MS = 5000;
let drawn = null;   // the games last drawn, as JSON

function count(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

function lastEvent(g, now) { return g.lastEventAt === null ? 'none yet' : fmtAgo(g.lastEventAt, now); }

function fact(label, value, testid, title) {
  return h('div', null, h('dt', {text: label}),
    h('dd', {dataset: testid ? {testid} : undefined, title}, value));
}

// One game as a card: its name (a heading, and the link to its page:
// relative, so that it holds under a proxy's prefix), its
// sets, and its figures; every text from the server goes in as text, never
// as HTML.
function gameCard(g, now) {
  return h('li', {class: 'game-card' + (g.halted ? ' halted' : ''), dataset: {testid: 'game', name: g.name}},
    h('div', {class: 'game-head'},
      h('h3', {class: 'game-title'},
        h('a', {href: encodeURIComponent(g.name) + '/', class: 'game-link', dataset: {testid: 'game-link'}}, g.title)),
      g.title !== g.name ? h('span', {class: 'mono hint game-file', title: 'its file: ' + g.name + '.db'}, g.name) : null,
      g.halted ? h('span', {class: 'badge bad', text: 'halted'}) : null),
    h('p', {class: 'hint game-sets', dataset: {testid: 'game-sets'}},
      g.sets.length ? 'rules: ' + g.sets.join(' + ') : 'no initial set'),
    h('dl', {class: 'facts'},
      fact('Players', String(g.players), 'game-players'),
      g.openProposals === null ? null : fact('Open proposals', String(g.openProposals), 'game-open'),
      fact('Events', String(g.event), 'game-event'),
      fact('Last event', lastEvent(g, now), 'game-last', g.lastEventAt === null ? undefined : fmtTime(g.lastEventAt))));
}

function draw(games, now) {
  const key = JSON.stringify(games);
  if (key === drawn) {
    // nothing changed but the time: the cards stay, and the focus with them
    for (const g of games) {
      const dd = document.querySelector(`#games li[data-name="${CSS.escape(g.name)}"] [data-testid="game-last"]`);
      if (dd) dd.textContent = lastEvent(g, now);
    }
    return;
  }
  drawn = key;
  const focused = document.activeElement && document.activeElement.closest('#games li[data-name]');
  const focusName = focused ? focused.dataset.name : null;
  $('games-count').textContent = count(games.length, 'game', 'games');
  $('games-empty').hidden = games.length > 0;
  $('games').hidden = games.length === 0;
  $('games').replaceChildren(...games.map((g) => gameCard(g, now)));
  if (focusName !== null) {
    const link = document.querySelector(`#games li[data-name="${CSS.escape(focusName)}"] a.game-link`);
    if (link) link.focus();
  }
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
  draw(body.games || [], Date.now() / 1000);
}

load();
setInterval(load, REFRESH_MS);
