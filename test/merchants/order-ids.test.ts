// One order_id names one invoice or one static wallet (the spec), also when both are requested at
// the same moment: the claim in src/merchants/order-ids.ts is a primary key, not a look-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

describe.each(await backends())('order_id shared by invoices and static wallets on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => gw?.close());

  const invoice = (orderId: string) => gw.api('/v1/payment', { amount: '10', currency: 'USD', order_id: orderId });
  const wallet = (orderId: string) => gw.api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: orderId });
  const UNIQUE = { state: 1, errors: { order_id: ['validation.unique'] } };
  const count = async (table: 'invoices' | 'static_wallets', orderId: string) =>
    (await gw.ctx.storage.db.selectFrom(table).select('id').where('merchant_id', '=', gw.merchant.id).where('order_id', '=', orderId).execute()).length;

  it('an invoice and a static wallet racing for one order_id: exactly one is created, the other is refused', async () => {
    for (let round = 0; round < 15; round++) {
      const orderId = `race-${round}`;
      // Several of each at once, interleaved, so that on PostgreSQL the transactions overlap.
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === round % 2 ? invoice(orderId) : wallet(orderId))));
      const invoices = await count('invoices', orderId);
      const wallets = await count('static_wallets', orderId);
      expect(invoices + wallets).toBe(1);
      const winner = invoices === 1 ? 'invoice' : 'wallet';
      for (const [i, r] of answers.entries()) {
        const isInvoice = i % 2 === round % 2;
        if (isInvoice === (winner === 'invoice')) expect(r.status).toBe(200); // the winner, or the same record again
        else expect([r.status, r.body]).toEqual([422, UNIQUE]);
      }
    }
  });

  it('keeps refusing the other kind afterwards, and answers the same record to its own kind', async () => {
    const first = await invoice('after-1');
    expect(first.status).toBe(200);
    expect((await wallet('after-1')).body).toEqual(UNIQUE);
    expect((await invoice('after-1')).body.result.uuid).toBe(first.body.result.uuid);
    const w = await wallet('after-2');
    expect(w.status).toBe(200);
    expect((await invoice('after-2')).body).toEqual(UNIQUE);
    expect(await count('invoices', 'after-2')).toBe(0);
  });
});
