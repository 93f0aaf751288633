// panel_move.js - the move form: sends moves (and a vote's line from a
// button) under the address or the token, asks for a token by mail, and
// shows the game's answer: status, code check, replies.
import {api} from './api.js';
import {readAnswer} from './answer.js';
import {$, clear, codeCheckView, h} from './dom.js';
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
      outcomeHead(out, 'token', 'Token requested', 'info');
      out.className = 'result info';
      reasonPara(out, r.body.message.replace(/^TOKEN: /, ''));
    } else {
      showResult(r);
    }
  } catch (e) {
    showResultError('The request could not be sent: ' + (e.message || e));
  }
}

// The answer as a player reads it, top to bottom, each part its own block:
// the outcome (a heading with its badge), the reason (a paragraph), then
// why rule by rule, what changed, the replies and the code check.
function outcomeHead(out, status, title, kind, facts) {
  out.className = 'result ' + status.replace(/\s+/g, '-');
  out.dataset.status = status;
  out.appendChild(h('div', {class: 'answer-head'},
    h('h3', {class: 'answer-outcome badge' + (kind ? ' ' + kind : ''), 'data-testid': 'answer-outcome'}, title),
    facts && facts.length ? h('p', {class: 'answer-facts hint'}, facts) : null));
}

function reasonPara(out, text) {
  if (text) out.appendChild(h('p', {class: 'answer-reason', 'data-testid': 'answer-reason'}, text));
}

function block(name, heading, ...content) {
  return h('section', {class: 'answer-part answer-' + name, 'data-testid': 'answer-' + name}, h('h4', null, heading), content);
}

function showResultError(text) {
  const out = clear($('move-result'));
  outcomeHead(out, 'error', 'Not sent', 'bad');
  reasonPara(out, text);
}

function showResult(r) {
  const out = clear($('move-result'));
  const b = r.body || {};
  if (b.status === undefined) {
    outcomeHead(out, 'error', 'Error ' + r.status, 'bad');
    reasonPara(out, b.error || 'The server answered ' + r.status + '.');
    return;
  }
  const a = readAnswer(b);
  const facts = [];
  const sep = () => { if (facts.length) facts.push(' \u00b7 '); };
  if (b.event !== undefined && b.event !== null && Number(b.event) > 0) facts.push(h('a', {href: '#event-' + b.event}, 'event ' + b.event));
  sep(); facts.push(a.firings + (a.firings === 1 ? ' rule firing' : ' rule firings'));
  if (r.status !== 200) { sep(); facts.push('HTTP ' + r.status); }
  outcomeHead(out, a.status, a.title, a.kind, facts);
  reasonPara(out, a.reason);
  if (a.why.length) {
    out.appendChild(block('why', 'Why, rule by rule', h('ul', {class: 'answer-list why'}, a.why.map((w) => h('li', null,
      w.rule !== null ? [h('a', {href: '#rule-' + w.rule}, 'rule ' + w.rule), ' ', h('span', {class: 'order'}, 'order ' + w.order), ': '] : null,
      w.parts.map(([code, t]) => code ? h('code', null, t) : t))))));
  }
  if (a.changes.length) {
    out.appendChild(block('changes', 'What changed', h('ul', {class: 'answer-list'}, a.changes.map((c) => h('li', null,
      h('a', {href: '#rule-' + c.rule}, 'rule ' + c.rule), ' ', h('span', {class: 'order'}, 'order ' + c.order), ': ', c.text)))));
  }
  const replies = Array.isArray(b.replies) ? b.replies : [];
  out.appendChild(block('replies', replies.length ? 'Replies to you' : 'No reply to you', replies.length ?
    h('ul', {class: 'replies'}, replies.map((m) => h('li', null,
      h('div', {class: 'to'}, 'to ' + (m.to || '')),
      h('p', {class: 'text'}, m.text !== undefined ? m.text : '')))) : null));
  const notes = Array.isArray(b.codeCheck) ? b.codeCheck : [];
  if (notes.length) out.appendChild(h('section', {class: 'answer-part answer-code-check', 'data-testid': 'answer-code-check'},
    codeCheckView(notes, 'h4')));
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
