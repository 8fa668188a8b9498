// The `ton` scan's work does not depend on how many invoices are open. A merchant wallet with 150
// incoming payments (a third of them naming watched comments) is walked from scratch with 10 and
// with 100,000 watched deposit keys: the same API calls, and the right payments credited (comments
// are matched in a map, one walk per wallet). Its time is measured by the benchmark (bench/ton.ts,
// `npm run bench -- ton`), not here: a timed assertion would fail on a busy machine.
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

describe('ton scan with 10 and 100,000 open invoices', () => {
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

  async function round(watched: number): Promise<{ credited: number; calls: string[] }> {
    const storage = openStorage({ sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    const calls: string[] = [];
    const driver = createTonDriver(TON, { driver: 'ton', api_url: double.url }, { seed: new Uint8Array(), storage });
    const keys = Array.from({ length: watched }, (_, i) => ({ address: depositKey(account, `W${i}`), path: `reference:c/${i}` }));
    driver.watch(keys);
    let credited = 0;
    const sink: ChainSink = { transfer: async () => void credited++, unmatched: async () => {}, dropped: async () => {}, outgoing: async () => {} };
    const start = double.requests.length;
    await driver.poll(sink);
    for (const r of double.requests.slice(start)) calls.push(r.path);
    await driver.close();
    await storage.close();
    return { credited, calls };
  }

  it('makes the same API calls and credits the watched payments', async () => {
    const a = await round(10);
    const b = await round(100_000);
    expect(a.calls.length).toBeGreaterThan(0);
    expect(a.calls).toEqual(b.calls);
    // 10 watched keys name W0..W9 (4 of them paid: W0, W3, W6, W9); 100,000 name every W<i>.
    expect(a.credited).toBe(4);
    expect(b.credited).toBe(PAYMENTS / 3);
  });
});
