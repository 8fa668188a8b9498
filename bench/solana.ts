// Issue 28: the `solana` driver against the JSON-RPC double over LiteSVM, in one run.
//  - RPC cost of a poll on one merchant wallet with 10 and with 10,000 open invoices (deposit
//    keys): 30 payments (10 naming a watched reference, 10 an unknown one, 10 none) walked from
//    scratch, then an idle poll. Detection walks the wallet and its token accounts (one
//    getSignaturesForAddress each) and reads new transactions in batches; references are matched
//    in a map, so the calls must be the same for both.
//  - Time from a payment being sent to its invoice turning paid, through the gateway (the worker
//    looping at its interval), against that interval. A payment settles once finalized: the
//    double's head moves one slot every SLOT_MS, so finality (31 slots) takes 31 * SLOT_MS.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { openStorage } from '../src/db/dialect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { Registry } from '../src/registry/index.ts';
import type { ChainSink } from '../src/chain/contract.ts';
import { depositKey } from '../src/chain/watch-paths.ts';
import { createSolanaDriver } from '../src/chain/solana/config.ts';
import type { SolanaDriver } from '../src/chain/solana/solana-driver.ts';
import { checkCustody, writeCustody } from '../src/custody/store.ts';
import { createInvoice } from '../src/invoices/create.ts';
import { paramsFor } from '../src/http/signed-api.ts';
import { createInvoiceOp } from '../src/contracts/merchant-api/invoices.ts';
import { runWorkers } from '../src/worker/index.ts';
import { startChainGateway } from '../test/chain/gateway-setup.ts';
import { startSolanaDouble } from '../test/chain/solana/double/server.ts';
import { LAMPORTS_PER_SOL, scenario } from '../test/chain/solana/double/scenario.ts';
import type { Backend } from '../test/helpers/backends.ts';
import type { Row } from './api.ts';

const PAYMENTS = 30;
const LATENCY_PAYMENTS = 15;
const SLOT_MS = 10;

const sqlite: Backend = { name: 'sqlite', create: async () => ({ drop: async () => {} }) };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sink: ChainSink = { transfer: async () => {}, unmatched: async () => {}, dropped: async () => {}, outgoing: async () => {} };

async function callRows(): Promise<Row[]> {
  const SOL = Registry.load().network('SOL')!;
  const double = await startSolanaDouble();
  const sc = scenario(double);
  try {
    const payer = await sc.payer(1000n * LAMPORTS_PER_SOL);
    const usdc = await sc.mint(6);
    const usdt = await sc.mint(6);
    const shop = await sc.payer(LAMPORTS_PER_SOL);
    const watched: string[] = [];
    for (let i = 0; i < 10; i++) watched.push(await sc.reference());
    for (let i = 0; i < PAYMENTS; i++) {
      const refs = i < 10 ? [watched[i]!] : i < 20 ? [await sc.reference()] : [];
      await sc.paySol(payer, shop.address, 1_000_000n + BigInt(i), refs);
    }
    double.chain.finalizeAll();
    const measure = async (open: number) => {
      const storage = openStorage({ sqlitePath: ':memory:' });
      await migrateToLatest(storage);
      let http = 0;
      let calls = 0;
      const d: SolanaDriver = createSolanaDriver(
        SOL,
        { driver: 'solana', rpc_url: double.url, cluster: 'localnet', tokens: { USDC: usdc.address, USDT: usdt.address } },
        { seed: new Uint8Array(), storage, onHttp: () => http++, onRequest: () => calls++ },
      );
      const keys = [...watched];
      for (let i = keys.length; i < open; i++) keys.push(base58.encode(randomBytes(32)));
      d.watch(keys.map((r, i) => ({ address: depositKey(shop.address, r), path: `reference:bench/${i}` })));
      const t = performance.now();
      await d.poll(sink);
      const ms = performance.now() - t;
      const first = { http, calls };
      http = 0;
      calls = 0;
      await d.poll(sink);
      await d.close();
      await storage.close();
      return { first, idle: { http, calls }, ms };
    };
    const small = await measure(10);
    const big = await measure(10_000);
    return [
      {
        name: 'Solana poll of one merchant wallet (30 new payments), 10,000 open invoices: HTTP requests / JSON-RPC calls',
        value: `${big.first.http} / ${big.first.calls} (idle poll after: ${big.idle.http} / ${big.idle.calls})`,
        baseline: `${small.first.http} / ${small.first.calls} with 10 open invoices (idle: ${small.idle.http} / ${small.idle.calls})`,
        ratio: (big.first.calls / small.first.calls).toFixed(2),
        note: `getSlot, one getSignaturesForAddress per account walked (the wallet and its USDC and USDT token accounts), the ${PAYMENTS} transactions in getTransaction batches of 50 (one HTTP request), getSignatureStatuses for what is open; first poll ${small.ms.toFixed(0)} ms vs ${big.ms.toFixed(0)} ms; must be equal: references are matched in a map`,
      },
    ];
  } finally {
    await double.close();
  }
}

async function latencyRows(): Promise<Row[]> {
  const double = await startSolanaDouble();
  const sc = scenario(double);
  const shop = await sc.payer(LAMPORTS_PER_SOL);
  const payer = await sc.payer(1000n * LAMPORTS_PER_SOL);
  const g = await startChainGateway<SolanaDriver>(sqlite, {
    code: 'SOL',
    network: { driver: 'solana', rpc_url: double.url, cluster: 'localnet' },
    mine: () => double.chain.finalizeAll(),
    stop: () => double.close(),
  });
  const { ctx, merchant } = g;
  try {
    const req = { merchantId: merchant.id, network: 'SOL', input: { address: shop.address }, actor: 'bench', replace: false };
    const checked = await checkCustody(ctx, req);
    await ctx.storage.write((trx) => writeCustody(trx, req, checked, ctx.now()));
    await g.tick();
    const interval = ctx.config.workerIntervalMs;
    const status = async (id: string) => (await ctx.storage.db.selectFrom('invoices').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    const reference = async (id: string) => {
      const row = await ctx.storage.db.selectFrom('addresses').select('address').where('owner_id', '=', id).where('network', '=', 'SOL').executeTakeFirstOrThrow();
      return row.address.split('#')[1]!;
    };
    const slots = setInterval(() => double.chain.advance(1), SLOT_MS);
    const workers = runWorkers(ctx, { intervalMs: interval, log: { error: (o) => console.error(o) } });
    const latencies: number[] = [];
    try {
      for (let i = 0; i < LATENCY_PAYMENTS; i++) {
        const created = await createInvoice(ctx, merchant, paramsFor(ctx, createInvoiceOp, { amount: '1.5', currency: 'SOL', network: 'SOL', order_id: `bench-sol-${i}` }));
        const inv = created.invoice;
        const ref = await reference(String(inv.uuid));
        await sleep(Math.random() * interval);
        const t = performance.now();
        await sc.paySol(payer, shop.address, 1_500_000_000n, [ref]);
        while ((await status(String(inv.uuid))) !== 'paid') {
          if (performance.now() - t > 20_000) throw new Error(`payment ${i} was not paid within 20 s (status ${await status(String(inv.uuid))})`);
          await sleep(1);
        }
        latencies.push(performance.now() - t);
      }
    } finally {
      clearInterval(slots);
      await workers.stop();
    }
    const med = median(latencies);
    return [
      {
        name: `Solana payment sent -> invoice paid, worker looping every ${interval} ms`,
        value: `median ${med.toFixed(0)} ms (min ${Math.min(...latencies).toFixed(0)}, max ${Math.max(...latencies).toFixed(0)})`,
        baseline: `${interval} ms: the worker interval (+ finality, 31 slots = ${31 * SLOT_MS} ms here)`,
        ratio: (med / interval).toFixed(2),
        note: `${LATENCY_PAYMENTS} SOL payments with their reference (kit-signed, executed by LiteSVM) sent at random points of the cycle; the double's head moves a slot every ${SLOT_MS} ms; paid at the first poll after the payment is finalized (on mainnet finality is about 13 s: 32 slots of 400 ms, which dominates); through the gateway's sink on SQLite`,
      },
    ];
  } finally {
    await g.stopAll();
  }
}

export async function solanaBench(): Promise<Row[]> {
  return [...(await callRows()), ...(await latencyRows())];
}
