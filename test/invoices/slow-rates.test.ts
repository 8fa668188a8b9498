// A payment is recorded while the exchanges hang: its USD value is left empty rather than holding
// the transaction (and, on SQLite, every other write) until a slow exchange answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { simulatePay } from '../../src/simulator/payments.ts';
import type { Rates } from '../../src/context.ts';

describe.each(await backends())('payments while the exchanges hang, on $name', (backend) => {
  let gw: TestGateway;
  let asked = 0;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('credits the payment at once, without a USD value', async () => {
    const created = await gw.api('/v1/payment', { amount: '0.5', currency: 'ETH', network: 'ETH', order_id: 'slow-1' });
    expect(created.status).toBe(200);
    const uuid = created.body.result.uuid as string;
    let release: (rate: string) => void = () => {};
    const price = new Promise<string>((r) => (release = r));
    const hanging: Rates = {
      quote: async () => {
        asked++;
        return { rate: await price, source: 'static', quotes: [] };
      },
      sourceStats: () => [],
    };
    (gw.ctx as { rates: Rates }).rates = hanging;
    const started = Date.now();
    await simulatePay(gw.ctx, { invoice: uuid });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(asked).toBeGreaterThan(0);
    const info = (await gw.api('/v1/payment/info', { uuid })).body.result;
    expect(info).toMatchObject({ payment_status: 'paid' });
    expect(info.payment_amount_usd ?? null).toBeNull();
    release('3000');
  });
});
