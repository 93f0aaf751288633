// app.js - the page of `nomic serve`, its entry point: starts every panel
// and draws them again as the game moves (a poll every few seconds).  Plain
// JavaScript modules, no framework; every text from the game is inserted
// as text, never as HTML (dom.js).  The modules:
//   api.js        the JSON API's client (docs/api.md)
//   state.js      what the panels share, and the queue they take turns in
//   dom.js        building elements
//   format.js, diff.js, proposals.js, scams.js, answer.js
//                 the pure logic, tested with node --test (tests/web/)
//   panel_*.js    one module per panel
import {ApiError, setConnection} from './api.js';
import {drawClock, loadGame, showWhoami} from './panel_game.js';
import {loadNewEvents, startHistory} from './panel_history.js';
import {startMove} from './panel_move.js';
import {loadBrowse, startObjects} from './panel_objects.js';
import {loadOutbox} from './panel_outbox.js';
import {loadPlayers} from './panel_players.js';
import {loadProposals} from './panel_proposals.js';
import {showReport, startReports} from './panel_reports.js';
import {loadRules, startRules} from './panel_rules.js';
import {startScams} from './panel_scams.js';
import {exclusive, hooks, state} from './state.js';

const POLL_MS = 3000;

async function refreshAll(force) {
  const g = await loadGame();
  const more = await loadNewEvents();
  if (force || more || g.event !== state.seenEvent) {
    // an amendment is shown against the rule as it stands: the rules first
    await Promise.all([loadPlayers(), loadRules().then(loadProposals), loadOutbox(), loadBrowse(),
      state.reportKind ? showReport(state.reportKind) : null]);
    state.seenEvent = g.event;
  }
}

async function poll() {
  try {
    await exclusive(() => refreshAll(false));
  } catch (e) {
    if (!(e instanceof ApiError)) setConnection(false);
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

function start() {
  hooks.refreshAll = refreshAll;
  hooks.tokenRefused = showWhoami;
  startMove();
  startRules();
  startHistory();
  startReports();
  startObjects();
  setInterval(drawClock, 1000);
  startScams();
  poll();
}

// a module runs once the document is parsed, as a deferred script did
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
