// panel_reports.js - the reports of `nomic report`: the kinds the set names
// as buttons, and the report asked for, drawn again as the game moves.
import {api} from './api.js';
import {$, clear, h} from './dom.js';
import {exclusive, state} from './state.js';

// The kinds the set names (reportKinds on its engineSettings), as buttons.
export function drawReportKinds(settings) {
  const kinds = [...new Set(settings.map((s) => String(s.reportKinds || '')).join(' ').split(/\s+/).filter(Boolean))];
  const key = kinds.join(' ');
  if (state.drawn.reportKinds === key) return;
  state.drawn.reportKinds = key;
  const list = clear($('report-kinds'));
  for (const k of kinds) {
    list.appendChild(h('button', {type: 'button', class: 'chip', dataset: {kind: k},
      onclick: () => { $('report-kind').value = k; exclusive(() => showReport(k)).catch(() => {}); }}, k));
  }
}

// What `nomic report GAME KIND` prints, from GET api/report/KIND.
export async function showReport(kind) {
  state.reportKind = kind;
  const out = $('report-result');
  let r;
  try {
    r = await api('api/report/' + encodeURIComponent(kind), {allowError: true});
  } catch (e) {
    clear(out).appendChild(h('p', {class: 'empty'}, 'The report could not be asked: ' + (e.message || e)));
    return;
  }
  const b = r.body || {};
  const key = kind + '\n' + JSON.stringify(b);
  if (state.drawn.report === key) return;
  state.drawn.report = key;
  clear(out);
  out.dataset.kind = kind;
  if (!r.ok) {
    out.dataset.status = 'error';
    out.appendChild(h('p', {class: 'hint bad'}, b.error || 'The server answered ' + r.status + '.'));
    return;
  }
  out.dataset.status = 'ok';
  out.appendChild(h('p', {class: 'hint'}, 'Report ' + kind + ', as of event ' + b.event + ':'));
  out.appendChild(h('pre', {class: 'report-text'}, b.text));
}

export function startReports() {
  $('report-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const kind = $('report-kind').value.trim();
    if (kind) exclusive(() => showReport(kind)).catch(() => {});
  });
}
