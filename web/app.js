// The page of `nomic serve`: reads the JSON API (docs/api.md) and sends moves.
// Plain JavaScript, no framework.  Every text from the game is inserted with
// text nodes (textContent), never as HTML.
'use strict';

(function () {
  const POLL_MS = 3000;
  const LOG_LIMIT = 500;        // the API's maximum page
  const HISTORY_FIRST = 100;    // events shown on first load; older ones on request
  const DECIDED_SHOWN = 10;     // decided proposals listed before "show older"
  const DECIDED_UNFOLDED = 3;   // of those, the newest shown whole; the others folded to a line
  const RULES_SHOWN = 12;       // rules listed (with no filter) before "Show all"
  const RULES_SHOWN_PHONE = 5;  // the same on a narrow screen, where a rule is taller
  const PHONE = window.matchMedia('(max-width: 600px)');

  const $ = (id) => document.getElementById(id);

  // ---- small helpers -------------------------------------------------------

  // h('a', {href: '#x', class: 'y', dataset: {k: 'v'}}, 'text', node, [more])
  function h(tag, props, ...children) {
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
  function append(el, children) {
    for (const c of children) {
      if (c === undefined || c === null || c === false) continue;
      if (Array.isArray(c)) append(el, c);
      else if (c instanceof Node) el.appendChild(c);
      else el.appendChild(document.createTextNode(String(c)));
    }
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }
  function badge(text, kind) { return h('span', {class: 'badge' + (kind ? ' ' + kind : '')}, text); }

  function pad(n) { return String(n).padStart(2, '0'); }
  // seconds since 1970 -> "2026-01-01 00:00:00 UTC"
  function fmtTime(sec) {
    const t = Number(sec);
    if (!Number.isFinite(t)) return String(sec);
    const d = new Date(t * 1000);
    if (Number.isNaN(d.getTime())) return String(sec);
    return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' +
      pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + ' UTC';
  }
  // a span of seconds -> "3 d 4 h", "5 min", "12 s"
  function fmtSpan(s) {
    s = Math.abs(Math.round(s));
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }
  function fmtRel(sec, now) {
    const d = Number(sec) - now;
    if (!Number.isFinite(d)) return '';
    if (Math.abs(d) < 1) return 'now';
    return d > 0 ? 'in ' + fmtSpan(d) : fmtSpan(d) + ' ago';
  }
  // attribute values are text; numbers may be -12, 3.75 or 2/5
  function num(v) {
    if (typeof v !== 'string') return NaN;
    const s = v.trim();
    if (/^-?\d+(\.\d+)?$/.test(s)) return parseFloat(s);
    const m = /^(-?\d+)\/(\d+)$/.exec(s);
    if (m && Number(m[2]) !== 0) return Number(m[1]) / Number(m[2]);
    return NaN;
  }
  function byId(a, b) { return (num(a.objectId) - num(b.objectId)) || 0; }

  // ---- the API ---------------------------------------------------------------

  const store = {
    get(k) { try { return localStorage.getItem(k) || ''; } catch (e) { return ''; } },
    set(k, v) { try { if (v) localStorage.setItem(k, v); else localStorage.removeItem(k); } catch (e) { /* private mode */ } },
  };

  const state = {
    token: store.get('nomic.token'),
    tokenBad: false,
    game: null,
    clockOffset: 0,         // server clock minus ours, in seconds
    seenEvent: null,        // game.event when the panels were last drawn
    newest: 0,              // newest event in the history list
    oldest: null,           // oldest event in the history list
    historyReady: false,
    drawn: {},              // section -> JSON of what it shows, to redraw only on change
    browseType: null,       // what the objects panel shows (null: nothing)
    sugarKey: '',
    codeByBatch: new Map(), // moveBatch -> the code check's notes, from the events loaded
  };

  class ApiError extends Error {
    constructor(status, body) {
      super(body && body.error ? body.error : 'HTTP ' + status);
      this.status = status;
      this.body = body;
    }
  }

  async function api(path, opts) {
    opts = opts || {};
    const headers = Object.assign({}, opts.headers || {});
    const useToken = state.token && (!state.tokenBad || opts.forceToken);
    if (useToken) headers.Authorization = 'Bearer ' + state.token;
    let res;
    try {
      res = await fetch(path, {method: opts.method || 'GET', body: opts.body, headers, cache: 'no-store'});
    } catch (e) {
      setConnection(false);
      throw e;
    }
    setConnection(true);
    let body = null;
    const text = await res.text();
    if (text) { try { body = JSON.parse(text); } catch (e) { body = {error: text}; } }
    if (res.status === 401 && useToken) {
      state.tokenBad = true;
      showWhoami();
      if ((opts.method || 'GET') === 'GET') return api(path, opts);   // go on as the public
    }
    if (!res.ok && !opts.allowError) throw new ApiError(res.status, body);
    return {status: res.status, ok: res.ok, body};
  }
  async function getJSON(path) { return (await api(path)).body; }

  let lastOk = null;
  function setConnection(ok) {
    const el = $('connection');
    if (ok) {
      lastOk = Date.now();
      el.classList.remove('down');
      el.textContent = '';
    } else {
      el.classList.add('down');
      el.textContent = 'Cannot reach the game server' +
        (lastOk ? ' (last answer ' + fmtSpan((Date.now() - lastOk) / 1000) + ' ago)' : '') + '; retrying.';
    }
  }

  // ---- header: the game --------------------------------------------------------

  async function loadGame() {
    const g = await getJSON('api/game');
    state.game = g;
    state.clockOffset = Number(g.time) - Date.now() / 1000;
    $('game-name').textContent = g.name || 'Nomic';
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

  function serverNow() { return Date.now() / 1000 + state.clockOffset; }

  function drawClock() {
    const g = state.game;
    if (!g) return;
    const now = serverNow();
    $('game-clock').textContent = fmtTime(Math.floor(now));
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

  // An address that may wrap only after its local part and at its dots
  // (alice@<wbr>example.<wbr>org), never in the middle of a word.
  function addressParts(addr) {
    const out = [];
    for (const piece of String(addr).split(/(?<=[@.])/)) {
      if (out.length) out.push(h('wbr'));
      out.push(piece);
    }
    return out;
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

  function showWhoami() {
    const el = $('whoami');
    const g = state.game;
    el.className = 'hint';
    if (state.token && state.tokenBad) {
      el.className = 'hint bad';
      el.textContent = 'This token is not valid (the server answered 401): you are seen as the public.';
    } else if (state.token && g && g.you) {
      el.textContent = 'Your token is ' + g.you + '\u2019s: moves go under that address.';
    } else if (g && g.mailPolicy === 'tokens') {
      el.textContent = 'This game takes moves only with a token: \u201cMail me my token\u201d has it mailed to your address.';
    } else {
      el.textContent = 'Without a token, moves are sent under the address above: anyone can move under any address in this game.';
    }
    const mail = $('your-mail');
    const you = !!(g && g.you && !state.tokenBad);
    if (mail.hidden === you) mail.hidden = !you;
  }

  // ---- players -------------------------------------------------------------------

  async function loadPlayers() {
    const players = await getJSON('api/objects?type=player');
    const key = JSON.stringify(players);
    if (state.drawn.players === key) return;
    const before = state.drawn.playersScores || {};
    const scores = {};
    state.drawn.players = key;
    players.sort((a, b) => {
      const x = num(a.score), y = num(b.score);
      const xs = Number.isNaN(x) ? -Infinity : x, ys = Number.isNaN(y) ? -Infinity : y;
      if (xs !== ys) return ys - xs;
      return String(a.nickname || '').localeCompare(String(b.nickname || '')) || byId(a, b);
    });
    const tbody = clear($('players').tBodies[0]);
    let rank = 0, last = null;
    players.forEach((p, i) => {
      const s = num(p.score);
      if (i === 0 || s !== last) rank = i + 1;
      last = s;
      const id = p.objectId;
      scores[id] = p.score;
      const changed = before[id] !== undefined && before[id] !== p.score;
      const nick = p.nickname !== undefined ? p.nickname : '(no nickname)';
      const top = players.length > 1 && rank === 1 && !Number.isNaN(s) && s > 0;
      tbody.appendChild(h('tr', {
        class: [top ? 'leader' : '', changed ? 'flash' : ''].join(' ').trim() || null,
        dataset: {nickname: nick, objectId: id},
        title: 'object ' + id + (p.registeredAt ? ', registered ' + fmtTime(p.registeredAt) : ''),
      },
      h('td', {class: 'num rank'}, String(rank)),
      h('td', {class: 'nick'}, nick),
      h('td', {class: 'score'}, p.score !== undefined ? p.score : ''),
      h('td', {class: 'email'}, addressParts(p.defaultEmail || ''))));
    });
    state.drawn.playersScores = scores;
    $('players').hidden = players.length === 0;
    $('players-empty').hidden = players.length !== 0;
  }

  // ---- proposals -----------------------------------------------------------------

  // What a set's proposals look like is the set's to say: the proposalView
  // attribute of its engineSettings (docs/api.md, "What the page reads of a
  // set"), one line per role, each line words KEY=VALUE:
  //   proposal type=T,.. id=A,.. key=A author=A title=A text=A status=A|type batch=A
  //            open=S,.. decided=S,.. passed=S,.. failed=S,.. labels=S:L,..
  //            closes=A record=OPTION:A,.. recordChanges=A ai=A
  //   poll     type=T of=A id=A status=A open=S,.. outcome=A passed=S,.. closes=A
  //   change   type=T,.. of=A kind=A target=A amend=K,.. in=T key=A what=WORD
  //            compare=NEW:OLD,.. show=A,.. order=A
  //   ballot   type=T of=A voter=A vote=A form=KEYWORD
  // A change's `of` names its proposal's key; a ballot's names its poll's id
  // when the set has polls (Agora's decisions), else its proposal's key.
  function parseProposalView(text) {
    const view = {proposal: null, polls: [], changes: [], ballots: []};
    for (const line of String(text || '').split('\n')) {
      const words = line.trim().split(/\s+/).filter(Boolean);
      if (!words.length) continue;
      const role = words.shift();
      const d = {};
      for (const w of words) {
        const eq = w.indexOf('=');
        if (eq > 0) d[w.slice(0, eq)] = w.slice(eq + 1);
      }
      const list = (k) => (d[k] ? d[k].split(',').filter(Boolean) : []);
      const pairs = (k) => list(k).map((p) => p.split(':')).filter((p) => p.length === 2 && p[0] && p[1]);
      const entry = {
        types: list('type'), ids: list('id'), key: d.key, of: d.of, author: d.author, title: d.title, text: d.text,
        status: d.status, open: list('open'), decided: list('decided'), passed: list('passed'), failed: list('failed'),
        labels: Object.fromEntries(pairs('labels')), closes: d.closes, record: pairs('record'),
        recordChanges: d.recordChanges, ai: d.ai, outcome: d.outcome, kind: d.kind, target: d.target,
        amend: list('amend'), in: d.in, targetKey: d.key || 'objectId', compare: pairs('compare'), show: list('show'),
        order: d.order, voter: d.voter, vote: d.vote, form: d.form, batch: d.batch, what: d.what,
      };
      if (!entry.types.length) continue;
      if (role === 'proposal') view.proposal = entry;
      else if (role === 'poll') view.polls.push(entry);
      else if (role === 'change') view.changes.push(entry);
      else if (role === 'ballot') view.ballots.push(entry);
    }
    return view.proposal ? view : null;
  }

  const present = (v) => v !== undefined && v !== null && v !== '';
  function firstOf(o, attrs) {
    for (const a of attrs) if (present(o[a])) return String(o[a]);
    return '';
  }
  function statusOf(o, d) { return d.status === 'type' ? o.type : (d.status ? String(o[d.status] || '') : ''); }

  // The set's vote form from its sugar: KEYWORD <what> <name:OPT|OPT...>;
  // the one named by keyword when the set names it, else the first such.
  function voteForm(keyword) {
    for (const form of (state.game && state.game.sugar) || []) {
      const m = /^(\S+)\s+<[^>:]+>\s+<[^>:]+:([^>]+)>\s*$/.exec(form);
      if (m && (!keyword || m[1] === keyword)) return {keyword: m[1], options: m[2].split('|').filter((o) => o)};
    }
    return null;
  }

  async function objectsOfTypes(types) {
    const uniq = [...new Set(types)];
    const lists = await Promise.all(uniq.map((t) => getJSON('api/objects?type=' + encodeURIComponent(t))));
    const out = {};
    uniq.forEach((t, i) => { out[t] = lists[i]; });
    return out;
  }

  async function loadProposals() {
    const settings = await getJSON('api/objects?type=engineSettings');
    drawReportKinds(settings);
    const view = parseProposalView(settings.map((s) => s.proposalView || '').join('\n'));
    const root = $('proposals');
    if (!view) {
      const key = 'none';
      if (state.drawn.proposals === key) return;
      state.drawn.proposals = key;
      clear(root).appendChild(h('p', {class: 'empty'},
        'This game\u2019s set does not say what its proposals look like (no proposalView in its engineSettings): ' +
        'see the objects panel.'));
      return;
    }
    const types = [].concat(view.proposal.types, ...view.polls.map((p) => p.types), ...view.changes.map((c) => c.types),
      ...view.ballots.map((b) => b.types));
    // the rules an amendment is shown against; `rule` objects come with the rules list
    const targetTypes = view.changes.map((c) => c.in).filter((t) => t && t !== 'rule');
    const byType = await objectsOfTypes(types.concat(targetTypes));
    const key = JSON.stringify(byType) + (state.drawn.rules || '') + JSON.stringify(settings) + state.codeByBatch.size;
    if (state.drawn.proposals === key) return;
    state.drawn.proposals = key;
    state.targets = {};
    for (const t of targetTypes) state.targets[t] = byType[t];

    const groups = groupProposals(view, byType);
    const open = [], decided = [];
    for (const g of groups.values()) (g.decided ? decided : open).push(g);
    const desc = (a, b) => (num(b.id) - num(a.id)) || (a.id < b.id ? 1 : -1);
    open.sort(desc);
    decided.sort(desc);
    state.proposalLists = {open, decided, view};
    drawProposals();
  }

  // The proposals of the set, each with its polls, changes and ballots.
  function groupProposals(view, byType) {
    const P = view.proposal;
    const groups = new Map();
    const keyAttr = P.key || P.ids[0] || 'objectId';
    for (const t of P.types) {
      for (const o of byType[t] || []) {
        const k = String(present(o[keyAttr]) ? o[keyAttr] : o.objectId);
        if (!groups.has(k)) groups.set(k, {key: k, main: o, objects: [], polls: [], changes: [], ballots: []});
        groups.get(k).objects.push(o);
      }
    }
    const pollsById = new Map();
    for (const d of view.polls) {
      for (const t of d.types) {
        for (const o of byType[t] || []) {
          const g = groups.get(String(o[d.of]));
          if (!g) continue;
          const poll = {def: d, obj: o, id: firstOf(o, d.ids) || String(o.objectId), ballots: []};
          g.polls.push(poll);
          pollsById.set(poll.id, poll);
        }
      }
    }
    for (const d of view.changes) {
      for (const t of d.types) {
        for (const o of byType[t] || []) {
          const g = groups.get(String(o[d.of]));
          if (g) g.changes.push({def: d, obj: o});
        }
      }
    }
    for (const d of view.ballots) {
      for (const t of d.types) {
        for (const o of byType[t] || []) {
          const b = {def: d, obj: o, voter: String(o[d.voter] || '?'), vote: String(o[d.vote] || '?')};
          if (view.polls.length) {
            const poll = pollsById.get(String(o[d.of]));
            if (poll) poll.ballots.push(b);
          } else {
            const g = groups.get(String(o[d.of]));
            if (g) g.ballots.push(b);
          }
        }
      }
    }
    for (const g of groups.values()) {
      g.id = firstOf(g.main, P.ids) || String(g.main.objectId);
      g.status = statusOf(g.main, P);
      const pollOpen = g.polls.some((p) => p.def.open.includes(statusOf(p.obj, p.def)));
      if (P.decided.length) g.decided = P.decided.includes(g.status);
      else if (view.polls.length) g.decided = g.polls.length > 0 && !pollOpen;
      else g.decided = P.open.length > 0 && !P.open.includes(g.status);
    }
    return groups;
  }

  function drawProposals() {
    const {open, decided, view} = state.proposalLists;
    const root = clear($('proposals'));
    if (open.length === 0) {
      root.appendChild(h('p', {class: 'empty'}, decided.length ? 'No open proposals.' :
        'No proposals: nothing is being voted on.'));
    }
    for (const g of open) root.appendChild(proposalCard(g, view));
    if (decided.length) {
      const shown = Math.min(decided.length, state.decidedShown || DECIDED_SHOWN);
      // decided proposals are folded but the newest few: a long game's page stays short
      const det = h('details', {class: 'decided', open: true, 'data-testid': 'decided'},
        h('summary', null, 'Decided (' + decided.length + ')'));
      decided.slice(0, shown).forEach((g, i) => det.appendChild(proposalCard(g, view, i >= DECIDED_UNFOLDED)));
      if (decided.length > shown) {
        det.appendChild(h('button', {type: 'button', class: 'secondary more', 'data-testid': 'decided-more',
          onclick: () => { state.decidedShown = shown + DECIDED_SHOWN; drawProposals(); }},
        'Show ' + Math.min(DECIDED_SHOWN, decided.length - shown) + ' older of ' + (decided.length - shown)));
      }
      root.appendChild(det);
    }
  }

  function badgeKind(status, d, decided) {
    if (d.passed.includes(status)) return 'good';
    if (d.failed.includes(status)) return 'bad';
    if (d.open.includes(status)) return 'info';
    if (decided && d.passed.length) return 'bad';
    return decided ? '' : 'warn';
  }

  // folded: a decided proposal shown as one line, unfolded on a click
  function proposalCard(g, view, folded) {
    const P = view.proposal, main = g.main;
    const label = P.labels[g.status] || g.status || 'pending';
    const author = P.author ? main[P.author] : undefined;
    const title = P.title ? main[P.title] : undefined;
    const head = h('div', {class: 'proposal-head'},
      h('h3', null, 'Proposal ' + g.id),
      badge(label, badgeKind(g.status, P, g.decided)),
      g.polls.map((p) => pollBadge(p)),
      present(author) ? h('span', {class: 'hint'}, 'by ' + author) : null,
      P.ai && present(main[P.ai]) ? h('span', {class: 'hint'}, 'AI ' + main[P.ai]) : null);
    const card = h('article', {class: 'proposal', dataset: {propId: g.id, status: g.status || 'pending'}});
    const body = [];
    if (present(title)) body.push(h('p', {class: 'proposal-title'}, String(title)));
    const closes = closingLine(g, P);
    if (closes) body.push(closes);
    if (P.text && present(main[P.text])) body.push(h('pre', {class: 'proposal-text'}, String(main[P.text])));
    const notes = P.batch && present(main[P.batch]) ? state.codeByBatch.get(String(main[P.batch])) : null;
    if (notes && notes.length) body.push(h('div', {class: 'proposal-code-check'}, codeCheckView(notes)));
    for (const c of g.changes) body.push(changeView(c, !g.decided));
    const ownChanges = g.changes.filter((c) => !g.objects.includes(c.obj));
    if (!ownChanges.length && P.recordChanges && present(main[P.recordChanges])) {
      // the record the rules kept of the changes, their objects gone once decided
      body.push(h('pre', {class: 'code record'}, String(main[P.recordChanges])));
    }
    if (g.polls.length) for (const p of g.polls) body.push(tallyView(p.ballots, p.def, g, view, p));
    else body.push(tallyView(g.ballots, P, g, view, null));
    const all = g.objects.concat(g.polls.map((p) => p.obj), g.changes.map((c) => c.obj),
      g.ballots.map((b) => b.obj), ...g.polls.map((p) => p.ballots.map((b) => b.obj)));
    const seen = new Set();
    const objs = all.filter((o) => !seen.has(o.objectId) && seen.add(o.objectId));
    body.push(h('details', null, h('summary', null, 'Objects (' + objs.length + ')'), objs.map((o) => kvList(o))));
    if (folded) {
      card.appendChild(h('details', {class: 'folded'}, h('summary', null, head), body));
    } else {
      card.appendChild(head);
      append(card, body);
    }
    return card;
  }

  function pollBadge(p) {
    const d = p.def, st = statusOf(p.obj, d);
    const outcome = d.outcome ? p.obj[d.outcome] : undefined;
    const text = present(outcome) ? String(outcome) : st;
    return badge(text, badgeKind(text, d, !d.open.includes(st)));
  }

  function closingLine(g, P) {
    const at = g.polls.length ? g.polls.map((p) => [p.def.closes, p.obj, p.def]).find((x) => x[0] && present(x[1][x[0]])) :
      (P.closes && present(g.main[P.closes]) ? [P.closes, g.main, P] : null);
    if (!at) return null;
    const [attr, obj] = at;
    const now = serverNow();
    const closed = num(obj[attr]) <= now || g.decided;
    return h('p', {class: 'meta'}, (closed ? 'Voting closed ' : 'Voting closes ') + fmtTime(obj[attr]) +
      ' (' + fmtRel(obj[attr], now) + ')');
  }

  // The tally by option with the voters' names: from the ballots while they
  // stand, else from the record the rules kept (record=OPTION:ATTR), and the
  // buttons of the vote form while voting is open.
  function tallyView(ballots, d, g, view, poll) {
    const out = h('div', {class: 'poll', dataset: poll ? {poll: poll.id} : {}});
    if (poll) out.appendChild(h('p', {class: 'meta'}, 'Decision ' + poll.id));
    const bdef = view.ballots[0] || {};
    const form = voteForm(bdef.form);
    const options = form ? form.options.slice() : [];
    const byOption = new Map(options.map((o) => [o, []]));
    const add = (opt, voter) => {
      if (!byOption.has(opt)) byOption.set(opt, []);
      byOption.get(opt).push(voter);
    };
    const recorded = (poll ? [] : d.record || []).filter(([, attr]) => present(g.main[attr]));
    if (ballots.length) {
      for (const b of ballots.slice().sort((x, y) => byId(x.obj, y.obj))) add(b.vote, b.voter);
    } else if (recorded.length) {
      for (const [opt, attr] of recorded) for (const n of String(g.main[attr]).split(/\s+/).filter(Boolean)) add(opt, n);
    }
    const total = [...byOption.values()].reduce((n, l) => n + l.length, 0);
    const kindOf = (opt) => (/^(FOR|YES|AYE)$/i.test(opt) ? 'good' : /^(AGAINST|NO|NAY)$/i.test(opt) ? 'bad' : '');
    out.appendChild(h('div', {class: 'tally'}, [...byOption].map(([opt, l]) => badge(opt + ' ' + l.length, kindOf(opt)))));
    if (total) {
      out.appendChild(h('ul', {class: 'votes'}, [...byOption].map(([opt, l]) => l.map((n) =>
        h('li', {class: kindOf(opt) === 'good' ? 'for' : kindOf(opt) === 'bad' ? 'against' : null, dataset: {voter: n, vote: opt}},
          n + ' ' + opt)))));
    } else {
      out.appendChild(h('p', {class: 'hint'}, g.decided ? 'Nobody voted.' : 'No votes yet.'));
    }
    const votable = poll ? poll.def.open.includes(statusOf(poll.obj, poll.def)) : !g.decided && d.open.includes(g.status);
    if (votable && form) {
      const what = poll ? poll.id : g.id;
      out.appendChild(h('div', {class: 'vote-buttons'}, h('span', {class: 'hint'}, 'Vote:'),
        form.options.map((opt) => h('button', {
          type: 'button', class: 'vote', dataset: {vote: opt},
          title: 'Send ' + form.keyword + ' ' + what + ' ' + opt + ' under the address (or token) of the move form',
          onclick: () => sendMove(null, form.keyword + ' ' + what + ' ' + opt),
        }, opt))));
    }
    return out;
  }

  // The lines of a and b as a diff: [op, line], op ' ' kept, '-' gone, '+' new
  // (longest common subsequence; past 300 lines a side, all gone then all new).
  function lineDiff(a, b) {
    const x = a.split('\n'), y = b.split('\n'), n = x.length, m = y.length;
    if (n > 300 || m > 300) return x.map((l) => ['-', l]).concat(y.map((l) => ['+', l]));
    const L = Array.from({length: n + 1}, () => new Array(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    const out = [];
    let i = 0, j = 0;
    while (i < n && j < m) {
      if (x[i] === y[j]) { out.push([' ', x[i]]); i++; j++; }
      else if (L[i + 1][j] >= L[i][j + 1]) out.push(['-', x[i++]]);
      else out.push(['+', y[j++]]);
    }
    while (i < n) out.push(['-', x[i++]]);
    while (j < m) out.push(['+', y[j++]]);
    return out;
  }

  function diffClause(kw, old, now) {
    if (now === undefined || now === '' || now === old) {
      return h('div', {class: 'clause kept'}, h('span', {class: 'kw'}, kw + ' (kept)'), h('pre', {class: 'code'}, old));
    }
    return h('div', {class: 'clause diff'}, h('span', {class: 'kw'}, kw),
      h('pre', {class: 'code diff'}, lineDiff(old, now).map(([op, line]) =>
        h('span', {class: op === '-' ? 'del' : op === '+' ? 'ins' : 'same'}, op + ' ' + line + '\n'))));
  }

  // One change of a proposal: what it does, then an amendment as a diff
  // against the rule as it stands while the vote is open, else its texts.
  function changeView(ch, open) {
    const d = ch.def, c = ch.obj;
    const kind = (d.kind && present(c[d.kind])) ? String(c[d.kind]) : 'change';
    const target = d.target ? c[d.target] : undefined;
    const order = d.order ? c[d.order] : undefined;
    const title = h('div', {class: 'change-title'});
    const rule = (d.what ? d.what + ' ' : '') + 'rule';   // suber's "formal rule" beside its texts
    if (present(target)) {
      append(title, [kind + ' ' + rule + ' ', d.in === 'rule' ? h('a', {href: '#rule-' + target}, String(target)) : String(target)]);
      if (present(order)) append(title, [', new order ' + order]);
    } else {
      append(title, [kind + (present(order) ? ' a ' + rule + ', order ' + order : '')]);
    }
    const parts = [title];
    const old = open && d.amend.includes(kind) && present(target) ? targetRule(d, target) : null;
    if (old && d.compare.length) {
      // an amendment, against the rule as it stands; a part it leaves out is kept
      for (const [now, was] of d.compare) parts.push(diffClause(now === was ? now : was, String(old[was] || ''), c[now]));
    } else {
      for (const a of d.show) if (present(c[a])) parts.push(clause(a.replace(/^new/, ''), String(c[a])));
    }
    return h('div', {class: 'change', dataset: {objectId: c.objectId, kind}}, parts);
  }

  // The object a change targets (d.in whose d.targetKey is target), or null.
  function targetRule(d, target) {
    if (d.in === 'rule') return state.rules ? (d.targetKey === 'objectId' ? state.rules.get(String(target)) :
      [...state.rules.values()].find((r) => String(r[d.targetKey]) === String(target))) || null : null;
    return ((state.targets || {})[d.in] || []).find((o) => String(o[d.targetKey]) === String(target)) || null;
  }

  function clause(kw, text) {
    return h('div', {class: 'clause'}, h('span', {class: 'kw'}, kw), h('pre', {class: 'code'}, text));
  }

  function kvList(o) {
    const dl = h('dl', {class: 'kv'});
    for (const [k, v] of Object.entries(o)) dl.appendChild(h('div', {class: 'kv-row'}, h('dt', null, k), h('dd', null, v)));
    return dl;
  }

  // ---- rules ---------------------------------------------------------------------

  const RULE_SHOWN = {objectId: 1, type: 1, ruleOrder: 1, if: 1, then: 1, comment: 1, error: 1};

  async function loadRules() {
    const rules = await getJSON('api/rules');
    // the rules the game-keeper set aside (api/game): the engine skips them
    const suspended = new Set(((state.game && state.game.suspended) || []).map(String));
    const key = JSON.stringify(rules) + [...suspended].join(' ');
    if (state.drawn.rules === key) return;
    state.drawn.rules = key;
    state.rules = new Map(rules.map((r) => [String(r.objectId), r]));
    const root = clear($('rules'));
    if (!rules.length) root.appendChild(h('p', {class: 'empty'}, 'This game has no rules (yet).'));
    for (const r of rules) {
      const err = r.error !== null && r.error !== undefined;
      const off = suspended.has(String(r.objectId));
      const extra = Object.keys(r).filter((k) => !RULE_SHOWN[k]);
      const card = h('article', {
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
      root.appendChild(card);
    }
    filterRules();
    showLinkedRule();
  }

  // The rules matching the filter; without one, the first RULES_SHOWN until
  // "Show all" (a long game's page stays short).
  function filterRules() {
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
  function showLinkedRule() {
    const m = /^#(rule-\S+)$/.exec(location.hash);
    if (!m) return;
    const card = document.getElementById(m[1]);
    if (!card || !card.hidden) return;
    state.ruleWanted = m[1];
    $('rules-filter').value = '';
    filterRules();
    card.scrollIntoView();
  }

  // ---- history -------------------------------------------------------------------

  // the game-keeper's events (nomic suspend / resume): the Mechanics', not a player's
  const KEEPER_KINDS = {suspend: 1, resume: 1};

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
    if (sent.length) {
      const shown = sent.slice(0, 4);
      li.appendChild(h('ul', {class: 'outcome'}, shown.map((m) => {
        const to = String(m.to || '').split(/\s+/).filter(Boolean);
        const first = String(m.text === undefined ? '' : m.text).split('\n')[0];
        return h('li', {title: String(m.text)},
          h('span', {class: 'to', title: to.join(' ')}, to.length === 1 ? 'to ' + to[0] : 'to ' + to.length + ' addresses'),
          ' ', first);
      }), sent.length > shown.length ? h('li', {class: 'hint'}, 'and ' + (sent.length - shown.length) + ' more in the trace') : null));
    }
    const changed = trace.filter((f) => f.changed).length;
    li.appendChild(h('details', {class: 'trace'},
      h('summary', null, 'Trace: ' + (trace.length ? trace.length + (trace.length === 1 ? ' firing' : ' firings') +
        ', ' + changed + ' with changes' : 'no firing')),
      trace.length ? h('ol', {class: 'firings'}, trace.map(firingView)) : h('p', {class: 'hint'}, 'No rule fired.')));
    return li;
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

  async function loadNewEvents() {
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
        state.newest = Math.max(state.newest, Number(ev.event));
        any = true;
      }
      if (evs.length < LOG_LIMIT) break;
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

  // ---- reports -----------------------------------------------------------------------

  // The kinds the set names (reportKinds on its engineSettings), as buttons.
  function drawReportKinds(settings) {
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
  async function showReport(kind) {
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

  // ---- your messages (with a token) ---------------------------------------------------

  async function loadOutbox() {
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

  // ---- objects by type -------------------------------------------------------------

  async function loadTypes() {
    try {
      const all = await getJSON('api/objects');
      const types = [...new Set(all.map((o) => o.type).filter(Boolean))].sort();
      const dl = clear($('browse-types'));
      for (const t of types) dl.appendChild(h('option', {value: t}));
    } catch (e) { /* the list is only a convenience */ }
  }

  async function loadBrowse() {
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

  // ---- the move form -----------------------------------------------------------------

  // body: a line sent by a button (a vote), not the form's text
  async function sendMove(ev, line) {
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
    await exclusive(() => refreshAll(true)).catch(() => {});
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

  // The Mechanics' code check of a message's rule code (codeAttributes):
  // in the mover's answer, in the history and on the proposal it made.
  function codeCheckView(notes) {
    return [h('h3', {class: 'code-check-head'}, 'Code check (decides nothing; the rules do)'),
      h('ul', {class: 'code-check'}, notes.map((n) => h('li', {class: n.severity === 'error' ? 'bad' : 'warn'},
        'move ' + n.move + ', ' + n.attribute + ', line ' + n.line + ', column ' + n.column + ': ' + n.severity + ': ' +
        n.message)))];
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
    store.set('nomic.token', token);
  }

  // ---- refreshing ------------------------------------------------------------------

  // One refresh at a time: the poll, a move and a token change take turns.
  let chain = Promise.resolve();
  function exclusive(fn) {
    const p = chain.then(fn);
    chain = p.catch(() => {});
    return p;
  }

  async function refreshAll(force) {
    const g = await loadGame();
    const more = await loadNewEvents();
    if (force || more || g.event !== state.seenEvent) {
      // an amendment is shown against the rule as it stands: the rules first
      await Promise.all([loadPlayers(), loadRules().then(loadProposals), loadOutbox(), loadBrowse(),
        state.reportKind ? showReport(state.reportKind) : null]);
      state.seenEvent = g.event;
    }
  }

  async function poll() {
    try {
      await exclusive(() => refreshAll(false));
    } catch (e) {
      if (!(e instanceof ApiError)) setConnection(false);
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  // ---- what does this open up? (POST api/scams) ------------------------------------

  // The open proposals: favor's voteInProgress (by propId), suber's open
  // proposal objects (by number).
  async function loadScamChoices() {
    const [votes, proposals, players] = await Promise.all(['voteInProgress', 'proposal', 'player']
      .map((t) => getJSON('api/objects?type=' + t)));
    const ids = votes.map((v) => String(v.propId))
      .concat(proposals.filter((p) => p.status === 'open').map((p) => String(p.number)))
      .filter((id) => id && id !== 'undefined');
    const pick = $('scams-proposal');
    const was = pick.value;
    while (pick.options.length > 1) pick.remove(1);
    for (const id of [...new Set(ids)]) pick.appendChild(h('option', {value: id}, 'proposal ' + id));
    if ([...pick.options].some((o) => o.value === was)) pick.value = was;
    const ready = $('scams-ready');
    while (ready.options.length > 1) ready.remove(1);
    for (const [label, goal] of scamGoals(players)) ready.appendChild(h('option', {value: goal}, label));
  }

  // Ready goals, from the players as they stand: favor's win names the
  // player's objectId (who), suber's the nickname (player).
  function scamGoals(players) {
    const q = (t) => JSON.stringify(String(t));
    const goals = [['someone wins', 'exists(type=="win")']];
    for (const p of players.filter((x) => x.nickname !== undefined)) {
      goals.push([p.nickname + ' wins', 'exists(type=="win" & (who==' + q(p.objectId) + ' | player==' + q(p.nickname) + '))']);
      goals.push([p.nickname + ' scores more than now (' + (p.score || 0) + ')',
        'exists(type=="player" & nickname==' + q(p.nickname) + ' & score>' + (num(p.score) || 0) + ')']);
    }
    return goals;
  }

  function scamStepView(st, i) {
    if (st.wait !== undefined) return h('li', null, 'wait until ' + fmtTime(st.wait));
    return h('li', null, 'message ' + (i + 1) + ' from ' + st.from + ' at ' + fmtTime(st.time),
      h('pre', null, st.moves.map((m) => Object.keys(m).map((k) => k + ': ' + m[k]).join('\n')).join('\n---\n')));
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
    } catch (e) {
      clear(out).appendChild(h('p', {class: 'message'}, 'Could not search: ' + e.message));
      out.classList.add('error');
    } finally {
      $('scams-go').disabled = false;
    }
  }

  function startScams() {
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

  // ---- start -------------------------------------------------------------------

  function start() {
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
      exclusive(() => refreshAll(true)).catch(() => {});
    });
    $('rules-filter').addEventListener('input', filterRules);
    $('rules-all').addEventListener('click', () => { state.rulesAll = true; filterRules(); });
    window.addEventListener('hashchange', showLinkedRule);
    PHONE.addEventListener('change', filterRules);
    $('history-older').addEventListener('click', () => exclusive(loadOlderEvents).catch(() => {}));
    $('browse-type').addEventListener('focus', loadTypes, {once: true});
    $('report-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const kind = $('report-kind').value.trim();
      if (kind) exclusive(() => showReport(kind)).catch(() => {});
    });
    $('browse-form').addEventListener('submit', (e) => {
      e.preventDefault();
      state.browseType = $('browse-type').value.trim();
      state.drawn.browse = null;
      exclusive(loadBrowse).catch((err) => {
        clear($('browse-result')).appendChild(h('p', {class: 'empty'}, 'Could not list objects: ' + err.message));
      });
    });
    setInterval(drawClock, 1000);
    startScams();
    poll();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
