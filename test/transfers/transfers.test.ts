import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { createMerchant, setMerchantBlocked, type Merchant } from '../../src/merchants/store.ts';
import { simulateDeposit } from '../../src/simulator/deposit.ts';
import { setWalletStatus } from '../../src/ledger/merchant-wallets.ts';
import { balance, ledgerAgrees, startMoneyGateway } from '../payouts/harness.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(await backends())('POST /v1/transfer/* on $name', (backend) => {
  let gw: TestGateway;
  let m: Merchant;
  let n = 0;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
  });
  afterAll(async () => gw?.close());
  beforeEach(async () => {
    m = await createMerchant(gw.ctx.storage.db, `transfers ${++n}`);
  });

  const move = (dir: 'to-business' | 'to-personal', body: Record<string, unknown>, merchant = m) =>
    gw.api(`/v1/transfer/${dir}`, body, { key: 'payout', merchant });

  it('with an order_id a replayed or retried transfer moves nothing again and answers as the first did', async () => {
    await simulateDeposit(gw.ctx, { merchant: m.id, currency: 'USDT', amount: '100' });
    const body = { amount: '30', currency: 'USDT', order_id: 'tr-1' };
    const first = await move('to-business', body);
    expect(first.status).toBe(200);
    const [again, concurrent] = await Promise.all([move('to-business', body), move('to-business', body)]);
    expect(again.body).toEqual(first.body);
    expect(concurrent.body).toEqual(first.body);
    expect(await balance(gw, 'USDT', 'personal', m)).toBe('70');
    expect(await balance(gw, 'USDT', 'business', m)).toBe('30');
    // Another order_id is another transfer; without one, every request is new (old clients).
    expect((await move('to-business', { ...body, order_id: 'tr-2' })).body.result.user_wallet_balance).toBe('40.00');
    expect((await move('to-business', { amount: '10', currency: 'USDT' })).body.result.user_wallet_balance).toBe('30.00');
    expect((await move('to-business', { amount: '10', currency: 'USDT' })).body.result.user_wallet_balance).toBe('20.00');
    // The same order_id at another merchant is that merchant's own.
    const other = await createMerchant(gw.ctx.storage.db, `transfers other ${n}`);
    await simulateDeposit(gw.ctx, { merchant: other.id, currency: 'USDT', amount: '5' });
    expect((await move('to-business', { amount: '1', currency: 'USDT', order_id: 'tr-1' }, other)).body.result.user_wallet_balance).toBe('4.00');
    expect((await move('to-business', { ...body, order_id: 'bad id!' })).body).toEqual({ state: 1, errors: { order_id: ['validation.alpha_dash'] } });
    expect(await ledgerAgrees(gw, 'USDT', 'personal', m)).toBe(true);
    expect(await ledgerAgrees(gw, 'USDT', 'business', m)).toBe(true);
  });

  it('moves money between the personal and the business wallet, both entries in the ledger', async () => {
    const dep = await simulateDeposit(gw.ctx, { merchant: m.id, currency: 'usdt', amount: '100' });
    expect(dep).toEqual({ transaction_uuid: expect.stringMatching(UUID_RE), merchant: m.id, currency: 'USDT', amount: '100', balance: '100' });
    const r = await move('to-business', { amount: '40', currency: 'usdt' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      state: 0,
      result: {
        user_wallet_transaction_uuid: expect.stringMatching(UUID_RE),
        user_wallet_balance: '60.00',
        merchant_transaction_uuid: expect.stringMatching(UUID_RE),
        merchant_balance: '40.00',
      },
    });
    const entries = await gw.ctx.storage.db
      .selectFrom('ledger_entries')
      .select(['id', 'kind', 'amount'])
      .where('id', 'in', [r.body.result.user_wallet_transaction_uuid, r.body.result.merchant_transaction_uuid])
      .execute();
    expect(Object.fromEntries(entries.map((e) => [e.id, [e.kind, e.amount]]))).toEqual({
      [r.body.result.user_wallet_transaction_uuid]: ['personal', '-40'],
      [r.body.result.merchant_transaction_uuid]: ['business', '40'],
    });
    const back = await move('to-personal', { amount: '15.5', currency: 'USDT' });
    expect(back.body.result).toMatchObject({ user_wallet_balance: '75.50', merchant_balance: '24.50' });
    expect(await balance(gw, 'USDT', 'personal', m)).toBe('75.5');
    expect(await balance(gw, 'USDT', 'business', m)).toBe('24.5');
    expect(await ledgerAgrees(gw, 'USDT', 'personal', m)).toBe(true);
    expect(await ledgerAgrees(gw, 'USDT', 'business', m)).toBe(true);
  });

  it('answers the spec errors: wallets, limits, funds', async () => {
    await simulateDeposit(gw.ctx, { merchant: m.id, currency: 'USDT', amount: '10' });
    expect((await move('to-business', { amount: '11', currency: 'USDT' })).body).toEqual({ state: 1, message: 'Not enough funds' });
    expect((await move('to-personal', { amount: '1', currency: 'USDT' })).body).toEqual({ state: 1, message: 'Not enough funds' });
    // USDT: the smallest minimum of its networks (0.5) to the largest maximum (1000000).
    expect((await move('to-business', { amount: '0.4', currency: 'USDT' })).body).toEqual({ state: 1, message: 'Minimum amount 0.5 USDT' });
    expect((await move('to-business', { amount: '0', currency: 'USDT' })).body).toEqual({ state: 1, message: 'Minimum amount 0.5 USDT' });
    expect((await move('to-business', { amount: '1000001', currency: 'USDT' })).body).toEqual({ state: 1, message: 'Maximum amount 1000000 USDT' });
    expect((await move('to-business', { amount: '5', currency: 'USD' })).body).toEqual({ state: 1, message: 'No found user wallet' });
    expect((await move('to-personal', { amount: '5', currency: 'USD' })).body).toEqual({ state: 1, message: 'Merchant wallet not found' });
    expect((await move('to-business', { amount: '5', currency: 'NOPE' })).body).toEqual({ state: 1, message: 'No found user wallet' });

    await setWalletStatus(gw.ctx, m.id, 'personal', 'USDT', 'in_active');
    expect((await move('to-business', { amount: '5', currency: 'USDT' })).body).toEqual({ state: 1, message: 'No found user wallet' });
    expect((await move('to-personal', { amount: '5', currency: 'USDT' })).body).toEqual({ state: 1, message: 'No found user wallet' });
    await setWalletStatus(gw.ctx, m.id, 'personal', 'USDT', 'active');
    await setWalletStatus(gw.ctx, m.id, 'business', 'USDT', 'in_active');
    expect((await move('to-business', { amount: '5', currency: 'USDT' })).body).toEqual({ state: 1, message: 'Merchant wallet not found' });
    expect((await move('to-personal', { amount: '5', currency: 'USDT' })).body).toEqual({ state: 1, message: 'Merchant wallet not found' });
    await setWalletStatus(gw.ctx, m.id, 'business', 'USDT', 'active');
    expect((await move('to-business', { amount: '5', currency: 'USDT' })).status).toBe(200);

    const blocked = await createMerchant(gw.ctx.storage.db, 'blocked');
    await setMerchantBlocked(gw.ctx.storage.db, blocked.id, true);
    expect((await move('to-business', { amount: '5', currency: 'USDT' }, blocked)).body).toEqual({ state: 1, message: 'You are forbidden' });
    expect((await gw.api('/v1/transfer/to-business', { amount: '5', currency: 'USDT' }, { merchant: m })).status).toBe(401);
  });

  it('validates the parameters', async () => {
    expect((await move('to-business', {})).body).toEqual({ state: 1, errors: { amount: ['validation.required'], currency: ['validation.required'] } });
    const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
      [{ amount: 5, currency: 'USDT' }, { amount: ['validation.string'] }],
      [{ amount: 'x', currency: 'USDT' }, { amount: ['validation.numeric'] }],
      [{ amount: '1'.repeat(41), currency: 'USDT' }, { amount: ['validation.max.string'] }],
      [{ amount: '1', currency: 7 }, { currency: ['validation.string'] }],
      [{ amount: '1.0000000000000000001', currency: 'USDT' }, { amount: ['validation.numeric'] }],
    ];
    await simulateDeposit(gw.ctx, { merchant: m.id, currency: 'USDT', amount: '10' });
    for (const [body, errors] of cases) expect((await move('to-business', body)).body, JSON.stringify(body)).toEqual({ state: 1, errors });
  });

  it('concurrent transfers never overdraw: exactly as many as the balance covers', async () => {
    await simulateDeposit(gw.ctx, { merchant: m.id, currency: 'TRX', amount: '100' });
    const rs = await Promise.all(Array.from({ length: 20 }, () => move('to-business', { amount: '10', currency: 'TRX' })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(10);
    expect(rs.filter((r) => r.status !== 200).every((r) => r.body.message === 'Not enough funds')).toBe(true);
    expect(await balance(gw, 'TRX', 'personal', m)).toBe('0');
    expect(await balance(gw, 'TRX', 'business', m)).toBe('100');
  });

  it('simulateDeposit checks its input, and answers over HTTP', async () => {
    await expect(simulateDeposit(gw.ctx, { merchant: '00000000-0000-4000-8000-000000000000', currency: 'USDT', amount: '1' })).rejects.toThrow('Merchant not found');
    await expect(simulateDeposit(gw.ctx, { merchant: m.id, currency: 'USD', amount: '1' })).rejects.toThrow('No personal wallet in this currency');
    await expect(simulateDeposit(gw.ctx, { merchant: m.id, currency: 'USDT', amount: '-1' })).rejects.toThrow('amount must be a positive decimal');
    const r = await gw.app.inject({ method: 'POST', url: '/simulator/deposit', payload: { merchant: m.id, currency: 'BTC', amount: '0.5' } });
    expect(r.json()).toMatchObject({ state: 0, result: { currency: 'BTC', amount: '0.5', balance: '0.5' } });
    const bad = await gw.app.inject({ method: 'POST', url: '/simulator/deposit', payload: { merchant: 'x', currency: 'BTC', amount: '1' } });
    expect(bad.statusCode).toBe(404);
    expect(bad.json()).toEqual({ state: 1, message: 'Merchant not found' });
  });
});

describe.each(await backends())('transfer limits with networks switched off on $name', (backend) => {
  // USDT on ETH alone: minimum 1 and 6 places (BSC's 0.5 and 18 places are not offered).
  const off = ['BSC', 'POLYGON', 'ARBITRUM', 'AVALANCHE', 'TRON', 'TON', 'SOL'];
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend, { SATCHEL_NETWORKS: JSON.stringify(Object.fromEntries(off.map((c) => [c, { enabled: false }]))) });
  });
  afterAll(async () => gw?.close());

  it('takes the limits from the offered networks only', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'limits shop');
    const move = (body: Record<string, unknown>) => gw.api('/v1/transfer/to-business', body, { key: 'payout', merchant: m });
    await simulateDeposit(gw.ctx, { merchant: m.id, currency: 'USDT', amount: '100' });
    expect((await move({ amount: '0.5', currency: 'USDT' })).body).toEqual({ state: 1, message: 'Minimum amount 1 USDT' });
    expect((await move({ amount: '1.0000001', currency: 'USDT' })).body).toEqual({ state: 1, errors: { amount: ['validation.numeric'] } });
    expect((await move({ amount: '1.000001', currency: 'USDT' })).status).toBe(200);
  });
});
