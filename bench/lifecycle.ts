// Issue 3: payments confirmed per second through the simulator, and webhooks delivered per second
// to a local receiver, each beside a baseline measured in the same run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { createMerchant } from '../src/merchants/store.ts';
import { createInvoice } from '../src/invoices/create.ts';
import { nextRev, simTxid } from '../src/chain/simulated/driver.ts';
import { processNetwork } from '../src/chain/ingest.ts';
import { WebhookDeliverer } from '../src/webhooks/deliver.ts';
import { startReceiver } from '../test/helpers/receiver.ts';
import { MNEMONIC, type Row } from './api.ts';

/** Durable single-transaction commits per second that each touch a few rows, like a confirmation. */
function rawTransactionRate(file: string, ms = 2000): number {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('create table if not exists bench_a (id integer primary key, v text); create table if not exists bench_b (id integer primary key, v text)');
  const a = db.prepare('insert into bench_a (v) values (?)');
  const b = db.prepare('insert into bench_b (v) values (?)');
  const end = Date.now() + ms;
  const start = Date.now();
  let n = 0;
  while (Date.now() < end) {
    db.exec('begin immediate');
    a.run('x'.repeat(300));
    b.run('y'.repeat(300));
    a.run('z'.repeat(300));
    db.exec('commit');
    n++;
  }
  db.close();
  return n / ((Date.now() - start) / 1000);
}

export async function lifecycleBench(count = 300): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'satchel-bench-lc-'));
  const rx = await startReceiver(200);
  const ctx = await createContext(loadConfig({ SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: MNEMONIC, LOG_LEVEL: 'warn', SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1' }));
  try {
    const m = await createMerchant(ctx.storage.db, 'Bench');
    const tron = ctx.registry.network('TRON')!;
    const invoices: Array<Record<string, unknown>> = [];
    for (let i = 0; i < count; i++) {
      invoices.push((await createInvoice(ctx, m, { amount: '10', currency: 'USDT', network: 'TRON', order_id: `lc-${i}`, url_callback: rx.url })).invoice);
    }
    // The chain receives every payment at once; the driver and the lifecycle then process them.
    await ctx.storage.db.transaction().execute(async (trx) => {
      for (const [i, inv] of invoices.entries()) {
        await trx
          .insertInto('sim_transactions')
          .values({ network: 'TRON', txid: simTxid(tron, `bench-${i}`), idx: 0, from_address: null, to_address: String(inv.address), currency: 'USDT', amount: String(inv.payer_amount), block_height: 1, confirmations: 19, status: 'mined', direction: 'in', rev: await nextRev(trx), created_at: Date.now() })
          .execute();
      }
    });
    let t = performance.now();
    await processNetwork(ctx, 'TRON');
    const confirmSecs = (performance.now() - t) / 1000;
    const paid = await ctx.storage.db.selectFrom('invoices').select('id').where('status', '=', 'paid').execute();
    if (paid.length !== count) throw new Error(`only ${paid.length} of ${count} invoices paid`);
    const rawRate = rawTransactionRate(join(dir, 'raw.sqlite'));

    // Webhooks: the `paid` notifications queued above, delivered to a local receiver.
    const deliverer = new WebhookDeliverer(ctx);
    t = performance.now();
    while ((await deliverer.runOnce(200)) > 0) {
      /* until the outbox is empty */
    }
    const deliverSecs = (performance.now() - t) / 1000;
    const delivered = rx.deliveries.length;
    // Baseline: the same bodies POSTed straight to the same receiver, 8 at a time (the deliverer's parallelism).
    const bodies = rx.deliveries.map((d) => d.body);
    rx.deliveries.length = 0;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const url = new URL(rx.url);
    t = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!;
          await new Promise<void>((resolve, reject) => {
            const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
              res.resume();
              res.on('end', resolve);
            });
            req.on('error', reject);
            req.end(body);
          });
        }
      }),
    );
    const rawSecs = (performance.now() - t) / 1000;
    agent.destroy();
    const confirmRate = count / confirmSecs;
    const deliverRate = delivered / deliverSecs;
    const rawPostRate = bodies.length / rawSecs;
    return [
      { name: `Payments confirmed through the simulator (${count} at once)`, value: `${confirmRate.toFixed(0)} payments/s`, baseline: `${rawRate.toFixed(0)} raw 3-row durable transactions/s`, ratio: (confirmRate / rawRate).toFixed(2), note: 'each payment: transfer row, invoice move, ledger entry and webhook in one transaction' },
      { name: `Webhooks delivered to a local receiver (${delivered})`, value: `${deliverRate.toFixed(0)} webhooks/s`, baseline: `${rawPostRate.toFixed(0)} plain POSTs/s to the same receiver`, ratio: (deliverRate / rawPostRate).toFixed(2), note: 'each delivery: claim, POST, attempt row and status in the database' },
    ];
  } finally {
    await ctx.storage.close();
    await rx.close();
  }
}
