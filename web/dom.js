// dom.js - building the page's elements.  Every text from the game is
// inserted with text nodes (textContent), never as HTML.

export const $ = (id) => document.getElementById(id);

// h('a', {href: '#x', class: 'y', dataset: {k: 'v'}}, 'text', node, [more])
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'text') el.textContent = v;
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k in el && typeof v !== 'string') el[k] = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

export function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

export function badge(text, kind) { return h('span', {class: 'badge' + (kind ? ' ' + kind : '')}, text); }

// An address that may wrap only after its local part and at its dots
// (alice@<wbr>example.<wbr>org), never in the middle of a word.
export function addressParts(addr) {
  const out = [];
  for (const piece of String(addr).split(/(?<=[@.])/)) {
    if (out.length) out.push(h('wbr'));
    out.push(piece);
  }
  return out;
}

// A rule's part (if, then) or a change's, as code under its keyword.
export function clause(kw, text) {
  return h('div', {class: 'clause'}, h('span', {class: 'kw'}, kw), h('pre', {class: 'code'}, text));
}

// An object's attributes, as a list of name and value.
export function kvList(o) {
  const dl = h('dl', {class: 'kv'});
  for (const [k, v] of Object.entries(o)) dl.appendChild(h('div', {class: 'kv-row'}, h('dt', null, k), h('dd', null, v)));
  return dl;
}

// The Mechanics' code check of a message's rule code (codeAttributes):
// in the mover's answer, in the history and on the proposal it made
// (heading: its heading's tag, h3 unless said).
export function codeCheckView(notes, heading) {
  return [h(heading || 'h3', {class: 'code-check-head'}, 'Code check (decides nothing; the rules do)'),
    h('ul', {class: 'code-check'}, notes.map((n) => h('li', {class: n.severity === 'error' ? 'bad' : 'warn'},
      'move ' + n.move + ', ' + n.attribute + ', line ' + n.line + ', column ' + n.column + ': ' + n.severity + ': ' +
      n.message)))];
}
