// Dashboard numbers: the initial JavaScript (gzip) with the chart apart, a filtered invoice page
// with 100,000 invoices against the same page with 100 (SQLite and PostgreSQL), and the CSV
// export of 100,000 invoices with its peak heap growth.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Row } from './api.ts';
import { ROOT } from '../test/helpers/spawn.ts';
import { backends } from '../test/helpers/backends.ts';
import { openStorage, type Storage } from '../src/db/dialect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createMerchant } from '../src/merchants/store.ts';
import { invoiceRow } from '../test/webhooks/invoices.ts';
import { invoicesCsv, searchInvoices, type InvoiceFilter } from '../src/dashboard/invoice-search.ts';

const STATUSES = ['process', 'paid', 'cancel', 'paid_over', 'fail'];

/** A full collection, so that what the export keeps alive is told apart from garbage not yet collected. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const FILTER: InvoiceFilter = { status: 'paid', currency: null, network: null, from: null, to: null, q: null };

function initialJs(): Row[] {
  const dir = join(ROOT, 'dist', 'dashboard');
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/dashboard\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const gz = (f: string) => gzipSync(readFileSync(join(dir, f)), { level: 9 }).length;
  const initial = files.reduce((n, f) => n + gz(f), 0);
  const c = readdirSync(join(dir, 'assets')).find((f) => f.startsWith('chart-') && f.endsWith('.js'));
  const chart = c ? gz(join('assets', c)) : 0;
  return [
    { name: 'initial JavaScript (gzip)', value: `${(initial / 1024).toFixed(1)} KB`, baseline: '60 KB budget', ratio: (initial / (60 * 1024)).toFixed(2) },
    { name: 'chart chunk, loaded lazily (gzip)', value: `${(chart / 1024).toFixed(1)} KB`, baseline: '-', ratio: '-' },
    ...languageChunks(dir, gz),
  ];
}

/** The languages other than English: each its own chunk, fetched when chosen (Arabic, and the largest). */
function languageChunks(dir: string, gz: (f: string) => number): Row[] {
  const sizes = readdirSync(join(dir, 'assets'))
    .filter((f) => /^[a-z]{2}-[\w-]+\.js$/.test(f))
    .map((f) => ({ code: f.slice(0, 2), size: gz(join('assets', f)) }))
    .sort((a, b) => b.size - a.size);
  const ar = sizes.find((l) => l.code === 'ar');
  const largest = sizes[0];
  if (!ar || !largest) return [];
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  return [
    { name: 'one language chunk, loaded when chosen (gzip)', value: `ar ${kb(ar.size)}`, baseline: '-', ratio: '-', note: `${sizes.length} language chunks; the largest (${largest.code}) ${kb(largest.size)}` },
  ];
}

async function fill(storage: Storage, merchantId: string, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 200) {
    const rows = [];
    for (let j = i; j < Math.min(to, i + 200); j++) rows.push(invoiceRow(merchantId, { order_id: `b-${j}`, status: STATUSES[j % STATUSES.length]!, created_at: 1_700_000_000_000 + j * 1000 }));
    await storage.db.insertInto('invoices').values(rows).execute();
  }
}

async function medianMs(run: () => Promise<unknown>, n = 40): Promise<number> {
  for (let i = 0; i < 5; i++) await run();
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await run();
    t.push(performance.now() - s);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(n / 2)]!;
}

export async function dashboardBench(): Promise<Row[]> {
  const rows = initialJs();
  for (const backend of await backends()) {
    const db = await backend.create();
    const dir = mkdtempSync(join(tmpdir(), 'satchel-bench-dash-'));
    const storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: join(dir, 'satchel.sqlite') });
    try {
      await migrateToLatest(storage);
      const m = await createMerchant(storage.db, 'Bench shop');
      await fill(storage, m.id, 0, 100);
      const small = await medianMs(() => searchInvoices(storage.db, m.id, FILTER, null));
      await fill(storage, m.id, 100, 100_000);
      // A database in use has statistics (autovacuum analyzes a table that grew); right after a bulk
      // insert PostgreSQL has none yet and may plan each export batch as a scan and sort.
      if (backend.name === 'postgres') await sql`analyze invoices`.execute(storage.db);
      const big = await medianMs(() => searchInvoices(storage.db, m.id, FILTER, null));
      const deep = await medianMs(() => searchInvoices(storage.db, m.id, FILTER, { t: 1_700_000_000_000 + 50_000_000, id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' }));
      rows.push({ name: `filtered invoice page, 100,000 invoices (${backend.name})`, value: `${big.toFixed(2)} ms`, baseline: `${small.toFixed(2)} ms with 100`, ratio: (big / small).toFixed(2), note: `page deep in the list: ${deep.toFixed(2)} ms` });
      {
        // Peak heap growth counts garbage the collector has not reached yet (it depends on when V8
        // chooses to collect); the live heap after a full collection every 20 batches (10,000 rows)
        // is what the export keeps: flat means it does not grow with the number of rows.
        const gc = collector();
        gc();
        const before = process.memoryUsage().heapUsed;
        let peak = before;
        let live = before;
        let bytes = 0;
        let chunks = 0;
        const start = performance.now();
        for await (const chunk of invoicesCsv(storage.db, m.id, { ...FILTER, status: null })) {
          bytes += chunk.length;
          peak = Math.max(peak, process.memoryUsage().heapUsed);
          if (++chunks % 20 === 0) {
            gc();
            live = Math.max(live, process.memoryUsage().heapUsed);
          }
        }
        rows.push({
          name: `CSV export of 100,000 invoices (${backend.name})`,
          value: `${((performance.now() - start) / 1000).toFixed(1)} s, ${(bytes / 1e6).toFixed(1)} MB`,
          baseline: '-',
          ratio: '-',
          note: `live heap growth ${((live - before) / 1e6).toFixed(1)} MB after each 10,000 rows; peak ${((peak - before) / 1e6).toFixed(1)} MB with uncollected garbage (keyset batches of 500 rows)`,
        });
      }
    } finally {
      await storage.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}
