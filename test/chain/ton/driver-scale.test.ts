// The measure of the `ton` scan: its cost does not depend on how many invoices are open. A merchant
// wallet with 150 incoming payments (a third of them naming watched comments) is walked from scratch
// with 10 and with 100,000 watched deposit keys, interleaved rounds: the same API calls, and the
// best time within 20% (comments are matched in a map, one walk per wallet).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNano } from '@ton/core';
import { openStorage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry } from '../../../src/registry/index.ts';
import type { ChainSink } from '../../../src/chain/contract.ts';
import { depositKey } from '../../../src/chain/watch-paths.ts';
import { createTonDriver } from '../../../src/chain/ton/config.ts';
import { startToncenterDouble, type TonDouble } from './double/toncenter.ts';
import { scenario } from './double/scenario.ts';

const TON = Registry.load().network('TON')!;
const PAYMENTS = 150;
const ROUNDS = 7;

describe('ton scan cost with 10 and 100,000 open invoices', () => {
  let double: TonDouble;
  let account = '';
  beforeAll(async () => {
    double = await startToncenterDouble();
    const sc = scenario(double);
    const merchant = await sc.payerWallet('merchant');
    const payer = await sc.payerWallet('payer');
    account = merchant.address.toString({ bounceable: false });
    for (let i = 0; i < PAYMENTS; i++) await sc.sendTon(payer, merchant.address, toNano('0.01'), i % 3 === 0 ? `W${i}` : `other ${i}`);
  }, 120_000);
  afterAll(async () => {
    await double?.close();
  });

  async function round(watched: number): Promise<{ ms: number; credited: number; calls: string[] }> {
    const storage = openStorage({ sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    const calls: string[] = [];
    const driver = createTonDriver(TON, { driver: 'ton', api_url: double.url }, { seed: new Uint8Array(), storage });
    const keys = Array.from({ length: watched }, (_, i) => ({ address: depositKey(account, `W${i}`), path: `reference:c/${i}` }));
    driver.watch(keys);
    let credited = 0;
    const sink: ChainSink = { transfer: async () => void credited++, unmatched: async () => {}, dropped: async () => {}, outgoing: async () => {} };
    const start = double.requests.length;
    const t0 = performance.now();
    await driver.poll(sink);
    const ms = performance.now() - t0;
    for (const r of double.requests.slice(start)) calls.push(r.path);
    await driver.close();
    await storage.close();
    return { ms, credited, calls };
  }

  it('makes the same calls and takes about the same time', async () => {
    await round(10); // warm-up
    const few: number[] = [];
    const many: number[] = [];
    let last: Array<Awaited<ReturnType<typeof round>>> = [];
    for (let i = 0; i < ROUNDS; i++) {
      const a = await round(10);
      const b = await round(100_000);
      few.push(a.ms);
      many.push(b.ms);
      last = [a, b];
    }
    const [a, b] = last as [Awaited<ReturnType<typeof round>>, Awaited<ReturnType<typeof round>>];
    expect(a.calls).toEqual(b.calls);
    // 10 watched keys name W0..W9 (4 of them paid: W0, W3, W6, W9); 100,000 name every W<i>.
    expect(a.credited).toBe(4);
    expect(b.credited).toBe(PAYMENTS / 3);
    // Best of the rounds: what the scan costs without the shared machine's noise.
    const best = (xs: number[]) => Math.min(...xs);
    const ratio = best(many) / best(few);
    console.log(`ton scan of ${PAYMENTS} transactions: 10 watched ${best(few).toFixed(1)} ms, 100,000 watched ${best(many).toFixed(1)} ms (ratio ${ratio.toFixed(2)})`);
    expect(ratio).toBeLessThan(1.2);
  });
});
