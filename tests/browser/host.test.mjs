// The games of a directory served by one `nomic serve DIR`, in Chromium
// (playwright-core): the list at / and a game's page at /NAME/.
// Usage: node host.test.mjs path/to/nomic
//
// It makes a directory of three games (favor, suber and agora, each by
// `nomic init DIR/NAME.db --ruleset SET`), gives suber a display name with
// HTML in it (`nomic config`), registers alice and bob in favor (`nomic
// move`), and serves the directory on a free port of 127.0.0.1.  Then, at
// 1400 px and at 390 px wide, the list must show every game as /api/games
// says (its name, the display name where set, its sets, players, events and
// open proposals), as text, without scrolling sideways at 390 px.  A click
// on favor's link opens its page at /favor/, whose header names it and whose
// panels load from /favor/api/ only; carol registers through its move form,
// and the move lands in favor alone.  A token is one game's: alice's token
// of favor, given on favor's page, is neither shown on suber's page nor sent
// to suber's API.  suber's page shows its display name as text, and at
// 390 px keeps its long word within the screen.  A game made in the
// directory while the list is open (`nomic init DIR/new.db`) appears in it
// without a reload, the keyboard's focus staying on the link it was on;
// /agora (no slash) ends at /agora/ with the page working.  Last, an empty
// directory: the list says there is no game, until one is made.
//
// Each check prints "ok N - ...".  Any failure prints "not ok", the
// server's output and a screenshot path, and exits 1.
//
// NOMIC_BROWSER_SHOTS=DIR saves screenshots there: the list at 1400 and
// 390 px, favor's page, suber's at 390 px, the empty list.

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  nomic, page, dir, ok, check, eventually, startServer, stopServer, openPage, checkNoPageErrors, text, run,
} from './harness.mjs';

const SHOTS = process.env.NOMIC_BROWSER_SHOTS || '';
async function shot(name, fullPage = true) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, name + '.png');
  await page.screenshot({ path: file, fullPage });
  console.log('# screenshot: ' + file);
}

// a display name with HTML in it: the list and the page show it as text
// and a word too long for a phone's line
const SUBER_TITLE = 'Suber\u2019s <b>first</b> game & co: Supercalifragilisticexpialidocious_Nomic_of_1982';

function move(db, from, lines) {
  return execFileSync(nomic, ['move', db, '--from', from], { input: lines.join('\n') + '\n', encoding: 'utf8' });
}

// /api/games as the page sees it
const apiGames = async () => (await page.evaluate(async () => (await fetch('/api/games', { cache: 'no-store' })).json())).games;
const getJSON = async (url) => (await fetch(url, { cache: 'no-store' })).json();

// what the list shows of each game
function cards() {
  return page.$$eval('#games [data-testid="game"]', (els) => els.map((e) => {
    const dd = (id) => { const d = e.querySelector(`[data-testid="${id}"]`); return d ? d.textContent.trim() : null; };
    const a = e.querySelector('a[data-testid="game-link"]');
    return {
      name: e.dataset.name, link: a ? a.textContent.trim() : null, href: a ? a.href : null,
      heading: a ? !!a.closest('h2, h3, h4') : false, sets: dd('game-sets'),
      players: dd('game-players'), event: dd('game-event'), open: dd('game-open'), text: e.textContent,
    };
  }));
}

// the list agrees with /api/games, game by game
async function listMatches(base, what) {
  return eventually(`${what}: the list shows every game of /api/games as it says`, async () => {
    const games = await apiGames();
    const shown = await cards();
    const bad = [];
    if (shown.length !== games.length) bad.push(`${shown.length} cards for ${games.length} games`);
    for (const g of games) {
      const c = shown.find((s) => s.name === g.name);
      if (!c) { bad.push(`no card for ${g.name}`); continue; }
      if (c.link !== g.title) bad.push(`${g.name}: link "${c.link}", title "${g.title}"`);
      if (c.href !== new URL(g.path, base).href) bad.push(`${g.name}: href ${c.href}`);
      if (!c.heading) bad.push(`${g.name}: its link is in no heading`);
      if (g.title !== g.name && !c.text.includes(g.name)) bad.push(`${g.name}: its file name is not shown beside "${g.title}"`);
      if (!g.sets.every((s) => c.sets && c.sets.split(/[\s+,:]+/).includes(s))) bad.push(`${g.name}: sets "${c.sets}"`);
      if (c.players !== String(g.players)) bad.push(`${g.name}: players ${c.players} for ${g.players}`);
      if (c.event !== String(g.event)) bad.push(`${g.name}: events ${c.event} for ${g.event}`);
      const open = g.openProposals === null ? null : String(g.openProposals);
      if (c.open !== open) bad.push(`${g.name}: open proposals ${c.open} for ${open}`);
    }
    const count = (await text('#games-count')).trim();
    const want = games.length + (games.length === 1 ? ' game' : ' games');
    if (count !== want) bad.push(`the count says "${count}"`);
    return bad.length ? { ok: false, bad } : games;
  });
}

async function noSidewaysScroll(what) {
  await eventually(`${what}: nothing reaches past the right edge at 390 px`, async () => {
    const w = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, inner: window.innerWidth,
      wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
        .map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 8) }));
    return w.doc <= w.inner && w.wide.length === 0 ? true : { ok: false, w };
  });
}

async function main() {
  const games = path.join(dir, 'games');
  mkdirSync(games);
  const db = (name) => path.join(games, name + '.db');
  for (const set of ['favor', 'suber', 'agora']) {
    execFileSync(nomic, ['init', db(set), '--ruleset', set], { stdio: 'pipe' });
  }
  ok('nomic init DIR/favor.db, DIR/suber.db and DIR/agora.db, each with its set');
  execFileSync(nomic, ['config', db('suber'), 'name', SUBER_TITLE], { stdio: 'pipe' });
  move(db('favor'), 'alice@example.org', ['REGISTER alice']);
  move(db('favor'), 'bob@example.org', ['REGISTER bob']);
  ok('suber has a display name; alice and bob are registered in favor');

  const base = await startServer(games);
  ok(`nomic serve DIR listens on ${base}`);

  await openPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(base);

  // the list, wide
  check((await page.title()) === 'Nomic games', 'the list\'s title is "Nomic games"', await page.title());
  const listed = await listMatches(base, 'at 1400 px');
  check(JSON.stringify(listed.map((g) => g.name)) === '["agora","favor","suber"]',
    '/api/games lists agora, favor and suber', JSON.stringify(listed));
  const fav = listed.find((g) => g.name === 'favor');
  const sub = listed.find((g) => g.name === 'suber');
  check(fav.players === 2 && fav.event === 2, 'favor has its 2 players and 2 events', JSON.stringify(fav));
  check(sub.title === SUBER_TITLE, "suber's title is its display name", JSON.stringify(sub));
  check((await page.locator('#games b').count()) === 0, 'the display name\'s HTML is shown as text, no element made of it');
  check(await page.locator('#games-empty').isHidden(), 'the list does not say it is empty');
  const headings = await page.$$eval('h1, h2, h3', (els) => els.map((e) => e.tagName + ':' + e.textContent.trim()));
  check(headings[0] === 'H1:Nomic games' && headings.filter((x) => x.startsWith('H1')).length === 1,
    'the list has one h1, first', headings.join(' | '));
  await shot('list-1400');

  // the list, on a phone
  await page.setViewportSize({ width: 390, height: 844 });
  await listMatches(base, 'at 390 px');
  await noSidewaysScroll('the list');
  const linkBoxes = await page.$$eval('#games a[data-testid="game-link"]', (els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    return { l: Math.round(r.left), r: Math.round(r.right), h: Math.round(r.height) };
  }));
  check(linkBoxes.every((b) => b.l >= 0 && b.r <= 390 && b.h >= 20), 'at 390 px every game\'s link is on screen and big enough to tap',
    JSON.stringify(linkBoxes));
  await shot('list-390');
  await page.setViewportSize({ width: 1400, height: 1000 });

  // a click on favor's link: its page at /favor/, its API at /favor/api/
  requests.length = 0;
  await page.click('#games [data-name="favor"] a[data-testid="game-link"]');
  await page.waitForURL(base + 'favor/');
  ok('a click on favor\'s link opens ' + base + 'favor/');
  await eventually("favor's header shows its name and event 2", async () =>
    (await text('#game-name')).trim() === 'favor' && (await text('#game-event')).trim() === '2');
  await eventually("favor's players panel shows alice and bob", async () =>
    (await page.locator('#players tr[data-nickname="alice"]').count()) === 1 &&
    (await page.locator('#players tr[data-nickname="bob"]').count()) === 1);
  const favRules = await getJSON(base + 'favor/api/rules');
  await eventually(`favor's rules panel shows its ${favRules.length} rules`, async () =>
    (await page.locator('#rules article.rule').count()) === favRules.length && favRules.length > 0);
  const apiCalls = requests.filter((u) => new URL(u).pathname.includes('/api/'));
  check(apiCalls.length > 0 && apiCalls.every((u) => u.startsWith(base + 'favor/api/')),
    'every API call of favor\'s page goes to /favor/api/', apiCalls.filter((u) => !u.startsWith(base + 'favor/api/')).join('\n'));
  const files = requests.filter((u) => !new URL(u).pathname.includes('/api/'));
  check(files.every((u) => u.startsWith(base + 'favor/')), "favor's page loads its own files from /favor/", files.join('\n'));
  await eventually("favor's header links back to the list", async () =>
    (await page.isVisible('#games-link')) && (await page.getAttribute('#games-link', 'href')) === '../');
  await shot('favor-1400');

  // carol registers through favor's move form: in favor, and in no other game
  await page.fill('#move-from', 'carol@example.org');
  await page.fill('#move-body', 'REGISTER carol');
  await page.click('#move-send');
  await page.waitForFunction(() => {
    const r = document.querySelector('#move-result');
    return r && r.dataset.status && !document.querySelector('#move-send').disabled;
  }, null, { timeout: 15000 });
  const res = (await text('#move-result')).replace(/\s+/g, ' ');
  check((await page.getAttribute('#move-result', 'data-status')) === 'applied' && res.includes('Welcome to Engine City, carol !'),
    'carol registers through favor\'s move form: applied', res);
  await eventually("favor's players panel shows carol", async () =>
    (await page.locator('#players tr[data-nickname="carol"]').count()) === 1);
  const nicks = async (name) => (await getJSON(`${base}${name}/api/objects?type=player`)).map((p) => p.nickname).sort();
  check(JSON.stringify(await nicks('favor')) === '["alice","bob","carol"]', 'favor\'s API lists alice, bob and carol',
    JSON.stringify(await nicks('favor')));
  check((await nicks('suber')).length === 0 && (await nicks('agora')).length === 0, 'suber and agora have no player');
  const shown = execFileSync(nomic, ['show', db('favor'), '--type', 'player'], { encoding: 'utf8' });
  check(shown.includes('carol@example.org'), '`nomic show` finds carol in favor.db', shown);
  for (const other of ['suber', 'agora']) {
    const log = await getJSON(`${base}${other}/api/log`);
    check(log.length === 0, `${other}'s log is still empty`, JSON.stringify(log).slice(0, 500));
  }

  // a token is one game's: alice's token of favor, given on favor's page,
  // is neither shown on suber's page nor sent to suber's API, and favor's
  // page still has it afterwards
  const token = execFileSync(nomic, ['token', db('favor'), 'alice@example.org'], { encoding: 'utf8' }).trim();
  check(/^[0-9a-f]{16,}$/.test(token), 'nomic token favor alice@example.org issues a token', token);
  await page.fill('#move-from', 'alice@example.org');
  await page.fill('#move-token', token);
  await page.dispatchEvent('#move-token', 'change');
  await eventually("favor's page takes alice's token", async () =>
    /alice/.test(await text('#whoami')) ? true : { ok: false, whoami: await text('#whoami') });
  const bearers = [];
  const onRequest = (r) => { const a = r.headers().authorization; if (a) bearers.push(r.url()); };
  page.on('request', onRequest);
  await page.goto(base + 'suber/');
  await eventually("suber's page loads (its header names it)", async () => (await text('#game-name')).trim() === SUBER_TITLE);
  await eventually("suber's page has its own token field, empty", async () =>
    (await page.inputValue('#move-token')) === '' ? true : { ok: false, token: await page.inputValue('#move-token') }, 5000);
  check(bearers.filter((u) => u.startsWith(base + 'suber/')).length === 0, "favor's token is never sent to suber's API",
    bearers.join('\n'));
  page.off('request', onRequest);
  await page.goto(base + 'favor/');
  await eventually("back on favor's page, alice's token is still there", async () =>
    (await page.inputValue('#move-token')) === token && /alice/.test(await text('#whoami'))
      ? true : { ok: false, token: await page.inputValue('#move-token'), whoami: await text('#whoami') });
  await page.fill('#move-token', '');
  await page.dispatchEvent('#move-token', 'change');

  // back to the list: favor now has 3 players and 3 events
  await page.goto(base);
  await listMatches(base, 'back on the list');
  check((await apiGames()).find((g) => g.name === 'favor').players === 3, '/api/games counts favor\'s 3 players');

  // suber's page: its display name, as text
  await page.click('#games [data-name="suber"] a[data-testid="game-link"]');
  await page.waitForURL(base + 'suber/');
  await eventually("suber's header shows its display name as text", async () =>
    (await text('#game-name')).trim() === SUBER_TITLE && (await page.locator('#game-name b').count()) === 0
      ? true : { ok: false, name: await text('#game-name') });
  check((await page.title()).startsWith(SUBER_TITLE), "suber's page is titled by its display name", await page.title());
  await eventually("suber's rules panel is filled", async () => (await page.locator('#rules article.rule').count()) > 0);
  check((await page.locator('#players tbody tr').count()) === 0, "suber's players panel shows nobody (favor's players are favor's)");
  await page.setViewportSize({ width: 390, height: 844 });
  await noSidewaysScroll("suber's page, its long display name in the header");
  await shot('suber-390', false);
  await page.setViewportSize({ width: 1400, height: 1000 });

  // a game made meanwhile appears in the open list, without a reload
  await page.goto(base);
  await listMatches(base, 'the list again');
  await page.evaluate(() => { window.notReloaded = true; });
  await page.focus('#games [data-name="favor"] a[data-testid="game-link"]');
  execFileSync(nomic, ['init', db('new'), '--ruleset', 'favor'], { stdio: 'pipe' });
  ok('nomic init DIR/new.db while the list is open');
  await eventually('the new game appears in the list within the page\'s refresh', async () =>
    (await page.locator('#games [data-name="new"] a[data-testid="game-link"]').count()) === 1, 15000);
  check(await page.evaluate(() => window.notReloaded === true), 'the page was not reloaded');
  check(await page.evaluate(() => document.activeElement && document.activeElement.matches('#games [data-name="favor"] a.game-link')),
    "the keyboard's focus stays on favor's link as the list is drawn again",
    await page.evaluate(() => document.activeElement && document.activeElement.outerHTML));
  await listMatches(base, 'with the new game');

  // /agora (no slash) ends at /agora/, and the page works there
  await page.goto(base + 'agora');
  check(page.url() === base + 'agora/', '/agora ends at /agora/', page.url());
  await eventually("agora's header shows its name", async () => (await text('#game-name')).trim() === 'agora');
  await eventually("agora's rules panel is filled", async () => (await page.locator('#rules article.rule').count()) > 0);
  await page.setViewportSize({ width: 390, height: 844 });
  await noSidewaysScroll("agora's page");
  await page.setViewportSize({ width: 1400, height: 1000 });

  checkNoPageErrors();

  // an empty directory: the list says so, until a game is made
  await stopServer();
  const empty = path.join(dir, 'empty');
  mkdirSync(empty);
  const base2 = await startServer(empty);
  ok(`nomic serve on an empty directory listens on ${base2}`);
  await page.goto(base2);
  await eventually('an empty directory: the list says no game is served, and counts 0 games', async () =>
    (await page.locator('#games-empty').isVisible()) && (await text('#games-count')).trim() === '0 games' &&
    (await page.locator('#games [data-testid="game"]').count()) === 0);
  await page.setViewportSize({ width: 390, height: 844 });
  await noSidewaysScroll('the empty list');
  await shot('empty-390');
  execFileSync(nomic, ['init', path.join(empty, 'first.db'), '--ruleset', 'suber'], { stdio: 'pipe' });
  await eventually('a game made there appears, and the list no longer says it is empty', async () =>
    (await page.locator('#games [data-name="first"]').count()) === 1 && (await page.locator('#games-empty').isHidden()) &&
    (await text('#games-count')).trim() === '1 game', 15000);

  checkNoPageErrors();
}

await run('host', main);
