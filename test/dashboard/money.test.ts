// The dashboard's payouts, API keys and public profile as an owner and a viewer use them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { ADDR, fund, startMoneyGateway } from '../payouts/harness.ts';
import { signedInOwner, type Browser } from './browser.ts';
import { solidPng } from '../merchants/png.ts';
import { PAGE_LANGUAGES } from '../../src/contracts/payer.ts';
import { LANGUAGES } from '../../src/page/i18n/index.ts';
import { PAGE_LANGUAGE_NAMES } from '../../src/dashboard-ui/languages.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** The payer API's view of a new invoice, signed with the merchant's current key (a test above rotates it). */
async function payerMerchant(gw: TestGateway, orderId: string) {
  const { payment_key } = await gw.ctx.storage.db.selectFrom('merchants').select('payment_key').where('id', '=', gw.merchant.id).executeTakeFirstOrThrow();
  const inv = await gw.api('/v1/payment', { amount: '5', currency: 'USDT', network: 'TRON', order_id: orderId }, { merchant: { ...gw.merchant, payment_key } });
  expect(inv.status, JSON.stringify(inv.body)).toBe(200);
  const payer = await gw.app.inject({ method: 'GET', url: `/api/pay/${inv.body.result.uuid}` });
  return JSON.parse(payer.body).result.merchant;
}

it("offers exactly the payment page's languages, named as the page names them", () => {
  expect(PAGE_LANGUAGE_NAMES.map(([code]) => code)).toEqual([...PAGE_LANGUAGES]);
  expect(PAGE_LANGUAGE_NAMES.map(([code, name]) => [code, name])).toEqual(LANGUAGES.map((l) => [l.code, l.name]));
});

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

  it('uploads a logo as the CLI stores it, served from /logos with its exact type; removes it', async () => {
    const png = solidPng(32, [10, 120, 200]);
    const up = await owner.call('POST', '/profile/logo', { image: b64(png) });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    const url = up.body.result.logo_url as string;
    expect(url).toMatch(/^\/logos\/[0-9a-f]{64}\.png$/);
    expect(up.body.result.logo).toEqual({ type: 'image/png', sha256: url.slice(7, 71), bytes: png.length });
    expect((await viewer.call('GET', '/profile')).body.result.logo_url).toBe(url);
    const served = await gw.app.inject({ method: 'GET', url });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.rawPayload.equals(png)).toBe(true);
    expect((await payerMerchant(gw, 'logo-order')).logo_url).toBe(url);
    const log = (await owner.call('GET', '/audit')).body.result.map((e: any) => `${e.action} ${e.target}`);
    expect(log).toContain('profile_logo upload');

    const removed = await owner.call('POST', '/profile/logo/remove', {});
    expect(removed.status).toBe(200);
    expect(removed.body.result).toMatchObject({ logo: null, logo_url: null });
    expect((await gw.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    expect((await owner.call('GET', '/audit')).body.result.map((e: any) => `${e.action} ${e.target}`)).toContain('profile_logo remove');
  });

  it('refuses a logo that is too large, SVG or not an image, with a clear message and nothing stored', async () => {
    const png = solidPng(8, [0, 0, 0]);
    const big = Buffer.concat([png, Buffer.alloc(256 * 1024 + 1 - png.length)]);
    const cases: Array<[string, unknown, number, string, string?]> = [
      ['just over 256 KB', b64(big), 422, 'The logo must be at most 256 KB'],
      // Where the envelope carries a code, the dashboard words the refusal by it.
      ['far over the body limit', 'A'.repeat(600 * 1024), 413, 'The logo must be at most 256 KB', 'too_large'],
      ['SVG', b64(Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>')), 422, 'SVG logos are not accepted (they can carry script): use PNG, JPEG or WebP'],
      ['a GIF', b64(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')), 422, 'The logo must be a PNG, JPEG or WebP image'],
      ['a PDF', b64(Buffer.from('%PDF-1.4\n%âãÏÓ\n')), 422, 'The logo must be a PNG, JPEG or WebP image'],
      ['not base64', 'iVBOR<script>', 422, 'The logo must be sent as base64.', 'logo_not_base64'],
      ['no file', undefined, 422, 'Choose a PNG, JPEG or WebP file.', 'logo_missing'],
      ['a number', 12, 422, 'Choose a PNG, JPEG or WebP file.', 'logo_missing'],
    ];
    for (const [what, image, status, message, code] of cases) {
      const r = await owner.call('POST', '/profile/logo', image === undefined ? {} : { image });
      expect({ what, status: r.status, body: r.body }).toEqual({ what, status, body: code ? { state: 1, message, code } : { state: 1, message } });
    }
    expect((await owner.call('GET', '/profile')).body.result.logo).toBeNull();
  });

  it('lets only an owner upload a logo, and only with the CSRF token', async () => {
    const image = b64(solidPng(8, [1, 2, 3]));
    expect((await viewer.call('POST', '/profile/logo', { image })).status).toBe(403);
    expect((await viewer.call('POST', '/profile/logo/remove', {})).status).toBe(403);
    const csrf = owner.csrf;
    owner.csrf = null;
    try {
      const r = await owner.call('POST', '/profile/logo', { image });
      expect(r.status).toBe(403);
      expect(r.body.message).toMatch(/cross-site request check failed/);
      expect((await owner.call('POST', '/profile/logo', { image }, { origin: 'https://evil.example', 'x-csrf-token': csrf! })).status).toBe(403);
    } finally {
      owner.csrf = csrf;
    }
    expect((await owner.call('GET', '/profile')).body.result.logo).toBeNull();
  });

  it("saves the page's default language (or automatic) through the profile, owner only, audited", async () => {
    const saved = await owner.call('POST', '/profile', { language: 'de' });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.result.language).toBe('de');
    expect((await payerMerchant(gw, 'lang-order')).language).toBe('de');
    expect((await viewer.call('POST', '/profile', { language: 'fr' })).status).toBe(403);
    const bad = await owner.call('POST', '/profile', { language: 'xx' });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('The language must be one of en, es, pt, ru, tr, zh, ar, fa, de, fr, it, nl, pl, uk, ja, ko, id, vi, hi, th, or auto');
    expect((await owner.call('GET', '/profile')).body.result.language).toBe('de');
    const auto = await owner.call('POST', '/profile', { language: 'auto' });
    expect(auto.body.result.language).toBeNull();
    const log = (await owner.call('GET', '/audit')).body.result.filter((e: any) => e.action === 'profile_update').map((e: any) => e.detail);
    expect(log).toEqual(expect.arrayContaining([{ language: 'de' }, { language: 'auto' }]));
  });
});
