// Recurring payments as a merchant and a payer meet them: the API's answers and refusals, the
// shared order_id, subscribing, paying, renewals moved by the worker's job under a test clock,
// grace and `inactive`, cancel, the `recurrence` webhook, and the simulator's renew.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { satchel } from '../cli/in-process.ts';
import { webhookSign } from '../../src/webhooks/payload.ts';

const DAY = 86_400_000;
let n = 0;
const oid = () => `rec-${++n}`;

describe.each(await backends())('recurring payments on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => gw?.close());

  const create = (body: Record<string, unknown>) =>
    gw.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Pro plan', period: 'weekly', order_id: oid(), url_callback: 'https://shop.example/cb', ...body });
  const info = async (uuid: string) => (await gw.api('/v1/recurrence/info', { uuid })).body.result as Record<string, any>;
  const invoice = async (uuid: string) => (await gw.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const job = () => gw.ctx.features.jobs.recurrences(gw.ctx, new AbortController().signal);
  const subscribe = (uuid: string, body: Record<string, unknown> = { currency: 'USDT', network: 'TRON' }) =>
    gw.app.inject({ method: 'POST', url: `/api/pay/recurrence/${uuid}/subscribe`, payload: body });
  const pay = async (invoiceUuid: string) => {
    const r = await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice: invoiceUuid } });
    expect(r.statusCode).toBe(200);
  };
  const hooks = async (uuid: string) =>
    (await gw.ctx.storage.db.selectFrom('webhooks').select(['body', 'kind']).where('ref_id', '=', uuid).where('kind', '=', 'recurrence').orderBy('created_at').orderBy('id').execute()).map(
      (w) => JSON.parse(w.body) as Record<string, any>,
    );
  /** A recurrence created, subscribed and its first period paid: `active`. */
  const activeOne = async (body: Record<string, unknown> = {}) => {
    const rec = (await create(body)).body.result;
    const s = await subscribe(rec.uuid);
    expect(s.statusCode).toBe(200);
    const first = s.json().result.invoice.uuid as string;
    await pay(first);
    await job();
    return { uuid: rec.uuid as string, first };
  };
  /** The renewal due now is made, paid, and the recurrence active again; returns the invoice. */
  const renewAndPay = async (uuid: string) => {
    await job();
    const waiting = await info(uuid);
    expect(waiting.status).toBe('wait_payment');
    const row = await gw.ctx.storage.db.selectFrom('recurrences').select(['invoice_id', 'period_index']).where('id', '=', uuid).executeTakeFirstOrThrow();
    await pay(row.invoice_id!);
    await job();
    expect((await info(uuid)).status).toBe('active');
    return { invoice: row.invoice_id!, period: row.period_index };
  };
  const nextDue = async (uuid: string) =>
    Number((await gw.ctx.storage.db.selectFrom('recurrences').select('next_due_at').where('id', '=', uuid).executeTakeFirstOrThrow()).next_due_at);

  it('creates a recurrence: the Recurrence object, fields in order, wait_accept', async () => {
    const r = await create({ order_id: 'plan-1', amount: '15', currency: 'USD', to_currency: 'USDT', discount_days: 7, discount_amount: '1', additional_data: 'x' });
    expect(r.status).toBe(200);
    const rec = r.body.result;
    expect(Object.keys(rec)).toEqual([
      'uuid', 'name', 'order_id', 'amount', 'currency', 'payer_currency', 'payer_amount_usd', 'payer_amount', 'url_callback', 'discount_days',
      'discount_amount', 'end_of_discount', 'period', 'status', 'url', 'last_pay_off', 'additional_data',
    ]);
    expect(rec).toMatchObject({
      name: 'Pro plan', order_id: 'plan-1', amount: '15.00', currency: 'USD', payer_currency: 'USDT', payer_amount: '15.00', discount_days: 7,
      discount_amount: '1.00', end_of_discount: null, period: 'weekly', status: 'wait_accept', last_pay_off: null, additional_data: 'x',
      url: `https://pay.example.test/pay/recurrence/${rec.uuid}`,
    });
    // The same order_id answers the same recurrence and makes no second one.
    const again = await create({ order_id: 'plan-1', amount: '99' });
    expect(again.body.result.uuid).toBe(rec.uuid);
    expect(await info(rec.uuid)).toEqual(rec);
    expect((await gw.api('/v1/recurrence/info', { uuid: '00000000-0000-4000-8000-000000000000', order_id: 'plan-1' })).body.result.uuid).toBe(rec.uuid);
  });

  it('refuses bad input with the envelopes and writes nothing', async () => {
    const before = await gw.ctx.storage.db.selectFrom('recurrences').select((eb) => eb.fn.countAll().as('c')).executeTakeFirstOrThrow();
    const period = await create({ period: 'daily' });
    expect(period.status).toBe(422);
    expect(period.body).toEqual({ state: 1, errors: { period: ['validation.in'] } });
    const discount = await create({ discount_days: 7 });
    expect(discount.body).toEqual({ state: 1, errors: { discount_amount: ['validation.required_with'] } });
    const small = await create({ amount: '0.0001', currency: 'USDT' });
    expect(small.status).toBe(422);
    expect(small.body.state).toBe(1);
    expect(small.body.message).toMatch(/^Minimum amount \S+ USDT$/);
    const missing = await gw.api('/v1/recurrence/create', {});
    expect(Object.keys(missing.body.errors).sort()).toEqual(['amount', 'currency', 'name', 'period']);
    const after = await gw.ctx.storage.db.selectFrom('recurrences').select((eb) => eb.fn.countAll().as('c')).executeTakeFirstOrThrow();
    expect(Number(after.c)).toBe(Number(before.c));
  });

  it('shares order_id with invoices and static wallets, both ways', async () => {
    const inv = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'shared-inv' });
    expect(inv.status).toBe(200);
    expect((await create({ order_id: 'shared-inv' })).body).toEqual({ state: 1, errors: { order_id: ['validation.unique'] } });
    expect((await create({ order_id: 'shared-rec' })).status).toBe(200);
    expect((await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'shared-rec' })).body).toEqual({ state: 1, errors: { order_id: ['validation.unique'] } });
    expect((await gw.api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: 'shared-rec' })).body).toEqual({ state: 1, errors: { order_id: ['validation.unique'] } });
  });

  it('renews weekly three times in a row, each period an invoice linked to it, with the webhooks', async () => {
    const { uuid, first } = await activeOne();
    const active = await info(uuid);
    expect(active.status).toBe('active');
    expect(active.last_pay_off).not.toBeNull();
    expect((await invoice(first)).recurrence_uuid).toBe(uuid);
    const anchor = gw.clock.now;
    for (let k = 1; k <= 3; k++) {
      expect(await nextDue(uuid)).toBe(anchor + k * 7 * DAY);
      gw.clock.now = anchor + k * 7 * DAY;
      const { invoice: inv, period } = await renewAndPay(uuid);
      expect(period).toBe(k);
      expect(await invoice(inv)).toMatchObject({ recurrence_uuid: uuid, amount: '10.00', payment_status: 'paid' });
    }
    const sent = await hooks(uuid);
    expect(sent.map((h) => h.status)).toEqual(['active', 'wait_payment', 'active', 'wait_payment', 'active', 'wait_payment', 'active']);
    // The fields in their order, and the signature over them with the payment key.
    for (const h of sent) {
      expect(Object.keys(h)).toEqual(['type', 'uuid', 'order_id', 'status', 'amount', 'currency', 'period', 'invoice_uuid', 'last_pay_off', 'additional_data', 'sign']);
      const { sign, ...rest } = h;
      expect(sign).toBe(webhookSign(rest, gw.merchant.payment_key));
      expect(h).toMatchObject({ type: 'recurrence', uuid, amount: '10.00', currency: 'USDT', period: 'weekly' });
    }
    expect(sent[0]!.invoice_uuid).toBe(first);
    // The invoice's own payment webhook names its recurrence too.
    const payment = await gw.ctx.storage.db.selectFrom('webhooks').select('body').where('ref_id', '=', first).where('kind', '=', 'payment').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(JSON.parse(payment.body).recurrence_uuid).toBe(uuid);
  });

  it('renews monthly from Jan 31: Feb 29, Mar 31, Apr 30; three_month keeps the day too', async () => {
    gw.clock.now = Date.UTC(2028, 0, 31, 10, 0, 0);
    const monthly = await activeOne({ period: 'monthly' });
    const expected = [Date.UTC(2028, 1, 29, 10), Date.UTC(2028, 2, 31, 10), Date.UTC(2028, 3, 30, 10)];
    for (const due of expected) {
      expect(await nextDue(monthly.uuid)).toBe(due);
      gw.clock.now = due;
      await renewAndPay(monthly.uuid);
    }
    gw.clock.now = Date.UTC(2029, 10, 30, 9, 0, 0);
    const quarterly = await activeOne({ period: 'three_month' });
    for (const due of [Date.UTC(2030, 1, 28, 9), Date.UTC(2030, 4, 30, 9), Date.UTC(2030, 7, 30, 9)]) {
      expect(await nextDue(quarterly.uuid)).toBe(due);
      gw.clock.now = due;
      await renewAndPay(quarterly.uuid);
    }
  });

  it('charges the discount for the first discount_days, then the full price', async () => {
    const { uuid, first } = await activeOne({ amount: '20', discount_days: 3, discount_amount: '5' });
    expect((await invoice(first)).amount).toBe('5.00');
    const paidAt = gw.clock.now;
    const rec = await info(uuid);
    expect(rec.end_of_discount).not.toBeNull();
    expect(await nextDue(uuid)).toBe(paidAt + 3 * DAY);
    gw.clock.now = paidAt + 3 * DAY;
    const { invoice: second } = await renewAndPay(uuid);
    expect((await invoice(second)).amount).toBe('20.00');
    expect(await nextDue(uuid)).toBe(paidAt + 3 * DAY + 7 * DAY);
  });

  it('goes inactive when a renewal stays unpaid past the grace period', async () => {
    const { uuid } = await activeOne();
    const due = await nextDue(uuid);
    gw.clock.now = due;
    await job();
    expect((await info(uuid)).status).toBe('wait_payment');
    gw.clock.now = due + gw.ctx.config.recurrenceGraceMs - 1;
    await job();
    expect((await info(uuid)).status).toBe('wait_payment');
    gw.clock.now = due + gw.ctx.config.recurrenceGraceMs;
    await job();
    expect((await info(uuid)).status).toBe('inactive');
    expect((await hooks(uuid)).map((h) => h.status)).toEqual(['active', 'wait_payment', 'inactive']);
  });

  it('cancels by merchant with a webhook; a second cancel is refused and changes nothing', async () => {
    const { uuid } = await activeOne({ order_id: 'cancel-me' });
    const r = await gw.api('/v1/recurrence/cancel', { order_id: 'cancel-me' });
    expect(r.status).toBe(200);
    expect(r.body.result.status).toBe('cancel_by_merchant');
    const again = await gw.api('/v1/recurrence/cancel', { uuid });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ state: 1, message: 'The recurrence is already cancelled' });
    expect((await hooks(uuid)).map((h) => h.status)).toEqual(['active', 'cancel_by_merchant']);
    gw.clock.advance(30 * DAY);
    await job();
    expect((await info(uuid)).status).toBe('cancel_by_merchant');
    const missing = await gw.api('/v1/recurrence/cancel', {});
    expect(missing.body.errors).toEqual({ uuid: ['validation.required_without'], order_id: ['validation.required_without'] });
  });

  it('lists recurrences newest first with cursor paging', async () => {
    for (let k = 0; k < 16; k++) expect((await create({})).status).toBe(200);
    const r = await gw.api('/v1/recurrence/list', {});
    expect(r.status).toBe(200);
    expect(r.body.result.items.length).toBe(15);
    expect(r.body.result.paginate.nextCursor).not.toBeNull();
    const next = await gw.api(`/v1/recurrence/list?cursor=${r.body.result.paginate.nextCursor}`, {});
    const seen = new Set(r.body.result.items.map((i: any) => i.uuid));
    expect(next.body.result.items.length).toBeGreaterThan(0);
    for (const i of next.body.result.items) expect(seen.has(i.uuid)).toBe(false);
  });

  it('simulate renew makes the next period due now, over HTTP and from the CLI', async () => {
    const { uuid } = await activeOne();
    const r = await gw.app.inject({ method: 'POST', url: '/simulator/recurrence/renew', payload: { recurrence: uuid } });
    expect(r.statusCode).toBe(200);
    expect(r.json().result).toMatchObject({ recurrence: uuid, status: 'wait_payment' });
    expect((await invoice(r.json().result.invoice)).recurrence_uuid).toBe(uuid);
    const refused = await gw.app.inject({ method: 'POST', url: '/simulator/recurrence/renew', payload: { recurrence: uuid } });
    expect(refused.statusCode).toBe(422);

    const other = await activeOne();
    const cli = await satchel(gw, 'simulate', 'renew', '--recurrence', other.uuid, '--json');
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.out)).toMatchObject({ recurrence: other.uuid, status: 'wait_payment' });
    expect((await info(other.uuid)).status).toBe('wait_payment');
  });
});
