import { merchantVerifies } from '../helpers/merchant.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { simulateConfirmOutgoing, simulateFailOutgoing } from '../../src/simulator/payouts.ts';
import { simulatePay } from '../../src/simulator/payments.ts';
import { createMerchant, setMerchantBlocked, type Merchant } from '../../src/merchants/store.ts';
import { setWalletStatus } from '../../src/ledger/merchant-wallets.ts';
import {ADDR, balance, fund, ledgerAgrees, startMoneyGateway, tick } from '../payouts/harness.ts';

describe.each(await backends())('POST /v1/payment/refund on $name', (backend) => {
  let gw: TestGateway;
  let rx: Receiver;
  let m: Merchant;
  let n = 0;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await gw?.close();
    await rx?.close();
  });
  beforeEach(async () => {
    rx.deliveries.length = 0;
    m = await createMerchant(gw.ctx.storage.db, `refunds ${++n}`);
  });

  const invoice = async (body: Record<string, unknown> = {}) => {
    const r = await gw.api('/v1/payment', { amount: '100', currency: 'USDT', network: 'TRON', order_id: `rf-${++n}`, url_callback: rx.url, ...body }, { merchant: m });
    expect(r.status).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const paidInvoice = async (body: Record<string, unknown> = {}) => {
    const inv = await invoice(body);
    await simulatePay(gw.ctx, { invoice: inv.uuid });
    return inv;
  };
  const refund = (body: Record<string, unknown>, merchant = m) =>
    gw.api('/v1/payment/refund', { address: ADDR.TRON, is_subtract: true, ...body }, { key: 'payout', merchant });
  const status = async (uuid: string) => (await gw.api('/v1/payment/info', { uuid }, { merchant: m })).body.result.payment_status as string;
  const refundsOf = (invoiceId: string) =>
    gw.ctx.storage.db.selectFrom('payouts').selectAll().where('kind', '=', 'refund').where('ref_id', '=', invoiceId).orderBy('created_at').execute();

  it('refuses a refund the hot wallet cannot cover: the payouts message, nothing recorded or debited', async () => {
    const inv = await paidInvoice();
    const before = await balance(gw, 'USDT', 'business', m);
    const driver = gw.ctx.chains.driver('TRON');
    const asked: unknown[] = [];
    const canCover = driver.canCover;
    driver.canCover = async (req) => {
      asked.push(req);
      return { covered: false, currency: 'USDT', message: 'The hot wallet cannot cover this payment: not enough USDT' };
    };
    try {
      const r = await refund({ uuid: inv.uuid, amount: '30', is_subtract: false });
      expect([r.status, r.body]).toEqual([422, { state: 1, message: 'The gateway cannot send this payout now: not enough USDT in its hot wallet' }]);
      // The merchant's own shortfall answers first, with its own message.
      expect((await refund({ uuid: inv.uuid, amount: '99', is_subtract: true })).body).toEqual({ state: 1, message: 'Not enough funds' });
    } finally {
      driver.canCover = canCover;
    }
    expect(asked).toEqual([{ network: 'TRON', currency: 'USDT', to: ADDR.TRON, amount: '29', priority: 'recommended' }]);
    expect(await balance(gw, 'USDT', 'business', m)).toBe(before);
    expect(await refundsOf(inv.uuid)).toEqual([]);
    expect(await status(inv.uuid)).toBe('paid');
    expect(await ledgerAgrees(gw, 'USDT', 'business', m)).toBe(true);
  });

  it('a partial refund: refund_process -> refund_paid, payment webhooks, never more than was paid', async () => {
    const inv = await paidInvoice();
    expect(await balance(gw, 'USDT', 'business', m)).toBe('98');
    const r = await refund({ uuid: inv.uuid, amount: '30', is_subtract: false });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ state: 0, result: [] });
    expect(await balance(gw, 'USDT', 'business', m)).toBe('68');
    expect(await status(inv.uuid)).toBe('refund_process');
    const [out] = await refundsOf(inv.uuid);
    expect(out).toMatchObject({ address: ADDR.TRON, network: 'TRON', payer_currency: 'USDT', amount: '30', payer_amount: '29', commission: '1', merchant_amount: '30' });
    // One refund at a time.
    expect((await refund({ uuid: inv.uuid, amount: '10' })).body).toEqual({ state: 1, message: 'Refunds are made only for completed payments' });
    await tick(gw);
    expect((await simulateConfirmOutgoing(gw.ctx, out!.id)).status).toBe('paid');
    expect(await status(inv.uuid)).toBe('refund_paid');
    await tick(gw);
    const mine = rx.deliveries.filter((d) => d.json.uuid === inv.uuid);
    expect(mine.map((d) => d.json.status)).toEqual(['paid', 'refund_process', 'refund_paid']);
    expect(mine.every((d) => merchantVerifies(d, m.payment_key))).toBe(true);
    expect(mine[2]!.json).toMatchObject({ type: 'payment', is_final: true, payment_amount: '100.00' });
    // 70 is left to refund.
    expect((await refund({ uuid: inv.uuid, amount: '70.000001' })).body).toEqual({ state: 1, message: 'The refund amount should not be more than the amount paid' });
    await fund(gw, 'USDT', '10', 'business', m);
    expect((await refund({ uuid: inv.uuid })).status).toBe(200); // the rest: 70 + fee 1
    expect(await balance(gw, 'USDT', 'business', m)).toBe('7');
    const second = (await refundsOf(inv.uuid))[1]!;
    expect(second).toMatchObject({ amount: '70', payer_amount: '70', merchant_amount: '71' });
    await simulateConfirmOutgoing(gw.ctx, second.id);
    expect((await refund({ uuid: inv.uuid, amount: '0.01' })).body).toEqual({ state: 1, message: 'The refund amount should not be more than the amount paid' });
    expect(await ledgerAgrees(gw, 'USDT', 'business', m)).toBe(true);
  });

  it('a refund that fails returns the funds (refund_fail) and may be asked again', async () => {
    const inv = await paidInvoice();
    await fund(gw, 'USDT', '10', 'business', m);
    expect((await refund({ order_id: inv.order_id })).status).toBe(200); // 100 + fee 1
    expect(await balance(gw, 'USDT', 'business', m)).toBe('7');
    const [out] = await refundsOf(inv.uuid);
    await simulateFailOutgoing(gw.ctx, out!.id);
    expect(await status(inv.uuid)).toBe('refund_fail');
    expect(await balance(gw, 'USDT', 'business', m)).toBe('108');
    expect((await refund({ order_id: inv.order_id, amount: '100' })).status).toBe(200);
    expect(await status(inv.uuid)).toBe('refund_process');
    await tick(gw);
    expect(rx.deliveries.filter((d) => d.json.uuid === inv.uuid).map((d) => d.json.status)).toEqual(['paid', 'refund_process', 'refund_fail', 'refund_process']);
    expect(await ledgerAgrees(gw, 'USDT', 'business', m)).toBe(true);
  });

  it('uuid wins over order_id', async () => {
    const a = await paidInvoice();
    const b = await paidInvoice();
    expect((await refund({ uuid: a.uuid, order_id: b.order_id, amount: '10' })).status).toBe(200);
    expect(await status(a.uuid)).toBe('refund_process');
    expect(await status(b.uuid)).toBe('paid');
  });

  it('concurrent refunds of one invoice: one goes through', async () => {
    const inv = await paidInvoice();
    const rs = await Promise.all(Array.from({ length: 10 }, () => refund({ uuid: inv.uuid, amount: '20' })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status !== 200).map((r) => r.body.message)).toEqual(Array(9).fill('Refunds are made only for completed payments'));
    expect(await balance(gw, 'USDT', 'business', m)).toBe('77');
  });

  it('answers every error of the spec letter for letter', async () => {
    const paid = await paidInvoice();
    expect((await refund({ uuid: paid.uuid, amount: '100' })).body).toEqual({ state: 1, message: 'Not enough funds' }); // 101 > 98
    expect((await refund({ uuid: '00000000-0000-4000-8000-000000000000' })).body).toEqual({ state: 1, message: 'Payment was not found' });
    expect((await refund({ order_id: 'nope' })).body).toEqual({ state: 1, message: 'Payment was not found' });
    const stranger = await createMerchant(gw.ctx.storage.db, 'stranger');
    expect((await refund({ uuid: paid.uuid }, stranger)).body).toEqual({ state: 1, message: 'Payment was not found' });

    const open = await invoice();
    expect((await refund({ uuid: open.uuid })).body).toEqual({ state: 1, message: 'Refunds are made only for completed payments' });
    const short = await invoice({ is_payment_multiple: false });
    await simulatePay(gw.ctx, { invoice: short.uuid, amount: '40' });
    expect(await status(short.uuid)).toBe('wrong_amount');
    expect((await refund({ uuid: short.uuid })).body).toEqual({ state: 1, message: 'Refunds are made only for completed payments' });
    const fiat = await invoice({ currency: 'USD', network: undefined });
    expect((await refund({ uuid: fiat.uuid })).body).toEqual({ state: 1, message: 'Refunds are made only for completed payments' });

    expect((await refund({ uuid: paid.uuid, amount: '100.5' })).body).toEqual({ state: 1, message: 'The refund amount should not be more than the amount paid' });
    expect((await refund({ uuid: paid.uuid, amount: '1', is_subtract: false })).body).toEqual({ state: 1, message: 'The withdrawal amount is too small' });
    expect((await refund({ uuid: paid.uuid, address: ADDR.BTC })).body).toEqual({ state: 1, errors: { address: ['validation.regex'] } });

    await setWalletStatus(gw.ctx, m.id, 'business', 'USDT', 'in_active');
    expect((await refund({ uuid: paid.uuid })).body).toEqual({ state: 1, message: 'Undefined merchant wallet' });
    await setWalletStatus(gw.ctx, m.id, 'business', 'USDT', 'active');

    const blocked = await createMerchant(gw.ctx.storage.db, 'blocked');
    await setMerchantBlocked(gw.ctx.storage.db, blocked.id, true);
    expect((await refund({ uuid: paid.uuid }, blocked)).body).toEqual({ state: 1, message: 'You are forbidden' });
    const wrongKey = await gw.api('/v1/payment/refund', { uuid: paid.uuid, address: ADDR.TRON, is_subtract: true }, { merchant: m });
    expect(wrongKey.status).toBe(401);
    expect(await status(paid.uuid)).toBe('paid');
    expect(await balance(gw, 'USDT', 'business', m)).toBe('137.2'); // 98 + the wrong_amount invoice's 39.2: nothing refunded
  });

  it('validates with the spec bounds', async () => {
    expect((await gw.api('/v1/payment/refund', {}, { key: 'payout', merchant: m })).body).toEqual({
      state: 1,
      errors: {
        address: ['validation.required'], is_subtract: ['validation.required'],
        uuid: ['validation.required_without'], order_id: ['validation.required_without'],
      },
    });
    const uuid = '00000000-0000-4000-8000-000000000000';
    const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
      [{ uuid, amount: 5 }, { amount: ['validation.string'] }],
      [{ uuid, amount: 'five' }, { amount: ['validation.numeric'] }],
      [{ uuid, amount: '1'.repeat(41) }, { amount: ['validation.max.string'] }],
      [{ uuid, amount: '0' }, { amount: ['validation.min.numeric'] }],
      [{ uuid, amount: '-3' }, { amount: ['validation.min.numeric'] }],
      [{ uuid, is_subtract: 'sure' }, { is_subtract: ['validation.boolean'] }],
      [{ uuid: 'x' }, { uuid: ['validation.uuid'] }],
      [{ order_id: 'x'.repeat(129) }, { order_id: ['validation.max.string'] }],
      [{ order_id: 'a b' }, { order_id: ['validation.alpha_dash'] }],
      [{ uuid, address: 5 }, { address: ['validation.string'] }],
    ];
    for (const [body, errors] of cases) expect((await refund(body)).body, JSON.stringify(body)).toEqual({ state: 1, errors });
  });
});
