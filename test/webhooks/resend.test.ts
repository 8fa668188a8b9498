import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createMerchant, setMerchantBlocked } from '../../src/merchants/store.ts';
import { INVOICE_STATUSES } from '../../src/invoices/invoice-object.ts';
import { WebhookDeliverer } from '../../src/webhooks/deliver.ts';
import { enqueueWebhook } from '../../src/webhooks/outbox.ts';
import { insertInvoice } from './invoices.ts';
import { merchantVerifies } from '../helpers/merchant.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

describe.each(await backends())('POST /v1/payment/resend on $name', (backend) => {
  let gw: TestGateway;
  let rec: Receiver;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    rec = await startReceiver();
  });
  afterAll(async () => {
    await rec?.close();
    await gw?.close();
  });

  const resend = (body: unknown, o?: Parameters<TestGateway['api']>[2]) => gw.api('/v1/payment/resend', body, o);
  const queued = (refId: string) =>
    gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('ref_id', '=', refId).orderBy('created_at').orderBy('id').execute();
  const resendCount = async (id: string) =>
    Number((await gw.ctx.storage.db.selectFrom('invoices').select('resend_count').where('id', '=', id).executeTakeFirstOrThrow()).resend_count);

  it('queues the current payment webhook, signed with the payment key, and answers []', async () => {
    const inv = await insertInvoice(gw, { url_callback: rec.url, status: 'paid_over', payment_amount: '16', credited: '15.68', additional_data: 'a/b — “c”' });
    const r = await resend({ uuid: inv.id });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ state: 0, result: [] });
    const [w, ...more] = await queued(inv.id);
    expect(more).toEqual([]);
    expect(w).toMatchObject({ kind: 'payment', url: rec.url, status: 'pending', attempts: 0, merchant_id: gw.merchant.id, next_attempt_at: gw.clock.now });
    const body = JSON.parse(w!.body);
    expect(body).toMatchObject({
      type: 'payment', uuid: inv.id, order_id: inv.order_id, status: 'paid_over', is_final: true, payment_amount: '16.00',
      commission: '0.32', additional_data: 'a/b — “c”', sign: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(Object.keys(body).at(-1)).toBe('sign');
    expect(merchantVerifies(w!.body, gw.merchant.payment_key)).toBe(true);
    expect(merchantVerifies(w!.body, gw.merchant.payout_key)).toBe(false);
    expect(await resendCount(inv.id)).toBe(1);

    // The outbox delivers it.
    rec.deliveries.length = 0;
    await new WebhookDeliverer(gw.ctx).runOnce();
    expect(rec.deliveries.map((x) => x.body)).toEqual([w!.body]);
  });

  it('serves /v2/payment/resend as v1 does, and also finds the invoice by txid', async () => {
    const inv = await insertInvoice(gw, { url_callback: rec.url, status: 'paid' });
    const txid = `tx-${inv.id}`;
    await gw.ctx.storage.db
      .insertInto('chain_transfers')
      .values({
        network: 'TRON', txid, idx: 0, currency: 'USDT', address: 'T-none', from_address: null, amount: '1', block_height: 1, block_hash: 'h',
        confirmations: 20, status: 'confirmed', owner_kind: 'invoice', owner_id: inv.id, seen_at: gw.clock.now, confirmed_at: gw.clock.now, updated_at: gw.clock.now,
      })
      .execute();
    expect((await gw.api('/v2/payment/resend', { txid })).body).toEqual({ state: 0, result: [] });
    expect((await gw.api('/v2/payment/resend', { uuid: inv.id })).body).toEqual({ state: 0, result: [] });
    expect(await queued(inv.id)).toHaveLength(2);
    expect((await gw.api('/v2/payment/resend', { txid: 'no-such-tx' })).body).toEqual({ state: 1, message: 'Payment not found' });
    expect((await gw.api('/v2/payment/resend', {})).body).toEqual({
      state: 1,
      errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'], txid: ['validation.required_without'] },
    });
    // Another merchant's txid finds nothing.
    const other = await createMerchant(gw.ctx.storage.db, 'Other shop');
    expect((await gw.api('/v2/payment/resend', { txid }, { merchant: other })).body).toEqual({ state: 1, message: 'Payment not found' });
  });

  it('finds the invoice by order_id, which wins over uuid', async () => {
    const a = await insertInvoice(gw, { url_callback: rec.url });
    const b = await insertInvoice(gw, { url_callback: rec.url });
    expect((await resend({ order_id: b.order_id })).body).toEqual({ state: 0, result: [] });
    expect((await resend({ uuid: a.id, order_id: b.order_id })).body).toEqual({ state: 0, result: [] });
    expect(await queued(a.id)).toHaveLength(0);
    expect(await queued(b.id)).toHaveLength(2);
    expect(await resendCount(b.id)).toBe(2);
  });

  it('resends for wrong_amount, paid and paid_over only, answering Notification not found otherwise', async () => {
    for (const status of INVOICE_STATUSES) {
      const inv = await insertInvoice(gw, { url_callback: rec.url, status });
      const r = await resend({ uuid: inv.id });
      if (['wrong_amount', 'paid', 'paid_over'].includes(status)) {
        expect(r.body, status).toEqual({ state: 0, result: [] });
      } else {
        expect(r.status, status).toBe(422);
        expect(r.body, status).toEqual({ state: 1, message: 'Notification not found' });
        expect(await queued(inv.id)).toHaveLength(0);
        expect(await resendCount(inv.id)).toBe(0);
      }
    }
  });

  it('answers Notification not found without a url_callback', async () => {
    const inv = await insertInvoice(gw, { url_callback: null });
    expect((await resend({ uuid: inv.id })).body).toEqual({ state: 1, message: 'Notification not found' });
    expect(await queued(inv.id)).toHaveLength(0);
  });

  it('answers Payment not found for an unknown invoice or another merchant\'s', async () => {
    expect((await resend({ uuid: '00000000-0000-4000-8000-000000000000' })).body).toEqual({ state: 1, message: 'Payment not found' });
    expect((await resend({ order_id: 'no-such-order' })).body).toEqual({ state: 1, message: 'Payment not found' });
    const inv = await insertInvoice(gw, { url_callback: rec.url });
    const other = await createMerchant(gw.ctx.storage.db, 'Other shop');
    const r = await resend({ uuid: inv.id }, { merchant: other });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ state: 1, message: 'Payment not found' });
  });

  it('validates the identifiers', async () => {
    expect((await resend({})).body).toEqual({ state: 1, errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'] } });
    expect((await resend({ uuid: 'nope' })).body).toEqual({ state: 1, errors: { uuid: ['validation.uuid'] } });
    expect((await resend({ order_id: 'a b' })).body).toEqual({ state: 1, errors: { order_id: ['validation.alpha_dash'] } });
    expect((await resend({ order_id: 'x'.repeat(129) })).body).toEqual({ state: 1, errors: { order_id: ['validation.max.string'] } });
  });

  it('allows 10 resends per invoice, then answers Too much resend', async () => {
    const inv = await insertInvoice(gw, { url_callback: rec.url, status: 'wrong_amount' });
    for (let i = 0; i < 10; i++) expect((await resend({ uuid: inv.id })).body).toEqual({ state: 0, result: [] });
    const r = await resend({ uuid: inv.id });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ state: 1, message: 'Too much resend' });
    expect(await resendCount(inv.id)).toBe(10);
    expect(await queued(inv.id)).toHaveLength(10);
  });

  it('never exceeds 10 resends under concurrent requests', async () => {
    const inv = await insertInvoice(gw, { url_callback: rec.url });
    const answers = await Promise.all(Array.from({ length: 16 }, () => resend({ uuid: inv.id })));
    expect(answers.filter((a) => a.body.state === 0)).toHaveLength(10);
    expect(answers.filter((a) => a.body.message === 'Too much resend')).toHaveLength(6);
    expect(await resendCount(inv.id)).toBe(10);
    expect(await queued(inv.id)).toHaveLength(10);
  });

  it('works for a blocked merchant, and only with the payment key', async () => {
    const inv = await insertInvoice(gw, { url_callback: rec.url });
    expect((await resend({ uuid: inv.id }, { key: 'payout' })).status).toBe(401);
    await setMerchantBlocked(gw.ctx.storage.db, gw.merchant.id, true);
    gw.ctx.merchants.invalidate(gw.merchant.id);
    try {
      expect((await resend({ uuid: inv.id })).body).toEqual({ state: 0, result: [] });
    } finally {
      await setMerchantBlocked(gw.ctx.storage.db, gw.merchant.id, false);
      gw.ctx.merchants.invalidate(gw.merchant.id);
    }
  });

  it('keeps the SSRF decision of the invoice\'s earlier webhooks', async () => {
    const inv = await insertInvoice(gw, { url_callback: rec.url });
    await resend({ uuid: inv.id });
    await enqueueWebhook(gw.ctx.storage.db, { merchantId: gw.merchant.id, kind: 'payment', refId: inv.id, url: rec.url, body: '{}', allowPrivate: true, now: gw.clock.now + 1 });
    gw.clock.advance(1000);
    await resend({ uuid: inv.id });
    expect((await queued(inv.id)).map((w) => w.allow_private)).toEqual([0, 1, 1]);
  });
});
