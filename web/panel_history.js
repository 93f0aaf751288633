// panel_history.js - the events, newest first: each with its moves, the
// messages the rules sent and its trace; the newest hundred at first, the
// older ones on request.
import {getJSON} from './api.js';
import {$, badge, codeCheckView, h} from './dom.js';
import {fmtTime} from './format.js';
import {exclusive, state} from './state.js';

const LOG_LIMIT = 500;        // the API's maximum page
const HISTORY_FIRST = 100;    // events shown on first load; older ones on request

// the game-keeper's events (nomic suspend / resume, a strike's record): the Mechanics', not a player's
const KEEPER_KINDS = {suspend: 1, resume: 1, strike: 1};

function eventView(ev, fresh) {
  const st = String(ev.status || '');
  const stKind = {applied: 'good', 'no effect': 'info', refused: 'bad', halted: 'warn', loop: 'warn', received: 'info'}[st] || '';
  const li = h('li', {
    class: 'event ' + st + (fresh ? ' fresh' : ''), id: 'event-' + ev.event,
    dataset: {event: ev.event, kind: ev.kind || '', status: st},
  },
  h('div', {class: 'event-head'},
    h('span', {class: 'event-no'}, '#' + ev.event),
    badge(ev.kind || '?', ev.kind === 'tick' ? 'info' : KEEPER_KINDS[ev.kind] ? 'warn' : ''),
    badge(st || '?', stKind),
    h('span', {class: 'when', title: String(ev.time)}, fmtTime(ev.time)),
    ev.sender ? h('span', {class: 'sender'}, 'from ' + ev.sender) :
      (ev.kind === 'tick' ? h('span', {class: 'hint'}, 'the clock') :
        KEEPER_KINDS[ev.kind] ? h('span', {class: 'hint'}, 'the game-keeper') : null)));
  if (ev.message !== null && ev.message !== undefined) li.appendChild(h('p', {class: 'message'}, ev.message));
  if (ev.input !== null && ev.input !== undefined) {
    li.appendChild(h('pre', {class: 'code input'}, ev.input.replace(/(\n---)?\s*$/, '')));
  }
  const notes = Array.isArray(ev.codeCheck) ? ev.codeCheck : [];
  if (notes.length) {
    li.appendChild(h('div', {class: 'event-code-check', 'data-testid': 'event-code-check'}, codeCheckView(notes)));
    // the proposal this message made shows them too (its set names its moveBatch: proposalView batch=)
    if (notes[0].moveBatch !== undefined) state.codeByBatch.set(String(notes[0].moveBatch), notes);
  }
  noteScamCheck(ev);
  // a page of the log cuts big moves and leaves out big traces: the whole event is at api/log/N
  if (ev.cut) {
    const what = [];
    if (ev.cut.input) what.push('the moves (' + ev.cut.input + ' bytes) are cut short');
    if (ev.cut.trace) what.push('the trace (' + ev.cut.trace + ' bytes) is left out');
    li.appendChild(h('p', {class: 'hint', 'data-testid': 'event-cut'}, 'In this list ' + what.join(' and ') + ': ',
      h('a', {href: 'api/log/' + ev.event}, 'the whole event')));
  }
  const trace = Array.isArray(ev.trace) ? ev.trace : [];
  const sent = [];
  for (const f of trace) for (const m of f.messages || []) sent.push(m);
  if (sent.length) li.appendChild(sentView(sent));
  const changed = trace.filter((f) => f.changed).length;
  li.appendChild(h('details', {class: 'trace'},
    h('summary', null, 'Trace: ' + (trace.length ? trace.length + (trace.length === 1 ? ' firing' : ' firings') +
      ', ' + changed + ' with changes' : 'no firing')),
    trace.length ? h('ol', {class: 'firings'}, trace.map(firingView)) : h('p', {class: 'hint'}, 'No rule fired.')));
  return li;
}

// The Mechanics' scam check of the proposals the event opened (scamCheck):
// kept by proposal key for the proposals panel; an event whose check still
// runs is asked again at the next poll (loadNewEvents).
function noteScamCheck(ev) {
  const c = ev.scamCheck;
  if (c === undefined || c === null) return;
  if (c === 'pending') {
    state.scamPending.add(Number(ev.event));
    return;
  }
  state.scamPending.delete(Number(ev.event));
  if (!Array.isArray(c)) return;
  const byKey = new Map();
  for (const e of c) {
    const k = String(e.proposal);
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k).push(e);
  }
  for (const [k, l] of byKey) state.scamByKey.set(k, l);
  state.scamVersion = (state.scamVersion || 0) + 1;
}

// The first few messages the rules sent, a line each.
function sentView(sent) {
  const shown = sent.slice(0, 4);
  return h('ul', {class: 'outcome'}, shown.map((m) => {
    const to = String(m.to || '').split(/\s+/).filter(Boolean);
    const first = String(m.text === undefined ? '' : m.text).split('\n')[0];
    return h('li', {title: String(m.text)},
      h('span', {class: 'to', title: to.join(' ')}, to.length === 1 ? 'to ' + to[0] : 'to ' + to.length + ' addresses'),
      ' ', first);
  }), sent.length > shown.length ? h('li', {class: 'hint'}, 'and ' + (sent.length - shown.length) + ' more in the trace') : null);
}

function firingView(f) {
  const bindings = Object.entries(f.bindings || {});
  const changes = f.changes || [];
  const messages = f.messages || [];
  const quiet = !f.changed && !messages.length && !f.error;
  return h('li', {class: 'firing' + (quiet ? ' quiet' : ''), dataset: {rule: f.rule, ruleOrder: f.ruleOrder}},
    h('div', {class: 'firing-head'},
      h('a', {href: '#rule-' + f.rule, class: 'rule-ref'}, 'rule ' + f.rule),
      h('span', {class: 'order'}, 'order ' + f.ruleOrder),
      f.changed ? null : badge('no change'),
      f.error ? badge('error', 'bad') : null),
    f.error ? h('div', {class: 'error-text'}, String(f.error)) : null,
    bindings.length ? h('div', {class: 'bindings'}, bindings.map(([k, v]) => h('code', null, '%' + k + ' = ' + v))) : null,
    changes.length ? h('ul', {class: 'changes'}, changes.map((c) => h('li', null, changeText(c)))) : null,
    messages.length ? h('ul', {class: 'messages'}, messages.map((m) =>
      h('li', null, 'to ' + (m.to || '?') + ': ' + (m.text !== undefined ? m.text : '')))) : null);
}

function changeText(c) {
  const id = c.id !== undefined ? '#' + c.id : '';
  if (c.op === 'set') return 'set ' + id + ' ' + c.attr + ' = ' + (c.value === null || c.value === undefined ? '(none)' : c.value);
  if (c.op === 'create' || c.op === 'delete') return c.op + ' ' + id;
  return Object.entries(c).map(([k, v]) => k + '=' + v).join(' ');
}

function placeEvent(ev, fresh) {
  const list = $('history');
  const node = eventView(ev, fresh);
  const old = document.getElementById('event-' + ev.event);
  if (old && old.parentNode === list) { list.replaceChild(node, old); return; }
  // keep newest first, whatever order the events arrive in
  let before = null;
  for (const li of list.children) {
    if (Number(li.dataset.event) < Number(ev.event)) { before = li; break; }
  }
  list.insertBefore(node, before);
}

// The events since the newest shown; true when there was any.
export async function loadNewEvents() {
  let any = false;
  if (!state.historyReady) {
    const last = state.game ? Number(state.game.event) || 0 : 0;
    state.newest = Math.max(0, last - HISTORY_FIRST);
    state.oldest = state.newest + 1;
  }
  for (;;) {
    const evs = await getJSON('api/log?since=' + state.newest + '&limit=' + LOG_LIMIT);
    for (const ev of evs) {
      placeEvent(ev, state.historyReady);
      if (Number.isFinite(Number(ev.time))) state.lastEventTime = Math.max(state.lastEventTime ?? -Infinity, Number(ev.time));
      state.newest = Math.max(state.newest, Number(ev.event));
      any = true;
    }
    if (evs.length < LOG_LIMIT) break;
  }
  // the checks that were running when their events were read
  for (const n of [...state.scamPending]) {
    const ev = await getJSON('api/log/' + n);
    if (ev && ev.scamCheck !== 'pending') { placeEvent(ev, false); any = true; }
  }
  const first = $('history').lastElementChild;
  if (first) state.oldest = Number(first.dataset.event);
  state.historyReady = true;
  drawHistoryFoot();
  return any;
}

async function loadOlderEvents() {
  const btn = $('history-older');
  btn.disabled = true;
  try {
    const upto = state.oldest;     // exclusive
    const since = Math.max(0, upto - 1 - HISTORY_FIRST);
    const evs = await getJSON('api/log?since=' + since + '&limit=' + LOG_LIMIT);
    for (const ev of evs) if (Number(ev.event) < upto) placeEvent(ev, false);
    state.oldest = since + 1;
    const last = $('history').lastElementChild;
    if (last) state.oldest = Math.min(state.oldest, Number(last.dataset.event));
    if (since === 0) state.oldest = 1;
  } finally {
    btn.disabled = false;
    drawHistoryFoot();
  }
}

function drawHistoryFoot() {
  const n = $('history').children.length;
  $('history-empty').hidden = n !== 0;
  $('history-older').hidden = !(state.oldest > 1);
}

export function startHistory() {
  $('history-older').addEventListener('click', () => exclusive(loadOlderEvents).catch(() => {}));
}
