// `npm run bench`: every benchmark in one run; ratios against baselines measured in the same run.
// Results go to docs/BENCHMARKS.md.
import { writeFileSync } from 'node:fs';
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
];

const out: string[] = [
  '# Benchmarks',
  '',
  `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}).`,
  'Each ratio compares against a baseline measured in the same run, since this machine is shared and noisy.',
  'The gateway runs in its own process (SQLite, role `api`), the load generator in another: 50 keep-alive connections, closed loop.',
  '',
];
for (const [title, run] of sections) {
  process.stdout.write(`${title}...\n`);
  const rows = await run();
  out.push(`## ${title}`, '', '| measurement | result | baseline | ratio | note |', '|---|---|---|---|---|');
  for (const r of rows) out.push(`| ${r.name} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.note ?? ''} |`);
  out.push('');
  for (const r of rows) process.stdout.write(`  ${r.name}: ${r.value} (ratio ${r.ratio})\n`);
}
writeFileSync(join(ROOT, 'docs', 'BENCHMARKS.md'), out.join('\n'));
process.stdout.write('Wrote docs/BENCHMARKS.md\n');
