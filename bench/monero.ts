// Issue 29: the `monero` driver against a real regtest monerod (test/helpers/monero-rig.ts), in one run.
//  - Scan cost of one merchant wallet with 10 and with 10,000 open invoices (watched subaddresses
//    of one custody row), driver level. A poll is, per merchant with open invoices: open its
//    view-only wallet, have it create every subaddress up to the highest one handed out (once per
//    process), `refresh`, one `get_transfers` from the cursor up, then match each transfer's
//    subaddress index in a map. The wallet's scan of new blocks does not depend on how many
//    subaddresses it holds (its lookup table), so a steady poll should cost the same for both; the
//    first poll pays for creating the subaddresses. 10,000 invoices of one merchant is beyond the
//    200-index lookahead a restored wallet scans; the other way to get there, 50 merchants of 200,
//    would measure 50 wallets (one refresh and one get_transfers each), which is the per-merchant
//    cost times 50, not a cost of the number of invoices.
//  - Pool -> `check` and block -> `paid` through the gateway (the worker looping at its interval),
//    against that interval.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '../src/db/dialect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { Registry } from '../src/registry/index.ts';
import type { ChainSink } from '../src/chain/contract.ts';
import { watchPath } from '../src/chain/watch-paths.ts';
import { createMoneroDriver } from '../src/chain/monero/config.ts';
import { subaddressKeys, subaddressOf } from '../src/chain/monero/subaddress.ts';
import { createInvoice } from '../src/invoices/create.ts';
import { paramsFor } from '../src/http/signed-api.ts';
import { createInvoiceOp } from '../src/contracts/merchant-api/invoices.ts';
import { runWorkers } from '../src/worker/index.ts';
import { mineIn, pico, shopWallet, startXmrGateway } from '../test/chain/monero/gateway-setup.ts';
import { startMoneroRig, type MoneroRig } from '../test/helpers/monero-rig.ts';
import type { Backend } from '../test/helpers/backends.ts';
import type { Row } from './api.ts';

const PAYMENTS = 5;
const LATENCY_PAYMENTS = 4;
const STEADY_POLLS = 5;

const sqlite: Backend = { name: 'sqlite', create: async () => ({ drop: async () => {} }) };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function scanRows(rig: MoneroRig): Promise<Row[]> {
  const XMR = Registry.load().network('XMR')!;
  const shop = await shopWallet(rig, 'bench-scan');
  const keys = subaddressKeys(shop.address, shop.viewKey);
  const start = await rig.height();
  const t0 = performance.now();
  const subs: string[] = [''];
  for (let i = 1; i <= 10_000; i++) subs.push(subaddressOf(keys, 0, i));
  const deriveMs = performance.now() - t0;
  // The same payments for both: PAYMENTS to subaddresses among the first 10, mined.
  const txids: string[] = [];
  for (let i = 1; i <= PAYMENTS; i++) txids.push(await rig.pay(subs[i]!, pico('0.1') + BigInt(i)));
  await mineIn(rig, txids);

  const measure = async (open: number) => {
    const storage = openStorage({ sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    const dataDir = mkdtempSync(join(tmpdir(), 'satchel-xmr-bench-'));
    const custodyId = randomUUID();
    await storage.db
      .insertInto('merchant_custody')
      .values({ id: custodyId, merchant_id: 'm1', network: 'XMR', kind: 'address', material: JSON.stringify({ address: shop.address, viewKey: shop.viewKey, startHeight: start }), summary: shop.address, actor: 'bench', created_at: Date.now(), replaced_at: null })
      .execute();
    const d = createMoneroDriver(XMR, { driver: 'monero', daemon_url: rig.daemonUrl, network: 'mainnet', confirmations: 10 }, { seed: new Uint8Array(), storage }, dataDir);
    let reported = 0;
    const sink: ChainSink = { transfer: async () => void reported++, unmatched: async () => {}, dropped: async () => {}, outgoing: async () => {} };
    try {
      d.watch(Array.from({ length: open }, (_, k) => ({ address: subs[k + 1]!, path: watchPath(custodyId, k + 1) })));
      let t = performance.now();
      await d.poll(sink);
      const first = performance.now() - t;
      const firstReported = reported;
      const steady: number[] = [];
      for (let i = 0; i < STEADY_POLLS; i++) {
        await rig.mine(1);
        t = performance.now();
        await d.poll(sink);
        steady.push(performance.now() - t);
      }
      return { first, firstReported, steady: median(steady) };
    } finally {
      await d.close();
      await storage.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  const small = await measure(10);
  const big = await measure(10_000);
  return [
    {
      name: 'Monero poll of one merchant wallet, steady (one new block), 10,000 open invoices',
      value: `median ${big.steady.toFixed(0)} ms`,
      baseline: `median ${small.steady.toFixed(0)} ms with 10 open invoices`,
      ratio: (big.steady / small.steady).toFixed(2),
      note: `median of ${STEADY_POLLS} polls, each after one block mined: refresh, get_transfers from the cursor, get_transactions for the ${PAYMENTS} payments still in the confirmation window, matching by subaddress index in a map; one view-only monero-wallet-rpc for the merchant`,
    },
    {
      name: 'Monero first poll of a merchant (wallet RPC started, wallet made from the view key, subaddresses created, scan from the start height), 10,000 open invoices',
      value: `${(big.first / 1000).toFixed(1)} s (${big.firstReported} payments reported)`,
      baseline: `${(small.first / 1000).toFixed(1)} s with 10 open invoices (${small.firstReported} reported)`,
      ratio: (big.first / small.first).toFixed(2),
      note: `once per merchant and process: the view-only wallet creates subaddresses up to the highest index handed out, 64 per create_address call (157 calls for 10,000); deriving the 10,000 deposit addresses in the gateway took ${(deriveMs / 1000).toFixed(1)} s`,
    },
  ];
}

async function latencyRows(rig: MoneroRig): Promise<Row[]> {
  const shop = await shopWallet(rig, 'bench-latency');
  const g = await startXmrGateway(sqlite, rig, shop, { confirmations: 1 });
  const { ctx, merchant } = g;
  try {
    await g.tick(); // starts the driver's wallet RPC and makes the view-only wallet
    const interval = ctx.config.workerIntervalMs;
    const status = async (id: string) => (await ctx.storage.db.selectFrom('invoices').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    const address = async (id: string) => (await ctx.storage.db.selectFrom('addresses').select('address').where('owner_id', '=', id).where('network', '=', 'XMR').executeTakeFirstOrThrow()).address;
    const until = async (id: string, want: string, t: number) => {
      while ((await status(id)) !== want) {
        if (performance.now() - t > 120_000) throw new Error(`invoice ${id} did not reach ${want} within 120 s (status ${await status(id)})`);
        await sleep(5);
      }
      return performance.now() - t;
    };
    const workers = runWorkers(ctx, { intervalMs: interval, log: { error: (o) => console.error(o) } });
    const check: number[] = [];
    const paid: number[] = [];
    try {
      for (let i = 0; i < LATENCY_PAYMENTS; i++) {
        const created = await createInvoice(ctx, merchant, paramsFor(ctx, createInvoiceOp, { amount: '0.5', currency: 'XMR', network: 'XMR', order_id: `bench-xmr-${i}` }));
        const id = String(created.invoice.uuid);
        const to = await address(id);
        await sleep(Math.random() * interval);
        let t = performance.now();
        const txid = await g.pay(to, '0.5');
        check.push(await until(id, 'check', t));
        // mineIn returns once a block holds the payment: from then to paid (1 confirmation settles here).
        await mineIn(rig, [txid]);
        t = performance.now();
        paid.push(await until(id, 'paid', t));
      }
    } finally {
      await workers.stop();
    }
    const row = (name: string, xs: number[], note: string): Row => ({
      name,
      value: `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`,
      baseline: `${interval} ms: the worker interval`,
      ratio: (median(xs) / interval).toFixed(2),
      note,
    });
    return [
      row(`Monero payment relayed -> invoice check (from the pool), worker looping every ${interval} ms`, check, `${LATENCY_PAYMENTS} payments from the rig's payer wallet (transfer, relayed), sent at random points of the cycle; a poll refreshes the view-only wallet and reads its pool transfers; through the gateway's sink on SQLite`),
      row(`Monero block holding the payment -> invoice paid (confirmations: 1), worker looping every ${interval} ms`, paid, `timed from when the daemon answers that a block holds the payment; with the default 10 confirmations the same poll delay follows the tenth block (about 20 minutes of mainnet blocks, which dominate)`),
    ];
  } finally {
    await g.stopAll();
  }
}

export async function moneroBench(): Promise<Row[]> {
  const rig = await startMoneroRig();
  try {
    return [...(await scanRows(rig)), ...(await latencyRows(rig))];
  } finally {
    await rig.close();
  }
}
