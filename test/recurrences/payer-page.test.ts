// The payer's side of a recurrence (docs/recurring.md, "The payer"): the payer view read by the
// page at /pay/recurrence/{uuid}, subscribing with the page's extra fields, and the payer's cancel
// (`cancel_by_user`, its webhook, a second cancel refused), on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PayerRecurrence } from '../../src/contracts/payer.ts';

let n = 0;
const oid = () => `recpay-${++n}`;

describe.each(await backends())('the payer of a recurrence on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => gw?.close());

  const create = async (body: Record<string, unknown> = {}) => {
    const r = await gw.api('/v1/recurrence/create', {
      amount: '10', currency: 'USDT', name: 'Pro plan', period: 'monthly', order_id: oid(),
      url_callback: 'https://shop.example/cb', additional_data: 'secret-merchant-note', ...body,
    });
    expect(r.status).toBe(200);
    return r.body.result.uuid as string;
  };
  const view = (uuid: string) => gw.app.inject({ method: 'GET', url: `/api/pay/recurrence/${uuid}` });
  const subscribe = (uuid: string, body: Record<string, unknown> = { currency: 'USDT', network: 'TRON' }) =>
    gw.app.inject({ method: 'POST', url: `/api/pay/recurrence/${uuid}/subscribe`, payload: body });
  const cancel = (uuid: string) => gw.app.inject({ method: 'POST', url: `/api/pay/recurrence/${uuid}/cancel`, payload: {} });
  const job = () => gw.ctx.features.jobs.recurrences(gw.ctx, new AbortController().signal);
  const pay = async (invoice: string) => expect((await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice } })).statusCode).toBe(200);
  const hooks = async (uuid: string) =>
    (await gw.ctx.storage.db.selectFrom('webhooks').select('body').where('ref_id', '=', uuid).where('kind', '=', 'recurrence').orderBy('created_at').orderBy('id').execute()).map(
      (w) => JSON.parse(w.body) as Record<string, unknown>,
    );
  const status = async (uuid: string) => (await gw.ctx.storage.db.selectFrom('recurrences').select('status').where('id', '=', uuid).executeTakeFirstOrThrow()).status;
  const active = async (body: Record<string, unknown> = {}) => {
    const uuid = await create(body);
    const s = await subscribe(uuid);
    expect(s.statusCode).toBe(200);
    await pay(s.json().result.invoice.uuid);
    await job();
    expect(await status(uuid)).toBe('active');
    return uuid;
  };

  it('shows what the payer subscribes to, the choices, and nothing of the merchant’s own fields', async () => {
    const uuid = await create({ currency: 'USD', discount_days: 7, discount_amount: '1.5' });
    const r = await view(uuid);
    expect(r.statusCode).toBe(200);
    expect(r.headers.etag).toBeTruthy();
    const body = r.json();
    expect(body.state).toBe(0);
    const v = PayerRecurrence.parse(body.result);
    expect(v).toMatchObject({
      kind: 'recurrence', uuid, name: 'Pro plan', status: 'wait_accept', amount: '10.00', currency: 'USD', currency_is_fiat: true,
      period: 'monthly', discount_amount: '1.50', discount_days: 7, end_of_discount: null, payer_currency: null, network: null,
      next_payment_at: null, invoice_uuid: null, can_cancel: false, auto_renew: false, test_mode: true,
    });
    // The invoice chooser's list: currencies with their networks, priced for one period.
    const usdt = v.options!.find((o) => o.currency === 'USDT')!;
    expect(usdt.networks.map((net) => net.network)).toContain('TRON');
    expect(usdt.networks.find((net) => net.network === 'TRON')!.amount).toBe('10.00');
    expect(r.body).not.toContain('secret-merchant-note');
    expect(r.body).not.toContain('shop.example');
    expect(Object.keys(body.result)).not.toContain('url_callback');
    expect(Object.keys(body.result)).not.toContain('additional_data');
    // Unchanged: a conditional poll is answered 304.
    const again = await gw.app.inject({ method: 'GET', url: `/api/pay/recurrence/${uuid}`, headers: { 'if-none-match': r.headers.etag as string } });
    expect(again.statusCode).toBe(304);
  });

  it('keeps the merchant’s to_currency: only its networks are offered', async () => {
    const uuid = await create({ currency: 'USD', to_currency: 'USDT' });
    const v = PayerRecurrence.parse((await view(uuid)).json().result);
    expect(v.options!.map((o) => o.currency)).toEqual(['USDT']);
    expect(v.payer_currency).toBe('USDT');
  });

  it('subscribes with the page’s email and language (not refused), then shows the first invoice and, once paid, the next date', async () => {
    const uuid = await create();
    const s = await subscribe(uuid, { currency: 'USDT', network: 'TRON', email: 'payer@example.com', lang: 'ar' });
    expect(s.statusCode).toBe(200);
    const invoice = s.json().result.invoice.uuid as string;
    const waiting = PayerRecurrence.parse((await view(uuid)).json().result);
    expect(waiting).toMatchObject({ status: 'wait_accept', invoice_uuid: invoice, options: null, payer_currency: 'USDT', network: 'TRON', network_name: 'TRON (TRC-20)', payer_amount: '10.00' });
    await pay(invoice);
    await job();
    const now = gw.clock.now;
    const v = PayerRecurrence.parse((await view(uuid)).json().result);
    expect(v).toMatchObject({ status: 'active', can_cancel: true, next_payment_at: Math.floor(Date.UTC(2026, 1, 15, 12) / 1000) });
    expect(now).toBe(Date.UTC(2026, 0, 15, 12));
  });

  it('cancels by the payer: cancel_by_user with its webhook (no invoice); a second cancel is refused and changes nothing', async () => {
    const uuid = await active();
    const r = await cancel(uuid);
    expect(r.statusCode).toBe(200);
    const v = PayerRecurrence.parse(r.json().result);
    expect(v).toMatchObject({ status: 'cancel_by_user', can_cancel: false, next_payment_at: null });
    const sent = await hooks(uuid);
    expect(sent.map((h) => h.status)).toEqual(['active', 'cancel_by_user']);
    expect(sent[1]).toMatchObject({ type: 'recurrence', uuid, status: 'cancel_by_user', invoice_uuid: null });
    expect(Object.keys(sent[1]!)).toEqual(['type', 'uuid', 'order_id', 'status', 'amount', 'currency', 'period', 'invoice_uuid', 'last_pay_off', 'additional_data', 'sign']);
    const info = await gw.api('/v1/recurrence/info', { uuid });
    expect(info.body.result.status).toBe('cancel_by_user');

    const again = await cancel(uuid);
    expect(again.statusCode).toBe(422);
    expect(again.json()).toEqual({ state: 1, message: 'The recurrence is already cancelled', code: 'already_cancelled' });
    expect(await hooks(uuid)).toHaveLength(2);
    // Nothing renews it any more.
    gw.clock.advance(90 * 86_400_000);
    await job();
    expect(await status(uuid)).toBe('cancel_by_user');
    // A merchant cancel after it is refused too.
    expect((await gw.api('/v1/recurrence/cancel', { uuid })).body).toEqual({ state: 1, message: 'The recurrence is already cancelled' });
  });

  it('refuses to cancel a subscription that is not running, and changes nothing', async () => {
    const uuid = await create();
    const r = await cancel(uuid);
    expect(r.statusCode).toBe(422);
    expect(r.json()).toEqual({ state: 1, message: 'The subscription is not running', code: 'not_running' });
    expect(await status(uuid)).toBe('wait_accept');
    expect(await hooks(uuid)).toHaveLength(0);
  });

  it('answers the 404 envelope for an unknown or malformed uuid, and serves the page for the link', async () => {
    for (const uuid of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const r = await view(uuid);
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ state: 1, message: 'Recurrence not found' });
      const c = await cancel(uuid);
      expect(c.statusCode).toBe(404);
      expect(c.json()).toEqual({ state: 1, message: 'Recurrence not found' });
    }
    const page = await gw.app.inject({ method: 'GET', url: `/pay/recurrence/${await create()}` });
    expect([200, 503]).toContain(page.statusCode);
  });
});
