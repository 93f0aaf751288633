// panel_rules.js - the rules in force, each with its order, its parts and
// its error; a filter, the first few until "Show all", and a rule linked
// to (#rule-N) shown whatever the filter.
import {getJSON} from './api.js';
import {$, clause, clear, h} from './dom.js';
import {state} from './state.js';

const RULES_SHOWN = 12;       // rules listed (with no filter) before "Show all"
const RULES_SHOWN_PHONE = 5;  // the same on a narrow screen, where a rule is taller
export const PHONE = window.matchMedia('(max-width: 600px)');

const RULE_SHOWN = {objectId: 1, type: 1, ruleOrder: 1, if: 1, then: 1, comment: 1, error: 1};

export async function loadRules() {
  const rules = await getJSON('api/rules');
  // the rules the game-keeper set aside (api/game): the engine skips them
  const suspended = new Set(((state.game && state.game.suspended) || []).map(String));
  const key = JSON.stringify(rules) + [...suspended].join(' ');
  if (state.drawn.rules === key) return;
  state.drawn.rules = key;
  state.rules = new Map(rules.map((r) => [String(r.objectId), r]));
  const root = clear($('rules'));
  if (!rules.length) root.appendChild(h('p', {class: 'empty'}, 'This game has no rules (yet).'));
  for (const r of rules) root.appendChild(ruleCard(r, suspended.has(String(r.objectId))));
  filterRules();
  showLinkedRule();
}

function ruleCard(r, off) {
  const err = r.error !== null && r.error !== undefined;
  const extra = Object.keys(r).filter((k) => !RULE_SHOWN[k]);
  return h('article', {
    class: 'rule' + (err ? ' has-error' : '') + (off ? ' suspended' : ''), id: 'rule-' + r.objectId,
    dataset: {ruleId: r.objectId, ruleOrder: r.ruleOrder !== undefined ? r.ruleOrder : ''},
  },
  h('div', {class: 'rule-head'},
    h('span', {class: 'rule-id'}, 'Rule ' + r.objectId),
    h('span', {class: 'rule-order', title: 'ruleOrder'}, 'order ' + (r.ruleOrder !== undefined ? r.ruleOrder : '(none)')),
    err ? h('span', {class: 'badge bad error-badge', title: String(r.error)}, 'error') : null,
    off ? h('span', {class: 'badge warn suspended-badge', 'data-testid': 'rule-suspended',
      title: 'set aside by the game-keeper (nomic suspend): the engine skips it until it is resumed'}, 'suspended') : null),
  clause('if', r.if !== undefined ? r.if : ''),
  clause('then', r.then !== undefined ? r.then : ''),
  r.comment !== undefined ? h('p', {class: 'comment'}, r.comment) : null,
  err ? h('p', {class: 'error-text'}, String(r.error)) : null,
  extra.length ? h('dl', {class: 'kv extra'}, extra.map((k) =>
    h('div', {class: 'kv-row'}, h('dt', null, k), h('dd', null, r[k])))) : null);
}

// The rules matching the filter; without one, the first RULES_SHOWN until
// "Show all" (a long game's page stays short).
export function filterRules() {
  const q = $('rules-filter').value.trim().toLowerCase();
  const limit = PHONE.matches ? RULES_SHOWN_PHONE : RULES_SHOWN;
  let shown = 0, total = 0, matching = 0;
  for (const card of $('rules').querySelectorAll('article.rule')) {
    total++;
    const match = !q || card.textContent.toLowerCase().includes(q);
    if (match) matching++;
    const ok = match && (q || state.rulesAll || matching <= limit || card.id === state.ruleWanted);
    card.hidden = !ok;
    if (ok) shown++;
  }
  $('rules-count').textContent = shown < total ? shown + ' of ' + total + ' rules' : total + ' rules';
  const more = $('rules-all');
  more.hidden = !!q || state.rulesAll || matching <= limit;
  more.textContent = 'Show all ' + total + ' rules';
}

// A link to a rule (#rule-N) shows it even when it is past the first ones.
export function showLinkedRule() {
  const m = /^#(rule-\S+)$/.exec(location.hash);
  if (!m) return;
  const card = document.getElementById(m[1]);
  if (!card || !card.hidden) return;
  state.ruleWanted = m[1];
  $('rules-filter').value = '';
  filterRules();
  card.scrollIntoView();
}

export function startRules() {
  $('rules-filter').addEventListener('input', filterRules);
  $('rules-all').addEventListener('click', () => { state.rulesAll = true; filterRules(); });
  window.addEventListener('hashchange', showLinkedRule);
  PHONE.addEventListener('change', filterRules);
}
