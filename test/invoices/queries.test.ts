import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createMerchant } from '../../src/merchants/store.ts';

describe.each(await backends())('invoice info, history and QR on $name', (backend) => {
  let gw: TestGateway;
  const made: Array<Record<string, any>> = [];
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    // 35 invoices, one a minute, from 2026-01-15 15:00:00 at UTC+3.
    for (let i = 0; i < 35; i++) {
      const r = await gw.api('/v1/payment', { amount: String(10 + i), currency: 'USDT', network: 'TRON', order_id: `h-${i}` });
      made.push(r.body.result);
      gw.clock.advance(60_000);
    }
  });
  afterAll(async () => gw?.close());

  it('info finds by uuid or order_id, order_id winning, without creation-only fields', async () => {
    const target = made[3]!;
    const byUuid = await gw.api('/v1/payment/info', { uuid: target.uuid });
    expect(byUuid.status).toBe(200);
    expect(byUuid.body.result.uuid).toBe(target.uuid);
    expect(byUuid.body.result).not.toHaveProperty('address_qr_code');
    expect(byUuid.body.result).not.toHaveProperty('commission');
    const byOrder = await gw.api('/v1/payment/info', { order_id: 'h-5' });
    expect(byOrder.body.result.order_id).toBe('h-5');
    const both = await gw.api('/v1/payment/info', { uuid: target.uuid, order_id: 'h-7' });
    expect(both.body.result.order_id).toBe('h-7');
  });

  it('info validates its identifiers and answers Payment not found', async () => {
    expect((await gw.api('/v1/payment/info', {})).body).toEqual({ state: 1, errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'] } });
    expect((await gw.api('/v1/payment/info', { uuid: 'nope' })).body).toEqual({ state: 1, errors: { uuid: ['validation.uuid'] } });
    expect((await gw.api('/v1/payment/info', { order_id: 'a b' })).body).toEqual({ state: 1, errors: { order_id: ['validation.alpha_dash'] } });
    expect((await gw.api('/v1/payment/info', { order_id: 'x'.repeat(129) })).body).toEqual({ state: 1, errors: { order_id: ['validation.max.string'] } });
    const missing = await gw.api('/v1/payment/info', { uuid: '00000000-0000-4000-8000-000000000000' });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ state: 1, message: 'Payment not found' });
    // Another merchant's invoice is not found either.
    const other = await createMerchant(gw.ctx.storage.db, 'Other');
    expect((await gw.api('/v1/payment/info', { uuid: made[0]!.uuid }, { merchant: other })).body).toEqual({ state: 1, message: 'Payment not found' });
  });

  it('lists newest first, 15 a page, walking forward and back with cursors from the query or the body', async () => {
    const p1 = await gw.api('/v1/payment/list', {});
    expect(p1.status).toBe(200);
    expect(p1.body.result.items.map((i: any) => i.order_id)).toEqual(Array.from({ length: 15 }, (_, i) => `h-${34 - i}`));
    expect(p1.body.result.paginate).toMatchObject({ count: 15, hasPages: true, previousCursor: null, perPage: 15 });
    const c2 = p1.body.result.paginate.nextCursor;
    const p2 = await gw.api(`/v1/payment/list?cursor=${encodeURIComponent(c2)}`, {});
    expect(p2.body.result.items[0].order_id).toBe('h-19');
    const p3 = await gw.api('/v1/payment/list', { cursor: p2.body.result.paginate.nextCursor });
    expect(p3.body.result.items.map((i: any) => i.order_id)).toEqual(['h-4', 'h-3', 'h-2', 'h-1', 'h-0']);
    expect(p3.body.result.paginate).toMatchObject({ count: 5, nextCursor: null, hasPages: true });
    const back = await gw.api(`/v1/payment/list?cursor=${encodeURIComponent(p3.body.result.paginate.previousCursor)}`, {});
    expect(back.body.result.items.map((i: any) => i.order_id)).toEqual(p2.body.result.items.map((i: any) => i.order_id));
    const back2 = await gw.api(`/v1/payment/list?cursor=${encodeURIComponent(back.body.result.paginate.previousCursor)}`, {});
    expect(back2.body.result.items[0].order_id).toBe('h-34');
    expect(back2.body.result.paginate.previousCursor).toBeNull();
  });

  it('keeps pages stable while new invoices arrive', async () => {
    const p1 = await gw.api('/v1/payment/list', {});
    await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'late-arrival' });
    const p2 = await gw.api('/v1/payment/list', { cursor: p1.body.result.paginate.nextCursor });
    expect(p2.body.result.items[0].order_id).toBe('h-19');
  });

  it('filters by creation date, inclusive, in the spec format at UTC+3', async () => {
    const r = await gw.api('/v1/payment/list', { date_from: '2026-01-15 15:02:00', date_to: '2026-01-15 15:04:00' });
    expect(r.body.result.items.map((i: any) => i.order_id)).toEqual(['h-4', 'h-3', 'h-2']);
    expect(r.body.result.paginate).toMatchObject({ count: 3, hasPages: false, nextCursor: null, previousCursor: null });
    const oneDigitHour = await gw.api('/v1/payment/list', { date_to: '2026-01-15 9:00:00' });
    expect(oneDigitHour.body.result.items).toEqual([]);
  });

  it('answers validation.regex for a badly formatted date', async () => {
    for (const [field, value] of [['date_from', '2026-01-15'], ['date_to', '15.01.2026 10:00:00'], ['date_from', '2026-13-01 00:00:00'], ['date_to', '2026-02-30 00:00:00']]) {
      const r = await gw.api('/v1/payment/list', { [field!]: value });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ state: 1, errors: { [field!]: ['validation.regex'] } });
    }
  });

  it('reads a cursor that does not decode as the first page (the PHP SDK always sends "1")', async () => {
    const first = (await gw.api('/v1/payment/list', {})).body.result;
    for (const [path, body] of [['/v1/payment/list', { cursor: '1' }], ['/v1/payment/list?cursor=garbage', {}], ['/v1/payment/list', { cursor: 1 }], ['/v1/payment/list', { cursor: ['x'] }]] as const) {
      const r = await gw.api(path, body);
      expect(r.status).toBe(200);
      expect(r.body.result).toEqual(first);
    }
  });

  it('returns the QR of an invoice address, and validates merchant_payment_uuid', async () => {
    const r = await gw.api('/v1/payment/qr', { merchant_payment_uuid: made[0]!.uuid });
    expect(r.status).toBe(200);
    expect(r.body.result.image).toMatch(/^data:image\/png;base64,/);
    expect(r.body.result.image).toBe(made[0]!.address_qr_code);
    expect((await gw.api('/v1/payment/qr', {})).body).toEqual({ state: 1, errors: { merchant_payment_uuid: ['validation.required'] } });
    expect((await gw.api('/v1/payment/qr', { merchant_payment_uuid: 'x' })).body).toEqual({ state: 1, errors: { merchant_payment_uuid: ['validation.uuid'] } });
    expect((await gw.api('/v1/payment/qr', { merchant_payment_uuid: '00000000-0000-4000-8000-000000000000' })).body).toEqual({ state: 1, message: 'Payment not found' });
  });
});
