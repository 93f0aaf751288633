// panel_move.js - the move form: sends moves (and a vote's line from a
// button) under the address or the token, asks for a token by mail, and
// shows the game's answer: status, code check, replies.
import {api} from './api.js';
import {$, append, badge, clear, codeCheckView, h} from './dom.js';
import {TOKEN_KEY, exclusive, hooks, state, store} from './state.js';

// line: a line sent by a button (a vote), not the form's text
export async function sendMove(ev, line) {
  if (ev) ev.preventDefault();
  const from = $('move-from').value.trim();
  const token = $('move-token').value.trim();
  const body = line || $('move-body').value;
  const out = $('move-result');
  setToken(token);
  store.set('nomic.from', from);
  if (!body.trim()) return showResultError('Write a move first: a sugar line such as REGISTER yourname, or objects.');
  if (!token && !from) return showResultError('Give your address (or a token) so the game knows who moves.');
  const btn = $('move-send');
  btn.disabled = true;
  clear(out).className = 'result';
  delete out.dataset.status;
  out.appendChild(h('p', {class: 'hint'}, 'Sending\u2026'));
  try {
    const url = 'api/move' + (token ? '' : '?from=' + encodeURIComponent(from));
    const r = await exclusive(() => api(url, {
      method: 'POST', body, allowError: true, forceToken: true,
      headers: {'Content-Type': 'text/plain; charset=utf-8'},
    }));
    showResult(r);
    if (!line && r.body && r.body.status === 'applied') $('move-body').value = '';
  } catch (e) {
    showResultError('The move could not be sent: ' + (e.message || e));
  } finally {
    btn.disabled = false;
  }
  await exclusive(() => hooks.refreshAll(true)).catch(() => {});
}

// "Mail me my token": the game mails the address a new token (docs/mechanics.md)
async function mailToken() {
  const from = $('move-from').value.trim();
  if (!from) return showResultError('Give your address: the token is mailed there.');
  store.set('nomic.from', from);
  try {
    const r = await exclusive(() => api('api/token?from=' + encodeURIComponent(from), {method: 'POST', allowError: true}));
    if (r.ok && r.body && r.body.message) {
      const out = clear($('move-result'));
      out.className = 'result info';
      out.dataset.status = 'token';
      out.appendChild(h('p', {class: 'message'}, r.body.message.replace(/^TOKEN: /, '')));
    } else {
      showResult(r);
    }
  } catch (e) {
    showResultError('The request could not be sent: ' + (e.message || e));
  }
}

function showResultError(text) {
  const out = clear($('move-result'));
  out.className = 'result error';
  out.dataset.status = 'error';
  out.appendChild(h('div', {class: 'head'}, badge('not sent', 'bad')));
  out.appendChild(h('p', {class: 'message'}, text));
}

function showResult(r) {
  const out = clear($('move-result'));
  const b = r.body || {};
  if (b.status === undefined) {
    out.className = 'result error';
    out.dataset.status = 'error';
    out.appendChild(h('div', {class: 'head'}, badge('error ' + r.status, 'bad')));
    out.appendChild(h('p', {class: 'message'}, b.error || 'The server answered ' + r.status + '.'));
    return;
  }
  const st = String(b.status);
  out.className = 'result ' + st;
  out.dataset.status = st;
  const kind = {applied: 'good', 'no effect': 'info', refused: 'bad', halted: 'warn', loop: 'warn'}[st] || '';
  const trace = Array.isArray(b.trace) ? b.trace : [];
  out.appendChild(h('div', {class: 'head'},
    badge(st, kind),
    b.event !== undefined && b.event !== null ? h('a', {href: '#event-' + b.event}, 'event ' + b.event) : null,
    h('span', {class: 'hint'}, trace.length + (trace.length === 1 ? ' rule firing' : ' rule firings')),
    r.status !== 200 ? h('span', {class: 'hint'}, '(HTTP ' + r.status + ')') : null));
  if (b.message !== null && b.message !== undefined) out.appendChild(h('p', {class: 'message'}, b.message));
  const notes = Array.isArray(b.codeCheck) ? b.codeCheck : [];
  if (notes.length) append(out, codeCheckView(notes));
  const replies = Array.isArray(b.replies) ? b.replies : [];
  out.appendChild(h('h3', null, replies.length ? 'Replies to you' : 'No reply to you'));
  if (replies.length) {
    out.appendChild(h('ul', {class: 'replies'}, replies.map((m) => h('li', null,
      h('div', {class: 'to'}, 'to ' + (m.to || '')),
      h('p', {class: 'text'}, m.text !== undefined ? m.text : '')))));
  }
}

function setToken(token) {
  if (token === state.token) return;
  state.token = token;
  state.tokenBad = false;
  state.drawn = {};            // private attributes may now show, or not
  store.set(TOKEN_KEY, token);
}

export function startMove() {
  $('move-from').value = store.get('nomic.from');
  $('move-token').value = state.token;
  $('move-form').addEventListener('submit', sendMove);
  $('token-mail').addEventListener('click', mailToken);
  $('move-body').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) sendMove(e);
  });
  $('move-from').addEventListener('change', () => store.set('nomic.from', $('move-from').value.trim()));
  $('move-token').addEventListener('change', () => {
    setToken($('move-token').value.trim());
    exclusive(() => hooks.refreshAll(true)).catch(() => {});
  });
}
