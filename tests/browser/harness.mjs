// harness.mjs - what the browser tests share: the nomic binary and
// Chromium, the checks and their tally ("ok N - ..."), a `nomic serve` on a
// free port of 127.0.0.1, the browser's page (its JavaScript and console
// errors kept), and the run that reports a failure (the server's output, a
// screenshot) and cleans up in every case.
//
//   import { run, check, page, ... } from './harness.mjs';
//   await run('name', async () => { ... });
//
// page, browser and dir are live bindings: they hold what openPage and the
// harness made.

import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const nomic = process.argv[2] ? path.resolve(process.argv[2]) : '';
if (!nomic || !existsSync(nomic)) {
  console.error(`usage: node ${path.basename(process.argv[1])} path/to/nomic   (no such file: ${process.argv[2] || '(none)'})`);
  process.exit(2);
}
if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is missing: run tests/browser/setup.sh as root`);
  process.exit(2);
}

let passed = 0;
let failed = 0;
let server = null;
let serverOut = '';
const pageErrors = [];
export let browser = null;
export let page = null;
export let dir = null;

export class CheckFailed extends Error {}

export function ok(desc) {
  passed++;
  console.log(`ok ${passed} - ${desc}`);
}
export function fail(desc, detail) {
  failed++;
  console.log(`not ok ${passed + failed} - ${desc}`);
  if (detail) console.log('  ' + String(detail).split('\n').join('\n  '));
  throw new CheckFailed(desc);
}
export function check(cond, desc, detail) {
  if (cond) ok(desc);
  else fail(desc, detail);
}
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Waits until probe() returns a truthy value (the page polls every 3 s);
// { ok: false, ... } is not yet, and is shown if it never comes.
export async function eventually(desc, probe, timeoutMs = 20000) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last && last.ok !== false) {
        ok(desc);
        return last;
      }
    } catch (e) {
      last = 'error: ' + e.message;
    }
    if (Date.now() > end) fail(desc, 'still not so after ' + timeoutMs / 1000 + ' s; last seen: ' + JSON.stringify(last));
    await sleep(250);
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Serves db (on listen, or a free port); its address once it says so.
export async function startServer(db, listen) {
  listen = listen || `127.0.0.1:${await freePort()}`;
  return new Promise((resolve, reject) => {
    server = spawn(nomic, ['serve', db, '--listen', listen], { stdio: ['ignore', 'pipe', 'pipe'] });
    const want = `http://${listen}/`;
    const timer = setTimeout(() => reject(new Error(`no "${want}" on the server's stdout within 10 s`)), 10000);
    let line = '';
    server.stdout.on('data', (d) => {
      serverOut += d;
      line += d;
      if (line.includes(want)) {
        clearTimeout(timer);
        resolve(want);
      }
    });
    server.stderr.on('data', (d) => { serverOut += d; });
    server.on('error', (e) => { clearTimeout(timer); reject(e); });
    server.on('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? sig}) before printing ${want}`));
    });
  });
}

export async function stopServer() {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const gone = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  const t = setTimeout(() => server.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(t);
  server = null;
}

// Chromium and one page, 1400 x 1000; its errors and console errors kept
// (a Content-Security-Policy violation, a missing file).
export async function openPage() {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(`console: ${m.text()} (${m.location().url || 'no url'})`);
  });
  return page;
}

export function checkNoPageErrors() {
  check(pageErrors.length === 0, 'the page raised no JavaScript or console error', pageErrors.join('\n'));
}

export const text = (sel) => page.locator(sel).first().textContent({ timeout: 2000 });

// Runs main with a temporary directory (dir); on a failure prints what
// helps (a screenshot, the page's errors, the server's last lines); always
// stops the server and the browser and removes dir; exits 0 only if every
// check passed.
export async function run(name, main) {
  dir = mkdtempSync(path.join(tmpdir(), `nomic-${name}-`));
  let code = 0;
  try {
    await main();
  } catch (e) {
    code = 1;
    if (!(e instanceof CheckFailed)) {
      failed++;
      console.log(`not ok ${passed + failed} - ${e.message}`);
      if (e.stack) console.log('  ' + e.stack.split('\n').slice(1, 4).join('\n  '));
    }
    if (page) {
      const shot = path.join(tmpdir(), `nomic-${name}-failure.png`);
      try {
        await page.screenshot({ path: shot, fullPage: true });
        console.log('# screenshot of the page: ' + shot);
      } catch { /* the page may be gone */ }
    }
    if (pageErrors.length) console.log('# page errors:\n#   ' + pageErrors.join('\n#   '));
    console.log('# server output:\n#   ' + (serverOut.trim() || '(none)').split('\n').slice(-30).join('\n#   '));
  } finally {
    if (browser) await browser.close().catch(() => {});
    await stopServer().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code || (failed ? 1 : 0));
}
