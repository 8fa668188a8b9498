// Issue 4: the payment page's time to first rendered invoice in headless Chromium, beside the time
// to load a trivial page of the same server; and the server cost of one status poll
// (GET /api/pay/{uuid}, with and without If-None-Match) beside the echo baseline. All in this run.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from '@playwright/test';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { createMerchant } from '../src/merchants/store.ts';
import { signBody } from '../src/webhooks/signature.ts';
import { load, type LoadResult } from './load.ts';
import { MNEMONIC, waitForPool, type Row } from './api.ts';
import { ROOT, startScript } from '../test/helpers/spawn.ts';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function fmt(r: LoadResult): string {
  return `${r.rps.toFixed(0)} req/s, p99 ${r.p99ms.toFixed(1)} ms${r.errors ? `, ${r.errors} errors` : ''}`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function p90(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))] ?? NaN;
}

/**
 * Loads `url` in a fresh browser context (cold cache, like a payer opening the link) and returns
 * milliseconds from navigation start until `ready` holds, measured inside the page.
 */
async function timeToReady(browser: Browser, url: string, ready: 'load' | 'invoice'): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    if (ready === 'invoice') {
      // Before any page script: note the moment the address (the first rendered invoice) appears.
      await page.addInitScript(() => {
        const w = window as unknown as { __rendered?: number };
        new MutationObserver((_, observer) => {
          if (w.__rendered === undefined && document.getElementById('address')) {
            w.__rendered = performance.now();
            observer.disconnect();
          }
        }).observe(document, { childList: true, subtree: true });
      });
      await page.goto(url, { waitUntil: 'commit' });
      await page.waitForFunction(() => (window as unknown as { __rendered?: number }).__rendered !== undefined);
      return await page.evaluate(() => (window as unknown as { __rendered: number }).__rendered);
    }
    await page.goto(url, { waitUntil: 'load' });
    return await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd);
  } finally {
    await context.close();
  }
}

export async function pageBench(durationMs: number): Promise<Row[]> {
  if (!existsSync(join(ROOT, 'dist', 'page', 'index.html'))) {
    execFileSync(join(ROOT, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
  }
  const dir = mkdtempSync(join(tmpdir(), 'satchel-bench-page-'));
  // Role `all`: the page's screen needs nothing from workers, but this is how a gateway runs.
  // The per-address limit of the payer API would otherwise be what the poll benchmark measures.
  const env = { SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: MNEMONIC, LOG_LEVEL: 'warn', PORT: '0', SATCHEL_PAYER_RATE_LIMIT: '100000000' };
  const ctx = await createContext(loadConfig({ ...process.env, ...env }));
  const m = await createMerchant(ctx.storage.db, 'Bench');

  const echo = await startScript('bench/echo-server.ts', { PORT: '0' });
  const gw = await startScript('src/main.ts', env);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const createInvoice = async (order: string, extra: Record<string, unknown> = {}) => {
      const body = JSON.stringify({ amount: '10', currency: 'USDT', network: 'TRON', order_id: order, ...extra });
      const res = await fetch(`${gw.url}/v1/payment`, { method: 'POST', headers: { 'content-type': 'application/json', merchant: m.id, sign: signBody(body, m.payment_key) }, body });
      return ((await res.json()) as { result: { uuid: string } }).result.uuid;
    };

    // Browser: alternate baseline and page so drift on a shared machine hits both alike.
    const uuid = await createInvoice('bench-page');
    // The first invoice starts the address pool's refill (derivation on the pool thread): let it
    // finish (at most 30 s), so that its CPU does not fall on the first loads of either side.
    await waitForPool(ctx);
    const pageUrl = `${gw.url}/pay/${uuid}`;
    const staticUrl = `${gw.url}/healthz`;
    await timeToReady(browser, staticUrl, 'load'); // warm up the browser and the server
    await timeToReady(browser, pageUrl, 'invoice');
    const statics: number[] = [];
    const pages: number[] = [];
    const until = Date.now() + Math.max(durationMs, 3000);
    while (Date.now() < until || pages.length < 10) {
      statics.push(await timeToReady(browser, staticUrl, 'load'));
      pages.push(await timeToReady(browser, pageUrl, 'invoice'));
    }

    // Server: one status poll under 50 connections, as a changed answer and as a 304.
    const echoBody = JSON.stringify({ uuid });
    const echoR = await load(echo.url, () => ({ method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body: echoBody }), { durationMs });
    const path = `/api/pay/${uuid}`;
    const first = await fetch(gw.url + path);
    const etag = first.headers.get('etag') ?? '';
    await first.arrayBuffer();
    await load(gw.url, () => ({ method: 'GET', path }), { durationMs: 1000 }); // warm-up (JIT, after the browser phase)
    const full = await load(gw.url, () => ({ method: 'GET', path }), { durationMs });
    const cached = await load(gw.url, () => ({ method: 'GET', path, headers: { 'if-none-match': etag } }), { durationMs, expect: (s) => s === 304 });
    // A fiat invoice before the payer chose: the answer carries every priced option.
    const fiat = await createInvoice('bench-page-fiat', { currency: 'USD', network: undefined });
    const fiatPath = `/api/pay/${fiat}`;
    // Its tag changes when the minute turns (the options are priced at the minute's rates), and a
    // page then takes the new one: start the run just after a minute turned, so that it measures
    // the 304s in between rather than the one change.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < durationMs + 2000) await new Promise((r) => setTimeout(r, left + 200));
    const fiatTag = (await fetch(gw.url + fiatPath)).headers.get('etag') ?? '';
    const choosing = await load(gw.url, () => ({ method: 'GET', path: fiatPath, headers: { 'if-none-match': fiatTag } }), { durationMs, expect: (s) => s === 304 });

    const ms = (x: number) => `${x.toFixed(0)} ms`;
    const staticMs = median(statics);
    const pageMs = median(pages);
    return [
      { name: 'Baseline: load GET /healthz in headless Chromium (fresh context, load event)', value: `median ${ms(staticMs)}, p90 ${ms(p90(statics))} (n=${statics.length})`, baseline: '-', ratio: '1.00' },
      {
        name: 'Payment page: time to first rendered invoice (fresh context, address in the DOM)',
        value: `median ${ms(pageMs)}, p90 ${ms(p90(pages))} (n=${pages.length})`,
        baseline: `${ms(staticMs)} /healthz`,
        ratio: (pageMs / staticMs).toFixed(2),
        note: 'HTML with the first payer view embedded (head streamed first), CSS and the entry script; no API request before the first render; QR and later screens load after',
      },
      { name: 'Echo baseline (plain Fastify JSON route), 50 connections', value: fmt(echoR), baseline: '-', ratio: '1.00' },
      { name: 'GET /api/pay/{uuid} (status poll, 200 with body), 50 connections', value: fmt(full), baseline: `${echoR.rps.toFixed(0)} req/s echo`, ratio: (full.rps / echoR.rps).toFixed(2) },
      { name: 'GET /api/pay/{uuid} with If-None-Match (304), 50 connections', value: fmt(cached), baseline: `${echoR.rps.toFixed(0)} req/s echo`, ratio: (cached.rps / echoR.rps).toFixed(2), note: 'what a payer\'s page sends every 3 s while nothing changes' },
      { name: 'GET /api/pay/{uuid} 304, fiat invoice still choosing (every option priced)', value: fmt(choosing), baseline: `${echoR.rps.toFixed(0)} req/s echo`, ratio: (choosing.rps / echoR.rps).toFixed(2) },
    ];
  } finally {
    await browser.close();
    await gw.stop();
    await echo.stop();
    await ctx.storage.close();
  }
}
