// The refund-key setting: by default /v1/payment/refund takes only the payout key (the spec's
// rule, today's answer for the payment key); `either` accepts the payment key too. Changed by an
// owner in the dashboard (a viewer cannot) or with `satchel merchant set`, and audited. Both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { simulatePay } from '../../src/simulator/payments.ts';
import { ADDR, startMoneyGateway } from '../payouts/harness.ts';
import { signedInOwner, type Browser } from '../dashboard/browser.ts';
import { merchantSetCli } from '../../src/cli/merchant-set.ts';

describe.each(await backends())('refund key setting on $name', (backend) => {
  let gw: TestGateway;
  let owner: Browser;
  let viewer: Browser;
  let n = 0;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
    owner = await signedInOwner(gw, 'owner', 'refund-owner@shop.example');
    viewer = await signedInOwner(gw, 'viewer', 'refund-viewer@shop.example');
  });
  afterAll(async () => {
    await gw?.close();
  });

  const paidInvoice = async () => {
    const r = await gw.api('/v1/payment', { amount: '100', currency: 'USDT', network: 'TRON', order_id: `rk-${++n}` });
    expect(r.status).toBe(200);
    await simulatePay(gw.ctx, { invoice: r.body.result.uuid });
    return r.body.result.uuid as string;
  };
  const refund = (uuid: string, key: 'payment' | 'payout') => gw.api('/v1/payment/refund', { uuid, address: ADDR.TRON, is_subtract: true, amount: '10' }, { key });

  it('by default refuses a refund signed with the payment key, with the unauthorised answer; the payout key works', async () => {
    const uuid = await paidInvoice();
    const wrongKey = await gw.api('/v1/payment/refund', { uuid, address: ADDR.TRON, is_subtract: true }, { headers: { sign: '0'.repeat(32) } });
    const r = await refund(uuid, 'payment');
    expect(r.status).toBe(401);
    expect(r.body).toEqual(wrongKey.body);
    expect((await gw.ctx.storage.db.selectFrom('payouts').select('id').where('kind', '=', 'refund').execute())).toHaveLength(0);
    expect((await owner.call('GET', '/refund-key')).body.result).toEqual({ refund_key: 'payout' });
    expect((await refund(uuid, 'payout')).status).toBe(200);
  });

  it('a viewer cannot change it; an owner can, it is audited, and then the payment key refunds too', async () => {
    const refused = await viewer.call('POST', '/refund-key', { refund_key: 'either' });
    expect(refused.status).toBe(403);
    expect((await viewer.call('GET', '/refund-key')).body.result).toEqual({ refund_key: 'payout' });
    expect((await owner.call('POST', '/refund-key', { refund_key: 'any' })).status).toBe(422);
    const set = await owner.call('POST', '/refund-key', { refund_key: 'either' });
    expect([set.status, set.body.result]).toEqual([200, { refund_key: 'either' }]);
    const log = (await owner.call('GET', '/audit')).body.result.filter((e: any) => e.action === 'refund_key');
    expect(log[0]).toMatchObject({ email: 'refund-owner@shop.example', target: 'either', detail: { from: 'payout', to: 'either' } });

    const uuid = await paidInvoice();
    expect((await refund(uuid, 'payment')).status).toBe(200);
    const again = await paidInvoice();
    expect((await refund(again, 'payout')).status).toBe(200);
  });

  it('satchel merchant set switches it back, audited with the actor cli', async () => {
    const env = { SATCHEL_DATA_DIR: gw.config.dataDir, ...(gw.config.databaseUrl ? { DATABASE_URL: gw.config.databaseUrl } : {}), SATCHEL_MNEMONIC: 'x', LOG_LEVEL: 'silent' };
    const lines: string[] = [];
    const out = { log: (s: string) => lines.push(s), error: (s: string) => lines.push(s) };
    expect(await merchantSetCli(['--merchant', gw.merchant.id, '--refund-key', 'maybe'], out, env)).toBe(2);
    expect(await merchantSetCli(['--merchant', gw.merchant.id, '--refund-key', 'payout'], out, env)).toBe(0);
    expect(lines.at(-1)).toContain('must be signed with the payout key');
    gw.ctx.merchants.invalidate(gw.merchant.id); // the gateway's merchant cache would take up to 2 s
    const uuid = await paidInvoice();
    expect((await refund(uuid, 'payment')).status).toBe(401);
    expect((await refund(uuid, 'payout')).status).toBe(200);
    const log = (await owner.call('GET', '/audit')).body.result.filter((e: any) => e.action === 'refund_key');
    expect(log[0]).toMatchObject({ email: 'cli', target: 'payout', detail: { from: 'either', to: 'payout' } });
  });
});
