// The page of `nomic serve`, played in a real browser (Debian's Chromium,
// driven by playwright-core).  Usage: node page.test.mjs path/to/nomic
//
// It makes a favor game in a temporary directory, serves it on a free port
// of 127.0.0.1, and plays through the page only (typing into the move form
// and clicking Send): two players register, alice proposes a new rule, both
// vote FOR, and the page must show the players, the proposal, the scores,
// the new rule and the history with its traces.  Before the votes, the
// "What does this open up?" panel searches the open proposal for two ready
// goals (alice scores: found, a vote; alice wins: none), then the game as
// it stands for alice and bob both scoring: none for alice alone, a vote
// from each with bob named in its "with" field.
//
// Time: favor closes a vote only when its expiryTime (proposal time + 10
// days) has passed (rules 15, 18), and the server's clock is the wall clock,
// so no flow of moves alone can get a proposal adopted within a test.  The
// votes themselves are scored at once (rule 17: one point per vote), which
// the test checks first.  Then the ten days pass the way a game-keeper makes
// them pass: `nomic tick GAME --time NOW+11d` from the command line, beside
// the running server (docs/api.md: the server reloads the game when the
// journal grows behind its back).  The page, polling every 3 s, must then
// show the tally's outcome: alice 1+5 = 6 (rule 23), bob 1, the proposal
// passed and the new rule (rule 27) in the rules list.  Last, alice sends a
// move that only the new rule answers, through the page again.
//
// The game's transport is the outbox (a new game's): it mails nobody, so the
// page never offers "Mail me my token" as usable, and once the keeper makes
// the game take moves only with a token, says "This game sends no mail yet:
// ask the keeper for your token."; given a transport, it offers the button
// again.
//
// The page as players see it: at 1400 px the move form and the proposals
// stand beside the players and the history (three columns, in the document
// in the order they are seen); at 390 px nothing reaches past the screen and
// a move's answer reads outcome, reason, why rule by rule, replies.  The
// game is made in the past (--time 2026-01-01): it moves at the clock's time,
// and the header shows one clock; once the tally has run at the deadline,
// ten days ahead, the game's time is its last event's, and the header shows
// "Game time ... your clock ...", the proposal "Voting closed ... ago",
// nothing "closed ... (in ...)"; a browser whose clock reads the game's time
// (playwright's clock) sees one clock again.
//
// Each check prints "ok N - ...".  Any failure prints "not ok", the server's
// output, a screenshot path, and exits 1.  The server is stopped and the
// temporary directory removed in every case.
//
// NOMIC_BROWSER_SCREENSHOT=FILE saves a full-page screenshot at the end.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  nomic, page, dir, ok, fail, check, sleep, eventually, startServer, openPage, checkNoPageErrors, text, run,
} from './harness.mjs';

// ---- page helpers ------------------------------------------------------------

// seconds -> "2026-01-01 00:00:00 UTC", as web/format.js writes a time
const fmt = (t) => new Date(t * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');


async function score(nick) {
  const row = page.locator(`#players tr[data-nickname="${nick}"] td.score`);
  if ((await row.count()) === 0) return null;
  return (await row.first().textContent()).trim();
}

// Type a move into the form as FROM and click Send; returns the result panel.
async function sendMove(from, body, { useChip } = {}) {
  await page.fill('#move-from', from);
  if (useChip) {
    // click the sugar hint, which writes the form and selects its first
    // placeholder, then type over the selection
    await page.fill('#move-body', '');
    const chip = page.locator('#sugar-list button', { hasText: useChip.form }).first();
    await chip.click();
    await page.keyboard.type(useChip.type);
  } else {
    await page.fill('#move-body', body);
  }
  const sent = await page.inputValue('#move-body');
  const clicks = await clickToSend('#move-send');
  const status = await page.getAttribute('#move-result', 'data-status');
  const result = (await text('#move-result')).replace(/\s+/g, ' ');
  return { status, result, sent, clicks };
}

// Clicks sel, a button that sends a move, and waits for the page's answer
// to that move; returns the clicks it took.  A click can be lost: if the
// page moves the button between the mouse's press and its release (a poll
// redrawing what stands above it), the click goes to the element under
// both, not to the button, and nothing is sent.  The answer on the page is
// then the last move's, which would be read as this one's.  So the answer
// shown before is marked first (sendMove clears #move-result at once, on
// the click), and a click that left the mark is made again.
async function clickToSend(sel) {
  for (let clicks = 1; ; clicks++) {
    await page.$eval('#move-result', (r) => r.appendChild(Object.assign(document.createElement('span'),
      { className: 'earlier-answer', hidden: true })));
    await page.click(sel);
    const taken = await page.waitForFunction(() => !document.querySelector('#move-result .earlier-answer'), null,
      { timeout: 2000 }).then(() => true, () => false);
    if (taken) {
      await page.waitForFunction(() => {
        const r = document.querySelector('#move-result');
        return r && r.dataset.status && !document.querySelector('#move-send').disabled;
      }, null, { timeout: 15000 });
      return clicks;
    }
    if (clicks === 3) fail(`a click on ${sel} sends the move`, 'three clicks, and the page took none');
  }
}

// Makes the page lose the next click, as a redraw under the mouse can:
// the click never reaches the button, and nothing is sent.
async function loseNextClick() {
  await page.evaluate(() => document.addEventListener('click', (e) => {
    e.preventDefault();
    e.stopImmediatePropagation();
  }, { capture: true, once: true }));
}

async function expectApplied(from, body, want, opts) {
  const r = await sendMove(from, body, opts);
  const status = (opts && opts.status) || 'applied';
  check(r.status === status, `${from} sends ${JSON.stringify(r.sent)}: ${status}`, `#move-result says: ${r.result}`);
  if (want) check(r.result.includes(want), `the answer shows the reply "${want}"`, `#move-result says: ${r.result}`);
  return r;
}

// ---- the play ------------------------------------------------------------------

// what the page says where the game sends no mail (its transport is the outbox)
const NO_MAIL = 'This game sends no mail yet: ask the keeper for your token.';

// %t is bound and never used: the Mechanics' code check warns, and the page shows it
const NEW_IF = 'exists(type=="move" & subtype=="greet" & processed!=T & moveSender==%s & moveTimeStamp==%t & objectId==%o)';
const NEW_THEN = 'set(objectId==%o)(processed==T & cleanup==T) & send(%s,"Hello from rule 40000")';

async function main() {
  const db = path.join(dir, 'g.db');
  execFileSync(nomic, ['init', db, '--ruleset', 'favor', '--time', '2026-01-01T00:00:00Z'], { stdio: 'pipe' });
  ok('nomic init ' + db + ' --ruleset favor');

  const base = await startServer(db);
  ok(`nomic serve listens on ${base}`);

  await openPage();
  await page.goto(base);

  // the header
  await eventually('the header shows event 0 and a running game', async () =>
    (await text('#game-event')).trim() === '0' && /running/.test(await text('#game-state')));
  check(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/.test((await text('#game-clock')).trim()) &&
    (await text('#game-clock-label')).trim() === 'Clock',
  'the header shows one clock in UTC: a game made in the past moves at the clock\'s time, as the reader\'s', await text('#game-clock'));
  check((await text('#game-timer')).trim() === 'none', 'no timer is pending in a fresh game', await text('#game-timer'));
  check(!(await page.isVisible('#games-link')), 'one game served alone has no list of games to link to');
  await eventually('an open game says plainly that anyone can move under any address', async () =>
    (await page.locator('#open-warning').isVisible()) &&
    /anyone can move under any address in this game/.test(await text('#open-warning')));
  check(await page.locator('#token-mail').isDisabled(), 'a game that sends no mail does not offer "Mail me my token"');
  check((await page.getAttribute('#token-mail', 'title')) === NO_MAIL, 'the button\'s title says why',
    await page.getAttribute('#token-mail', 'title'));
  await eventually('the sugar forms are offered as hints', async () =>
    (await page.locator('#sugar-list button').count()) >= 5);
  await eventually('the proposals section says there are none yet', async () => /No proposals/.test(await text('#proposals')));
  await eventually('the rules are listed in run order (32 rules, first rule 9 at 10010)', async () => {
    const orders = await page.$$eval('#rules article.rule', (els) => els.map((e) => [e.dataset.ruleId, e.dataset.ruleOrder]));
    const nums = orders.map((o) => Number(o[1]));
    return orders.length === 32 && orders[0][0] === '9' && nums.every((n, i) => i === 0 || nums[i - 1] <= n) ? orders.length : null;
  });
  check((await page.locator('#rules .error-badge').count()) === 0, 'no rule of favor shows an error badge');
  check((await text('#rule-3 .comment')).includes("if someone's registering"), "rule 3's comment is shown");

  // two players register: alice types the line, bob uses the hint
  await expectApplied('alice@example.org', 'REGISTER alice', 'Welcome to Engine City, alice !');
  await expectApplied('bob@example.org', null, 'Welcome to Engine City, bob !',
    { useChip: { form: /^REGISTER /, type: 'bob' } });
  await eventually('the players table shows alice and bob with score 0', async () =>
    (await score('alice')) === '0' && (await score('bob')) === '0');
  check((await text('#players tr[data-nickname="alice"]')).includes('alice@example.org'),
    "alice's row shows her address");

  // alice proposes a new rule (favor's sugar CREATE ORDER IF ... THEN ...)
  const prop = await expectApplied('alice@example.org', `CREATE 40000 IF ${NEW_IF} THEN ${NEW_THEN}`,
    'Proposed rule-change (proposal');
  const m = /Proposed rule-change \(proposal (\d+)/.exec(prop.result);
  check(!!m, 'the announcement names the proposal id', prop.result);
  check(/Code check \(decides nothing; the rules do\)/.test(prop.result) &&
    prop.result.includes('move 1, newif, line 1, column') && prop.result.includes('warning: variable %t is bound but never used'),
    "the answer shows the Mechanics' code check of the proposed rule", prop.result);
  const pid = m[1];
  const card = `#proposals [data-prop-id="${pid}"]`;
  await eventually(`proposal ${pid} is shown as voting, by alice, with its new rule`, async () => {
    if ((await page.locator(card).count()) === 0) return null;
    const t = await text(card);
    return (await page.getAttribute(card, 'data-status')) === 'voteInProgress' &&
      t.includes('by alice') && t.includes('order 40000') && t.includes('Hello from rule 40000') && t.includes('No votes yet');
  });
  // the code check is journaled: every reader sees it on the proposal and in the history, not only alice
  await eventually(`proposal ${pid} shows the code check of the message that made it`, async () => {
    const t = await text(`${card} .proposal-code-check`).catch(() => '');
    return t.includes('Code check (decides nothing; the rules do)') &&
      t.includes('move 1, newif, line 1, column') && t.includes('warning: variable %t is bound but never used') ? true : { ok: false, t };
  });
  // at 1400 px the screen is used: the move form and the proposals beside
  // the players and the history, not stacked under them; read (and tabbed
  // through) in the order they stand, left to right
  const boxes = await page.evaluate(() => Object.fromEntries(['move', 'open-proposals', 'standings', 'event-history'].map((id) => {
    const r = document.getElementById(id).getBoundingClientRect();
    return [id, { left: Math.round(r.left), right: Math.round(r.right), top: Math.round(r.top), bottom: Math.round(r.bottom) }];
  })));
  const apart = (a, b) => a.right <= b.left || b.right <= a.left;
  const level = (a, b) => a.top < b.bottom && b.top < a.bottom;
  for (const a of ['move', 'open-proposals']) {
    check(apart(boxes[a], boxes.standings) && apart(boxes[a], boxes['event-history']) && level(boxes[a], boxes.standings),
      `at 1400 px #${a} stands beside the players and the history, not above or under them`, JSON.stringify(boxes));
  }
  check(boxes.move.right <= boxes['open-proposals'].left && boxes['open-proposals'].right <= boxes.standings.left &&
    boxes.standings.bottom <= boxes['event-history'].top,
  'at 1400 px three columns: the move, the proposals, the players over the history', JSON.stringify(boxes));
  const order = await page.evaluate(() => {
    const ids = ['move', 'your-mail', 'open-proposals', 'scams', 'standings', 'event-history', 'reports', 'ruleset', 'browse'];
    const els = ids.map((id) => document.getElementById(id));
    return els.every((e, i) => i === 0 || (els[i - 1].compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING)) ? true : ids;
  });
  check(order === true, 'the panels come in the document (keyboard, screen reader) in the order they are seen', JSON.stringify(order));
  const evCheck = await page.$$eval('#history [data-testid="event-code-check"]', (els) => els.map((e) => e.textContent));
  check(evCheck.length === 1 && evCheck[0].includes('warning: variable %t is bound but never used'),
    'the history shows the code check with its event', JSON.stringify(evCheck));
  await eventually('the header shows the vote\'s closing time as the next timer', async () =>
    /UTC \(in (9 d 23 h|10 d 0 h)\)/.test(await text('#game-timer')) ? true : { ok: false, v: await text('#game-timer') });

  // "what does this open up?": the panel searches the open proposal as if
  // adopted, for a ready goal, as alice (POST api/scams)
  await eventually(`the search panel offers proposal ${pid} and alice's goals`, async () => {
    await page.focus('#scams-proposal');
    const props = await page.$$eval('#scams-proposal option', (els) => els.map((e) => e.value));
    const goals = await page.$$eval('#scams-ready option', (els) => els.map((e) => e.textContent));
    return props.includes(pid) && goals.includes('alice wins') && goals.includes('alice scores more than now (0)')
      ? true : { ok: false, props, goals };
  });
  await page.selectOption('#scams-proposal', pid);
  await page.fill('#scams-as', 'alice@example.org');
  await page.selectOption('#scams-ready', { label: 'alice scores more than now (0)' });
  check((await page.inputValue('#scams-goal')).includes('nickname=="alice" & score>0'), 'a ready goal fills the goal',
    await page.inputValue('#scams-goal'));
  await page.selectOption('#scams-depth', '1');
  await page.click('#scams-go');
  await page.waitForSelector('#scams-result [data-testid="scams-found"]', { timeout: 30000 });
  const found = await text('#scams-result');
  check(/Found: 1 step/.test(found) && found.includes('message 1 from alice@example.org') && found.includes('subtype: vote'),
    'the panel shows the move that scores: a vote, from alice', found);
  await page.selectOption('#scams-ready', { label: 'alice wins' });
  await page.click('#scams-go');
  await page.waitForSelector('#scams-result [data-testid="scams-none"]', { timeout: 30000 });
  check(/None within depth 1/.test(await text('#scams-result')), 'alice cannot win in one message: the panel says none',
    await text('#scams-result'));

  // a coalition: each vote scores its voter (rule 17), so alice and bob
  // both scoring takes a vote from each.  Alone alice cannot; named in
  // "with", bob's message is in the answer beside hers.
  const both = 'exists(type=="player" & nickname=="alice" & score>0) & exists(type=="player" & nickname=="bob" & score>0)';
  await page.selectOption('#scams-proposal', '');
  await page.fill('#scams-goal', both);
  await page.selectOption('#scams-depth', '2');
  await page.fill('#scams-with', '');
  await page.click('#scams-go');
  await page.waitForSelector('#scams-result [data-testid="scams-none"]', { timeout: 30000 });
  check(/None within depth 2/.test(await text('#scams-result')), 'alone, alice cannot make both score: none',
    await text('#scams-result'));
  await page.fill('#scams-with', 'bob@example.org');
  await page.click('#scams-go');
  await page.waitForSelector('#scams-result [data-testid="scams-found"]', { timeout: 30000 });
  const pair = await text('#scams-result');
  check(/Found: 2 steps/.test(pair) && pair.includes('from alice@example.org') && pair.includes('from bob@example.org') &&
    (pair.match(/subtype: vote/g) || []).length === 2,
  'with bob@example.org: a vote from each, both senders shown', pair);
  await page.fill('#scams-with', '');

  // both vote FOR: alice types the line, bob clicks the card's FOR button.
  // Alice's first click is lost (loseNextClick): the answer read must be
  // her vote's, not the proposal's still on the page
  await loseNextClick();
  const vote = await expectApplied('alice@example.org', `VOTE ${pid} FOR`);
  check(vote.clicks >= 2 && vote.result.includes('rule 17 order 30230'),
    "a click the page lost is made again, and the answer read is the vote's (rule 17 scores it)",
    `clicks: ${vote.clicks}; #move-result says: ${vote.result}`);
  const buttons = await page.$$eval(`${card} .vote-buttons button`, (els) => els.map((e) => e.dataset.vote));
  check(JSON.stringify(buttons) === '["FOR","AGAINST"]', 'the open proposal has a button per option of the vote form',
    JSON.stringify(buttons));
  await page.fill('#move-from', 'bob@example.org');
  await page.fill('#move-body', '');
  await clickToSend(`${card} .vote-buttons button[data-vote="FOR"]`);
  check((await page.getAttribute('#move-result', 'data-status')) === 'applied', 'bob votes FOR with the button: applied',
    await text('#move-result'));
  await eventually('each vote scores one point at once: alice 1, bob 1', async () =>
    (await score('alice')) === '1' && (await score('bob')) === '1' ? true : { ok: false, alice: await score('alice'), bob: await score('bob') });
  await eventually(`proposal ${pid} shows both votes FOR`, async () => {
    const t = await text(card);
    return t.includes('FOR 2') && t.includes('AGAINST 0') && t.includes('alice FOR') && t.includes('bob FOR') ? true : { ok: false, t };
  });

  // ten days pass: the game-keeper runs the timers from the command line
  const later = Math.floor(Date.now() / 1000) + 11 * 24 * 3600;
  const tick = execFileSync(nomic, ['tick', db, '--time', String(later)], { encoding: 'utf8' });
  ok('nomic tick --time NOW+11d: ' + tick.trim().split('\n')[0]);
  await eventually('after the tally alice has 1+5 = 6 points and bob 1, alice first', async () => {
    const a = await score('alice'), b = await score('bob');
    const first = await page.getAttribute('#players tbody tr:first-child', 'data-nickname');
    return a === '6' && b === '1' && first === 'alice' ? true : { ok: false, a, b, first };
  });
  await eventually(`proposal ${pid} is shown as passed`, async () =>
    (await page.getAttribute(card, 'data-status')) === 'proposalPassed' && /passed/.test(await text(card)));
  await eventually(`decided, proposal ${pid} keeps its rule and its tally with the voters' names`, async () => {
    const t = await text(card);
    return t.includes('create a rule, ruleOrder 40000') && t.includes('Hello from rule 40000') &&
      t.includes('FOR 2') && t.includes('AGAINST 0') && t.includes('alice FOR') && t.includes('bob FOR') ? true : { ok: false, t };
  });
  check(/No open proposals/.test(await text('#proposals')), 'no proposal is open any more');
  await eventually('the new rule is in the rules list at order 40000, in run order', async () => {
    const sel = '#rules article.rule[data-rule-order="40000"]';
    if ((await page.locator(sel).count()) !== 1) return null;
    const t = await text(sel);
    const ids = await page.$$eval('#rules article.rule', (els) => els.map((e) => e.dataset.ruleOrder));
    const at = ids.indexOf('40000');
    return t.includes(NEW_IF) && t.includes(NEW_THEN) && Number(ids[at - 1]) <= 40000 && Number(ids[at + 1]) >= 40000 && ids.length === 33;
  });
  check((await text('#game-timer')).trim() === 'none', 'no timer is pending after the tally', await text('#game-timer'));

  // the tally ran at the vote's deadline, ten days ahead of the clock: the
  // game's time is now that of its last event (its next move happens then,
  // not now), so the header shows the game's time and the reader's clock,
  // labelled, and the proposal's deadline is in the past of the game's
  // time: "closed ... ago", never "closed ... (in 9 d)"
  const tickAt = (await page.evaluate(async () => (await fetch('api/log')).json())).filter((e) => e.kind === 'tick').pop().time;
  await eventually('a game played ahead of the clock shows both clocks, labelled', async () => {
    const c = (await text('#game-clock')).trim();
    const label = (await text('#game-clock-label')).trim();
    return c.startsWith('Game time ' + fmt(tickAt) + ' \u00b7 your clock ') && / \(\d+ d \d+ h behind\)$/.test(c) &&
      label === 'Clocks' ? true : { ok: false, c, label };
  });
  const closes = await text(`${card} .closes`);
  check(/^Voting closed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \((just now|.* ago)\)$/.test(closes),
    `proposal ${pid} says its voting closed, against the game's time`, closes);
  const contradictions = (await page.locator('body').innerText()).match(/closed[^\n()]*\(in [^)]*\)/g);
  check(!contradictions, 'nothing on the page says "closed ... (in ...)"', JSON.stringify(contradictions));

  // the new rule is in force: alice's greet move is answered by it
  // (it only marks and answers the move: its status is no effect, and the page says which rule fired)
  const greet = await expectApplied('alice@example.org', 'subtype: greet', 'Hello from rule 40000', {status: 'no effect'});
  check(greet.result.includes('fired in this event'), 'the page says the rule fired, changing nothing but the move',
        `#move-result says: ${greet.result}`);

  // text from players is shown as text, never as HTML
  const evil = '<img/src=x/onerror=window.pwned=1><b>carol</b>';
  await expectApplied('carol@example.org', `REGISTER ${evil}`);
  await eventually('a nickname with HTML in it is shown as text', async () => {
    const row = page.locator('#players tbody tr').filter({ hasText: '<b>carol</b>' });
    return (await row.count()) === 1 && (await score(evil)) === '0';
  });
  check((await page.locator('#players b, #players img, #history b, #history img').count()) === 0 &&
    !(await page.evaluate(() => window.pwned)), 'no element was made from the nickname anywhere');

  // the history: every event, newest first, with kind, time, sender, status, input and trace
  const log = await page.evaluate(async () => (await fetch('api/log')).json());
  await eventually(`the history lists all ${log.length} events, newest first`, async () => {
    const evs = await page.$$eval('#history li.event', (els) => els.map((e) => Number(e.dataset.event)));
    return evs.length === log.length && log.length === 8 && evs.every((n, i) => i === 0 || evs[i - 1] > n) ? true : { ok: false, evs };
  });
  check((await text('#game-event')).trim() === String(log[log.length - 1].event), 'the header shows the last event number');
  const kinds = await page.$$eval('#history li.event', (els) => els.map((e) => e.dataset.kind + ':' + e.dataset.status).reverse());
  check(JSON.stringify(kinds) === JSON.stringify(['move:applied', 'move:applied', 'move:applied', 'move:applied', 'move:applied',
    'tick:applied', 'move:no effect', 'move:applied']), 'events are 5 moves, the tick, 2 moves, the greet of no effect', kinds.join(' '));

  const reg = log.find((e) => e.sender === 'alice@example.org' && /nickname: alice/.test(e.input || ''));
  check(!!reg, "the log has alice's registration");
  const ev = `#history li.event[data-event="${reg.event}"]`;
  const head = await text(`${ev} .event-head`);
  check(head.includes('#' + reg.event) && head.includes('move') && head.includes('applied') &&
    head.includes('from alice@example.org') && /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/.test(head),
  "the registration's heading shows number, kind, status, UTC time and sender", head);
  check((await text(`${ev} pre.input`)).includes('subtype: register'), 'the registration shows its input');
  check(!(await page.locator(`${ev} details.trace`).evaluate((d) => d.open)), 'its trace is folded');
  await page.locator(`${ev} details.trace summary`).click();
  const firing = page.locator(`${ev} li.firing[data-rule="3"]`);
  await eventually('unfolded, the trace lists rule 3 (order 30010) with its bindings, changes and messages', async () => {
    if (!(await firing.isVisible())) return null;
    const t = await firing.textContent();
    return t.includes('rule 3') && t.includes('order 30010') && t.includes('%n = alice') &&
      /create #\d+/.test(t) && t.includes('set #') && t.includes('Welcome to Engine City, alice !') ? true : { ok: false, t };
  });

  const tickEv = `#history li.event[data-kind="tick"]`;
  const tickText = await page.locator(tickEv).textContent();
  check(tickText.includes('tick') && /the clock/.test(tickText), 'the tick is shown as the clock\'s event', tickText);
  const tickRules = await page.$$eval(`${tickEv} li.firing`, (els) => els.map((e) => e.dataset.rule));
  check(['18', '21', '23', '27'].every((r) => tickRules.includes(r)),
    "the tick's trace has rules 18 (close), 21 (pass), 23 (5 points), 27 (create the rule)", tickRules.join(','));
  check((await page.locator(`${tickEv} li.firing[data-rule="23"]`).textContent()).includes('alice receives 5 points'),
    "rule 23's firing shows its message to the players");

  // the objects panel
  await page.fill('#browse-type', 'player');
  await page.click('#browse-go');
  await eventually('the objects panel lists the 3 players as a table', async () =>
    (await page.locator('#browse-result table[data-type="player"] tbody tr').count()) === 3);

  // an amendment is shown against the rule as it stands: rule 9 (the win at
  // 100) amended to a win at 50, its then left out (kept)
  const amend = await expectApplied('alice@example.org', [
    'subtype: ruleChange', 'ruleChangeType: amend', 'target: 9',
    'newif: exists(type=="player" & score>50 & nickname==%n & objectId==%o) &',
    '    !exists(type=="win" & who==%o) &', '    exists(type=="playerList" & listContent==%pl)'].join('\n'),
  'Proposed rule-change (proposal');
  const apid = /Proposed rule-change \(proposal (\d+)/.exec(amend.result)[1];
  const acard = `#proposals [data-prop-id="${apid}"]`;
  await eventually(`proposal ${apid} shows the amendment as a diff against rule 9`, async () => {
    if ((await page.locator(`${acard} pre.diff`).count()) !== 1) return null;
    const del = await page.$$eval(`${acard} pre.diff span.del`, (els) => els.map((e) => e.textContent));
    const ins = await page.$$eval(`${acard} pre.diff span.ins`, (els) => els.map((e) => e.textContent));
    const same = await page.$$eval(`${acard} pre.diff span.same`, (els) => els.map((e) => e.textContent));
    return del.length === 1 && del[0].includes('score>100') && ins.length === 1 && ins[0].includes('score>50') &&
      same.length === 2 && same[0].includes('!exists(type=="win" & who==%o) &') ? true : { ok: false, del, ins, same };
  });
  check((await text(`${acard} .clause.kept`)).includes('then (kept)') &&
    (await text(`${acard} .clause.kept`)).includes('wins the game!'), 'the then it leaves out is shown as kept, as it stands');

  // a phone: 390 px wide, no horizontal scroll, the open proposal's vote buttons within reach
  await page.setViewportSize({ width: 390, height: 844 });
  // a move's answer, laid out to be read: a vote on the decided proposal
  // changes nothing; its outcome first, then the reason, then why rule by
  // rule (code within the screen), the replies
  const late = await expectApplied('alice@example.org', `VOTE ${pid} FOR`, "This move didn't do anything", { status: 'no effect' });
  const parts = await page.$$eval('#move-result > *', (els) => els.map((e) => ({
    testid: e.dataset.testid || e.querySelector('[data-testid]')?.dataset.testid || e.className,
    top: Math.round(e.getBoundingClientRect().top), right: Math.round(e.getBoundingClientRect().right) })));
  const at = (id) => parts.findIndex((p) => p.testid === id);
  check(at('answer-outcome') === 0 && at('answer-reason') === 1 && at('answer-why') === 2 && at('answer-replies') > 2,
    "at 390 px the answer's outcome comes first, then its reason, then why rule by rule, then the replies",
    JSON.stringify(parts));
  check(parts.every((p, i) => i === 0 || parts[i - 1].top < p.top) && parts.every((p) => p.right <= 390),
    'each part of the answer is a block under the one before, within the screen', JSON.stringify(parts));
  check((await text('[data-testid="answer-outcome"]')).trim() === 'No effect' &&
    // the reason is the nearest rule's own (its because), with the proposal's number
    (await text('[data-testid="answer-reason"]')).trim() === `Your vote on proposal ${pid} was not counted: a player votes on an open proposal once, FOR or AGAINST.` &&
    /rule 16 order 30220: .*does not hold/.test(await text('[data-testid="answer-why"]')),
  'the outcome says "No effect", the reason (rule 16\'s because) is a sentence of its own, rule 16 says why', late.result);
  await eventually('at 390 px the page does not scroll sideways', async () => {
    const w = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, body: document.body.scrollWidth,
      wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 391)
        .map((e) => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 12) }));
    return w.doc <= 390 && w.body <= 390 ? true : { ok: false, w };
  });
  const wide = await page.$$eval('body *', (els) => els.filter((e) => e.getBoundingClientRect().right > 391)
    .map((e) => e.tagName + '.' + e.className).slice(0, 5));
  check(wide.length === 0, 'at 390 px no element reaches past the right edge', wide.join(', '));
  // the page redraws its proposals as events arrive: a button replaced
  // while it is measured has no box, so the measure is taken again
  await eventually('at 390 px the vote buttons are within the screen', async () => {
    const vb = await page.locator(`${acard} .vote-buttons button`).first().boundingBox();
    return vb && vb.x >= 0 && vb.x + vb.width <= 390 ? true : { ok: false, vb };
  });
  const addr = await page.$eval('#players tr[data-nickname="alice"] td.email', (e) => ({
    style: getComputedStyle(e).wordBreak + '/' + getComputedStyle(e).overflowWrap, wbr: e.querySelectorAll('wbr').length,
    lines: Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight || '16')) }));
  check(!/break-all|anywhere/.test(addr.style) && addr.wbr === 2,
    'an address wraps only after its @ and at its dots, never mid-word', JSON.stringify(addr));

  // the keeper makes the game take moves only with a token: the page says
  // whom to ask, since the game mails nobody; given a transport, it offers
  // the button (the server reads the settings when the game changes)
  execFileSync(nomic, ['config', db, 'mailPolicy', 'tokens'], { stdio: 'pipe' });
  await eventually('under mailPolicy tokens, a game that sends no mail says to ask the keeper', async () =>
    (await text('#whoami')).trim() === NO_MAIL ? true : { ok: false, whoami: await text('#whoami') });
  check(await page.locator('#token-mail').isDisabled(), 'and does not offer "Mail me my token"');
  execFileSync(nomic, ['config', db, 'transport', 'smtp://127.0.0.1:1'], { stdio: 'pipe' });
  await eventually('given a transport, the page offers "Mail me my token" again', async () =>
    !(await page.locator('#token-mail').isDisabled()) && /\u201cMail me my token\u201d has it mailed/.test(await text('#whoami'))
      ? true : { ok: false, whoami: await text('#whoami') });
  check(!(await page.getAttribute('#token-mail', 'title')).includes('no mail'), 'its title no longer says the game sends no mail');

  // the clock compared with the game's is the reader's own: a browser whose
  // clock reads the game's time (ten days ahead of the server's) sees one
  await page.clock.setFixedTime(new Date((tickAt + 5) * 1000));
  await eventually('a reader whose clock agrees with the game\'s time sees one clock, the game\'s', async () => {
    const c = (await text('#game-clock')).trim();
    return c === fmt(tickAt) && (await text('#game-clock-label')).trim() === 'Clock' ? true : { ok: false, c };
  });

  checkNoPageErrors();

  if (process.env.NOMIC_BROWSER_SCREENSHOT) {
    await page.screenshot({ path: process.env.NOMIC_BROWSER_SCREENSHOT, fullPage: true });
    console.log('# screenshot: ' + process.env.NOMIC_BROWSER_SCREENSHOT);
  }
}

await run('browser', main);
