// The `bitcoin-core` driver on litecoind (regtest): blocks scanned per second with 10 and with
// 100,000 watched addresses (the work per block must not depend on the watched set), and the
// latency from a payment reaching the mempool to its invoice's `check`, and from its confirming
// block to `paid`, with the worker looping at its interval.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { mnemonicToSeedSync } from '@scure/bip39';
import { Address } from '@scure/btc-signer';
import type { Row } from './api.ts';
import { openStorage, type Storage } from '../src/db/dialect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { Registry } from '../src/registry/index.ts';
import type { ChainSink } from '../src/chain/contract.ts';
import { createBitcoinDriver, configuredNetwork, type BitcoinCoreDriver } from '../src/chain/bitcoin/index.ts';
import { btcDb } from '../src/chain/bitcoin/schema.ts';
import { depositPaths } from '../src/chain/networks.ts';
import { createInvoice } from '../src/invoices/create.ts';
import { paramsFor } from '../src/http/signed-api.ts';
import { createInvoiceOp } from '../src/contracts/merchant-api/invoices.ts';
import { runWorkers } from '../src/worker/index.ts';
import { backends } from '../test/helpers/backends.ts';
import { Payer, REGTEST, startLitecoind, type Litecoind } from '../test/chain/bitcoin/litecoind.ts';
import { startLtcGateway } from '../test/chain/gateway-setup.ts';

const BLOCKS = Number(process.env.BENCH_BTC_BLOCKS ?? 40);
const ROUNDS = 5;
const PAYMENTS = 8;
const SEED = mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');

const randomAddress = () => Address(REGTEST.net).encode({ type: 'wpkh', hash: randomBytes(20) });
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function scanner(node: Litecoind, dir: string, name: string, watched: string[], start: number): Promise<{ driver: BitcoinCoreDriver; storage: Storage }> {
  const storage = openStorage({ sqlitePath: join(dir, `${name}.sqlite`) });
  await migrateToLatest(storage);
  const ltc = configuredNetwork(Registry.load().network('LTC')!, { driver: 'bitcoin-core', custody: 'hot', chain: 'regtest' });
  const driver = createBitcoinDriver(ltc, { driver: 'bitcoin-core', custody: 'hot', rpc_url: node.url, chain: 'regtest', confirmations: 6, start_height: start }, { seed: SEED, storage, depositPaths: (addresses) => depositPaths(storage.db, ltc.code, addresses) });
  for (const address of watched) driver.scanner.watched.set(scriptOf(address), { address, kind: 'deposit' });
  return { driver, storage };
}

function scriptOf(address: string): string {
  const d = Address(REGTEST.net).decode(address) as { hash: Uint8Array };
  return `0014${Buffer.from(d.hash).toString('hex')}`;
}

async function scanRows(): Promise<Row[]> {
  const node = await startLitecoind();
  const dir = mkdtempSync(join(tmpdir(), 'satchel-bench-btc-'));
  try {
    const payer = new Payer(node);
    await payer.fund(2);
    const few = Array.from({ length: 10 }, randomAddress);
    const many = [...few, ...Array.from({ length: 100_000 - few.length }, randomAddress)];
    const first = (await node.head()) + 1;
    // Each block: 4 payments, two to watched addresses, two to strangers.
    for (let b = 0; b < BLOCKS; b++) {
      await payer.pay([{ address: few[(2 * b) % 10]!, amount: '0.01' }, { address: randomAddress(), amount: '0.02' }]);
      await payer.pay([{ address: few[(2 * b + 1) % 10]!, amount: '0.03' }, { address: randomAddress(), amount: '0.04' }]);
      await node.mine(1);
    }
    const head = await node.head();
    const blocks = head - first + 1;
    const scanners = { few: await scanner(node, dir, 'few', few, first), many: await scanner(node, dir, 'many', many, first) };
    const rates = { few: [] as number[], many: [] as number[] };
    const ratios: number[] = [];
    const reports = { few: 0, many: 0 };
    for (let r = -1; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['few', 'many'] as const) : (['many', 'few'] as const);
      const round: Record<string, number> = {};
      for (const k of order) {
        const { driver, storage } = scanners[k];
        const db = btcDb(storage.db);
        await db.deleteFrom('btc_outputs').execute();
        for (const t of ['scan_blocks', 'scan_cursors'] as const) await db.deleteFrom(t).where('network', '=', 'LTC').execute();
        driver.scanner.reset();
        let reported = 0;
        const sink: ChainSink = { transfer: async () => void reported++, dropped: async () => {}, outgoing: async () => {} };
        const t = performance.now();
        let height = -1;
        do {
          await driver.poll(sink);
          height = Number((await db.selectFrom('scan_cursors').select('block_number').where('network', '=', 'LTC').executeTakeFirst())?.block_number ?? -1);
        } while (height < head);
        round[k] = blocks / ((performance.now() - t) / 1000);
        reports[k] = reported;
      }
      if (r < 0) continue;
      rates.few.push(round.few!);
      rates.many.push(round.many!);
      ratios.push(round.many! / round.few!);
    }
    for (const { driver, storage } of Object.values(scanners)) {
      await driver.close();
      await storage.close();
    }
    if (reports.few !== reports.many || reports.few < 2 * BLOCKS) throw new Error(`the scanners disagree: ${reports.few} and ${reports.many} reports`);
    const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
    const few10 = median(rates.few);
    const many100k = median(rates.many);
    const note = `${blocks} blocks, 2 transactions each with an output to a watched address and one to a stranger; median of ${ROUNDS} rounds after a warm-up (range ${spread(rates.few)} / ${spread(rates.many)} blocks/s), each scanner on its own SQLite file`;
    return [
      { name: 'LTC blocks scanned per second, 10 watched addresses', value: `${few10.toFixed(0)} blocks/s`, baseline: '-', ratio: '-', note },
      { name: 'LTC blocks scanned per second, 100,000 watched addresses', value: `${many100k.toFixed(0)} blocks/s`, baseline: `${few10.toFixed(0)} blocks/s with 10 watched`, ratio: median(ratios).toFixed(2), note: `median of the ${ROUNDS} paired per-round ratios (range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); should stay within 20% (0.80 to 1.20)` },
    ];
  } finally {
    await node.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function latencyRows(): Promise<Row[]> {
  const [sqlite] = await backends();
  const g = await startLtcGateway(sqlite!, { confirmations: 1 });
  let n = 0;
  const status = async (id: string) => (await g.ctx.storage.db.selectFrom('invoices').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const until = async (id: string, want: string) => {
    const t = performance.now();
    while ((await status(id)) !== want) {
      if (performance.now() - t > 15_000) throw new Error(`invoice not ${want} within 15 s`);
      await sleep(1);
    }
    return performance.now() - t;
  };
  try {
    await g.tick();
    const interval = g.ctx.config.workerIntervalMs;
    const workers = runWorkers(g.ctx, { intervalMs: interval, log: { error: (o) => console.error(o) } });
    const seen: number[] = [];
    const paid: number[] = [];
    try {
      for (let i = 0; i < PAYMENTS; i++) {
        const inv = (await createInvoice(g.ctx, g.merchant, paramsFor(g.ctx, createInvoiceOp, { amount: '0.1', currency: 'LTC', network: 'LTC', order_id: `bench-ltc-${++n}` }))).invoice;
        await sleep(Math.random() * interval);
        await g.payer.pay([{ address: String(inv.address), amount: '0.1' }]);
        seen.push(await until(String(inv.uuid), 'check'));
        await sleep(Math.random() * interval);
        await g.node.mine(1);
        paid.push(await until(String(inv.uuid), 'paid'));
      }
    } finally {
      await workers.stop();
    }
    const note = `${PAYMENTS} payments, worker interval ${interval} ms, SQLite; each step started at a random point of the worker's cycle`;
    return [
      { name: 'LTC payment in the mempool -> invoice check (median)', value: `${median(seen).toFixed(0)} ms`, baseline: `${interval} ms worker interval`, ratio: (median(seen) / interval).toFixed(2), note },
      { name: 'LTC confirming block -> invoice paid (median, 1 confirmation)', value: `${median(paid).toFixed(0)} ms`, baseline: `${interval} ms worker interval`, ratio: (median(paid) / interval).toFixed(2), note },
    ];
  } finally {
    await g.stopAll();
  }
}

export async function bitcoinBench(): Promise<Row[]> {
  return [...(await scanRows()), ...(await latencyRows())];
}
