// state.js - what the page's panels share: the game as last read, what
// each panel drew, the remembered address and token, and the one queue
// every refresh and move waits its turn in.
import {gameTime} from './format.js';

export const store = {
  get(k) { try { return localStorage.getItem(k) || ''; } catch (e) { return ''; } },
  set(k, v) { try { if (v) localStorage.setItem(k, v); else localStorage.removeItem(k); } catch (e) { /* private mode */ } },
};

// A token is one game's.  Where one server serves many games, each page at
// /NAME/ on one origin, each keeps its own (a token given on one game's page
// is neither shown on another's nor sent to its API); the page of a server
// of one game, at /, keeps 'nomic.token' as before.  The address is the
// player's, the same in every game.
const here = location.pathname.replace(/[^/]*$/, '');
export const TOKEN_KEY = here === '/' ? 'nomic.token' : 'nomic.token ' + here;

export const state = {
  token: store.get(TOKEN_KEY),
  tokenBad: false,
  game: null,
  clockOffset: 0,         // server clock minus ours, in seconds
  lastEventTime: null,    // the time of the newest event seen (the game's time when ahead of the clock)
  seenEvent: null,        // game.event when the panels were last drawn
  newest: 0,              // newest event in the history list
  oldest: null,           // oldest event in the history list
  historyReady: false,
  drawn: {},              // section -> JSON of what it shows, to redraw only on change
  browseType: null,       // what the objects panel shows (null: nothing)
  sugarKey: '',
  codeByBatch: new Map(), // moveBatch -> the code check's notes, from the events loaded
  scamByKey: new Map(),   // a proposal's key -> its scam check's entries, or 'pending', from the events loaded
  scamPending: new Set(), // the events loaded whose scam check was still running: asked again at each poll
  rules: null,            // objectId -> rule, as the rules panel last drew them
  targets: {},            // type -> the objects amendments are shown against (not rules)
};

// What the entry point fills in: a panel that changes the game asks for
// every panel to be drawn again, without importing them all.
export const hooks = {
  refreshAll: async () => {},
  tokenRefused: () => {},
};

export function serverNow() { return Date.now() / 1000 + state.clockOffset; }

// The game's time now: what relative times on the page are measured against
// (format.js gameTime: the server's clock, or the last event's time if later).
export function gameNow() { return gameTime(serverNow(), state.lastEventTime); }

// One refresh at a time: the poll, a move and a token change take turns.
let chain = Promise.resolve();
export function exclusive(fn) {
  const p = chain.then(fn);
  chain = p.catch(() => {});
  return p;
}
