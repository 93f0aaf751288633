// panel_objects.js - the objects of a type (or all), a table per type.
import {getJSON} from './api.js';
import {$, clear, h} from './dom.js';
import {exclusive, state} from './state.js';

async function loadTypes() {
  try {
    const all = await getJSON('api/objects');
    const types = [...new Set(all.map((o) => o.type).filter(Boolean))].sort();
    const dl = clear($('browse-types'));
    for (const t of types) dl.appendChild(h('option', {value: t}));
  } catch (e) { /* the list is only a convenience */ }
}

export async function loadBrowse() {
  if (state.browseType === null) return;
  const t = state.browseType;
  const objs = await getJSON(t ? 'api/objects?type=' + encodeURIComponent(t) : 'api/objects');
  const key = t + '\n' + JSON.stringify(objs);
  if (state.drawn.browse === key) return;
  state.drawn.browse = key;
  const root = clear($('browse-result'));
  if (!objs.length) {
    root.appendChild(h('p', {class: 'empty'}, t ? 'No object of type \u201c' + t + '\u201d.' : 'No objects.'));
    return;
  }
  const byType = new Map();
  for (const o of objs) {
    const k = o.type === undefined ? '(no type)' : o.type;
    if (!byType.has(k)) byType.set(k, []);
    byType.get(k).push(o);
  }
  for (const [type, list] of byType) {
    const cols = ['objectId'];
    for (const o of list) for (const k of Object.keys(o)) if (k !== 'type' && !cols.includes(k)) cols.push(k);
    root.appendChild(h('div', {class: 'table-scroll'},
      h('table', {class: 'grid objects', dataset: {type}},
        h('caption', null, type + ' (' + list.length + ')'),
        h('thead', null, h('tr', null, cols.map((c) => h('th', null, c)))),
        h('tbody', null, list.map((o) => h('tr', {dataset: {objectId: o.objectId}},
          cols.map((c) => h('td', null, o[c] !== undefined ? o[c] : ''))))))));
  }
}

export function startObjects() {
  $('browse-type').addEventListener('focus', loadTypes, {once: true});
  $('browse-form').addEventListener('submit', (e) => {
    e.preventDefault();
    state.browseType = $('browse-type').value.trim();
    state.drawn.browse = null;
    exclusive(loadBrowse).catch((err) => {
      clear($('browse-result')).appendChild(h('p', {class: 'empty'}, 'Could not list objects: ' + err.message));
    });
  });
}
