// Issue 3 (and 15): payments confirmed per second through the simulator, and webhooks delivered per
// second to a local receiver, each beside a baseline measured in the same round. Several rounds;
// the figures are medians (the machine is shared, single rounds are noisy).
import { copyFileSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { createMerchant } from '../src/merchants/store.ts';
import { createInvoice } from '../src/invoices/create.ts';
import { paramsFor } from '../src/http/signed-api.ts';
import { createInvoiceOp } from '../src/contracts/merchant-api/invoices.ts';
import { nextRev, simTxid } from '../src/chain/simulated/driver.ts';
import { processNetwork } from '../src/chain/ingest.ts';
import { WebhookDeliverer } from '../src/webhooks/deliver.ts';
import type { Ctx } from '../src/context.ts';
import { startReceiver, type Receiver } from '../test/helpers/receiver.ts';
import { MNEMONIC, type Row } from './api.ts';

/** What one payment wrote, read back from the gateway's database after the run. */
interface PaymentRows {
  transfer: Record<string, unknown>;
  invoice: Record<string, unknown>;
  entry: Record<string, unknown>;
  webhook: Record<string, unknown>;
}

/** Columns a payment changes on its invoice (the rest stay as created). */
const INVOICE_COLUMNS = ['status', 'is_final', 'payment_amount', 'payment_amount_usd', 'txid', 'from_address', 'credited', 'merchant_amount', 'updated_at', 'version'];

async function paymentRows(ctx: Ctx, ids: string[]): Promise<PaymentRows[]> {
  const db = ctx.storage.db;
  const out: PaymentRows[] = [];
  for (const id of ids) {
    out.push({
      transfer: await db.selectFrom('chain_transfers').selectAll().where('owner_kind', '=', 'invoice').where('owner_id', '=', id).executeTakeFirstOrThrow(),
      invoice: await db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
      entry: await db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', id).executeTakeFirstOrThrow(),
      webhook: await db.selectFrom('webhooks').selectAll().where('ref_id', '=', id).executeTakeFirstOrThrow(),
    });
  }
  return out;
}

/**
 * The baseline of a confirmation: the rows the payments wrote (transfer inserted, invoice updated,
 * balance updated, ledger entry and webhook inserted), written again with prepared statements into
 * a copy of the database as it was before the run (same schema, indexes and contents), `perTx`
 * payments per durable transaction. Returns payments per second.
 */
function rawPayments(file: string, rows: PaymentRows[], perTx: number): number {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const insert = (table: string, sample: Record<string, unknown>) => {
    const cols = Object.keys(sample);
    return db.prepare(`insert into ${table} (${cols.join(', ')}) values (${cols.map(() => '?').join(', ')})`);
  };
  const first = rows[0]!;
  const insTransfer = insert('chain_transfers', first.transfer);
  const insEntry = insert('ledger_entries', first.entry);
  const insWebhook = insert('webhooks', first.webhook);
  const updInvoice = db.prepare(`update invoices set ${INVOICE_COLUMNS.map((c) => `${c} = ?`).join(', ')} where id = ?`);
  const updBalance = db.prepare('update balances set amount = ?, updated_at = ? where merchant_id = ? and kind = ? and currency = ?');
  db.prepare("insert or ignore into balances (merchant_id, kind, currency, amount, updated_at) values (?, ?, ?, '0', 0)").run(first.entry.merchant_id, first.entry.kind, first.entry.currency);
  const begin = db.prepare('begin immediate');
  const commit = db.prepare('commit');
  const t = performance.now();
  for (let i = 0; i < rows.length; i += perTx) {
    begin.run();
    for (const r of rows.slice(i, i + perTx)) {
      insTransfer.run(Object.values(r.transfer));
      updInvoice.run(...INVOICE_COLUMNS.map((c) => r.invoice[c]), r.invoice.id);
      updBalance.run(r.entry.balance_after, r.entry.created_at, r.entry.merchant_id, r.entry.kind, r.entry.currency);
      insEntry.run(Object.values(r.entry));
      insWebhook.run(Object.values(r.webhook));
    }
    commit.run();
  }
  const secs = (performance.now() - t) / 1000;
  db.close();
  return rows.length / secs;
}

/** The same bodies POSTed straight to the same receiver over keep-alive connections, `parallel` at a time. */
async function plainPosts(rx: Receiver, bodies: string[], parallel: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
  const url = new URL(rx.url);
  const t = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
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
  const secs = (performance.now() - t) / 1000;
  agent.destroy();
  return bodies.length / secs;
}

interface Round {
  confirm: number;
  raw: number;
  rawBatched: number;
  deliver: number;
  posts: number;
  /** CPU ms of this process per webhook delivered, and per plain POST (receiver included in both). */
  deliverCpu: number;
  postCpu: number;
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const range = (xs: number[], digits = 0) => `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;

/** Payments handed to the sink per transaction by the simulated driver (src/chain/simulated/driver.ts). */
const DRIVER_BATCH = 100;
/** Deliveries in flight at once (src/webhooks/deliver.ts). */
const DELIVERER_PARALLEL = 8;

export async function lifecycleBench(count = Number(process.env.BENCH_LC_COUNT ?? 500), rounds = Number(process.env.BENCH_LC_ROUNDS ?? 5)): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'satchel-bench-lc-'));
  const rx = await startReceiver(200);
  const ctx = await createContext(loadConfig({ SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: MNEMONIC, LOG_LEVEL: 'warn', SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1' }));
  const results: Round[] = [];
  try {
    const m = await createMerchant(ctx.storage.db, 'Bench');
    const tron = ctx.registry.network('TRON')!;
    for (let round = 0; round < rounds; round++) {
      const invoices: Array<Record<string, unknown>> = [];
      for (let i = 0; i < count; i++) {
        invoices.push((await createInvoice(ctx, m, paramsFor(ctx, createInvoiceOp, { amount: '10', currency: 'USDT', network: 'TRON', order_id: `lc-${round}-${i}`, url_callback: rx.url }))).invoice);
      }
      // The chain receives every payment at once; the driver and the lifecycle then process them.
      await ctx.storage.db.transaction().execute(async (trx) => {
        for (const [i, inv] of invoices.entries()) {
          await trx
            .insertInto('sim_transactions')
            .values({ network: 'TRON', txid: simTxid(tron, `bench-${round}-${i}`), idx: 0, from_address: null, to_address: String(inv.address), currency: 'USDT', amount: String(inv.payer_amount), block_height: 1, confirmations: 19, status: 'mined', direction: 'in', rev: await nextRev(trx), created_at: Date.now() })
            .execute();
        }
      });
      // The database as the payments find it, for the baselines.
      const before = join(dir, `before-${round}.sqlite`);
      await sql`vacuum into ${sql.lit(before)}`.execute(ctx.storage.db);
      copyFileSync(before, join(dir, `before-${round}-batched.sqlite`));

      let t = performance.now();
      await processNetwork(ctx, 'TRON');
      const confirm = count / ((performance.now() - t) / 1000);
      const ids = invoices.map((inv) => String(inv.uuid));
      const paid = await ctx.storage.db.selectFrom('invoices').select('id').where('id', 'in', ids).where('status', '=', 'paid').execute();
      if (paid.length !== count) throw new Error(`only ${paid.length} of ${count} invoices paid`);
      const rows = await paymentRows(ctx, ids);
      const raw = rawPayments(before, rows, 1);
      const rawBatched = rawPayments(join(dir, `before-${round}-batched.sqlite`), rows, DRIVER_BATCH);

      // Webhooks: the `paid` notifications queued above, delivered to a local receiver.
      rx.deliveries.length = 0;
      const deliverer = new WebhookDeliverer(ctx);
      let cpu = process.cpuUsage();
      t = performance.now();
      while ((await deliverer.runOnce(200)) > 0) {
        /* until the outbox is empty */
      }
      const deliver = rx.deliveries.length / ((performance.now() - t) / 1000);
      const deliverCpu = cpuMs(process.cpuUsage(cpu)) / count;
      if (rx.deliveries.length !== count) throw new Error(`${rx.deliveries.length} of ${count} webhooks delivered`);
      const bodies = rx.deliveries.map((d) => d.body);
      rx.deliveries.length = 0;
      cpu = process.cpuUsage();
      const posts = await plainPosts(rx, bodies, DELIVERER_PARALLEL);
      const postCpu = cpuMs(process.cpuUsage(cpu)) / count;
      results.push({ confirm, raw, rawBatched, deliver, posts, deliverCpu, postCpu });
      process.stdout.write(
        `  round ${round + 1}: ${confirm.toFixed(0)} payments/s (raw ${raw.toFixed(0)}, raw batched ${rawBatched.toFixed(0)}), ${deliver.toFixed(0)} webhooks/s (plain ${posts.toFixed(0)}); CPU per webhook ${(deliverCpu * 1000).toFixed(0)} µs (plain ${(postCpu * 1000).toFixed(0)} µs)\n`,
      );
    }
  } finally {
    await ctx.storage.close();
    await rx.close();
  }
  const col = (k: keyof Round) => results.map((r) => r[k]);
  const ratios = (a: keyof Round, b: keyof Round) => results.map((r) => r[a] / r[b]);
  const n = results.length;
  const about = `median of ${n} rounds of ${count}, on 2 cores shared with other engineers' work (load average ${loadavg()[0]!.toFixed(0)} at the end)`;
  return [
    {
      name: `Payments confirmed through the simulator (${count} at once)`,
      value: `${median(col('confirm')).toFixed(0)} payments/s`,
      baseline: `${median(col('raw')).toFixed(0)} raw transactions/s of the same rows`,
      ratio: median(ratios('confirm', 'raw')).toFixed(2),
      note: `each payment: transfer row inserted, invoice updated, balance updated, ledger entry and webhook inserted; the baseline writes those rows again with prepared statements into a copy of the database taken before the run, one durable commit per payment; the gateway commits ${DRIVER_BATCH} payments per transaction (crash-safe: all or none); ${about}, ratio range ${range(ratios('confirm', 'raw'), 2)}`,
    },
    {
      name: 'Payments confirmed vs the same rows in the same batches',
      value: `${median(col('confirm')).toFixed(0)} payments/s`,
      baseline: `${median(col('rawBatched')).toFixed(0)} payments/s: raw writes, ${DRIVER_BATCH} per transaction`,
      ratio: median(ratios('confirm', 'rawBatched')).toFixed(2),
      note: `what the gateway's own work costs beyond the writes (reads, locking, the state machine, signing the webhook body); ${about}, ratio range ${range(ratios('confirm', 'rawBatched'), 2)}`,
    },
    {
      name: `Webhooks delivered to a local receiver (${count})`,
      value: `${median(col('deliver')).toFixed(0)} webhooks/s`,
      baseline: `${median(col('posts')).toFixed(0)} plain POSTs/s to the same receiver`,
      ratio: median(ratios('deliver', 'posts')).toFixed(2),
      note: `each delivery: claimed with a lease, POSTed (keep-alive, ${DELIVERER_PARALLEL} at a time, connections pinned to the checked addresses), attempt row and status recorded (many per transaction, committed without waiting for the disk: a power cut can only make those webhooks go out again, under the same delivery ids); baseline: the same bodies, ${DELIVERER_PARALLEL} at a time over keep-alive; ${about}, ratio range ${range(ratios('deliver', 'posts'), 2)}`,
    },
  ];
}
