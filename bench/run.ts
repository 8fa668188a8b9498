// `npm run bench`: every benchmark in one run; ratios against baselines measured in the same run.
// Results go to docs/BENCHMARKS.md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { apiBench, type Row } from './api.ts';
import { lifecycleBench } from './lifecycle.ts';
import { ROOT } from '../test/helpers/spawn.ts';

const durationMs = Number(process.env.BENCH_MS ?? 5000);
const sections: Array<[string, () => Promise<Row[]>]> = [
  ['Merchant API (issue 2)', () => apiBench(durationMs)],
  ['Payment lifecycle (issue 3)', () => lifecycleBench()],
  ['Payment page (issue 4)', async () => (await import('./page.ts')).pageBench(durationMs)],
  ['EVM driver on anvil (issue 7)', async () => (await import('./evm.ts')).evmBench()],
  ['TRON driver on the node double (issue 16)', async () => (await import('./tron.ts')).tronBench()],
  ['Scale-out under faults (issue 15)', async () => (await import('./scale.ts')).scaleBench()],
  ['Bitcoin-family driver on litecoind (issue 12)', async () => (await import('./bitcoin.ts')).bitcoinBench()],
  ['Merchant dashboard (issue 14)', async () => (await import('./dashboard.ts')).dashboardBench()],
  ['Watched addresses in memory (issue 15)', async () => (await import('./watched.ts')).watchedBench()],
  ['Webhook lanes beside a hanging receiver (issue 24)', async () => (await import('./webhook-lanes.ts')).webhookLanesBench()],
  ['Custody: watch-only receiving (issue 26)', async () => (await import('./custody.ts')).custodyBench()],
  ['EVM flush gas against the sweep, on anvil (issue 26)', async () => (await import('./flush.ts')).flushBench()],
  ['TON driver on @ton/sandbox (issue 27)', async () => (await import('./ton.ts')).tonBench()],
  ['Solana driver on LiteSVM (issue 28)', async () => (await import('./solana.ts')).solanaBench()],
  ['Monero driver on a regtest monerod (issue 29)', async () => (await import('./monero.ts')).moneroBench()],
];

// `npm run bench -- evm bitcoin` runs only the sections whose title contains one of the words
// and replaces just those sections in docs/BENCHMARKS.md, keeping the others as they were.
const only = process.argv.slice(2).map((w) => w.toLowerCase());
const chosen = only.length ? sections.filter(([t]) => only.some((w) => t.toLowerCase().includes(w))) : sections;
const file = join(ROOT, 'docs', 'BENCHMARKS.md');
const kept = new Map<string, string[]>();
if (only.length && existsSync(file)) {
  let current: string | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('## ')) kept.set((current = line.slice(3)), []);
    else if (current) kept.get(current)!.push(line);
  }
}
const rendered = new Map<string, string[]>();
const machine = `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'})`;
for (const [title, run] of chosen) {
  process.stdout.write(`${title}...\n`);
  const rows = await run();
  const lines = ['', `Measured on ${machine}.`, '', '| measurement | result | baseline | ratio | note |', '|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.name} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.note ?? ''} |`);
  lines.push('');
  rendered.set(title, lines);
  for (const r of rows) process.stdout.write(`  ${r.name}: ${r.value} (ratio ${r.ratio})\n`);
}
const out: string[] = [
  '# Benchmarks',
  '',
  'Measured by `npm run bench`; `npm run bench -- WORD` runs only the sections whose title holds WORD and replaces just those,',
  'so sections may come from different runs and machines: each says when and where it ran.',
  'Each ratio compares against a baseline measured in the same run, since the machines are shared and noisy.',
  'The gateway runs in its own process (SQLite, role `api`), the load generator in another: 50 keep-alive connections, closed loop.',
  '',
];
for (const [title] of sections) {
  const body = rendered.get(title) ?? kept.get(title);
  if (body) out.push(`## ${title}`, ...body);
}
// Sections written by hand (no benchmark of this file makes them) stay, after the measured ones.
const listed = new Set(sections.map(([t]) => t));
for (const [title, body] of kept) if (!listed.has(title)) out.push(`## ${title}`, ...body);
writeFileSync(file, out.join('\n'));
process.stdout.write('Wrote docs/BENCHMARKS.md\n');
