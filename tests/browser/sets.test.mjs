// The page of `nomic serve` on the other shipped sets, in Chromium
// (playwright-core): suber's and agora's proposals, as each set declares
// them in its engineSettings' proposalView (docs/api.md).
// Usage: node sets.test.mjs path/to/nomic
//
// suber: bob proposes to amend rule 208 with a formal change to its formal rule;
// the page must show the proposal's text, the amendment as a diff against
// rule 208's text, the formal change's if and then; alice votes with the
// card's FOR button, bob and carol from the command line, and once decided
// the card keeps the tally with the voters' names.
//
// agora: alice's proposal is made, pended and distributed (the game starts
// on the Friday before this week's Monday, the proposal distributed on that
// Monday, so its decision is open now); alice votes with the card's button,
// bob AGAINST from the command line; the voting period is made to end with
// `nomic tick` beside the server, and the card keeps the text of every
// change, the outcome and the tally by option with the voters' names; the
// Assessor's report on the page is what `nomic report` prints.
//
// Each check prints "ok N - ...".  Any failure prints "not ok", the
// server's output and a screenshot path, and exits 1.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  nomic, page, dir, ok, fail, check, sleep, eventually, startServer, stopServer, openPage, checkNoPageErrors, text, run,
} from './harness.mjs';

// one message of moves from the command line, at a time (seconds) or now
function move(db, from, lines, time) {
  const args = ['move', db, '--from', from];
  if (time !== undefined) args.push('--time', String(time));
  return execFileSync(nomic, args, { input: lines.join('\n') + '\n', encoding: 'utf8' });
}
async function clickVote(card, from, vote) {
  await page.fill('#move-from', from);
  await page.fill('#move-body', '');
  await page.click(`${card} .vote-buttons button[data-vote="${vote}"]`);
  await page.waitForFunction(() => {
    const r = document.querySelector('#move-result');
    return r && r.dataset.status && !document.querySelector('#move-send').disabled;
  }, null, { timeout: 15000 });
  return { status: await page.getAttribute('#move-result', 'data-status'), text: await text('#move-result') };
}
async function noSidewaysScroll(what) {
  await page.setViewportSize({ width: 390, height: 844 });
  await eventually(`${what}: at 390 px the page does not scroll sideways`, async () => {
    const w = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth,
      wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 391)
        .map((e) => e.tagName + '.' + e.className).slice(0, 8),
      over: [...document.querySelectorAll('body *')].filter((e) => e.scrollWidth > e.clientWidth + 1 &&
        getComputedStyle(e).overflowX === 'visible').map((e) => e.tagName + '.' + e.className + ' ' + e.scrollWidth).slice(0, 8) }));
    return w.doc <= 390 && w.wide.length === 0 ? true : { ok: false, w };
  });
  await page.setViewportSize({ width: 1400, height: 1000 });
}

const NEW_TEXT = 'The winner is the first player to achieve 30 (positive) points.';
const NEW_IF = 'exists(type=="player" & score>=30 & nickname==%n) & !exists(type=="win")';
const NEW_THEN = 'create(type=="win" & player==%n) & halt()';

async function suber() {
  const db = path.join(dir, 'suber.db');
  execFileSync(nomic, ['init', db, '--ruleset', 'suber'], { stdio: 'pipe' });
  move(db, 'c@x', ['JOIN carol Zed']);
  move(db, 'a@x', ['JOIN alice Young']);
  move(db, 'b@x', ['JOIN bob adams']);
  // the formal rule of the win at 200 (rule 208), read from the game
  const rules = JSON.parse(execFileSync(nomic, ['show', db, '--type', 'rule', '--json'], { encoding: 'utf8' })).objects;
  const win = rules.find((r) => String(r.if).includes('score>=200')).objectId;
  const said = move(db, 'b@x', [`PROPOSE AMEND 208 ${NEW_TEXT}`, `FORMAL AMEND ${win} IF ${NEW_IF} THEN ${NEW_THEN}`]);
  check(said.includes('Proposal 301 by bob'), 'suber: bob proposes 301 with a formal change (command line)', said);
  const base = await startServer(db);
  await page.goto(base);
  const one = '[data-prop-id="301"]', card = '#proposals ' + one;
  await eventually('suber: proposal 301 is shown open, by bob, with its text', async () => {
    if ((await page.locator(card).count()) === 0) return null;
    const t = await text(card);
    return (await page.getAttribute(card, 'data-status')) === 'open' && t.includes('by bob') && t.includes(NEW_TEXT) ?
      true : { ok: false, t };
  });
  const diff = await page.$$eval(`${card} .change[data-kind="amend"] pre.diff`, (els) => els.map((e) => e.textContent));
  check(diff.some((d) => d.includes('+ ' + NEW_TEXT) && /\n?- .*winner/.test(d)),
    'suber: the amendment of rule 208 is a diff against its text as it stands', JSON.stringify(diff));
  const formal = await text(`${card} .change:has(a[href="#rule-${win}"])`);
  check(formal.includes(`amend formal rule ${win}`) && formal.includes('+ ' + NEW_IF) && formal.includes('+ ' + NEW_THEN),
    `suber: the formal change to rule ${win} is shown whole, its if and then as written, as a diff`, formal);
  const buttons = await page.$$eval(`${card} .vote-buttons button`, (els) => els.map((e) => e.dataset.vote));
  check(JSON.stringify(buttons) === '["FOR","AGAINST"]', "suber: a button per option of the set's VOTE form", JSON.stringify(buttons));
  const r = await clickVote(card, 'a@x', 'FOR');
  check(r.status === 'applied' && r.text.includes('Your vote FOR on proposal 301 is counted'),
    'suber: alice votes FOR with the button', r.text);
  await eventually('suber: the tally shows alice FOR', async () => {
    const t = await text(card);
    return t.includes('FOR 1') && t.includes('alice FOR') ? true : { ok: false, t };
  });
  move(db, 'b@x', ['VOTE 301 FOR']);
  move(db, 'c@x', ['VOTE 301 AGAINST']);
  await eventually('suber: decided, 301 keeps its text, its formal change and the tally with names', async () => {
    const t = await text(card);
    const st = await page.getAttribute(card, 'data-status');
    return st !== 'open' && (await page.locator(`#proposals details.decided article${one}`).count()) === 1 &&
      t.includes(NEW_TEXT) && t.includes(NEW_THEN) && t.includes('FOR 2') && t.includes('AGAINST 1') &&
      t.includes('alice FOR') && t.includes('bob FOR') && t.includes('carol AGAINST') ? true : { ok: false, st, t };
  });
  check((await page.locator(`${card} .vote-buttons`).count()) === 0, 'suber: a decided proposal has no vote buttons');
  await noSidewaysScroll('suber');
  await page.goto('about:blank'); // the page polls no server that is gone
  await stopServer();
}

// Monday 00:00 UTC of this Agoran week (rule 1023), in seconds
function thisMonday() {
  const now = Math.floor(Date.now() / 1000);
  return now - ((now - 345600) % 604800);
}

async function agora() {
  const db = path.join(dir, 'agora.db');
  const monday = thisMonday();
  const day = 86400;
  execFileSync(nomic, ['init', db, '--ruleset', 'agora', '--time', String(monday - 3 * day)], { stdio: 'pipe' });
  let t = monday - 3 * day + 60;
  for (const [n, a] of [['alice', 'a@x'], ['bob', 'b@x'], ['carol', 'c@x']]) move(db, a, [`REGISTER ${n}`], t++);
  move(db, 'a@x', ['PROPOSE AI 2 Hats', 'ENACT TITLE Hats TEXT Every player wears a hat.',
    'AMEND 2125 Every player may wear a hat.'], t++);
  const pid = JSON.parse(execFileSync(nomic, ['show', db, '--type', 'proposal', '--json'], { encoding: 'utf8' })).objects[0].objectId;
  move(db, 'b@x', [`PEND ${pid}`], t++);
  execFileSync(nomic, ['tick', db, '--time', String(monday)], { stdio: 'pipe' });
  const base = await startServer(db);
  await page.goto(base);
  const one = '[data-prop-id="1"]', card = '#proposals ' + one;
  await eventually('agora: proposal 1 (Hats, by alice, AI 2) is shown with decision 1 open', async () => {
    if ((await page.locator(card).count()) === 0) return null;
    const t = await text(card);
    return t.includes('Hats') && t.includes('by alice') && t.includes('AI 2') && t.includes('Decision 1') &&
      t.includes('Every player wears a hat.') ? true : { ok: false, t };
  });
  const amend = await text(`${card} .change[data-kind="amend"]`);
  check(amend.includes('amend rule 2125') && amend.includes('+ Every player may wear a hat.'),
    "agora: the amendment of rule 2125 is a diff against the rule's text", amend);
  const buttons = await page.$$eval(`${card} .vote-buttons button`, (els) => els.map((e) => e.dataset.vote));
  check(JSON.stringify(buttons) === '["FOR","AGAINST","PRESENT"]', "agora: a button per option of the set's VOTE form",
    JSON.stringify(buttons));
  const r = await clickVote(card, 'a@x', 'FOR');
  check(r.status === 'applied' && r.text.includes('Your ballot FOR on decision 1 is counted'),
    'agora: alice votes FOR on decision 1 with the button', r.text);
  move(db, 'b@x', ['VOTE 1 AGAINST']);
  move(db, 'c@x', ['VOTE 1 PRESENT']);
  await eventually('agora: the tally by option names the voters', async () => {
    const t = await text(card);
    return t.includes('FOR 1') && t.includes('AGAINST 1') && t.includes('PRESENT 1') && t.includes('alice FOR') &&
      t.includes('bob AGAINST') && t.includes('carol PRESENT') ? true : { ok: false, t };
  });
  execFileSync(nomic, ['tick', db, '--time', String(monday + 7 * day)], { stdio: 'pipe' });
  await eventually('agora: resolved, the card keeps its changes, the outcome and the tally with names', async () => {
    const t = await text(card);
    return (await page.locator(`#proposals details.decided article${one}`).count()) === 1 &&
      /ADOPTED|REJECTED/.test(t) && t.includes('Every player wears a hat.') && t.includes('Every player may wear a hat.') &&
      t.includes('alice FOR') && t.includes('bob AGAINST') && t.includes('carol PRESENT') ? true : { ok: false, t };
  });
  check((await page.locator(`${card} .vote-buttons`).count()) === 0, 'agora: a resolved decision has no vote buttons');
  // the officers' reports, as `nomic report` prints them
  const kinds = await page.$$eval('#report-kinds button', (els) => els.map((e) => e.dataset.kind));
  check(JSON.stringify(kinds) === '["assessor","promotor","registrar"]', "agora: the set's report kinds are offered",
    JSON.stringify(kinds));
  await page.click('#report-kinds button[data-kind="assessor"]');
  const want = execFileSync(nomic, ['report', db, 'assessor', '--time', String(monday + 7 * day)], { encoding: 'utf8' }).replace(/ at \S+Z\n/, '\n');
  await eventually("agora: the Assessor's report is shown as nomic report prints it", async () => {
    if ((await page.locator('#report-result pre.report-text').count()) === 0) return null;
    const got = (await text('#report-result pre.report-text')).replace(/ at \S+Z\n/, '\n');
    return got === want && got.includes('PROPOSAL 1 (Hats)') &&
      got.includes('FOR (1): alice') ? true : { ok: false, got, want };
  });
  await noSidewaysScroll('agora');
  await page.goto('about:blank'); // the page polls no server that is gone
  await stopServer();
}

// A long favor game: 4 players, 15 proposals each voted on by the three
// others, all decided by one tick: 65 events; 10 pass (5 have more
// AGAINST), so the game has 42 rules.  The page
// must stay short: the history scrolls in its own box, decided proposals
// but the newest are folded and ten are listed, the rules past the first
// twelve (five on a phone) wait for "Show all".
const HEIGHT_WIDE = 5000;  // px at 1400 px wide
const HEIGHT_PHONE = 7000; // px at 390 px wide (12,500 px was seen after a dozen events before)
async function longGame() {
  const db = path.join(dir, 'long.db');
  const day = 86400;
  let t = Math.floor(Date.now() / 1000) - 30 * day;
  execFileSync(nomic, ['init', db, '--ruleset', 'favor', '--time', String(t)], { stdio: 'pipe' });
  const players = ['ann', 'ben', 'cat', 'dan'];
  for (const p of players) move(db, p + '@x', [`REGISTER ${p}`], ++t);
  for (let i = 0; i < 15; i++) {
    const by = players[i % 4];
    const said = move(db, by + '@x', [`CREATE ${50000 + i} IF exists(type=="move" & subtype=="noop${i}" & objectId==%o) ` +
      'THEN delete(%o)'], ++t);
    const pid = /proposal (\d+)/.exec(said)[1];
    for (const p of players) if (p !== by) move(db, p + '@x', [`VOTE ${pid} ${i % 3 ? 'FOR' : 'AGAINST'}`], ++t);
  }
  execFileSync(nomic, ['tick', db, '--time', String(t + 11 * day)], { stdio: 'pipe' });
  const events = execFileSync(nomic, ['log', db], { encoding: 'utf8' }).split('\n').filter((l) => /^event \d+/.test(l)).length;
  check(events >= 60, `long: a favor game of ${events} events (60 or more)`);
  const base = await startServer(db);
  await page.goto(base);
  await eventually('long: the page shows the 15 decided proposals, the newest 3 whole, 10 listed', async () => {
    const sum = (await page.locator('#proposals details.decided > summary').count()) ?
      await text('#proposals details.decided > summary') : '';
    const listed = await page.locator('#proposals details.decided article.proposal').count();
    const folded = await page.locator('#proposals details.decided article.proposal details.folded').count();
    return sum === 'Decided (15)' && listed === 10 && folded === 7 ? true : { ok: false, sum, listed, folded };
  });
  await eventually('long: the history has every event, the rules list shows 12 of 42', async () =>
    (await page.locator('#history li.event').count()) === events &&
    (await text('#rules-count')).trim() === '12 of 42 rules' ? true : { ok: false, c: await text('#rules-count') });
  for (const [width, bound] of [[1400, HEIGHT_WIDE], [390, HEIGHT_PHONE]]) {
    await page.setViewportSize({ width, height: 900 });
    await sleep(300);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    check(height <= bound, `long: at ${width} px wide the page is ${height} px long (at most ${bound})`);
  }
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.click('#proposals [data-testid="decided-more"]');
  await eventually('long: "Show older" lists the 5 others', async () =>
    (await page.locator('#proposals details.decided article.proposal').count()) === 15);
  await page.click('#rules-all');
  await eventually('long: "Show all rules" shows the 42', async () =>
    (await page.locator('#rules article.rule:not([hidden])').count()) === 42);
  await page.goto('about:blank'); // the page polls no server that is gone
  await stopServer();
}

async function main() {
  await openPage();
  await suber();
  await agora();
  await longGame();
  checkNoPageErrors();
}

await run('sets', main);
