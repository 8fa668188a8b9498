// Money that arrives where nobody expects it, test mode's borders, and inputs no database stores.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { STATIC_RATES, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { simulatePay, simulatePayAddress } from '../../src/simulator/payments.ts';
import { balanceOf } from '../../src/ledger/index.ts';
import { createWorkers } from '../../src/worker/index.ts';
import { setWalletStatus } from '../../src/ledger/merchant-wallets.ts';

describe.each(await backends())('edge cases on $name', (backend) => {
  let gw: TestGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await gw?.close();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
  });
  const create = async (body: Record<string, unknown>) => {
    const r = await gw.api('/v1/payment', { order_id: `e-${++n}`, url_callback: rx.url, ...body });
    expect(r.status).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const info = async (uuid: string) => (await gw.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const balance = (c: string) => balanceOf(gw.ctx.storage.db, gw.merchant.id, 'business', c);

  it('credits a token sent to an invoice for another currency, in its own currency, and says so', async () => {
    const inv = await create({ amount: '0.1', currency: 'ETH', network: 'ETH' });
    const before = await balance('USDT');
    await simulatePayAddress(gw.ctx, { address: inv.address, network: 'ETH', currency: 'USDT', amount: '50' });
    const now = await info(inv.uuid);
    expect(now).toMatchObject({ payment_status: 'process', payment_amount: null });
    expect(now.comments).toContain('Received 50 USDT (not ETH)');
    expect(Number(await balance('USDT')) - Number(before)).toBeCloseTo(49, 6);
  });

  it('credits a late payment to a refunded invoice without moving its status, and announces it', async () => {
    const inv = await create({ amount: '100', currency: 'USDT', network: 'TRON' });
    await simulatePay(gw.ctx, { invoice: inv.uuid });
    await gw.ctx.storage.db.updateTable('invoices').set({ status: 'refund_paid' }).where('id', '=', inv.uuid).execute();
    const before = await balance('USDT');
    await simulatePay(gw.ctx, { invoice: inv.uuid, amount: '10' });
    const now = await info(inv.uuid);
    expect(now).toMatchObject({ payment_status: 'refund_paid', payment_amount: '110.00', merchant_amount: '107.80' });
    expect(Number(await balance('USDT')) - Number(before)).toBeCloseTo(9.8, 6);
    await createWorkers(gw.ctx).tick();
    expect(rx.deliveries.filter((d) => d.json.uuid === inv.uuid).map((d) => [d.json.status, d.json.payment_amount])).toContainEqual(['refund_paid', '110.00']);
  });

  it('announces money credited after the invoice was final, even when its status stays', async () => {
    const inv = await create({ amount: '100', currency: 'USDT', network: 'TRON', is_payment_multiple: false });
    await simulatePay(gw.ctx, { invoice: inv.uuid, amount: '30' });
    await simulatePay(gw.ctx, { invoice: inv.uuid, amount: '20' });
    await createWorkers(gw.ctx).tick();
    const mine = rx.deliveries.filter((d) => d.json.uuid === inv.uuid).map((d) => [d.json.status, d.json.payment_amount]);
    expect(mine).toEqual([['wrong_amount', '30.00'], ['wrong_amount', '50.00']]);
  });

  it('answers Wallet not found when the operator switched the merchant wallet off', async () => {
    await setWalletStatus(gw.ctx, gw.merchant.id, 'business', 'DOGE', 'in_active');
    const r = await gw.api('/v1/payment', { amount: '100', currency: 'DOGE', order_id: `e-${++n}` });
    expect(r.body).toEqual({ state: 1, message: 'Wallet not found' });
  });

  it('refuses prototype names as course_source and NUL characters in any parameter', async () => {
    for (const cs of ['__proto__', 'constructor', 'toString']) {
      const r = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: `e-${++n}`, course_source: cs });
      expect(r.body.errors?.course_source ?? r.body.errors).toBeTruthy();
      expect(r.status).toBe(422);
    }
    for (const field of ['additional_data', 'url_callback', 'from_referral_code', 'payer_email']) {
      const r = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: `e-${++n}`, [field]: 'https://a.example/\u0000' });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ state: 1, errors: { [field]: ['validation.string'] } });
    }
    const list = await gw.api('/v1/payment/list?cursor=eyJkIjoibiIsInQiOjEsImkiOiJcdTAwMDAifQ', {});
    // A cursor carrying a NUL does not decode: it is read as no cursor (the first page).
    expect(list.status).toBe(200);
    expect(list.body.result).toEqual((await gw.api('/v1/payment/list', {})).body.result);
    const sim = await gw.app.inject({ method: 'POST', url: '/simulator/payout/confirm', payload: '{"payout":"\\u0000"}' });
    expect(sim.statusCode).toBe(400);
  });

  it('cannot confirm or drop the transfers of an invoice whose payer has not chosen yet', async () => {
    const inv = await create({ amount: '10', currency: 'USD' });
    for (const path of ['/simulator/confirm', '/simulator/drop']) {
      const r = await gw.app.inject({ method: 'POST', url: path, payload: { invoice: inv.uuid } });
      expect(r.statusCode).toBe(422);
      expect(r.json()).toEqual({ state: 1, message: 'The payer has not chosen a currency yet' });
    }
  });
});

describe.each(await backends())('with a real network configured, on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend, {
      env: {
        SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'evm', custody: 'hot', rpc_url: 'http://127.0.0.1:9', chain_id: 1 } }),
        SATCHEL_ALLOW_PRIVATE_CALLBACKS: '0',
        SATCHEL_RATES: STATIC_RATES,
      },
    });
  });
  afterAll(async () => gw?.close());

  it('turns the simulator off: no simulated money can reach a balance that real payouts draw on', async () => {
    expect(gw.ctx.chains.simulator).toBe(false);
    for (const path of ['/simulator/pay', '/simulator/deposit', '/simulator/expire', '/simulator/payout/confirm']) {
      const r = await gw.app.inject({ method: 'POST', url: path, payload: {} });
      expect(r.statusCode).toBe(404);
    }
  });

  it('is not in test mode: private callbacks stay refused, also for an invoice still waiting for a choice', async () => {
    expect(gw.ctx.chains.isTestNetwork(null)).toBe(false);
    expect(gw.ctx.chains.isTestNetwork('TRON')).toBe(false);
    const inv = (await gw.api('/v1/payment', { amount: '10', currency: 'USD', order_id: 'ssrf-1', url_callback: 'http://169.254.169.254/latest' })).body.result;
    const view = (await gw.app.inject({ method: 'GET', url: `/api/pay/${inv.uuid}` })).json().result;
    expect(view.test_mode).toBe(false);
  });
});
