import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { ADDR, balance, fund, ledgerAgrees, startMoneyGateway } from './harness.ts';

describe.each(await backends())('concurrent payouts on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
  });
  afterAll(async () => gw?.close());

  it('50 concurrent payouts against a balance that covers 10: exactly 10 are accepted', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'race');
    await fund(gw, 'USDT', '110', 'business', m); // 10 x (10 + fee 1)
    const rs = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gw.api('/v1/payout', { amount: '10', currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: true, order_id: `race-${i}` }, { key: 'payout', merchant: m }),
      ),
    );
    const accepted = rs.filter((r) => r.status === 200);
    const refused = rs.filter((r) => r.status !== 200);
    expect(accepted).toHaveLength(10);
    expect(accepted.every((r) => r.body.result.status === 'process')).toBe(true);
    expect(refused.map((r) => r.body)).toEqual(Array(40).fill({ state: 1, message: 'Not enough funds' }));
    expect(new Set(accepted.map((r) => r.body.result.balance)).size).toBe(10); // each saw its own remaining balance
    expect(await balance(gw, 'USDT', 'business', m)).toBe('0');
    expect(await ledgerAgrees(gw, 'USDT', 'business', m)).toBe(true);
    const rows = await gw.ctx.storage.db.selectFrom('payouts').select('id').where('merchant_id', '=', m.id).execute();
    expect(rows.map((r) => r.id).sort()).toEqual(accepted.map((r) => r.body.result.uuid).sort());
  });

  it('two payouts that together exceed the balance cannot both pass, also through /calc-then-create', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'pair');
    await fund(gw, 'USDT', '15', 'business', m);
    const body = (i: number) => ({ amount: '10', currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: true, order_id: `pair-${i}` });
    const calcs = await Promise.all([0, 1].map((i) => gw.api('/v1/payout/calc', body(i), { key: 'payout', merchant: m })));
    expect(calcs.every((c) => c.status === 200)).toBe(true); // each alone fits
    const rs = await Promise.all([0, 1].map((i) => gw.api('/v1/payout', body(i), { key: 'payout', merchant: m })));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 422]);
    expect(await balance(gw, 'USDT', 'business', m)).toBe('4');
  });
});
