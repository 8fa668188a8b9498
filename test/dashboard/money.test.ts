// The dashboard's payouts, API keys and public profile as an owner and a viewer use them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { ADDR, fund, startMoneyGateway } from '../payouts/harness.ts';
import { signedInOwner, type Browser } from './browser.ts';

describe.each(await backends())('dashboard payouts and settings on $name', (backend) => {
  let gw: TestGateway;
  let owner: Browser;
  let viewer: Browser;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
    owner = await signedInOwner(gw, 'owner', 'owner@money.example');
    viewer = await signedInOwner(gw, 'viewer', 'viewer@money.example');
    await fund(gw, 'USDT', '100');
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('calculates a payout as /v1/payout/calc does, then creates it; a viewer can do neither', async () => {
    const form = { amount: '10', currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: false };
    const calc = await owner.call('POST', '/payouts/calc', form);
    const signed = await gw.api('/v1/payout/calc', form, { key: 'payout' });
    expect(calc.body).toEqual(signed.body);
    expect(calc.body.result).toEqual({ commission: expect.any(String), merchant_amount: '10.00', payout_amount: expect.any(String) });
    expect((await viewer.call('POST', '/payouts/calc', form)).status).toBe(403);
    expect((await viewer.call('POST', '/payouts', { ...form, order_id: 'v-1' })).status).toBe(403);
    const created = await owner.call('POST', '/payouts', { ...form, order_id: 'dash-payout-1' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.result).toMatchObject({ uuid: expect.any(String), amount: '10.00', status: 'process' });
    const list = (await viewer.call('GET', '/payouts')).body.result;
    expect(list.items.map((p: any) => p.order_id)).toEqual(['dash-payout-1']);
    const detail = (await viewer.call('GET', `/payouts/${created.body.result.uuid}`)).body.result;
    expect(detail).toMatchObject({ uuid: created.body.result.uuid, address: ADDR.TRON });
    const bad = await owner.call('POST', '/payouts/calc', { ...form, amount: 'ten' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('amount');
    const log = (await owner.call('GET', '/audit')).body.result.map((e: any) => `${e.action} ${e.target}`);
    expect(log).toContain('payout_create dash-payout-1');
  });

  it('rotates a key after confirmation: the new key once, the old one refused at once', async () => {
    expect((await viewer.call('GET', '/keys')).status).toBe(403);
    expect((await viewer.call('POST', '/keys/rotate', { kind: 'payment', confirm: true })).status).toBe(403);
    const before = (await owner.call('GET', '/keys')).body.result;
    expect(before.payment).toBe(gw.merchant.payment_key.slice(0, 6));
    expect(JSON.stringify(before)).not.toContain(gw.merchant.payment_key);
    expect((await owner.call('POST', '/keys/rotate', { kind: 'payment' })).body.message).toBe('Confirm the rotation: the current key stops working at once.');
    const r = await owner.call('POST', '/keys/rotate', { kind: 'payment', confirm: true });
    expect(r.status).toBe(200);
    const key = r.body.result.key as string;
    expect(key).toMatch(/^[\w-]{64}$/);
    expect((await owner.call('GET', '/keys')).body.result.payment).toBe(key.slice(0, 6));
    const old = await gw.api('/v1/payment/list', {});
    expect(old.status).toBe(401);
    const fresh = await gw.api('/v1/payment/list', {}, { merchant: { ...gw.merchant, payment_key: key } });
    expect(fresh.status).toBe(200);
    const log = (await owner.call('GET', '/audit')).body.result.map((e: any) => `${e.action} ${e.target}`);
    expect(log).toContain('key_rotate payment');
  });

  it('edits the public profile through the payer page module, with its validation', async () => {
    const saved = await owner.call('POST', '/profile', { display_name: 'Corner <b>Shop</b>', accent: '#3366FF', theme: 'dark' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.result).toMatchObject({ display_name: 'Corner <b>Shop</b>', accent: '#3366ff', theme: 'dark' });
    expect((await viewer.call('GET', '/profile')).body.result.display_name).toBe('Corner <b>Shop</b>');
    expect((await viewer.call('POST', '/profile', { theme: 'light' })).status).toBe(403);
    const bad = await owner.call('POST', '/profile', { accent: 'javascript:alert(1)' });
    expect(bad.status).toBe(422);
  });
});
