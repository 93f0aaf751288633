// What the page asks of `nomic serve` (NOMIC: the binary): every module of
// web/ served as JavaScript, and GET api/game's proposalView, the set's
// view parsed by the server (src/scams_proposal.c), as views.mjs holds it
// for each shipped set.
import assert from 'node:assert/strict';
import {execFileSync, spawn} from 'node:child_process';
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import net from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, test} from 'node:test';
import * as views from './views.mjs';

const nomic = process.env.NOMIC;
assert.ok(nomic, 'NOMIC names the nomic binary (make webunit sets it)');
const dir = mkdtempSync(path.join(tmpdir(), 'nomic-web-'));
after(() => rmSync(dir, {recursive: true, force: true}));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const {port} = s.address(); s.close(() => resolve(port)); });
  });
}

// A new game of the set, served while fn runs: fn(base URL).
async function serving(set, fn) {
  const db = path.join(mkdtempSync(path.join(dir, set + '-')), 'game.db');
  execFileSync(nomic, ['init', db, '--ruleset', set]);
  const listen = '127.0.0.1:' + await freePort();
  const server = spawn(nomic, ['serve', db, '--listen', listen], {stdio: ['ignore', 'pipe', 'inherit']});
  try {
    await new Promise((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d) => { out += d; if (out.includes('http://' + listen + '/')) resolve(); });
      server.on('exit', (code) => reject(new Error('nomic serve exited (' + code + ')')));
    });
    await fn('http://' + listen + '/');
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      const gone = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await gone;
    }
  }
}

test('every module of the page is served as JavaScript, as it is in web/', async () => {
  const web = new URL('../../web/', import.meta.url);
  await serving('favor', async (base) => {
    for (const f of readdirSync(web).filter((n) => n.endsWith('.js'))) {
      const res = await fetch(base + f);
      assert.equal(res.status, 200, f);
      assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8', f);
      assert.equal(await res.text(), readFileSync(new URL(f, web), 'utf8'), f);
    }
  });
});

for (const set of ['favor', 'suber', 'agora']) {
  test(`${set}: api/game gives the set's proposalView parsed`, async () => {
    await serving(set, async (base) => {
      const game = await (await fetch(base + 'api/game')).json();
      assert.deepEqual(game.proposalView, views[set]);
    });
  });
}
