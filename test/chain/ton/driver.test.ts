// The `ton` driver against the toncenter double over @ton/sandbox (the real TVM: wallets v4 and the
// jetton contracts of @ton-community/assets-sdk execute every payment), on both databases:
// Toncoin and USDT payments with an invoice's comment credited with exact amounts and txids; a
// fake jetton never credited; payments without comment, with an unknown or binary comment, and
// bounced messages reported as unmatched and credited to nothing; a node down and back, and a
// restart from the stored cursor, credit nothing twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell, toNano } from '@ton/core';
import { backends } from '../../helpers/backends.ts';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry } from '../../../src/registry/index.ts';
import type { ChainSink, IncomingTransfer, UnmatchedTransfer } from '../../../src/chain/contract.ts';
import { NodeUnreachableError } from '../../../src/chain/errors.ts';
import { depositKey } from '../../../src/chain/watch-paths.ts';
import { createTonDriver } from '../../../src/chain/ton/config.ts';
import { TonDriver } from '../../../src/chain/ton/ton-driver.ts';
import { startToncenterDouble, type TonDouble } from './double/toncenter.ts';
import { scenario, type Jetton, type Payer, type Scenario } from './double/scenario.ts';

const TON = Registry.load().network('TON')!;

/** Records what the driver reports, as the gateway's sink would (the last word per transfer). */
class RecordingSink implements ChainSink {
  readonly transfers = new Map<string, IncomingTransfer>();
  readonly calls: IncomingTransfer[] = [];
  readonly unmatchedList: UnmatchedTransfer[] = [];
  async transfer(t: IncomingTransfer) {
    this.calls.push(t);
    this.transfers.set(`${t.txid}:${t.index}`, t);
  }
  async unmatched(t: UnmatchedTransfer) {
    this.unmatchedList.push(t);
  }
  async dropped() {
    throw new Error('TON never drops a transfer');
  }
  async outgoing() {}
  credited(): IncomingTransfer[] {
    return [...this.transfers.values()];
  }
}

describe.each(await backends())('ton driver on the sandbox double ($name)', (backend) => {
  let double: TonDouble;
  let sc: Scenario;
  let storage: Storage;
  let drop: () => Promise<void>;
  let merchant: Payer;
  let payer: Payer;
  let usdt: Jetton;
  let account: string;
  const key = (comment: string) => depositKey(account, comment);
  const drivers: TonDriver[] = [];
  const makeDriver = (cfg: Record<string, unknown> = {}) => {
    const d = createTonDriver(TON, { driver: 'ton', api_url: double.url, confirmations: 1, tokens: { USDT: usdt.master.toString() }, ...cfg }, { seed: new Uint8Array(), storage });
    drivers.push(d);
    return d;
  };
  const watchAll = (d: TonDriver, comments: string[]) => d.watch(comments.map((c, i) => ({ address: key(c), path: `reference:test/${i}` })));

  beforeAll(async () => {
    const db = await backend.create();
    drop = db.drop;
    storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    double = await startToncenterDouble();
    sc = scenario(double);
    merchant = await sc.payerWallet('merchant');
    payer = await sc.payerWallet('payer');
    // The merchant's wallet is deployed (its first transfer carries its StateInit).
    await sc.sendTon(merchant, payer.address, toNano('0.01'), null);
    usdt = await sc.deployJetton('USDT');
    await usdt.mint(payer, 1_000_000_000n);
    account = merchant.address.toString({ bounceable: false });
  }, 60_000);
  afterAll(async () => {
    for (const d of drivers) await d.close();
    await double?.close();
    await storage?.close();
    await drop?.();
  });

  it('credits Toncoin paid with an invoice comment: exact, partial and over, with the receiving transaction as txid', async () => {
    const driver = makeDriver();
    watchAll(driver, ['Exact1', 'Part2', 'Over3']);
    const sink = new RecordingSink();
    await driver.poll(sink);
    const exact = await sc.sendTon(payer, merchant.address, toNano('1.5'), 'Exact1');
    const part = await sc.sendTon(payer, merchant.address, toNano('0.7'), 'Part2');
    const over = await sc.sendTon(payer, merchant.address, 2_000_000_001n, 'Over3');
    await driver.poll(sink);
    const first = sink.credited();
    expect(first.map((t) => t.confirmations)).toEqual([0, 0, 0]);
    double.tick();
    await driver.poll(sink);
    const byTo = new Map(sink.credited().map((t) => [t.to, t]));
    expect(byTo.get(key('Exact1'))).toMatchObject({ network: 'TON', currency: 'TON', amount: '1.5', index: 0, txid: exact.received!.hash().toString('hex'), from: payer.address.toRawString(), confirmations: 1 });
    expect(byTo.get(key('Part2'))).toMatchObject({ currency: 'TON', amount: '0.7', txid: part.received!.hash().toString('hex') });
    expect(byTo.get(key('Over3'))).toMatchObject({ currency: 'TON', amount: '2.000000001', txid: over.received!.hash().toString('hex') });
    expect(sink.credited()).toHaveLength(3);
    for (const t of sink.credited()) expect(t.txid).toMatch(/^[0-9a-f]{64}$/);
    // The first walk also read the wallet's funding (no comment, before it was watched): not reported.
    expect(sink.unmatchedList).toEqual([]);
    // Settled: a later poll reports nothing more.
    const before = sink.calls.length;
    double.tick();
    await driver.poll(sink);
    expect(sink.calls.length).toBe(before);
  });

  it('credits USDT from the master\'s own jetton wallet of the merchant, never a fake jetton', async () => {
    const driver = makeDriver();
    watchAll(driver, ['Usd1', 'Usd2', 'Fake1']);
    const sink = new RecordingSink();
    await driver.poll(sink);
    const paid = await sc.sendJetton(payer, usdt, merchant.address, 12_500_000n, 'Usd1', toNano('0.05'));
    const part = await sc.sendJetton(payer, usdt, merchant.address, 1n, 'Usd2', toNano('0.05'));
    const fake = await sc.deployFakeJetton(usdt);
    await fake.mint(payer, 10n ** 12n);
    await sc.sendJetton(payer, fake, merchant.address, 100_000_000n, 'Fake1', toNano('0.05'));
    double.tick();
    await driver.poll(sink);
    double.tick();
    await driver.poll(sink);
    const credited = sink.credited();
    expect(credited.map((t) => [t.to, t.currency, t.amount]).sort()).toEqual([
      [key('Usd1'), 'USDT', '12.5'],
      [key('Usd2'), 'USDT', '0.000001'],
    ]);
    const usd1 = credited.find((t) => t.to === key('Usd1'))!;
    expect(usd1.from).toBe(payer.address.toRawString());
    // The txid is the merchant wallet's transaction that received the notification.
    const received = paid.result.transactions.find((t) => t.inMessage?.info.type === 'internal' && t.inMessage.info.dest.equals(merchant.address))!;
    expect(usd1.txid).toBe(received.hash().toString('hex'));
    expect(part.received).toBeDefined();
    expect(credited.some((t) => t.to === key('Fake1'))).toBe(false);
    expect(sink.unmatchedList.filter((u) => u.currency === 'USDT')).toEqual([]);
  });

  it('reports payments without comment, with an unknown or binary comment, and bounced ones as unmatched, credited to nothing', async () => {
    const driver = makeDriver();
    watchAll(driver, ['Known1']);
    const sink = new RecordingSink();
    await driver.poll(sink);
    await sc.sendTon(payer, merchant.address, toNano('0.3'), null);
    await sc.sendTon(payer, merchant.address, toNano('0.4'), 'known1');
    await sc.sendTon(payer, merchant.address, toNano('0.5'), null, { binaryBody: beginCell().storeUint(0, 32).storeBuffer(Buffer.from([0xff, 0xfe, 0xc3])).endCell() });
    await sc.sendJetton(payer, usdt, merchant.address, 2_000_000n, null, toNano('0.05'));
    await sc.sendBouncing(merchant, sc.freshAddress('nobody'), toNano('0.6'), 'to nobody');
    await driver.poll(sink);
    // Not settled yet: nothing reported as unmatched.
    expect(sink.unmatchedList).toEqual([]);
    double.tick();
    await driver.poll(sink);
    expect(sink.credited()).toEqual([]);
    const seen = sink.unmatchedList.map((u) => [u.currency, u.amount, u.reason, u.memo]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['TON', '0.3', 'no_reference', null],
        ['TON', '0.4', 'unknown_reference', 'known1'],
        ['TON', '0.5', 'unreadable_reference', null],
        ['USDT', '2', 'no_reference', null],
      ]),
    );
    const bounced = sink.unmatchedList.find((u) => u.reason === 'bounced');
    expect(bounced?.currency).toBe('TON');
    for (const u of sink.unmatchedList) {
      expect(u.to).toBe(merchant.address.toRawString());
      expect(u.confirmations).toBe(1);
    }
    const count = sink.unmatchedList.length;
    double.tick();
    await driver.poll(sink);
    expect(sink.unmatchedList.length).toBe(count);
  });

  it('resumes after the node was down, and a restart from the stored cursor credits nothing twice', async () => {
    const driver = makeDriver();
    watchAll(driver, ['Down1', 'Down2']);
    const sink = new RecordingSink();
    await driver.poll(sink);
    await double.down();
    await expect(driver.poll(sink)).rejects.toBeInstanceOf(NodeUnreachableError);
    await double.up();
    const one = await sc.sendTon(payer, merchant.address, toNano('1'), 'Down1');
    await double.down({ refuse: true });
    await expect(driver.poll(sink)).rejects.toBeInstanceOf(NodeUnreachableError);
    await double.up();
    await driver.poll(sink);
    double.tick();
    await driver.poll(sink);
    expect(sink.credited().map((t) => t.txid)).toEqual([one.received!.hash().toString('hex')]);

    // A new process on the same database: its walk starts at the stored cursor.
    await driver.close();
    const again = makeDriver();
    watchAll(again, ['Down1', 'Down2']);
    const sink2 = new RecordingSink();
    await again.poll(sink2);
    double.tick();
    await again.poll(sink2);
    expect(sink2.calls).toEqual([]);
    const two = await sc.sendTon(payer, merchant.address, toNano('2'), 'Down2');
    await again.poll(sink2);
    double.tick();
    await again.poll(sink2);
    expect(sink2.credited().map((t) => [t.txid, t.amount])).toEqual([[two.received!.hash().toString('hex'), '2']]);
  });

  it('on a wallet\'s first scan, credits an invoice paid before it and reports none of the older history', async () => {
    const shop = await sc.payerWallet('second shop');
    await sc.sendTon(shop, payer.address, toNano('0.01'), null);
    const early = await sc.sendTon(payer, shop.address, toNano('4'), 'Early1');
    await sc.sendTon(payer, shop.address, toNano('5'), null);
    const driver = makeDriver();
    driver.watch([{ address: depositKey(shop.address.toString({ bounceable: false }), 'Early1'), path: 'reference:s/0' }]);
    const sink = new RecordingSink();
    await driver.poll(sink);
    double.tick();
    await driver.poll(sink);
    expect(sink.credited().map((t) => [t.txid, t.amount, t.confirmations])).toEqual([[early.received!.hash().toString('hex'), '4', 1]]);
    expect(sink.unmatchedList).toEqual([]);
    // From then on, a payment without comment is reported.
    await sc.sendTon(payer, shop.address, toNano('6'), null);
    await driver.poll(sink);
    double.tick();
    await driver.poll(sink);
    expect(sink.unmatchedList.map((u) => [u.amount, u.reason, u.to])).toEqual([['6', 'no_reference', shop.address.toRawString()]]);
  });

  it('walks a long gap over several polls, keeping its progress, and credits each payment once', async () => {
    const shop = await sc.payerWallet('busy shop');
    await sc.sendTon(shop, payer.address, toNano('0.01'), null);
    const driver = new TonDriver({ network: TON, apiUrl: double.url, chain: 'mainnet', confirmations: 1, jettons: [], storage, pageSize: 3, pagesPerPoll: 2 });
    drivers.push(driver);
    const comments = Array.from({ length: 14 }, (_, i) => `Gap${i}`);
    driver.watch(comments.map((c, i) => ({ address: depositKey(shop.address.toString({ bounceable: false }), c), path: `reference:g/${i}` })));
    const sink = new RecordingSink();
    await driver.poll(sink);
    const sent: string[] = [];
    for (const c of comments) sent.push((await sc.sendTon(payer, shop.address, toNano('0.1'), c)).received!.hash().toString('hex'));
    // Each poll reads at most 2 pages of 3: the walk of 14 new transactions takes several polls.
    for (let i = 0; i < 8; i++) {
      await driver.poll(sink);
      double.tick();
    }
    await driver.poll(sink);
    expect(sink.credited().map((t) => t.txid).sort()).toEqual([...sent].sort());
    expect(sink.credited().every((t) => t.confirmations >= 1 && t.amount === '0.1')).toBe(true);
    // A crash mid-walk: a new driver resumes from the stored walk, nothing is reported twice as new.
    const more: string[] = [];
    for (const c of comments.slice(0, 7)) more.push((await sc.sendTon(payer, shop.address, toNano('0.2'), c)).received!.hash().toString('hex'));
    await driver.poll(sink);
    await driver.close();
    const again = new TonDriver({ network: TON, apiUrl: double.url, chain: 'mainnet', confirmations: 1, jettons: [], storage, pageSize: 3, pagesPerPoll: 2 });
    drivers.push(again);
    again.watch(comments.map((c, i) => ({ address: depositKey(shop.address.toString({ bounceable: false }), c), path: `reference:g/${i}` })));
    for (let i = 0; i < 6; i++) {
      await again.poll(sink);
      double.tick();
    }
    await again.poll(sink);
    expect(sink.credited().filter((t) => t.amount === '0.2').map((t) => t.txid).sort()).toEqual([...more].sort());
    expect(sink.credited()).toHaveLength(21);
  });

  it('does not credit a bounceable payment the receiving contract refused (it went back), but credits a non-bounceable one', async () => {
    const refuser = await sc.deployRejecter('refusing shop');
    const driver = makeDriver();
    const friendly = refuser.toString({ bounceable: false });
    driver.watch([
      { address: depositKey(friendly, 'Back1'), path: 'reference:r/0' },
      { address: depositKey(friendly, 'Kept1'), path: 'reference:r/1' },
    ]);
    const sink = new RecordingSink();
    await driver.poll(sink);
    const back = await sc.sendTon(payer, refuser, toNano('1'), 'Back1', { bounce: true });
    const kept = await sc.sendTon(payer, refuser, toNano('2'), 'Kept1', { bounce: false });
    // The sandbox ran both: the contract threw on each.
    expect(back.received?.description.type === 'generic' && back.received.description.aborted).toBe(true);
    expect(kept.received?.description.type === 'generic' && kept.received.description.aborted).toBe(true);
    await driver.poll(sink);
    double.tick();
    await driver.poll(sink);
    expect(sink.credited().map((t) => [t.to, t.amount])).toEqual([[depositKey(friendly, 'Kept1'), '2']]);
  });

  it('answers status with the masterchain seqno and the configured chain; without a payout float, payouts are refused', async () => {
    const driver = makeDriver({ network: 'testnet' });
    const s = await driver.status();
    expect(s).toEqual({ chain: 'testnet', head: double.seqno, headTime: null });
    const cover = await driver.canCover({ network: 'TON', currency: 'TON', to: payer.address.toString(), amount: '1', priority: 'normal' } as never);
    expect(cover).toMatchObject({ covered: false, currency: 'TON' });
    await expect(driver.send({ id: 'p1', network: 'TON', currency: 'TON', to: payer.address.toString(), amount: '1', priority: 'normal' } as never)).rejects.toThrow(/no payout float configured/);
  });

  it('reads the cursor per merchant wallet: one walk per wallet whatever the number of invoices', async () => {
    const count = async (n: number) => {
      const driver = makeDriver();
      watchAll(driver, Array.from({ length: n }, (_, i) => `C${n}x${i}`));
      const start = double.requests.length;
      await driver.poll(new RecordingSink());
      return double.requests.slice(start).map((r) => r.path.replace(/^.*\//, '')).sort();
    };
    expect(await count(10)).toEqual(await count(100_000));
  });
});
