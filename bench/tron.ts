// Issue 16: the `tron` driver's scanner against the TRON node double (test/chain/tron), in one run.
// Blocks scanned per second catching up 200 busy blocks (2 TRX and 2 USDT transfers in each, one of
// each to a watched address), watching 10 addresses and 100,000: matching is an in-memory set
// lookup and the calls per block are the same, so the two should be within 20% of each other.
// Baseline: the same HTTP reads (one getblockbylimitnext per 100 blocks, one
// gettransactioninfobyblocknum per block, 8 in flight) with no driver around them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { mnemonicToSeedSync } from '@scure/bip39';
import { openStorage, type Storage } from '../src/db/dialect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { Registry } from '../src/registry/index.ts';
import { TronDriver } from '../src/chain/tron/tron-driver.ts';
import { fromHexAddress } from '../src/chain/tron/address.ts';
import type { ChainSink } from '../src/chain/contract.ts';
import { GATEWAY_MNEMONIC, TRON_PAYER as PAYER, TRON_PAYER_KEY as PAYER_KEY, TRON_USDT as USDT } from '../test/chain/gateway-setup.ts';
import { TronNodeDouble } from '../test/chain/tron/node-double.ts';
import type { Row } from './api.ts';

const BLOCKS = 200;
const ROUNDS = 9;

const randomAddress = () => fromHexAddress(`41${randomBytes(20).toString('hex')}`);

async function scanner(url: string, dir: string, name: string, watched: string[], startBlock: number): Promise<{ driver: TronDriver; storage: Storage }> {
  const storage = openStorage({ sqlitePath: join(dir, `${name}.sqlite`) });
  await migrateToLatest(storage);
  const driver = new TronDriver({
    network: Registry.load().network('TRON')!,
    apiUrl: url,
    confirmations: 19,
    tokens: [{ code: 'USDT', contract: USDT, decimals: 6 }],
    seed: mnemonicToSeedSync(GATEWAY_MNEMONIC),
    storage,
    feeLimit: 50_000_000n,
    pollBatch: 100,
    startBlock,
  });
  driver.watch(watched.map((address) => ({ address, path: '' })));
  return { driver, storage };
}

async function forget(storage: Storage): Promise<void> {
  const db = storage.db;
  for (const t of ['scan_transfers', 'scan_blocks', 'scan_cursors'] as const) await db.deleteFrom(t).where('network', '=', 'TRON').execute();
}

async function timeCatchUp(driver: TronDriver, storage: Storage, head: number): Promise<{ secs: number; reported: number }> {
  let reported = 0;
  const sink: ChainSink = { transfer: async () => void reported++, dropped: async () => {}, outgoing: async () => {} };
  const cursor = async () => Number((await storage.db.selectFrom('scan_cursors').select('block_number').where('network', '=', 'TRON').executeTakeFirst())?.block_number ?? -1);
  const t = performance.now();
  do await driver.poll(sink);
  while ((await cursor()) < head);
  return { secs: (performance.now() - t) / 1000, reported };
}

async function rawRead(url: string, from: number, to: number): Promise<number> {
  const post = (path: string, body: unknown) => fetch(url + path, { method: 'POST', body: JSON.stringify(body) }).then((r) => r.json());
  const t = performance.now();
  for (let lo = from; lo <= to; lo += 100) {
    const hi = Math.min(to, lo + 99);
    await post('/wallet/getblockbylimitnext', { startNum: lo, endNum: hi + 1 });
    let next = lo;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next <= hi) await post('/wallet/gettransactioninfobyblocknum', { num: next++ });
    }));
  }
  return (performance.now() - t) / 1000;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function tronBench(): Promise<Row[]> {
  const node = await new TronNodeDouble({ solidDepth: 19 }).start();
  const dir = mkdtempSync(join(tmpdir(), 'satchel-bench-tron-'));
  try {
    node.token(USDT, PAYER, 10n ** 15n);
    node.fund(PAYER, 10n ** 15n);
    node.mine();
    const few = Array.from({ length: 10 }, randomAddress);
    const many = [...few, ...Array.from({ length: 100_000 - few.length }, randomAddress)];
    const first = node.head.number + 1;
    for (let i = 0; i < BLOCKS; i++) {
      const ours = few[i % few.length]!;
      node.payTrx(PAYER_KEY, ours, 1_000_000n + BigInt(i));
      node.payTrx(PAYER_KEY, randomAddress(), 2_000_000n + BigInt(i));
      node.payToken(PAYER_KEY, USDT, ours, 5_000_000n + BigInt(i));
      node.payToken(PAYER_KEY, USDT, randomAddress(), 7_000_000n + BigInt(i));
      node.mine();
    }
    node.mine(19);
    const head = node.head.number;
    const blocks = head - first + 1;
    const scanners = { few: await scanner(node.url, dir, 'few', few, first), many: await scanner(node.url, dir, 'many', many, first) };
    const rates = { few: [] as number[], many: [] as number[], raw: [] as number[] };
    const ratios: number[] = [];
    const reports = { few: 0, many: 0 };
    const calls = { few: 0, many: 0 };
    for (let r = -1; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['few', 'many'] as const) : (['many', 'few'] as const);
      const round: Record<string, number> = {};
      for (const key of order) {
        const { driver, storage } = scanners[key];
        await forget(storage);
        const before = [...node.calls.values()].reduce((a, b) => a + b, 0);
        const { secs, reported } = await timeCatchUp(driver, storage, head);
        calls[key] = [...node.calls.values()].reduce((a, b) => a + b, 0) - before;
        round[key] = blocks / secs;
        reports[key] = reported;
      }
      const raw = blocks / (await rawRead(node.url, first, head));
      if (r < 0) continue;
      rates.few.push(round.few!);
      rates.many.push(round.many!);
      rates.raw.push(raw);
      ratios.push(round.many! / round.few!);
    }
    for (const { driver, storage } of Object.values(scanners)) {
      await driver.close();
      await storage.close();
    }
    if (reports.few !== reports.many || reports.few < 2 * BLOCKS) throw new Error(`the scanners disagree: ${reports.few} and ${reports.many} reports`);
    const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
    const note = `${blocks} blocks, 4 transfers each (2 TRX, 2 USDT; one of each to a watched address); ${calls.few} / ${calls.many} HTTP calls per catch-up for 10 / 100,000 watched; median of ${ROUNDS} rounds after a warm-up (range ${spread(rates.few)} / ${spread(rates.many)} / ${spread(rates.raw)} blocks/s for 10 / 100,000 / bare reads); each scanner on its own SQLite file`;
    return [
      { name: 'TRON blocks scanned per second, 10 watched addresses', value: `${median(rates.few).toFixed(0)} blocks/s`, baseline: `${median(rates.raw).toFixed(0)} blocks/s: the same HTTP reads alone`, ratio: (median(rates.few) / median(rates.raw)).toFixed(2), note },
      { name: 'TRON blocks scanned per second, 100,000 watched addresses', value: `${median(rates.many).toFixed(0)} blocks/s`, baseline: `${median(rates.few).toFixed(0)} blocks/s with 10 watched`, ratio: median(ratios).toFixed(2), note: `median of the ${ROUNDS} paired per-round ratios (range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}); should stay within 20% (0.80 to 1.20): the work per block does not depend on the watched set` },
    ];
  } finally {
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
