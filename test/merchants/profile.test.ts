// The merchant's public profile: validation, storage on both databases, the logo as the gateway
// serves it, and what the payer API shows of it (and nothing more).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { detectLogoType, getProfile, ProfileError, updateProfile, validateProfilePatch } from '../../src/merchants/profile.ts';
import { NotFoundError } from '../../src/errors.ts';
import { solidPng } from './png.ts';

const png = solidPng(16, [200, 30, 90]);
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.from([24, 0, 0, 0]), Buffer.from('WEBPVP8L'), Buffer.alloc(12)]);
const svg = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

describe('profile validation', () => {
  it('tells PNG, JPEG and WebP apart by their bytes', () => {
    expect(detectLogoType(png)).toBe('image/png');
    expect(detectLogoType(jpeg)).toBe('image/jpeg');
    expect(detectLogoType(webp)).toBe('image/webp');
  });

  it('refuses SVG, other formats, empty and oversized files', () => {
    expect(() => detectLogoType(svg)).toThrow(/SVG logos are not accepted/);
    expect(() => detectLogoType(Buffer.from('  <svg onload="x()"/>'))).toThrow(/SVG/);
    expect(() => detectLogoType(Buffer.from('GIF89a......'))).toThrow('The logo must be a PNG, JPEG or WebP image');
    expect(() => detectLogoType(Buffer.alloc(0))).toThrow('The logo is empty');
    // A PNG signature alone is not a PNG: the IHDR chunk must follow.
    expect(() => detectLogoType(png.subarray(0, 8))).toThrow(ProfileError);
    const big = Buffer.concat([png, Buffer.alloc(256 * 1024 - png.length + 1)]);
    expect(() => detectLogoType(big)).toThrow('The logo must be at most 256 KB');
    expect(detectLogoType(big.subarray(0, 256 * 1024))).toBe('image/png');
  });

  it('checks the name, the colour and the theme', () => {
    expect(validateProfilePatch({ display_name: '  Café Zürich  ', accent: '#AbCdEf', theme: 'dark' })).toEqual({ display_name: 'Café Zürich', accent: '#abcdef', theme: 'dark' });
    expect(validateProfilePatch({ display_name: '', accent: '' })).toEqual({ display_name: null, accent: null });
    expect(() => validateProfilePatch({ display_name: 'Shop\u202eevil' })).toThrow('The display name contains control characters');
    expect(() => validateProfilePatch({ display_name: 'x'.repeat(81) })).toThrow('at most 80 characters');
    expect(() => validateProfilePatch({ accent: 'red' })).toThrow('The accent colour must be #RRGGBB');
    expect(() => validateProfilePatch({ accent: '#abc' })).toThrow('#RRGGBB');
    expect(() => validateProfilePatch({ theme: 'blue' })).toThrow('The theme must be dark, light or auto');
    expect(() => validateProfilePatch({ logo: 'not bytes' })).toThrow('The logo must be image bytes');
  });

  it('checks the default language against the page\'s languages; auto clears it', () => {
    expect(validateProfilePatch({ language: 'DE' })).toEqual({ language: 'de' });
    expect(validateProfilePatch({ language: 'fa' })).toEqual({ language: 'fa' });
    expect(validateProfilePatch({ language: 'auto' })).toEqual({ language: null });
    expect(validateProfilePatch({ language: '' })).toEqual({ language: null });
    for (const bad of ['xx', 'de-DE', 'english', 3]) expect(() => validateProfilePatch({ language: bad })).toThrow('The language must be one of en, es');
  });
});

describe.each(await backends())('merchant profile on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend, { env: { SATCHEL_PAYER_RATE_LIMIT: '1000' } });
  });
  afterAll(async () => gw?.close());

  it('is empty until set, then keeps what a partial update does not name', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'Internal name');
    expect(await getProfile(gw.ctx.storage.db, m.id)).toMatchObject({ display_name: null, accent: null, theme: 'auto', logo: null, updated_at: null });
    await updateProfile(gw.ctx.storage.db, m.id, { display_name: 'Corner Café', accent: '#FF8800', theme: 'light', logo: png }, 1000);
    const p = await updateProfile(gw.ctx.storage.db, m.id, { theme: 'dark' }, 2000);
    expect(p).toEqual({
      merchant_id: m.id,
      display_name: 'Corner Café',
      accent: '#ff8800',
      theme: 'dark',
      language: null,
      logo: { type: 'image/png', sha256: createHash('sha256').update(png).digest('hex'), bytes: png.length },
      updated_at: 2000,
    });
    const cleared = await updateProfile(gw.ctx.storage.db, m.id, { logo: null, accent: null, display_name: '' }, 3000);
    expect(cleared).toMatchObject({ display_name: null, accent: null, theme: 'dark', logo: null });
  });

  it('writes nothing when one field is refused, and refuses an unknown merchant', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'Other');
    await updateProfile(gw.ctx.storage.db, m.id, { display_name: 'Kept' });
    await expect(updateProfile(gw.ctx.storage.db, m.id, { display_name: 'Changed', logo: svg })).rejects.toThrow(ProfileError);
    expect((await getProfile(gw.ctx.storage.db, m.id)).display_name).toBe('Kept');
    await expect(updateProfile(gw.ctx.storage.db, '00000000-0000-4000-8000-000000000000', { theme: 'dark' })).rejects.toThrow(NotFoundError);
  });

  it('serves the logo from the gateway with its exact type, nosniff and a sandbox', async () => {
    const p = await updateProfile(gw.ctx.storage.db, gw.merchant.id, { display_name: 'Test Shop Ltd', logo: webp, accent: '#0a7f5a' });
    const url = `/logos/${p.logo!.sha256}.webp`;
    const res = await gw.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.rawPayload.equals(webp)).toBe(true);
    expect((await gw.app.inject({ method: 'GET', url, headers: { 'if-none-match': res.headers.etag as string } })).statusCode).toBe(304);
    // Wrong extension, unknown hash, junk: a plain 404 envelope.
    for (const bad of [`/logos/${p.logo!.sha256}.png`, `/logos/${'0'.repeat(64)}.webp`, '/logos/..%2Fetc.png']) {
      const r = await gw.app.inject({ method: 'GET', url: bad });
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ state: 1, message: 'Not found' });
    }
  });

  it('shows payers the public profile and nothing else of the merchant', async () => {
    const p = await updateProfile(gw.ctx.storage.db, gw.merchant.id, { display_name: 'Test Shop Ltd', logo: png, accent: '#0A7F5A', theme: 'dark', language: 'tr' });
    const inv = (await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'profile-1' })).body.result;
    const view = (await gw.app.inject({ method: 'GET', url: `/api/pay/${inv.uuid}` })).json().result;
    expect(view.merchant).toEqual({ display_name: 'Test Shop Ltd', logo_url: `/logos/${p.logo!.sha256}.png`, accent: '#0a7f5a', theme: 'dark', language: 'tr' });
    const text = JSON.stringify(view);
    for (const secret of [gw.merchant.id, gw.merchant.payment_key, gw.merchant.payout_key, 'Test shop"']) expect(text).not.toContain(secret);
    // A merchant without a profile: every field empty, the internal name never shown.
    await updateProfile(gw.ctx.storage.db, gw.merchant.id, { display_name: null, logo: null, accent: null, theme: 'auto', language: 'auto' });
    const bare = (await gw.app.inject({ method: 'GET', url: `/api/pay/${inv.uuid}` })).json().result;
    expect(bare.merchant).toEqual({ display_name: null, logo_url: null, accent: null, theme: null, language: null });
  });
});
