// TON payouts through the whole gateway and its public API, on both databases: the `ton` driver
// with a payout float against the toncenter double over @ton/sandbox. A merchant's payout with a
// memo arrives at the recipient's wallet with that comment and is paid once the masterchain moves
// on; a payout to a contract that refuses it bounces and fails with the merchant's funds returned;
// a memo with a control character is refused at creation; a payout the float cannot cover
// is refused at creation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address, toNano, type Transaction } from '@ton/core';
import { backends } from '../../helpers/backends.ts';
import { balanceOf, post } from '../../../src/ledger/index.ts';
import type { TonDriver } from '../../../src/chain/ton/ton-driver.ts';
import { startChainGateway, type ChainGateway } from '../gateway-setup.ts';
import { startToncenterDouble, type TonDouble } from './double/toncenter.ts';
import { scenario, type Payer, type Scenario } from './double/scenario.ts';

const arrivals = (double: TonDouble, to: Address, from: Address): Transaction[] =>
  double.transactionsOf(to).filter((t) => t.inMessage?.info.type === 'internal' && t.inMessage.info.src.equals(from));
const commentOf = (t: Transaction): string | null => {
  const s = t.inMessage!.body.beginParse();
  if (s.remainingBits < 32 || s.loadUint(32) !== 0) return null;
  return s.loadStringTail();
};

describe.each(await backends())('TON payouts through the gateway ($name)', (backend) => {
  let double: TonDouble;
  let sc: Scenario;
  let g: ChainGateway<TonDriver>;
  let recipient: Payer;
  let float: Address;
  let n = 0;
  const dir = mkdtempSync(join(tmpdir(), 'satchel-ton-gw-float-'));

  beforeAll(async () => {
    const keyFile = join(dir, 'float.key');
    writeFileSync(keyFile, '3c'.repeat(32), { mode: 0o600 });
    chmodSync(keyFile, 0o600);
    double = await startToncenterDouble();
    sc = scenario(double);
    recipient = await sc.payerWallet('payee');
    await sc.sendTon(recipient, (await sc.payerWallet('someone')).address, toNano('0.01'), null);
    const usdt = await sc.deployJetton('USDT');
    g = await startChainGateway<TonDriver>(backend, {
      code: 'TON',
      network: { driver: 'ton', api_url: double.url, confirmations: 1, tokens: { USDT: usdt.master.toString() }, payout_float: { key_file: keyFile } },
      mine: () => double.tick(),
      stop: () => double.close(),
    });
    float = Address.parse(g.driver().payouts!.reader.float.address);
    const funder = await sc.payerWallet('operator', { fund: toNano('100000') });
    await sc.sendTon(funder, float, toNano('50'), null);
    await g.ctx.storage.write((trx) =>
      post(trx, { merchantId: g.merchant.id, wallet: 'business', currency: 'TON', amount: '100', reason: 'test_funding', ref: { kind: 'test', id: 'funding' }, key: `test:${randomUUID()}`, now: g.ctx.now() }),
    );
  }, 120_000);
  afterAll(async () => {
    await g?.stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const balance = () => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'TON');
  const createPayout = (body: Record<string, unknown>) =>
    g.api('/v1/payout', { amount: '1.5', currency: 'TON', network: 'TON', is_subtract: true, order_id: `ton-out-${++n}`, address: recipient.address.toString({ bounceable: false }), ...body }, { key: 'payout' });
  const payoutInfo = async (uuid: string) => (await g.api('/v1/payout/info', { uuid }, { key: 'payout' })).body.result as Record<string, any>;
  const payerAmount = async (uuid: string) => (await g.ctx.storage.db.selectFrom('payouts').select('payer_amount').where('id', '=', uuid).executeTakeFirstOrThrow()).payer_amount;

  it('a payout with a memo arrives with that comment and the exact amount, and is paid once the masterchain moves on', async () => {
    const before = arrivals(double, recipient.address, float).length;
    const r = await createPayout({ memo: 'Withdrawal #42' });
    expect(r.status, r.raw).toBe(200);
    const p = r.body.result as Record<string, any>;
    expect(p).toMatchObject({ status: 'process', txid: null, network: 'TON', currency: 'TON' });
    await g.tick(); // the worker sends it from the float (its first payout deploys it)
    const sent = await payoutInfo(p.uuid);
    expect(sent).toMatchObject({ status: 'check', txid: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(double.transactionsOf(float).some((t) => t.hash().toString('hex') === sent.txid)).toBe(true);
    const got = arrivals(double, recipient.address, float);
    expect(got).toHaveLength(before + 1);
    expect(commentOf(got.at(-1)!)).toBe('Withdrawal #42');
    const amount = await payerAmount(p.uuid);
    const info = got.at(-1)!.inMessage!.info;
    expect(info.type === 'internal' && info.value.coins).toBe(toNano(amount));
    await g.mineAndTick(2);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: sent.txid });
    await g.mineAndTick();
    expect(arrivals(double, recipient.address, float)).toHaveLength(before + 1);
  });

  it('a payout to a contract that refuses it bounces: the payout fails and the merchant\'s funds return', async () => {
    const rejecter = await sc.deployRejecter(`gw-${backend.name}`);
    const before = await balance();
    const r = await createPayout({ address: rejecter.toString(), amount: '2', memo: 'bounce me' });
    expect(r.status, r.raw).toBe(200);
    const p = r.body.result as Record<string, any>;
    expect(await balance()).not.toBe(before);
    await g.tick();
    expect((await payoutInfo(p.uuid)).status).toBe('check');
    await g.mineAndTick(2);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'fail', is_final: true });
    expect(await balance()).toBe(before);
  });

  it('a memo with a control character is refused at creation (validation.regex): nothing is debited or signed', async () => {
    const txs = double.transactionsOf(float).length;
    for (const memo of ['line\nbreak', 'bell\u0007', 'c1\u0085']) {
      const r = await createPayout({ memo });
      expect(r.status, r.raw).toBe(422);
      expect(r.body).toEqual({ state: 1, errors: { memo: ['validation.regex'] } });
    }
    const long = await createPayout({ memo: 'é'.repeat(31) });
    expect(long.body).toEqual({ state: 1, errors: { memo: ['validation.max.string'] } });
    // Thirty characters, counted as characters (not bytes), are fine.
    const ok = await createPayout({ memo: 'é'.repeat(30) });
    expect(ok.status, ok.raw).toBe(200);
    await g.mineAndTick(2);
    expect(double.transactionsOf(float).length).toBeGreaterThan(txs);
  });

  it('a payout the float cannot cover is refused at creation; nothing is debited', async () => {
    const before = await balance();
    const r = await createPayout({ amount: '60' });
    expect(r.status).toBe(422);
    expect(r.body.message).toMatch(/not enough TON/);
    expect(await balance()).toBe(before);
  });
});
