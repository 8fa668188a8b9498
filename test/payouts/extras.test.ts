import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { findPayoutForTest, findPayoutWebhookSourceForTest, payoutWebhookFieldsOf } from '../../src/outgoing/payout-record.ts';
import { setWalletStatus, walletUuid } from '../../src/ledger/merchant-wallets.ts';
import { ADDR, fund, startMoneyGateway } from './harness.ts';

const CRYPTO = ['AVAX', 'BNB', 'BTC', 'DOGE', 'ETH', 'LTC', 'POL', 'SOL', 'TON', 'TRX', 'USDC', 'USDT', 'XMR'];

describe.each(await backends())('balance, services, exchange rates on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
  });
  afterAll(async () => gw?.close());

  it('POST /v1/balance lists every business and personal wallet with its uuid, balance and USD value', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'balances');
    await fund(gw, 'USDT', '12.5', 'business', m);
    await fund(gw, 'BTC', '0.1', 'personal', m);
    const r = await gw.api('/v1/balance', {}, { merchant: m });
    expect(r.status).toBe(200);
    const [entry] = r.body.result;
    expect(r.body.result).toHaveLength(1);
    expect(Object.keys(entry.balance)).toEqual(['merchant', 'user']);
    expect(entry.balance.merchant.map((b: any) => b.currency_code)).toEqual(CRYPTO);
    expect(entry.balance.user.map((b: any) => b.currency_code)).toEqual(CRYPTO);
    const usdt = entry.balance.merchant.find((b: any) => b.currency_code === 'USDT');
    expect(Object.keys(usdt)).toEqual(['uuid', 'balance', 'currency_code', 'balance_usd']);
    expect(usdt).toEqual({ uuid: walletUuid(m.id, 'business', 'USDT'), balance: '12.50', currency_code: 'USDT', balance_usd: '12.50' });
    expect(entry.balance.user.find((b: any) => b.currency_code === 'BTC')).toEqual({
      uuid: walletUuid(m.id, 'personal', 'BTC'), balance: '0.10', currency_code: 'BTC', balance_usd: '6500.00',
    });
    expect(entry.balance.merchant.find((b: any) => b.currency_code === 'ETH')).toMatchObject({ balance: '0.00', balance_usd: '0.00' });
    expect(walletUuid(m.id, 'business', 'USDT')).not.toBe(walletUuid(m.id, 'personal', 'USDT'));
    // Signed with the payment key.
    expect((await gw.api('/v1/balance', {}, { merchant: m, key: 'payout' })).status).toBe(401);
  });

  it('POST /v1/payment/services and /v1/payout/services list every pair with limits and commission', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'services');
    const pay = (await gw.api('/v1/payment/services', {}, { merchant: m })).body.result;
    const out = (await gw.api('/v1/payout/services', {}, { merchant: m, key: 'payout' })).body.result;
    const pairs = gw.ctx.registry.pairs().length;
    expect(pay).toHaveLength(pairs);
    expect(out).toHaveLength(pairs);
    const tronUsdt = pay.find((s: any) => s.network === 'TRON' && s.currency === 'USDT');
    expect(Object.keys(tronUsdt)).toEqual(['network', 'currency', 'is_available', 'limit', 'commission']);
    expect(tronUsdt).toEqual({
      network: 'TRON', currency: 'USDT', is_available: true,
      limit: { min_amount: '0.50000000', max_amount: '1000000.00000000' },
      commission: { fee_amount: '0.00', percent: '2.00' },
    });
    expect(pay.find((s: any) => s.network === 'BSC' && s.currency === 'USDT').commission.percent).toBe('1.50');
    expect(out.find((s: any) => s.network === 'TRON' && s.currency === 'USDT')).toEqual({
      network: 'TRON', currency: 'USDT', is_available: true,
      limit: { min_amount: '1.00000000', max_amount: '500000.00000000' },
      commission: { fee_amount: '1.00', percent: '0.00' },
    });
    expect(out.find((s: any) => s.network === 'BTC')).toMatchObject({ limit: { min_amount: '0.00010000' }, commission: { fee_amount: '0.00004' } });
    await setWalletStatus(gw.ctx, m.id, 'business', 'USDT', 'in_active');
    const off = (await gw.api('/v1/payout/services', {}, { merchant: m, key: 'payout' })).body.result;
    expect(off.filter((s: any) => !s.is_available).map((s: any) => s.currency)).toEqual(Array(gw.ctx.registry.networksOf('USDT').length).fill('USDT'));
  });

  it('GET /v1/exchange-rate/{currency}/list answers [{from, to, course}] without a signature', async () => {
    const r = await gw.app.inject({ method: 'GET', url: '/v1/exchange-rate/btc/list' });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.state).toBe(0);
    expect(body.result[0]).toEqual({ from: 'BTC', to: 'USD', course: '65000.00000000' });
    expect(body.result.find((x: any) => x.to === 'USDT')).toEqual({ from: 'BTC', to: 'USDT', course: '65000.00000000' });
    expect(body.result.some((x: any) => x.to === 'BTC')).toBe(false);
    const usd = (await gw.app.inject({ method: 'GET', url: '/v1/exchange-rate/USD/list' })).json();
    expect(usd.result.find((x: any) => x.to === 'BTC')).toEqual({ from: 'USD', to: 'BTC', course: '0.000015384615384615' });
    const unknown = await gw.app.inject({ method: 'GET', url: '/v1/exchange-rate/NOPE/list' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toEqual({ state: 1, message: 'The currency was not found' });
  });

  it('finds a payout for the test webhooks (uuid first, then order_id) and builds its webhook fields', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'test hooks');
    await fund(gw, 'USDT', '20', 'business', m);
    const p = (await gw.api('/v1/payout', { amount: '10', currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: true, order_id: 'th-1' }, { key: 'payout', merchant: m })).body.result;
    expect((await findPayoutForTest(gw.ctx, m.id, { uuid: p.uuid }))?.id).toBe(p.uuid);
    expect((await findPayoutForTest(gw.ctx, m.id, { uuid: p.uuid.toUpperCase(), order_id: 'other' }))?.id).toBe(p.uuid);
    expect((await findPayoutForTest(gw.ctx, m.id, { order_id: 'th-1' }))?.id).toBe(p.uuid);
    expect(await findPayoutForTest(gw.ctx, m.id, { order_id: 'nope' })).toBeNull();
    expect(await findPayoutForTest(gw.ctx, m.id, {})).toBeNull();
    const other = await createMerchant(gw.ctx.storage.db, 'other');
    expect(await findPayoutForTest(gw.ctx, other.id, { uuid: p.uuid })).toBeNull();
    expect(await findPayoutWebhookSourceForTest(gw.ctx, m.id, { order_id: 'th-1' })).toEqual({
      uuid: p.uuid, order_id: 'th-1', amount: '10', merchant_amount: '11', commission: '1', is_final: false, status: 'process',
      txid: null, currency: 'USDT', network: 'TRON', payer_currency: 'USDT', payer_amount: '10',
    });
    const row = (await findPayoutForTest(gw.ctx, m.id, { uuid: p.uuid }))!;
    expect(payoutWebhookFieldsOf(row)).toEqual({
      type: 'payout', uuid: p.uuid, order_id: 'th-1', amount: '10.00', merchant_amount: '11.00', commission: '1.00', is_final: false,
      status: 'process', txid: null, currency: 'USDT', network: 'TRON', payer_currency: 'USDT', payer_amount: '10.00',
    });
  });
});
