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

  it('the same body signed as a request is refused too; an ordinary request still passes', async () => {
    for (const extra of [{ is_final: true }, { type: 'payment' }, { type: 'payout' }, { type: 'wallet' }]) {
      const res = await gw.api('/v1/payment/info', { order_id: 'leak-1', ...extra });
      expect(res.status).toBe(401);
    }
    expect((await gw.api('/v1/payment/info', { order_id: 'leak-1' })).status).toBe(200);
  });
});
