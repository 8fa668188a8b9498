// A webhook body is signed like a request (same formula, same key), so a leaked one, minus its
// `sign`, must still never be accepted as a request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { simulatePay } from '../../src/simulator/payments.ts';
import { createWorkers } from '../../src/worker/index.ts';
import { phpJsonEncode } from '../../src/webhooks/php-json.ts';

describe.each(await backends())('webhook bodies are not requests on $name', (backend) => {
  let gw: TestGateway;
  let rx: Receiver;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await gw?.close();
    await rx?.close();
  });

  it('a delivered webhook, minus sign, is refused by every signed route with 401 and changes nothing', async () => {
    const created = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'leak-1', url_callback: rx.url });
    await simulatePay(gw.ctx, { invoice: created.body.result.uuid });
    await createWorkers(gw.ctx).tick();
    const hook = rx.deliveries.find((d) => d.json.uuid === created.body.result.uuid)!;
    expect(hook.json.is_final).toBe(true);
    const { sign, ...rest } = hook.json as Record<string, unknown>;
    const body = phpJsonEncode(rest);
    const resendsBefore = await gw.ctx.storage.db.selectFrom('webhooks').select('id').execute();
    for (const path of ['/v1/payment/info', '/v1/payment/resend', '/v2/payment/resend', '/v1/wallet/block-address']) {
      const res = await gw.app.inject({
        method: 'POST',
        url: path,
        payload: body,
        headers: { 'content-type': 'application/json', merchant: gw.merchant.id, sign: String(sign) },
      });
      expect(res.statusCode, path).toBe(401);
      expect(res.json()).toEqual({ state: 1, message: 'Invalid Sign.' });
    }
    expect(await gw.ctx.storage.db.selectFrom('webhooks').select('id').execute()).toHaveLength(resendsBefore.length);
  });

  it('a webhook-shaped body signed as a request is refused by every route that changes anything; an ordinary request still passes', async () => {
    for (const extra of [{ is_final: true }, { type: 'payment' }, { type: 'payout' }, { type: 'wallet' }]) {
      const res = await gw.api('/v1/payment/resend', { order_id: 'leak-1', ...extra });
      expect(res.status).toBe(401);
    }
    expect((await gw.api('/v1/payment/info', { order_id: 'leak-1' })).status).toBe(200);
  });

  it('a received webhook body passed on to the info routes and signed as a request is answered', async () => {
    const created = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'pass-on-1', url_callback: rx.url });
    await simulatePay(gw.ctx, { invoice: created.body.result.uuid });
    await createWorkers(gw.ctx).tick();
    const hook = rx.deliveries.find((d) => d.json.uuid === created.body.result.uuid)!;
    // What shop code does: the whole received body (its `sign` included) as parameters, signed as a request.
    const info = await gw.api('/v1/payment/info', hook.json);
    expect(info.status, JSON.stringify(info.body)).toBe(200);
    expect(info.body.result.uuid).toBe(created.body.result.uuid);
    // The received bytes as they arrived, re-signed as a request, work too.
    expect((await gw.api('/v1/payment/info', hook.body)).status).toBe(200);
    // The payout info route takes a payout webhook's body the same way (here: no such payout).
    const payout = await gw.api('/v1/payout/info', { uuid: '00000000-0000-4000-8000-000000000001', type: 'payout', is_final: true, status: 'paid', sign: 'x'.repeat(32) }, { key: 'payout' });
    expect(payout.body).not.toEqual({ state: 1, message: 'Invalid Sign.' });
    expect(payout.status).not.toBe(401);

    // The same body on routes that change something is refused, and nothing is created.
    const before = await gw.ctx.storage.db.selectFrom('invoices').select('id').execute();
    const create = await gw.api('/v1/payment', { ...hook.json, amount: '10', currency: 'USDT', order_id: 'pass-on-2' });
    expect([create.status, create.body]).toEqual([401, { state: 1, message: 'Invalid Sign.' }]);
    const refund = await gw.api('/v1/payment/refund', { ...hook.json, address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', is_subtract: true }, { key: 'payout' });
    expect([refund.status, refund.body]).toEqual([401, { state: 1, message: 'Invalid Sign.' }]);
    expect(await gw.ctx.storage.db.selectFrom('invoices').select('id').execute()).toHaveLength(before.length);

    // A webhook replayed as a request with its own signature is refused on info too: as received
    // (`sign` in the body), and minus `sign` with the signature as the header.
    const { sign, ...rest } = hook.json as Record<string, unknown>;
    for (const payload of [hook.body, phpJsonEncode(rest)]) {
      const res = await gw.app.inject({ method: 'POST', url: '/v1/payment/info', payload, headers: { 'content-type': 'application/json', merchant: gw.merchant.id, sign: String(sign) } });
      expect([res.statusCode, res.json()]).toEqual([401, { state: 1, message: 'Invalid Sign.' }]);
    }
  });
});
