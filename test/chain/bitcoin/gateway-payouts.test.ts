// Issue 12, money out on a real Litecoin node (litecoind, regtest): payouts paid from the
// gateway's own confirmed coins (deposits the payer made to invoices), with change to a fresh
// internal address, signed in-process, stored before broadcast, bumped by replace-by-fee when
// stuck, and never sent twice across a crash.
import { merchantVerifies } from '../../helpers/merchant.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { backends } from '../../helpers/backends.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { balanceOf, post } from '../../../src/ledger/index.ts';
import { btcDb, withSpend } from '../../../src/chain/bitcoin/schema.ts';
import { LEASE_MS, retryDelay } from '../../../src/outgoing/sender.ts';
import { startLtcGateway, type LtcGateway } from '../gateway-setup.ts';
import { Payer } from './litecoind.ts';

describe.each(await backends())('Litecoin payouts through the gateway on $name', (backend) => {
  let g: LtcGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    // Payouts from the gateway's own coins: hot custody (a watch-only network has none to pay from).
    g = await startLtcGateway(backend, { confirmations: 2, network: { custody: 'hot', bump_after_blocks: 2, fee_rate_fallback: '5', fee_rate_max: '50' } });
    rx = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await g?.stopAll();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
  });

  /** Coins for the gateway: a payer pays an invoice, confirmed; and the merchant's balance to pay out from. */
  const coins = async (amount: string) => {
    const r = await g.api('/v1/payment', { amount, currency: 'LTC', network: 'LTC', order_id: `ltc-in-${++n}` });
    expect(r.status, r.raw).toBe(200);
    const pay = await g.payer.pay([{ address: r.body.result.address, amount }]);
    await g.mineAndTick(2);
    return pay.txid;
  };
  const fund = (amount: string) =>
    g.ctx.storage.write((trx) =>
      post(trx, {
        merchantId: g.merchant.id, wallet: 'business', currency: 'LTC', amount, reason: 'test_funding',
        ref: { kind: 'test', id: 'funding' }, key: `test:${randomUUID()}`, now: g.ctx.now(),
      }),
    );
  const balance = () => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'LTC');
  const createPayout = async (body: Record<string, unknown>) => {
    const r = await g.api('/v1/payout', { currency: 'LTC', network: 'LTC', is_subtract: true, order_id: `ltc-out-${++n}`, url_callback: rx.url, ...body }, { key: 'payout' });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const payoutInfo = async (uuid: string) => (await g.api('/v1/payout/info', { uuid }, { key: 'payout' })).body.result as Record<string, any>;
  const payerAmount = async (uuid: string) =>
    (await g.ctx.storage.db.selectFrom('payouts').select('payer_amount').where('id', '=', uuid).executeTakeFirstOrThrow()).payer_amount;
  /** The payout's transactions, each with its fee details (the row's `data`) beside its columns. */
  const outgoing = async (payoutId: string) =>
    (await g.ctx.storage.db.selectFrom('scan_outgoing').selectAll().where('request_id', '=', payoutId).orderBy('attempt').execute()).map((r) => ({ ...r, ...withSpend(r).spend }));
  const hooks = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid);
  const mempoolTx = (txid: string) => g.node.rpc<{ vin: Array<{ txid: string; vout: number; sequence: number }>; vout: Array<{ value: number; scriptPubKey: { addresses?: string[] } }> }>('getrawtransaction', txid, true);
  const payee = () => Payer.elsewhere();

  it('a payout with change: from a confirmed deposit coin, change to m/84\'/1\'/0\'/1/i, RBF signalled, confirmations -> paid', async () => {
    const deposit = await coins('5');
    await fund('10');
    const before = await balance();
    const to = payee();
    const p = await createPayout({ amount: '1', address: to });
    expect(p).toMatchObject({ status: 'process', txid: null, network: 'LTC', currency: 'LTC' });
    await g.tick();
    const sent = await payoutInfo(p.uuid);
    expect(sent).toMatchObject({ status: 'check', is_final: false, txid: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const [row] = await outgoing(p.uuid);
    expect(row).toMatchObject({ txid: sent.txid, status: 'sent', attempt: 0, to_address: to, amount: await payerAmount(p.uuid) });

    // On the node: the deposit coin in; the payee and the change out; RBF signalled.
    const tx = await mempoolTx(sent.txid);
    expect(tx.vin.map((i) => i.txid)).toEqual([deposit]);
    expect(tx.vin.every((i) => i.sequence < 0xfffffffe)).toBe(true);
    expect(tx.vout.map((o) => o.scriptPubKey.addresses?.[0])).toEqual([to, row!.change_address]);
    expect(tx.vout[0]!.value.toFixed(8)).toBe(Number(await payerAmount(p.uuid)).toFixed(8));
    const change = await btcDb(g.ctx.storage.db).selectFrom('btc_change').selectAll().where('address', '=', row!.change_address!).executeTakeFirstOrThrow();
    expect(change.path).toMatch(/^m\/84'\/1'\/0'\/1\/\d+$/);
    expect(g.driver().keys.derive(1, Number(change.path.split('/')[5])).address).toBe(row!.change_address);
    expect((5 - Number(row!.amount) - Number(row!.fee)).toFixed(8)).toBe(Number(row!.change_amount).toFixed(8));
    expect(Number(row!.fee_rate)).toBe(5); // regtest has no estimate: the fallback

    await g.mineAndTick(); // 1 of 2
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', is_final: false });
    await g.mineAndTick(); // 2 of 2
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: sent.txid });
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['check', 'paid']);
    expect(merchantVerifies(hooks(p.uuid)[1]!, g.merchant.payout_key)).toBe(true);
    expect(Number(before) - Number(await balance())).toBeCloseTo(Number(p.merchant_amount), 8);
    // The change is the gateway's coin now.
    const coin = await btcDb(g.ctx.storage.db).selectFrom('btc_outputs').selectAll().where('txid', '=', sent.txid).where('kind', '=', 'change').executeTakeFirstOrThrow();
    expect(coin).toMatchObject({ status: 'confirmed', spent_txid: null, amount: row!.change_amount });
    const spent = await btcDb(g.ctx.storage.db).selectFrom('btc_outputs').selectAll().where('txid', '=', deposit).where('vout', '=', 0).executeTakeFirstOrThrow();
    expect(spent).toMatchObject({ spent_txid: sent.txid, spent_by: 'own' });
  });

  it('a payout not mined for bump_after_blocks blocks is replaced at a higher fee; its txid follows the one mined', async () => {
    await coins('3');
    await fund('5');
    const p = await createPayout({ amount: '0.5', address: payee() });
    await g.tick();
    const first = (await payoutInfo(p.uuid)).txid as string;
    // Two blocks that leave it out (as a busy chain would).
    await g.node.mineWith([]);
    await g.tick();
    await g.node.mineWith([]);
    await g.tick();
    const rows = await outgoing(p.uuid);
    expect(rows.map((r) => [r.attempt, r.status])).toEqual([[0, 'replaced'], [1, 'sent']]);
    expect(Number(rows[1]!.fee_rate)).toBeGreaterThan(Number(rows[0]!.fee_rate));
    expect(Number(rows[1]!.fee)).toBeGreaterThan(Number(rows[0]!.fee));
    expect(rows[1]!.inputs).toEqual(rows[0]!.inputs);
    const mempool = await g.node.rpc<string[]>('getrawmempool');
    expect(mempool).toContain(rows[1]!.txid);
    expect(mempool).not.toContain(first);

    await g.mineAndTick(2);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: rows[1]!.txid });
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['check', 'paid']);
    expect(hooks(p.uuid)[1]!.json.txid).toBe(rows[1]!.txid);
    expect((await outgoing(p.uuid)).map((r) => r.status)).toEqual(['replaced', 'confirmed']);
  });

  it('a bumped payout whose first transaction is mined after all: that one is the payment, its txid kept', async () => {
    await coins('3');
    await fund('5');
    const p = await createPayout({ amount: '0.4', address: payee() });
    await g.tick();
    await g.node.mineWith([]);
    await g.tick();
    await g.node.mineWith([]);
    await g.tick();
    const [first, second] = await outgoing(p.uuid);
    expect([first!.status, second!.status]).toEqual(['replaced', 'sent']);
    // A miner that still had the first one includes it.
    await g.node.mineWith([first!.raw]);
    await g.tick();
    expect((await outgoing(p.uuid)).map((r) => r.status)).toEqual(['mined', 'replaced']);
    await g.mineAndTick();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: first!.txid });
    expect(hooks(p.uuid).map((d) => [d.json.status, d.json.txid])).toEqual([['check', first!.txid], ['paid', first!.txid]]);
  });

  it('a crash between signing and broadcast: the stored transaction is broadcast, the payout sent once', async () => {
    await coins('2');
    await fund('5');
    const p = await createPayout({ amount: '0.3', address: payee() });
    // The process dies right after storing the signed transaction: the broadcast never happens.
    const node = g.driver().node;
    const sendRaw = node.sendRaw.bind(node);
    node.sendRaw = async () => {
      throw new Error('process killed');
    };
    try {
      await g.tick().catch(() => {}); // what the dying process logged does not matter
    } finally {
      node.sendRaw = sendRaw;
    }
    const [stored] = await outgoing(p.uuid);
    expect(stored).toMatchObject({ status: 'signed', attempt: 0 });
    expect(await g.node.rpc<string[]>('getrawmempool')).not.toContain(stored!.txid);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'process', txid: null });

    // The scanner broadcasts the stored bytes; the payout worker, retrying, gets the same transaction.
    g.clock.advance(Math.max(retryDelay(1), LEASE_MS));
    await g.tick();
    expect(await g.node.rpc<string[]>('getrawmempool')).toContain(stored!.txid);
    g.clock.advance(Math.max(retryDelay(2), LEASE_MS));
    await g.tick();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', txid: stored!.txid });
    await g.mineAndTick(2);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', txid: stored!.txid });
    expect(await outgoing(p.uuid)).toHaveLength(1);
  });

  it('a payout the gateway\'s confirmed coins cannot cover (with its fee) is refused at creation; nothing is debited', async () => {
    await fund('100000');
    const before = await balance();
    const r = await g.api('/v1/payout', { amount: '4000', currency: 'LTC', network: 'LTC', is_subtract: true, order_id: `ltc-out-${++n}`, address: payee() }, { key: 'payout' });
    expect(r.status, r.raw).toBe(422);
    expect(r.body).toMatchObject({ state: 1, message: expect.stringMatching(/not enough LTC/) });
    expect(await balance()).toBe(before);
    expect(await g.ctx.storage.db.selectFrom('payouts').select('id').where('order_id', '=', `ltc-out-${n}`).execute()).toEqual([]);
  });

  it('coverage: the driver says whether the gateway\'s confirmed coins cover a payout and its fee', async () => {
    const d = g.driver();
    expect(await d.canCover({ to: payee(), amount: '0.01', priority: 'recommended' })).toEqual({ covered: true });
    const r = await d.canCover({ to: payee(), amount: '100000', priority: 'recommended' });
    expect(r).toMatchObject({ covered: false, currency: 'LTC', message: expect.stringMatching(/do not cover 100000 LTC and its network fee/) });
  });

  it('a coin spent by someone else holding the mnemonic is no longer counted, and the spend is recorded', async () => {
    const deposit = await coins('0.7');
    const coin = await btcDb(g.ctx.storage.db).selectFrom('btc_outputs').selectAll().where('txid', '=', deposit).where('vout', '=', 0).executeTakeFirstOrThrow();
    const path = (await g.ctx.storage.db.selectFrom('addresses').select('path').where('address', '=', coin.address).executeTakeFirstOrThrow()).path;
    // Another wallet restored from the mnemonic sweeps that address.
    const other = new Payer(g.node, 'recovering operator');
    const key = g.driver().keys.privateKey(path);
    const sweep = other.spendForeign(key, { txid: deposit, vout: 0, sats: 70_000_000n }, Payer.elsewhere(), 20_000n);
    await g.node.rpc('sendrawtransaction', sweep.hex);
    await g.mineAndTick();
    const after = await btcDb(g.ctx.storage.db).selectFrom('btc_outputs').selectAll().where('txid', '=', deposit).where('vout', '=', 0).executeTakeFirstOrThrow();
    expect(after).toMatchObject({ spent_txid: sweep.txid, spent_by: 'foreign' });
    expect(Number(after.spent_height)).toBe(await g.node.head());
  });
});

