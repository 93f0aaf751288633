// panel_scams.js - "What does this open up?" (POST api/scams): the search of
// `nomic scams` on the game as it stands, or as if an open proposal were
// adopted, for a goal written or picked from the ready ones.
import {api, getJSON, objectsOfTypes} from './api.js';
import {$, clear, h} from './dom.js';
import {fmtTime} from './format.js';
import {readProposalView, viewTypes} from './proposals.js';
import {scamGoals, scamProposals, scamStepText} from './scams.js';
import {store} from './state.js';

// The open proposals the set declares, and the ready goals.
async function loadScamChoices() {
  const [game, settings, players] = await Promise.all(['api/game', 'api/objects?type=engineSettings',
    'api/objects?type=player'].map(getJSON));
  const view = readProposalView(game.proposalView);
  const runType = settings.map((s) => s.runType).filter(Boolean).pop();
  const byType = view ? await objectsOfTypes(viewTypes(view).types) : {};
  const pick = $('scams-proposal');
  const was = pick.value;
  while (pick.options.length > 1) pick.remove(1);
  for (const p of scamProposals(view, byType, runType)) pick.appendChild(h('option', {value: p.key}, 'proposal ' + p.id));
  if ([...pick.options].some((o) => o.value === was)) pick.value = was;
  const ready = $('scams-ready');
  while (ready.options.length > 1) ready.remove(1);
  for (const [label, goal] of scamGoals(players)) ready.appendChild(h('option', {value: goal}, label));
}

function scamStepView(st, i) {
  if (st.wait !== undefined) return h('li', null, 'wait until ' + fmtTime(st.wait));
  return h('li', null, 'message ' + (i + 1) + ' from ' + st.from + ' at ' + fmtTime(st.time), h('pre', null, scamStepText(st)));
}

function showAnswer(out, r) {
  const a = r.body || {};
  if (!r.ok) {
    out.classList.add('error');
    out.appendChild(h('p', {class: 'message'}, a.error || 'HTTP ' + r.status));
  } else if (a.found && a.steps.length === 0) {
    out.classList.add('applied');
    out.appendChild(h('p', {class: 'message'}, 'The goal holds already: no move is needed.'));
  } else if (a.found) {
    out.classList.add('refused');
    out.appendChild(h('p', {class: 'message', 'data-testid': 'scams-found'},
      'Found: ' + a.steps.length + ' step' + (a.steps.length === 1 ? '' : 's') + ' reach the goal (' +
      a.explored + ' states explored).'));
    out.appendChild(h('ol', {class: 'scam-steps'}, a.steps.map(scamStepView)));
  } else {
    out.classList.add('applied');
    out.appendChild(h('p', {class: 'message', 'data-testid': 'scams-none'},
      'None within depth ' + $('scams-depth').value + ' (' + a.explored + ' states explored)' +
      (a.budgetSpent ? '; the budget ran out before every sequence was tried.' : '.')));
  }
}

async function searchScams(ev) {
  ev.preventDefault();
  const out = clear($('scams-result'));
  out.className = 'result';
  const goal = $('scams-goal').value.trim();
  const as = $('scams-as').value.trim() || $('move-from').value.trim();
  if (!as || !goal) {
    out.classList.add('error');
    out.appendChild(h('p', {class: 'message'}, 'Give an address and a goal.'));
    return;
  }
  const form = new URLSearchParams({as, goal, depth: $('scams-depth').value, proposal: $('scams-proposal').value});
  // accomplices, as typed: the server splits them at commas and spaces
  // and says which one is not an address (docs/api.md)
  const withs = $('scams-with').value.trim();
  if (withs) form.append('with', withs);
  $('scams-go').disabled = true;
  out.appendChild(h('p', {class: 'message'}, 'Searching\u2026'));
  try {
    const r = await api('api/scams', {method: 'POST', body: form, allowError: true,
      headers: {'Content-Type': 'application/x-www-form-urlencoded'}});
    clear(out);
    showAnswer(out, r);
  } catch (e) {
    clear(out).appendChild(h('p', {class: 'message'}, 'Could not search: ' + e.message));
    out.classList.add('error');
  } finally {
    $('scams-go').disabled = false;
  }
}

export function startScams() {
  $('scams-form').addEventListener('submit', searchScams);
  $('scams-ready').addEventListener('change', () => {
    if ($('scams-ready').value) $('scams-goal').value = $('scams-ready').value;
  });
  const refresh = () => loadScamChoices().catch(() => {});
  $('scams-proposal').addEventListener('focus', refresh);
  $('scams-ready').addEventListener('focus', refresh);
  if (!$('scams-as').value) $('scams-as').value = store.get('nomic.from');
  refresh();
}
