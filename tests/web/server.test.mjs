// What the page asks of `nomic serve` (NOMIC: the binary): every module of
// web/ served as JavaScript, GET api/game's proposalView, the set's view
// parsed by the server (src/scams_proposal.c), as views.mjs holds it for
// each shipped set, and its sendsMail, which decides whether the page
// offers "Mail me my token".
import assert from 'node:assert/strict';
import {execFileSync, spawn} from 'node:child_process';
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import net from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {after, test} from 'node:test';
import * as views from './views.mjs';

const nomic = process.env.NOMIC;
assert.ok(nomic, 'NOMIC names the nomic binary (make webunit sets it)');
const dir = mkdtempSync(path.join(tmpdir(), 'nomic-web-'));
after(() => rmSync(dir, {recursive: true, force: true}));

function favorWith(name, text) {
  const favor = readFileSync(new URL('../../rulesets/favor.nomic', import.meta.url), 'utf8');
  const file = path.join(dir, name + '.nomic');
  writeFileSync(file, favor.replace(/^proposalView: [^]*?\n(?=reportKinds:)/m, text));
  return file;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const {port} = s.address(); s.close(() => resolve(port)); });
  });
}

// A new game of the set (a shipped set's name, or {name, text}: favor's
// with its proposalView replaced by text), served while fn runs: fn(base
// URL, the game's file).
async function serving(set, fn) {
  if (typeof set !== 'string') set = favorWith(set.name, set.text);
  const db = path.join(mkdtempSync(path.join(dir, path.basename(set) + '-')), 'game.db');
  execFileSync(nomic, ['init', db, '--ruleset', set]);
  const listen = '127.0.0.1:' + await freePort();
  const server = spawn(nomic, ['serve', db, '--listen', listen], {stdio: ['ignore', 'pipe', 'inherit']});
  try {
    await new Promise((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d) => { out += d; if (out.includes('http://' + listen + '/')) resolve(); });
      server.on('exit', (code) => reject(new Error('nomic serve exited (' + code + ')')));
    });
    await fn('http://' + listen + '/', db);
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

test("the server's reading: a key given twice, empty items, pairs not A:B, lines without a type or a role the page reads", async () => {
  const text = 'proposalView: proposal type=voteInProgress id=propId =x novalue\n' +
    '  proposal type=x,,y id=a id=b,,c labels=a:b,c:d:e,:f,g:,h:i key= open=,, closes=c=d record=FOR:x,AGAINST compare=::\n' +
    '  nonsense type=q\n  poll of=z\n  poll type=,, of=z\n' +
    '  change\ttype=changeBeingVotedOn,changePassed of=moveBatch in=rule compare=newif:if,bad order=a order=b amend=\u00e9t\u00e9\n' +
    '  ballot type=vote of=propId voter="q\\\\"\n';
  await serving({name: 'edges', text}, async (base) => {
    const game = await (await fetch(base + 'api/game')).json();
    assert.deepEqual(game.proposalView, {
      proposal: {type: ['x', 'y'], id: ['b', 'c'], labels: [['a', 'b'], ['h', 'i']], key: '', open: [], closes: 'c=d',
        record: [['FOR', 'x']], compare: []},
      polls: [],
      changes: [{type: ['changeBeingVotedOn', 'changePassed'], of: 'moveBatch', in: 'rule', compare: [['newif', 'if']],
        order: 'b', amend: ['\u00e9t\u00e9']}],
      ballots: [{type: ['vote'], of: 'propId', voter: '"q\\\\"'}],
    });
  });
});

test('a proposalView the rules keep private is shown to no one: null', async () => {
  const text = 'privateAttributes: proposalView\nproposalView: ' + 'proposal type=voteInProgress id=propId\n';
  await serving({name: 'private', text}, async (base) => {
    assert.equal((await (await fetch(base + 'api/game')).json()).proposalView, null);
  });
});

test('no proposal line: null, and the page says the set does not declare one', async () => {
  await serving({name: 'none', text: 'proposalView: ballot type=vote of=propId\n'}, async (base) => {
    assert.equal((await (await fetch(base + 'api/game')).json()).proposalView, null);
  });
});

test('a new game sends no mail: api/game says so, and a token asked by mail is refused in the words the page uses',
  async () => {
    await serving('favor', async (base, db) => {
      const sendsMail = async () => (await (await fetch(base + 'api/game')).json()).sendsMail;
      assert.equal(await sendsMail(), false);
      const res = await fetch(base + 'api/token?from=alice@example.org', {method: 'POST'});
      assert.equal(res.status, 409);
      assert.match((await res.json()).error,
        /^this game sends no mail yet: ask the keeper for your token \(nomic token GAME ADDRESS\)/);
      // the keeper gives it a transport beside the running server: the next read sees it
      execFileSync(nomic, ['config', db, 'transport', 'smtp://127.0.0.1:1']);
      assert.equal(await sendsMail(), true);
    });
  });
