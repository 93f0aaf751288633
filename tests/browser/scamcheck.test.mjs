// The Mechanics' scam check of every proposal (docs/scams.md, "The check
// of every proposal"), on the page of `nomic serve`, in Chromium
// (playwright-core).  Usage: node scamcheck.test.mjs path/to/nomic
//
// A favor game with three players: bob's harmless proposal (a rule that
// never fires) shows "scam check: no goal reached"; carol's, sent through
// the page while it is served, adds a rule ordered before the check of a
// move's `from` that gives 101 points for a `bonus` move: once the check
// run beside the server is journaled, its card shows "flagged: win: ...
// can reach it in 1 message" with the move that does it, and bob's card
// is unchanged.
//
// Each check prints "ok N - ...".  Any failure prints "not ok", the
// server's output and a screenshot path, and exits 1.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { nomic, page, dir, check, eventually, startServer, openPage, checkNoPageErrors, run } from './harness.mjs';

function move(db, from, lines, time) {
  const args = ['move', db, '--from', from];
  if (time !== undefined) args.push('--time', String(time));
  return execFileSync(nomic, args, { input: lines.join('\n') + '\n', encoding: 'utf8' });
}

const WIN = [
  'subtype: ruleChange', 'ruleChangeType: create', 'neworder: 20000',
  'newif: exists(type=="move" & subtype=="bonus" & from==%f & objectId==%m) & exists(type=="player" & nickname==%f & objectId==%o)',
  'newthen: set(%o)(score==101) & delete(objectId==%m)',
];

await run('scamcheck', async () => {
  const db = path.join(dir, 'g.db');
  const t0 = Math.floor(Date.now() / 1000) - 3600;
  execFileSync(nomic, ['init', db, '--ruleset', 'favor', '--time', String(t0 - 60)]);
  for (const p of ['alice', 'bob', 'carol']) move(db, p + '@x', ['REGISTER ' + p], t0);
  move(db, 'bob@x', ['subtype: ruleChange', 'ruleChangeType: create', 'newif: F', 'newthen: halt()', 'neworder: 50000'], t0 + 60);
  const url = await startServer(db);
  await openPage();
  await page.goto(url);
  const cards = '#proposals article.proposal';
  const first = await eventually('the harmless proposal is shown', async () => {
    const ids = await page.$$eval(cards, (l) => l.map((c) => c.dataset.propId));
    return ids.length === 1 ? ids[0] : { ok: false, ids };
  });
  const calm = `${cards}[data-prop-id="${first}"] [data-testid="scam-check"]`;
  await eventually('its scam check: no goal reached', async () => {
    const t = await page.locator(calm).first().textContent({ timeout: 1000 });
    return /scam check: no goal reached/.test(t) && !/flagged/.test(t) ? true : { ok: false, t };
  });
  // carol's proposal, sent through the page's move form
  await page.fill('#move-from', 'carol@x');
  await page.fill('#move-body', WIN.join('\n'));
  await page.click('#move-send');
  const second = await eventually('the second proposal is shown', async () => {
    const ids = await page.$$eval(cards, (l) => l.map((c) => c.dataset.propId));
    const other = ids.find((i) => i !== first);
    return other || { ok: false, ids };
  });
  const flagged = `${cards}[data-prop-id="${second}"] [data-testid="scam-check"]`;
  const t = await eventually('its scam check, run beside the server, is shown flagged with the proposal', async () => {
    const el = page.locator(flagged).first();
    const txt = await el.textContent({ timeout: 1000 });
    return (await el.getAttribute('data-flagged')) === 'true' ? txt : { ok: false, txt };
  }, 30000);
  check(/flagged: win: \S+@x can reach it in 1 message: \S+@x sends subtype=bonus/.test(t), 'the flag says the goal, who and the move', t);
  const still = await page.locator(calm).first().textContent();
  check(/no goal reached/.test(still), "the harmless proposal's check is unchanged", still);
  const json = await page.evaluate(async () => (await fetch('api/log')).json());
  const ev = json.find((e) => Array.isArray(e.scamCheck) && e.scamCheck.some((c) => c.flagged));
  check(ev && ev.scamCheck.some((c) => c.goal === 'win' && c.flagged), '/api/log carries the flagged check', JSON.stringify(ev));
  checkNoPageErrors();
});
