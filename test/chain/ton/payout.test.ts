// TON payouts from the payout float, on the toncenter double over @ton/sandbox (the real wallet and
// jetton contracts execute every message), on both databases: what arrives at the recipient (the
// exact amount, the memo as comment, read back with @ton/core), the float deploying itself with its
// first payout (v4r2 and v5r1), non-bounceable to an undeployed address, a bounce reported failed,
// USDT with the memo in the recipient's notification, and never two payments for one request
// whatever crashes in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, type Cell as TonCell, type Transaction, toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { backends } from '../../helpers/backends.ts';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry } from '../../../src/registry/index.ts';
import type { ChainSink, SendRequest } from '../../../src/chain/contract.ts';
import { SendRejectedError } from '../../../src/chain/errors.ts';
import { createTonDriver } from '../../../src/chain/ton/config.ts';
import type { TonDriver } from '../../../src/chain/ton/ton-driver.ts';
import { startToncenterDouble, type TonDouble } from './double/toncenter.ts';
import { scenario, type Jetton, type Payer, type Scenario } from './double/scenario.ts';

const TON = Registry.load().network('TON')!;
const SEED_HEX = '5f'.repeat(32);
const keys = keyPairFromSeed(Buffer.from(SEED_HEX, 'hex'));

class Sink implements ChainSink {
  readonly outgoings: Array<{ txid: string; status: string; confirmations: number }> = [];
  async transfer() {}
  async unmatched() {}
  async dropped() {}
  async outgoing(_network: string, txid: string, status: 'confirmed' | 'failed', confirmations: number) {
    this.outgoings.push({ txid, status, confirmations });
  }
  last(txid: string) {
    return this.outgoings.filter((o) => o.txid === txid).at(-1);
  }
}

/** The internal messages that arrived at `to` from `from`, as @ton/core reads them. */
function arrivals(double: TonDouble, to: Address, from: Address): Transaction[] {
  return double.transactionsOf(to).filter((t) => t.inMessage?.info.type === 'internal' && t.inMessage.info.src.equals(from));
}
const commentOf = (body: TonCell): string | null => {
  const s = body.beginParse();
  if (s.remainingBits < 32 || s.loadUint(32) !== 0) return null;
  return s.loadStringTail();
};
const value = (t: Transaction) => (t.inMessage!.info.type === 'internal' ? t.inMessage!.info.value.coins : -1n);
const bounceFlag = (t: Transaction) => (t.inMessage!.info.type === 'internal' ? t.inMessage!.info.bounce : null);

describe.each(await backends())('TON payouts from the float ($name)', (backend) => {
  let double: TonDouble;
  let sc: Scenario;
  let storage: Storage;
  let drop: () => Promise<void>;
  let funder: Payer;
  let recipient: Payer;
  let usdt: Jetton;
  const dir = mkdtempSync(join(tmpdir(), 'satchel-ton-float-'));
  const keyFile = join(dir, 'float.key');
  const drivers: TonDriver[] = [];
  let clockOffset = 0;
  const makeDriver = (version: 'v4r2' | 'v5r1' = 'v4r2', key = keyFile) => {
    const d = createTonDriver(
      TON,
      { driver: 'ton', api_url: double.url, confirmations: 1, tokens: { USDT: usdt.master.toString() }, payout_float: { key_file: key, wallet_version: version } },
      { seed: new Uint8Array(), storage, now: () => Date.now() + clockOffset },
    );
    drivers.push(d);
    return d;
  };
  let n = 0;
  const req = (p: Partial<SendRequest>): SendRequest => ({ id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, network: 'TON', currency: 'TON', to: recipient.address.toString({ bounceable: false }), amount: '1', priority: 'recommended', memo: null, ...p });
  const floatOf = (d: TonDriver) => Address.parse(d.payouts!.reader.float.address);

  beforeAll(async () => {
    writeFileSync(keyFile, SEED_HEX + '\n', { mode: 0o600 });
    chmodSync(keyFile, 0o600);
    const db = await backend.create();
    drop = db.drop;
    storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    double = await startToncenterDouble();
    sc = scenario(double);
    funder = await sc.payerWallet('funder', { fund: toNano('10000') });
    recipient = await sc.payerWallet('recipient');
    await sc.sendTon(recipient, funder.address, toNano('0.01'), null); // deployed: an active account
    usdt = await sc.deployJetton('USDT');
  }, 60_000);
  afterAll(async () => {
    for (const d of drivers) await d.close();
    await double?.close();
    await storage?.close();
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const version of ['v4r2', 'v5r1'] as const) {
    it(`${version}: the first payout deploys the float; the recipient gets the exact amount with the memo as comment; confirmed after the masterchain moves on`, async () => {
      const driver = makeDriver(version);
      const float = floatOf(driver);
      const theirs = version === 'v4r2' ? WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey }) : WalletContractV5R1.create({ publicKey: keys.publicKey });
      expect(float.equals(theirs.address)).toBe(true);
      expect((await double.blockchain.getContract(float)).accountState?.type).not.toBe('active');
      await sc.sendTon(funder, float, toNano('5'), null);
      const before = arrivals(double, recipient.address, float).length;
      const { txid } = await driver.send(req({ amount: '1.25', memo: `Order ${version} ✓` }));
      expect(txid).toMatch(/^[0-9a-f]{64}$/);
      expect((await double.blockchain.getContract(float)).accountState?.type).toBe('active');
      const own = double.transactionsOf(float).find((t) => t.hash().toString('hex') === txid);
      expect(own?.inMessage?.info.type).toBe('external-in');
      const got = arrivals(double, recipient.address, float);
      expect(got).toHaveLength(before + 1);
      const arrived = got.at(-1)!;
      expect(value(arrived)).toBe(1_250_000_000n);
      expect(commentOf(arrived.inMessage!.body)).toBe(`Order ${version} ✓`);
      expect(bounceFlag(arrived)).toBe(true); // an active wallet: bounceable
      const sink = new Sink();
      await driver.poll(sink);
      expect(sink.last(txid)?.status ?? 'confirmed').toBe('confirmed'); // delivered; not settled yet
      double.tick();
      await driver.poll(sink);
      expect(sink.last(txid)).toMatchObject({ status: 'confirmed', confirmations: 1 });
      const count = sink.outgoings.length;
      double.tick();
      await driver.poll(sink);
      expect(sink.outgoings.length).toBe(count); // settled: reported no more
      // The same id again: the same transaction, nothing sent twice.
      expect((await driver.send(req({ id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, amount: '1.25', memo: `Order ${version} ✓` }))).txid).toBe(txid);
      expect(arrivals(double, recipient.address, float)).toHaveLength(before + 1);
      expect((await driver.payoutWallet())?.address).toBe(float.toString({ bounceable: false }));
    });
  }

  it('pays an address that was never deployed non-bounceable: the coins stay there', async () => {
    const driver = makeDriver();
    const float = floatOf(driver);
    const fresh = sc.freshAddress(`fresh-${backend.name}`);
    const { txid } = await driver.send(req({ to: fresh.toString({ bounceable: true }), amount: '0.3', memo: 'hello' }));
    const got = arrivals(double, fresh, float);
    expect(got).toHaveLength(1);
    expect(bounceFlag(got[0]!)).toBe(false);
    expect(value(got[0]!)).toBe(300_000_000n);
    expect((await double.blockchain.getContract(fresh)).balance).toBeGreaterThan(0n);
    const sink = new Sink();
    double.tick();
    await driver.poll(sink);
    expect(sink.last(txid)?.status).toBe('confirmed');
  });

  it('a payout to a contract that rejects it bounces back and is reported failed', async () => {
    const driver = makeDriver();
    const rejecter = await sc.deployRejecter(`rejecter-${backend.name}`);
    const { txid } = await driver.send(req({ to: rejecter.toString(), amount: '0.2', memo: 'nope' }));
    const float = floatOf(driver);
    const back = double.transactionsOf(float).filter((t) => t.inMessage?.info.type === 'internal' && t.inMessage.info.bounced && t.inMessage.info.src.equals(rejecter));
    expect(back).toHaveLength(1);
    const sink = new Sink();
    double.tick();
    await driver.poll(sink);
    expect(sink.last(txid)).toMatchObject({ status: 'failed' });
  });

  it('USDT: the recipient\'s jetton balance rises by exactly the amount and its notification carries the memo', async () => {
    const driver = makeDriver();
    const float = floatOf(driver);
    await usdt.mint(float, 50_000_000n);
    const before = await usdt.balanceOf(recipient);
    const { txid } = await driver.send(req({ currency: 'USDT', amount: '12.345678', memo: 'Invoice 77' }));
    expect(await usdt.balanceOf(recipient)).toBe(before + 12_345_678n);
    expect(await usdt.balanceOf(float)).toBe(50_000_000n - 12_345_678n);
    const recipientJw = await usdt.walletOf(recipient);
    const notes = arrivals(double, recipient.address, recipientJw).filter((t) => t.inMessage!.body.beginParse().loadUint(32) === 0x7362d09c);
    const note = notes.at(-1)!.inMessage!.body.beginParse();
    note.loadUint(32);
    note.loadUintBig(64);
    expect(note.loadCoins()).toBe(12_345_678n);
    expect(note.loadAddress().equals(float)).toBe(true);
    const payload = note.loadBit() ? note.loadRef() : note.asCell();
    expect(commentOf(payload)).toBe('Invoice 77');
    const sink = new Sink();
    double.tick();
    await driver.poll(sink);
    expect(sink.last(txid)).toMatchObject({ status: 'confirmed', confirmations: 1 });
  });

  it('USDT: a transfer the float\'s jetton wallet refuses (more than it holds) is reported failed, nothing moves', async () => {
    const driver = makeDriver();
    const float = floatOf(driver);
    const held = await usdt.balanceOf(float);
    const before = await usdt.balanceOf(recipient);
    const r = req({ currency: 'USDT', amount: '5000', memo: 'too much' });
    const p = driver.payouts!;
    // canCover would refuse it; signed directly, as a float emptied between the check and the send.
    const row = await p.signAndStore(r.id, 1, p.parse(r));
    await p.broadcast(row);
    const { txid } = await driver.send(r);
    const sink = new Sink();
    double.tick();
    await driver.poll(sink);
    expect(sink.last(txid)).toMatchObject({ status: 'failed' });
    expect((await p.attempts(r.id))[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/jetton wallet refused/) });
    expect(await usdt.balanceOf(float)).toBe(held);
    expect(await usdt.balanceOf(recipient)).toBe(before);
  });

  it('canCover refuses what the float cannot pay (TON, USDT, and the TON for a jetton transfer\'s fees); the fee counts', async () => {
    const driver = makeDriver();
    const balance = (await double.blockchain.getContract(floatOf(driver))).balance;
    const all = (Number(balance) / 1e9).toFixed(9);
    const ton = await driver.canCover(req({ amount: all }));
    expect(ton).toMatchObject({ covered: false, currency: 'TON' });
    expect(ton.covered === false && ton.message).toMatch(/lacks TON for this payout: the amount and its fee needs \d/);
    expect(await driver.canCover(req({ amount: '0.5' }))).toEqual({ covered: true });
    expect(await driver.canCover(req({ currency: 'USDT', amount: '1000' }))).toMatchObject({ covered: false, currency: 'USDT' });
    expect(await driver.canCover(req({ currency: 'USDT', amount: '1' }))).toEqual({ covered: true });
    // A float holding USDT but too little TON for the jetton transfer's attached TON and fee.
    const poorKey = join(dir, 'poor.key');
    writeFileSync(poorKey, '6e'.repeat(32), { mode: 0o600 });
    chmodSync(poorKey, 0o600);
    const poor = makeDriver('v4r2', poorKey);
    await usdt.mint(floatOf(poor), 5_000_000n);
    await sc.sendTon(funder, floatOf(poor), toNano('0.03'), null);
    const jettonFees = await poor.canCover(req({ currency: 'USDT', amount: '1' }));
    expect(jettonFees).toMatchObject({ covered: false, currency: 'TON' });
    expect(jettonFees.covered === false && jettonFees.message).toMatch(/the TON the jetton transfer carries and the fee needs 0\.05\d+ TON/);
    await sc.sendTon(funder, floatOf(poor), toNano('0.1'), null);
    expect(await poor.canCover(req({ currency: 'USDT', amount: '1' }))).toEqual({ covered: true });
    expect(await poor.payoutWallet()).toMatchObject({ balances: { USDT: '5' } });
  });

  it('refuses a memo over 30 characters or with a control character before anything is signed', async () => {
    const driver = makeDriver();
    const float = floatOf(driver);
    const txs = double.transactionsOf(float).length;
    for (const memo of ['x'.repeat(31), 'line\nbreak', 'tab\there', 'nul\u0000']) {
      const r = req({ memo, amount: '0.01' });
      await expect(driver.send(r)).rejects.toBeInstanceOf(SendRejectedError);
      expect(await driver.payouts!.attempts(r.id)).toEqual([]);
    }
    expect(double.transactionsOf(float)).toHaveLength(txs);
    // 30 characters, counted as characters (not UTF-16 units), is accepted.
    await expect(driver.send(req({ memo: '✓'.repeat(29) + '😀', amount: '0.01' }))).resolves.toMatchObject({ txid: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('a crash between signing and broadcast sends once: the retry broadcasts the stored message', async () => {
    const driver = makeDriver();
    const float = floatOf(driver);
    const r = req({ amount: '0.11', memo: 'crash-1' });
    const p = driver.payouts!;
    const row = await p.signAndStore(r.id, 1, p.parse(r)); // signed and stored; the process dies here
    const before = arrivals(double, recipient.address, float).length;
    const restarted = makeDriver();
    const { txid } = await restarted.send(r);
    expect((await restarted.send(r)).txid).toBe(txid);
    const got = arrivals(double, recipient.address, float);
    expect(got).toHaveLength(before + 1);
    expect(commentOf(got.at(-1)!.inMessage!.body)).toBe('crash-1');
    const rows = await restarted.payouts!.attempts(r.id);
    expect(rows.map((x) => [x.attempt, x.status, x.txid])).toEqual([[1, 'mined', txid]]);
    expect(rows[0]!.id).toBe(row.id);
  });

  it('a crash after broadcast sends once: the retry finds the float\'s transaction', async () => {
    const driver = makeDriver();
    const float = floatOf(driver);
    const r = req({ amount: '0.12', memo: 'crash-2' });
    const p = driver.payouts!;
    const row = await p.signAndStore(r.id, 1, p.parse(r));
    await p.broadcast(row); // executed on chain; the process dies before the txid is recorded
    const before = arrivals(double, recipient.address, float).length;
    const restarted = makeDriver();
    const { txid } = await restarted.send(r);
    expect(double.transactionsOf(float).some((t) => t.hash().toString('hex') === txid)).toBe(true);
    expect(arrivals(double, recipient.address, float)).toHaveLength(before);
  });

  it('a stored message the worker never broadcast is broadcast by the next poll, followed, and handed back to the retry', async () => {
    const driver = makeDriver();
    const float = floatOf(driver);
    const r = req({ amount: '0.14', memo: 'by-poll' });
    const p = driver.payouts!;
    await p.signAndStore(r.id, 1, p.parse(r));
    const before = arrivals(double, recipient.address, float).length;
    const sink = new Sink();
    await driver.poll(sink); // broadcasts the stored bytes
    expect(arrivals(double, recipient.address, float)).toHaveLength(before + 1);
    double.tick();
    await driver.poll(sink);
    double.tick();
    await driver.poll(sink);
    const [row] = await p.attempts(r.id);
    expect(row).toMatchObject({ status: 'confirmed', txid: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(sink.last(row!.txid)).toMatchObject({ status: 'confirmed' });
    expect((await driver.send(r)).txid).toBe(row!.txid);
    expect(arrivals(double, recipient.address, float)).toHaveLength(before + 1);
  });

  it('a message that expired unsent is signed again (same seqno, next attempt) and paid once', async () => {
    const driver = makeDriver();
    const float = floatOf(driver);
    const r = req({ amount: '0.13', memo: 'late' });
    const p = driver.payouts!;
    const first = await p.signAndStore(r.id, 1, p.parse(r)); // never broadcast
    const before = arrivals(double, recipient.address, float).length;
    clockOffset = 10 * 60_000; // valid_until (90 s) and the margin have passed
    try {
      const { txid } = await makeDriver().send(r);
      const rows = await driver.payouts!.attempts(r.id);
      expect(rows.map((x) => [x.attempt, x.status])).toEqual([
        [2, 'mined'],
        [1, 'expired'],
      ]);
      expect(rows[0]!.nonce).toBe(first.nonce); // the seqno was never used
      expect(rows[0]!.txid).toBe(txid);
      expect(arrivals(double, recipient.address, float)).toHaveLength(before + 1);
      // The first message can no longer be executed: broadcasting it now is refused by the wallet.
      await p.broadcast(first);
      expect(arrivals(double, recipient.address, float)).toHaveLength(before + 1);
    } finally {
      clockOffset = 0;
    }
  });

  it('a different payment under a used id is refused; no float means payouts wait', async () => {
    const driver = makeDriver();
    const r = req({ amount: '0.01', memo: 'id' });
    await driver.send(r);
    await expect(driver.send({ ...r, amount: '0.02' })).rejects.toBeInstanceOf(SendRejectedError);
    const none = createTonDriver(TON, { driver: 'ton', api_url: double.url }, { seed: new Uint8Array(), storage });
    drivers.push(none);
    expect(await none.canCover(req({}))).toMatchObject({ covered: false, message: expect.stringMatching(/no payout float/) });
    await expect(none.send(req({}))).rejects.toThrow(/no payout float/);
    expect(await none.payoutWallet()).toBeNull();
  });
});
