import { merchantVerifies } from '../helpers/merchant.ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { processNetwork } from '../../src/chain/ingest.ts';
import { SendRejectedError } from '../../src/chain/errors.ts';
import type { ChainDriver } from '../../src/chain/contract.ts';
import { nextRev } from '../../src/chain/simulated/driver.ts';
import { simulateConfirmOutgoing, simulateFailOutgoing } from '../../src/simulator/payouts.ts';
import { createWorkers } from '../../src/worker/index.ts';
import {ADDR, balance, fund, ledgerAgrees, startMoneyGateway, tick } from './harness.ts';

const PAYOUT_WEBHOOK_KEYS = ['type', 'uuid', 'order_id', 'amount', 'merchant_amount', 'commission', 'is_final', 'status', 'txid', 'currency', 'network', 'payer_currency', 'payer_amount', 'sign'];

describe.each(await backends())('payout flow through the simulated driver on $name', (backend) => {
  let gw: TestGateway;
  let rx: Receiver;
  let n = 0;
  let driver: ChainDriver;
  let send: ChainDriver['send'];
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
    rx = await startReceiver();
    driver = gw.ctx.chains.driver('TRON');
    send = driver.send;
  });
  afterAll(async () => {
    await gw?.close();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
  });
  afterEach(() => {
    driver.send = send;
  });

  const create = async (body: Record<string, unknown> = {}) => {
    const r = await gw.api(
      '/v1/payout',
      { amount: '10', currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: true, order_id: `flow-${++n}`, url_callback: rx.url, ...body },
      { key: 'payout' },
    );
    expect(r.status).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const info = async (uuid: string) => (await gw.api('/v1/payout/info', { uuid }, { key: 'payout' })).body.result as Record<string, any>;
  const outRows = (txid?: string) => {
    let q = gw.ctx.storage.db.selectFrom('sim_transactions').selectAll().where('direction', '=', 'out');
    if (txid) q = q.where('txid', '=', txid);
    return q.execute();
  };
  const hooks = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid);

  it('process -> check -> paid, with payout webhooks signed with the payout key', async () => {
    await fund(gw, 'USDT', '100');
    const before = await balance(gw, 'USDT');
    const p = await create();
    expect(await balance(gw, 'USDT')).toBe(String(Number(before) - 11));
    await tick(gw); // sends
    const sent = await info(p.uuid);
    expect(sent).toMatchObject({ status: 'check', is_final: false, txid: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const [tx] = await outRows(sent.txid);
    expect(tx).toMatchObject({ network: 'TRON', to_address: ADDR.TRON, currency: 'USDT', amount: '10', status: 'pending' });
    const confirmed = await gw.app.inject({ method: 'POST', url: '/simulator/payout/confirm', payload: { payout: p.uuid } });
    expect(confirmed.json()).toEqual({ state: 0, result: { payout: p.uuid, txid: sent.txid, status: 'paid' } });
    expect(await info(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: sent.txid, balance: Number(before) - 11 });
    await tick(gw);
    const got = hooks(p.uuid);
    expect(got.map((d) => d.json.status)).toEqual(['check', 'paid']);
    const paid = got[1]!;
    expect(Object.keys(paid.json)).toEqual(PAYOUT_WEBHOOK_KEYS);
    expect(paid.json).toEqual({
      type: 'payout', uuid: p.uuid, order_id: `flow-${n}`, amount: '10.00', merchant_amount: '11.00', commission: '1.00', is_final: true,
      status: 'paid', txid: sent.txid, currency: 'USDT', network: 'TRON', payer_currency: 'USDT', payer_amount: '10.00', sign: expect.any(String),
    });
    expect(merchantVerifies(paid, gw.merchant.payout_key)).toBe(true);
    expect(merchantVerifies(paid, gw.merchant.payment_key)).toBe(false);
    expect(await balance(gw, 'USDT')).toBe(String(Number(before) - 11));
    expect(await ledgerAgrees(gw, 'USDT')).toBe(true);
  });

  it('fail on chain: the payout fails, its funds return, a fail webhook goes out', async () => {
    await fund(gw, 'USDT', '50');
    const before = await balance(gw, 'USDT');
    const p = await create({ amount: '20' });
    expect(await balance(gw, 'USDT')).toBe(String(Number(before) - 21));
    const r = await gw.app.inject({ method: 'POST', url: '/simulator/payout/fail', payload: { payout: p.uuid } });
    expect(r.json().result).toMatchObject({ payout: p.uuid, status: 'fail' });
    expect(await info(p.uuid)).toMatchObject({ status: 'fail', is_final: true });
    expect(await balance(gw, 'USDT')).toBe(before);
    await tick(gw);
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['check', 'fail']);
    expect(merchantVerifies(hooks(p.uuid)[1]!, gw.merchant.payout_key)).toBe(true);
    // A failed payout is final: confirming it afterwards changes nothing, and nothing is credited twice.
    await simulateFailOutgoing(gw.ctx, p.uuid);
    await expect(simulateConfirmOutgoing(gw.ctx, p.uuid)).resolves.toMatchObject({ status: 'fail' });
    expect(await balance(gw, 'USDT')).toBe(before);
    expect(await ledgerAgrees(gw, 'USDT')).toBe(true);
  });

  it('a driver that refuses the send for good fails the payout before broadcast and returns the funds', async () => {
    await fund(gw, 'USDT', '11');
    const before = await balance(gw, 'USDT');
    const p = await create();
    driver.send = async () => {
      throw new SendRejectedError('invalid', 'Not an address this chain accepts');
    };
    await tick(gw);
    expect(await info(p.uuid)).toMatchObject({ status: 'fail', is_final: true, txid: null });
    expect(await balance(gw, 'USDT')).toBe(before);
    await tick(gw);
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['fail']);
  });

  it('a send that fails for now is retried later, and goes out once', async () => {
    await fund(gw, 'USDT', '11');
    const p = await create();
    let calls = 0;
    driver.send = async () => {
      calls++;
      throw new Error('node unreachable');
    };
    await tick(gw);
    const row = await gw.ctx.storage.db.selectFrom('payouts').selectAll().where('id', '=', p.uuid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'process', attempts: 1, last_error: 'node unreachable', txid: null });
    await tick(gw); // not due yet
    expect(calls).toBe(1);
    driver.send = send;
    gw.clock.advance(5_000);
    await tick(gw);
    expect(await info(p.uuid)).toMatchObject({ status: 'check' });
    expect(await outRows((await info(p.uuid)).txid)).toHaveLength(1);
  });

  it('a worker that dies between the send and its record: the restarted worker never sends twice', async () => {
    await fund(gw, 'USDT', '11');
    const before = await balance(gw, 'USDT');
    const p = await create();
    let sends = 0;
    driver.send = async (req) => {
      sends++;
      await send.call(driver, req); // broadcast happened ...
      throw new Error('process killed'); // ... and the worker died before recording it
    };
    await createWorkers(gw.ctx, { error: () => {} }).tick();
    expect(sends).toBe(1);
    expect(await info(p.uuid)).toMatchObject({ status: 'process', txid: null });
    const out = (await outRows()).filter((r) => r.to_address === ADDR.TRON && r.amount === '10');
    const mine = out.length;
    driver.send = send;
    // A new worker (after a restart) takes the payout again once it is due, and the driver answers
    // with the transaction it already made.
    gw.clock.advance(60_000);
    await createWorkers(gw.ctx, { error: () => {} }).tick();
    const now = await info(p.uuid);
    expect(now).toMatchObject({ status: 'check' });
    expect((await outRows()).filter((r) => r.to_address === ADDR.TRON && r.amount === '10')).toHaveLength(mine);
    expect(await outRows(now.txid)).toHaveLength(1);
    await simulateConfirmOutgoing(gw.ctx, p.uuid);
    expect(await info(p.uuid)).toMatchObject({ status: 'paid' });
    expect(await balance(gw, 'USDT')).toBe(String(Number(before) - 11));
  });

  it('a chain report that overtakes the record of the txid is applied when the txid is recorded', async () => {
    await fund(gw, 'USDT', '11');
    const p = await create();
    let txid = '';
    driver.send = async (req) => {
      txid = (await send.call(driver, req)).txid;
      throw new Error('process killed');
    };
    await tick(gw);
    // The transaction confirms while the payout does not know its txid yet.
    await gw.ctx.storage.db.transaction().execute(async (trx) => {
      await trx.updateTable('sim_transactions').set({ status: 'mined', confirmations: 19, block_height: 1, rev: await nextRev(trx) }).where('txid', '=', txid).execute();
    });
    await processNetwork(gw.ctx, 'TRON');
    expect(await info(p.uuid)).toMatchObject({ status: 'process' });
    driver.send = send;
    gw.clock.advance(60_000);
    await tick(gw);
    expect(await info(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid });
    await tick(gw);
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['check', 'paid']);
  });

  it('a chain report the record of the txid raced past is applied by the payout job', async () => {
    await fund(gw, 'USDT', '11');
    const p = await create();
    await tick(gw);
    const { txid } = await info(p.uuid);
    // As if the report committed while the txid was being recorded, each blind to the other.
    await gw.ctx.storage.db.insertInto('outgoing_events').values({ network: 'TRON', txid, status: 'confirmed', confirmations: 19, updated_at: gw.clock.now }).execute();
    expect(await info(p.uuid)).toMatchObject({ status: 'check' });
    await tick(gw);
    expect(await info(p.uuid)).toMatchObject({ status: 'paid', is_final: true });
  });

  it('the simulator sends a payout that has not been sent yet, and answers 404 for an unknown one', async () => {
    await fund(gw, 'USDT', '11');
    const p = await create();
    const r = await gw.app.inject({ method: 'POST', url: '/simulator/payout/confirm', payload: { payout: p.uuid } });
    expect(r.json().result).toMatchObject({ payout: p.uuid, status: 'paid' });
    const missing = await gw.app.inject({ method: 'POST', url: '/simulator/payout/confirm', payload: { payout: '00000000-0000-4000-8000-000000000000' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ state: 1, message: 'Payout not found' });
  });
});
