// Where the gateway's CPU goes under one bench load: `npx tsx bench/profile.ts create|info|poll [sqlite|postgres]`.
// Runs the gateway under `node --cpu-prof` while the load runs, then prints the functions and files
// with the most self time. `npx tsx bench/profile.ts summary <file.cpuprofile>` summarizes a saved one.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { createMerchant } from '../src/merchants/store.ts';
import { signBody } from '../src/webhooks/signature.ts';
import { load } from './load.ts';
import { MNEMONIC, waitForPool } from './api.ts';
import { startScript } from '../test/helpers/spawn.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** `window`: only samples taken between these monotonic times (µs, as process.hrtime), e.g. the load alone. */
export function summarize(file: string, top = 30, window?: [number, number]): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  let t = p.startTime;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (window && (t < window[0] || t > window[1])) return;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const shortUrl = (u: string) => u.replace(/^file:\/\//, '').replace(/^.*node_modules\//, 'nm:').replace(/^.*\/src\//, 'src/');
  const fn = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const f = shortUrl(n.callFrame.url) || '(native)';
    const key = `${n.callFrame.functionName || '(anonymous)'}  ${f}:${n.callFrame.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const pkg = f.startsWith('nm:') ? f.split('/').slice(0, f.startsWith('nm:@') ? 2 : 1).join('/') : f;
    files.set(pkg, (files.get(pkg) ?? 0) + us);
  }
  const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
  const lines = [`total ${(total / 1000).toFixed(0)} ms sampled`, '', 'self time by function:'];
  for (const [k, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(us)}  ${k}`);
  lines.push('', 'self time by file / package:');
  for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(us)}  ${k}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const [what = 'create', arg] = process.argv.slice(2);
  if (what === 'summary') {
    process.stdout.write(summarize(arg!) + '\n');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'satchel-prof-'));
  const profDir = join(dir, 'prof');
  const env: Record<string, string> = { SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: MNEMONIC, LOG_LEVEL: 'warn', PORT: '0', SATCHEL_ROLE: 'api', SATCHEL_PAYER_RATE_LIMIT: '100000000' };
  if (arg === 'postgres') env.DATABASE_URL = process.env.BENCH_PG_URL ?? '';
  const ctx = await createContext(loadConfig({ ...process.env, ...env }));
  const m = await createMerchant(ctx.storage.db, 'Profile');
  const gw = await startScript('src/main.ts', env, undefined, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
  // The pool refill that the first invoices start is not the load's work: wait for it (at most 30 s).
  const poolFull = () => waitForPool(ctx, 0);
  const signed = (body: string) => ({ 'content-type': 'application/json', merchant: m.id, sign: signBody(body, m.payment_key) });
  const durationMs = Number(process.env.BENCH_MS ?? 5000);
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  let window: [number, number] = [0, 0];
  try {
    if (what === 'poll') {
      // The payer page's status poll: GET /api/pay/{uuid} with the ETag it was given (304).
      const first = JSON.stringify({ amount: '10', currency: 'USDT', network: 'TRON', order_id: 'prof-poll' });
      const created = (await (await fetch(`${gw.url}/v1/payment`, { method: 'POST', headers: signed(first), body: first })).json()) as { result: { uuid: string } };
      const path = `/api/pay/${created.result.uuid}`;
      const etag = (await fetch(gw.url + path)).headers.get('etag')!;
      await poolFull();
      // POLL_FULL=1: without the tag, so every poll is answered 200 with the whole view.
      const full = process.env.POLL_FULL === '1';
      const headers: Record<string, string> = full ? {} : { 'if-none-match': etag };
      const spec = () => ({ method: 'GET' as const, path, headers });
      const expect = (s: number) => s === (full ? 200 : 304);
      await load(gw.url, spec, { durationMs: 1000, expect });
      window[0] = nowUs();
      const r = await load(gw.url, spec, { durationMs, expect });
      window[1] = nowUs();
      process.stdout.write(`poll (${full ? 200 : 304}): ${r.rps.toFixed(0)} req/s, ${r.errors} errors\n`);
    } else if (what === 'info') {
      const first = JSON.stringify({ amount: '10', currency: 'USDT', network: 'TRON', order_id: 'prof-info' });
      const created = (await (await fetch(`${gw.url}/v1/payment`, { method: 'POST', headers: signed(first), body: first })).json()) as { result: { uuid: string } };
      const body = JSON.stringify({ uuid: created.result.uuid });
      const headers = signed(body);
      await poolFull();
      await load(gw.url, () => ({ method: 'POST', path: '/v1/payment/info', headers, body }), { durationMs: 1000 });
      window[0] = nowUs();
      const r = await load(gw.url, () => ({ method: 'POST', path: '/v1/payment/info', headers, body }), { durationMs });
      window[1] = nowUs();
      process.stdout.write(`info: ${r.rps.toFixed(0)} req/s, ${r.errors} errors\n`);
    } else {
      const next = (prefix: string) => (i: number) => {
        const body = JSON.stringify({ amount: '10', currency: 'USDT', network: 'TRON', order_id: `${prefix}-${i}` });
        return { method: 'POST' as const, path: '/v1/payment', headers: signed(body), body };
      };
      await load(gw.url, next('warm'), { durationMs: 1000 });
      await poolFull();
      window[0] = nowUs();
      const r = await load(gw.url, next('prof'), { durationMs });
      window[1] = nowUs();
      process.stdout.write(`create: ${r.rps.toFixed(0)} req/s, ${r.errors} errors\n`);
    }
  } finally {
    await gw.stop();
    await ctx.storage.close();
  }
  // One file per thread: the main thread's (it ran the HTTP code), the address-pool thread's (it
  // ran pool-thread.ts) and tsx's loader threads' (left out).
  const files = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(profDir, f));
  const ran = (f: string, what: string) => readFileSync(f, 'utf8').includes(what);
  for (const [name, marker, top] of [['main thread', '/src/http/', 40], ['address-pool thread', 'pool-thread.ts', 15]] as const) {
    const f = files.find((x) => ran(x, marker));
    if (f) process.stdout.write(`\n== ${name}: ${f}\n${summarize(f, top, window)}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
