// Lookups asked together share a query (src/db/batched-lookup.ts); on PostgreSQL invoice info goes
// through one. Each caller must still get its own row, never another merchant's, and failures must
// reach every caller of the failed query and no one else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchedLookup } from '../../src/db/batched-lookup.ts';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';

describe('BatchedLookup', () => {
  it('sends the keys asked for in one turn as one query, at most `concurrent` queries at once', async () => {
    const calls: string[][] = [];
    let open = 0;
    let most = 0;
    const lookup = new BatchedLookup<string, string>(
      async (keys) => {
        calls.push(keys);
        most = Math.max(most, ++open);
        await new Promise((r) => setTimeout(r, 5));
        open--;
        return new Map(keys.filter((k) => k !== 'none').map((k) => [k, `row ${k}`]));
      },
      (k) => k,
      { concurrent: 2, batch: 3 },
    );
    const keys = ['a', 'b', 'none', 'c', 'd', 'e', 'f', 'g'];
    const answers = await Promise.all(keys.map((k) => lookup.load(k)));
    expect(answers).toEqual(keys.map((k) => (k === 'none' ? undefined : `row ${k}`)));
    expect(calls).toEqual([['a', 'b', 'none'], ['c', 'd', 'e'], ['f', 'g']]);
    expect(most).toBe(2);
    // A lone key later goes out by itself.
    expect(await lookup.load('z')).toBe('row z');
    expect(calls.at(-1)).toEqual(['z']);
  });

  it('rejects every caller of a failed query, and only those', async () => {
    let fail = true;
    const lookup = new BatchedLookup<string, string>(
      async (keys) => {
        if (fail) {
          fail = false;
          throw new Error('database away');
        }
        return new Map(keys.map((k) => [k, k.toUpperCase()]));
      },
      (k) => k,
      { concurrent: 1, batch: 2 },
    );
    const results = await Promise.allSettled(['a', 'b', 'c'].map((k) => lookup.load(k)));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error('database away'));
    expect((results[2] as PromiseFulfilledResult<string>).value).toBe('C');
    // A fetch that throws before its promise does not stop the lookup either.
    const sync = new BatchedLookup<string, string>(
      (keys) => {
        if (keys.includes('x')) throw new Error('no');
        return Promise.resolve(new Map(keys.map((k) => [k, k])));
      },
      (k) => k,
    );
    await expect(sync.load('x')).rejects.toThrow('no');
    expect(await sync.load('y')).toBe('y');
  });
});

describe.each(await backends())('invoice info asked many at once on $name', (backend) => {
  let gw: TestGateway;
  let other: Merchant;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    other = await createMerchant(gw.ctx.storage.db, 'Other shop');
  });
  afterAll(async () => gw?.close());

  it("answers each request with its own merchant's invoice, by uuid and by order_id", async () => {
    const mine: string[] = [];
    const theirs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const body = { amount: `${i + 1}`, currency: 'USDT', network: 'TRON', order_id: `same-${i}` };
      mine.push((await gw.api('/v1/payment', body)).body.result.uuid);
      theirs.push((await gw.api('/v1/payment', { ...body, amount: `${i + 100}` }, { merchant: other })).body.result.uuid);
    }
    const asks: Array<{ merchant: Merchant; body: Record<string, string>; expect: string | null }> = [];
    for (let i = 0; i < 6; i++) {
      asks.push({ merchant: gw.merchant, body: { uuid: mine[i]! }, expect: mine[i]! });
      asks.push({ merchant: other, body: { uuid: theirs[i]!.toUpperCase() }, expect: theirs[i]! });
      asks.push({ merchant: gw.merchant, body: { order_id: `same-${i}` }, expect: mine[i]! });
      asks.push({ merchant: other, body: { order_id: `same-${i}` }, expect: theirs[i]! });
      // Another merchant's invoice is not found, by either key.
      asks.push({ merchant: other, body: { uuid: mine[i]! }, expect: null });
      asks.push({ merchant: gw.merchant, body: { order_id: `nobody-${i}` }, expect: null });
    }
    const answers = await Promise.all(asks.map((a) => gw.api('/v1/payment/info', a.body, { merchant: a.merchant })));
    answers.forEach((res, i) => {
      const ask = asks[i]!;
      if (ask.expect === null) {
        expect(res.status, JSON.stringify(ask.body)).toBe(422);
        expect(res.body).toEqual({ state: 1, message: 'Payment not found' });
      } else {
        expect(res.status, JSON.stringify(ask.body)).toBe(200);
        expect(res.body.result.uuid).toBe(ask.expect);
        expect(res.body.result.amount).toBe(ask.merchant === other ? `${100 + (i / 6 | 0)}.00` : `${(i / 6 | 0) + 1}.00`);
      }
    });
  });

  it("sees an invoice's change in the next request", async () => {
    const uuid = (await gw.api('/v1/payment', { amount: '3', currency: 'USDT', network: 'TRON', order_id: 'fresh-1' })).body.result.uuid;
    const before = await gw.api('/v1/payment/info', { uuid });
    expect(before.body.result.payment_status).not.toBe('paid');
    const paid = await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice: uuid } });
    expect(paid.statusCode).toBe(200);
    const after = await gw.api('/v1/payment/info', { uuid });
    expect(after.body.result.payment_status).toBe('paid');
  });
});
