// panel_outbox.js - "Your messages": what the rules sent to the holder of
// the token, newest first (GET api/outbox).
import {getJSON} from './api.js';
import {$, clear, h} from './dom.js';
import {fmtTime} from './format.js';
import {state} from './state.js';

export async function loadOutbox() {
  if ($('your-mail').hidden) return;
  let msgs;
  try { msgs = await getJSON('api/outbox?last=50'); } catch (e) { return; }
  const key = JSON.stringify(msgs);
  if (state.drawn.outbox === key) return;
  state.drawn.outbox = key;
  const list = clear($('outbox'));
  if (!msgs.length) { list.appendChild(h('li', {class: 'empty'}, 'No messages for you yet.')); return; }
  for (const m of msgs.slice(-50).reverse()) {
    list.appendChild(h('li', null,
      h('div', {class: 'meta'}, 'event ' + m.event + ' \u00b7 ' + (m.state || '') + ' \u00b7 ' +
        fmtTime(m.sentAt || m.queuedAt)),
      h('p', {class: 'text'}, m.text)));
  }
}
