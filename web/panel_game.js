// panel_game.js - the masthead (the game's name, state, clock, next timer
// and mail policy), the sugar's forms under the move form, the line
// saying whose moves the form sends, and whether the game mails tokens.
import {getJSON} from './api.js';
import {$, append, clear, h} from './dom.js';
import {clockText, fmtRel, fmtTime} from './format.js';
import {gameNow, state} from './state.js';

export async function loadGame() {
  const g = await getJSON('api/game');
  state.game = g;
  state.clockOffset = Number(g.time) - Date.now() / 1000;
  $('game-name').textContent = g.name || 'Nomic';
  // one of a server's many games (nomic serve DIR): the list is one up
  $('games-link').hidden = !g.site;
  document.title = (g.name || 'Nomic') + ' \u2013 Nomic';
  $('game-event').textContent = String(g.event);
  const st = $('game-state');
  st.textContent = g.halted ? 'halted: game over' : 'running';
  st.className = 'badge ' + (g.halted ? 'bad' : 'good');
  $('game-policy').textContent = g.mailPolicy === 'tokens' ? 'tokens only' : (g.mailPolicy || '?');
  $('game-policy').title = g.mailPolicy === 'tokens' ? 'a move counts only with its sender\u2019s token' :
    'any sender may move';
  $('open-warning').hidden = g.mailPolicy !== 'open';
  drawClock();
  drawSugar(g.sugar || []);
  showWhoami();
  return g;
}

export function drawClock() {
  const g = state.game;
  if (!g) return;
  // the game's time, and the reader's clock beside it when they differ
  const now = gameNow();
  const c = clockText(now, Date.now() / 1000);
  const el = $('game-clock');
  if (el.textContent !== c.text) el.textContent = c.text;
  if (el.dataset.differ !== String(c.differ)) {
    el.dataset.differ = String(c.differ);
    $('game-clock-label').textContent = c.differ ? 'Clocks' : 'Clock';
  }
  const t = $('game-timer');
  clear(t);
  if (g.nextTimer === null || g.nextTimer === undefined) {
    t.textContent = 'none';
  } else {
    append(t, [fmtTime(g.nextTimer), ' ', h('span', {class: 'rel'}, '(' + fmtRel(g.nextTimer, now) + ')')]);
  }
}

function drawSugar(forms) {
  const key = JSON.stringify(forms);
  if (key === state.sugarKey) return;
  state.sugarKey = key;
  const list = clear($('sugar-list'));
  $('sugar').hidden = forms.length === 0;
  for (const form of forms) {
    list.appendChild(h('button', {
      type: 'button', class: 'chip', title: 'Add this line to your move',
      onclick: () => addSugarLine(form),
    }, form));
  }
}

function addSugarLine(form) {
  const ta = $('move-body');
  const before = ta.value.replace(/\s+$/, '');
  const start = before ? before.length + 1 : 0;
  ta.value = (before ? before + '\n' : '') + form;
  ta.focus();
  // select the first word after the keyword: the first thing to fill in
  const m = /^(\S+\s+)(\S+)/.exec(form);
  if (m) ta.setSelectionRange(start + m[1].length, start + m[1].length + m[2].length);
  else ta.setSelectionRange(ta.value.length, ta.value.length);
}

// where the game sends no mail: the words POST /api/token refuses with, first
const NO_MAIL = 'This game sends no mail yet: ask the keeper for your token.';

export function showWhoami() {
  const el = $('whoami');
  const g = state.game;
  el.className = 'hint';
  if (state.token && state.tokenBad) {
    el.className = 'hint bad';
    el.textContent = 'This token is not valid (the server answered 401): you are seen as the public.';
  } else if (state.token && g && g.you) {
    el.textContent = 'Your token is ' + g.you + '\u2019s: moves go under that address.';
  } else if (g && g.mailPolicy === 'tokens' && g.sendsMail === false) {
    el.textContent = NO_MAIL;
  } else if (g && g.mailPolicy === 'tokens') {
    el.textContent = 'This game takes moves only with a token: \u201cMail me my token\u201d has it mailed to your address.';
  } else {
    el.textContent = 'Without a token, moves are sent under the address above: anyone can move under any address in this game.';
  }
  const mail = $('your-mail');
  const you = !!(g && g.you && !state.tokenBad);
  if (mail.hidden === you) mail.hidden = !you;
  showTokenMail(g);
}

// A game whose transport keeps its messages (the outbox) mails nobody: its
// "Mail me my token" could only be refused, so it is not offered, and the
// token field does not say "mailed to you".  index.html's texts are kept
// for when the keeper gives the game a transport.
function showTokenMail(g) {
  const none = !!(g && g.sendsMail === false);
  const btn = $('token-mail'), field = $('move-token');
  if (btn.disabled === none) return;
  if (btn.dataset.mailTitle === undefined) {
    btn.dataset.mailTitle = btn.title;
    field.dataset.mailPlaceholder = field.placeholder;
  }
  btn.disabled = none;
  btn.title = none ? NO_MAIL : btn.dataset.mailTitle;
  field.placeholder = none ? 'from the keeper' : field.dataset.mailPlaceholder;
}
