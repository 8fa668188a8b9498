// Issue 27: the `ton` driver against the toncenter double over @ton/sandbox, in one run.
//  - Scan cost of one merchant wallet: 150 incoming payments (a third naming watched comments)
//    walked from scratch with 10 and with 100,000 open invoices (deposit keys). Comments are
//    matched in a map and there is one walk per wallet, so the two should be within 20% of each
//    other. Interleaved rounds (the order alternates), best of the rounds after a warm-up.
//  - Time from a payment being sent in the sandbox to its invoice turning paid, through the
//    gateway (ctx, its sink, the worker looping at its interval), set against that interval. A TON
//    payment settles once the masterchain has moved on since a poll saw it (1 confirmation), so it
//    takes at least two polls: the one that sees it and one after the next masterchain block.
import { toNano } from '@ton/core';
import { openStorage } from '../src/db/dialect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { Registry } from '../src/registry/index.ts';
import type { ChainSink } from '../src/chain/contract.ts';
import { depositKey } from '../src/chain/watch-paths.ts';
import { createTonDriver } from '../src/chain/ton/config.ts';
import type { TonDriver } from '../src/chain/ton/ton-driver.ts';
import { checkCustody, writeCustody } from '../src/custody/store.ts';
import { createInvoice } from '../src/invoices/create.ts';
import { paramsFor } from '../src/http/signed-api.ts';
import { createInvoiceOp } from '../src/contracts/merchant-api/invoices.ts';
import { runWorkers } from '../src/worker/index.ts';
import { startChainGateway } from '../test/chain/gateway-setup.ts';
import { startToncenterDouble, type TonDouble } from '../test/chain/ton/double/toncenter.ts';
import { scenario } from '../test/chain/ton/double/scenario.ts';
import type { Backend } from '../test/helpers/backends.ts';
import type { Row } from './api.ts';

const PAYMENTS = 150;
const ROUNDS = 9;
const LATENCY_PAYMENTS = 20;
/** The double's masterchain moves on this often during the latency run (mainnet: about 5 s). */
const BLOCK_MS = 100;

const sqlite: Backend = { name: 'sqlite', create: async () => ({ drop: async () => {} }) };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function scanRows(): Promise<Row[]> {
  const TON = Registry.load().network('TON')!;
  const double = await startToncenterDouble();
  try {
    const sc = scenario(double);
    const merchant = await sc.payerWallet('merchant');
    const payer = await sc.payerWallet('payer');
    const account = merchant.address.toString({ bounceable: false });
    for (let i = 0; i < PAYMENTS; i++) await sc.sendTon(payer, merchant.address, toNano('0.01'), i % 3 === 0 ? `W${i}` : `other ${i}`);
    const keysOf = (n: number) => Array.from({ length: n }, (_, i) => ({ address: depositKey(account, `W${i}`), path: `reference:c/${i}` }));
    const keys = { few: keysOf(10), many: keysOf(100_000) };

    // One walk of the wallet from scratch (a fresh database), the driver already watching.
    const scan = async (key: 'few' | 'many') => {
      const storage = openStorage({ sqlitePath: ':memory:' });
      await migrateToLatest(storage);
      const driver = createTonDriver(TON, { driver: 'ton', api_url: double.url }, { seed: new Uint8Array(), storage });
      driver.watch(keys[key]);
      let credited = 0;
      const sink: ChainSink = { transfer: async () => void credited++, unmatched: async () => {}, dropped: async () => {}, outgoing: async () => {} };
      const before = double.requests.length;
      const t = performance.now();
      await driver.poll(sink);
      const ms = performance.now() - t;
      const calls = double.requests.length - before;
      await driver.close();
      await storage.close();
      return { ms, credited, calls };
    };

    const times = { few: [] as number[], many: [] as number[] };
    const ratios: number[] = [];
    const seen = { few: { credited: 0, calls: 0 }, many: { credited: 0, calls: 0 } };
    for (let r = -1; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['few', 'many'] as const) : (['many', 'few'] as const);
      const round: Record<string, number> = {};
      for (const key of order) {
        const { ms, credited, calls } = await scan(key);
        round[key] = ms;
        seen[key] = { credited, calls };
      }
      if (r < 0) continue; // warm-up
      times.few.push(round.few!);
      times.many.push(round.many!);
      ratios.push(round.many! / round.few!);
    }
    if (seen.few.calls !== seen.many.calls) throw new Error(`the scans disagree: ${seen.few.calls} and ${seen.many.calls} API calls`);
    if (seen.few.credited !== 4 || seen.many.credited !== PAYMENTS / 3) throw new Error(`wrong credits: ${seen.few.credited} and ${seen.many.credited}`);
    const best = { few: Math.min(...times.few), many: Math.min(...times.many) };
    const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`;
    return [
      {
        name: `TON scan of one merchant wallet (${PAYMENTS} incoming payments), 100,000 open invoices`,
        value: `${best.many.toFixed(1)} ms`,
        baseline: `${best.few.toFixed(1)} ms with 10 open invoices`,
        ratio: (best.many / best.few).toFixed(2),
        note: `best of ${ROUNDS} interleaved rounds after a warm-up (range ${spread(times.few)} / ${spread(times.many)} ms for 10 / 100,000; paired ratios ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); ${seen.few.calls} API calls for either; a third of the payments name a watched comment (${seen.few.credited} / ${seen.many.credited} credited); should stay within 20% (0.80 to 1.20): comments are matched in a map, one walk per wallet`,
      },
    ];
  } finally {
    await double.close();
  }
}

async function latencyRows(): Promise<Row[]> {
  const double: TonDouble = await startToncenterDouble();
  const sc = scenario(double);
  const shop = await sc.payerWallet('shop');
  const payer = await sc.payerWallet('customer');
  await sc.sendTon(shop, payer.address, toNano('0.01'), null);
  const g = await startChainGateway<TonDriver>(sqlite, {
    code: 'TON',
    network: { driver: 'ton', api_url: double.url, confirmations: 1 },
    mine: () => double.tick(),
    stop: () => double.close(),
  });
  const { ctx, merchant } = g;
  try {
    const req = { merchantId: merchant.id, network: 'TON', input: { address: shop.address.toString() }, actor: 'bench', replace: false };
    const checked = await checkCustody(ctx, req);
    await ctx.storage.write((trx) => writeCustody(trx, req, checked, ctx.now()));
    await g.tick(); // the wallet's history up to now is walked before anything is paid
    const interval = ctx.config.workerIntervalMs;
    const status = async (id: string) => (await ctx.storage.db.selectFrom('invoices').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

    const blocks = setInterval(() => double.tick(), BLOCK_MS);
    const workers = runWorkers(ctx, { intervalMs: interval, log: { error: (o) => console.error(o) } });
    const latencies: number[] = [];
    try {
      for (let i = 0; i < LATENCY_PAYMENTS; i++) {
        const created = await createInvoice(ctx, merchant, paramsFor(ctx, createInvoiceOp, { amount: '1.5', currency: 'TON', network: 'TON', order_id: `bench-ton-${i}` }));
        const inv = created.invoice;
        await sleep(Math.random() * interval); // pay at a random point of the worker's cycle
        const t = performance.now();
        await sc.sendTon(payer, String(inv.address), toNano('1.5'), String(inv.payment_comment));
        while ((await status(String(inv.uuid))) !== 'paid') {
          if (performance.now() - t > 20_000) throw new Error(`payment ${i} was not seen within 20 s (status ${await status(String(inv.uuid))})`);
          await sleep(1);
        }
        latencies.push(performance.now() - t);
      }
    } finally {
      clearInterval(blocks);
      await workers.stop();
    }
    const med = median(latencies);
    return [
      {
        name: `TON payment sent -> invoice paid, worker looping every ${interval} ms`,
        value: `median ${med.toFixed(0)} ms (min ${Math.min(...latencies).toFixed(0)}, max ${Math.max(...latencies).toFixed(0)})`,
        baseline: `${interval} ms: the worker interval`,
        ratio: (med / interval).toFixed(2),
        note: `${LATENCY_PAYMENTS} Toncoin payments (signed wallet v4 messages in the sandbox) sent at random points of the cycle; 1 confirmation, the double's masterchain moving on every ${BLOCK_MS} ms: a payment is paid at the first poll after the masterchain moved on since the poll that saw it, so between about 1 and 2 intervals plus a block; through the gateway's sink on SQLite`,
      },
    ];
  } finally {
    await g.stopAll();
  }
}

export async function tonBench(): Promise<Row[]> {
  return [...(await scanRows()), ...(await latencyRows())];
}
