// Each dashboard user's language, kept on the server (migration 026): /me says it (null until the
// user chooses: the browser's then), POST /me/language sets or clears it for that user only, and
// refuses anything that is not one of the payment page's languages with nothing changed, on both
// databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { browser, signedInOwner } from './browser.ts';
import { PAGE_LANGUAGES } from '../../src/contracts/payer.ts';

describe.each(await backends())('dashboard user language on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => {
    await gw?.close();
  });

  const stored = async (email: string) =>
    (await gw.ctx.storage.db.selectFrom('dashboard_users').select('language').where('email', '=', email).executeTakeFirstOrThrow()).language;

  it('is null until chosen, then kept per user and said by /me after signing in again', async () => {
    const owner = await signedInOwner(gw, 'owner', 'lang-owner@shop.example');
    const viewer = await signedInOwner(gw, 'viewer', 'lang-viewer@shop.example');
    expect((await owner.call('GET', '/me')).body.result.user.language).toBeNull();

    const set = await owner.call('POST', '/me/language', { language: 'ar' });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ state: 0, result: { language: 'ar' } });
    expect((await owner.call('GET', '/me')).body.result.user.language).toBe('ar');
    expect(await stored('lang-owner@shop.example')).toBe('ar');

    // A viewer may choose their own language too; the owner's stays.
    expect((await viewer.call('POST', '/me/language', { language: 'ja' })).body.result).toEqual({ language: 'ja' });
    expect((await viewer.call('GET', '/me')).body.result.user.language).toBe('ja');
    expect((await owner.call('GET', '/me')).body.result.user.language).toBe('ar');

    // A new session (another browser) gets the same language from sign-in.
    const again = browser(gw, '10.0.0.9');
    const login = await again.call('POST', '/login', { email: 'lang-owner@shop.example', password: 'correct horse battery' });
    expect(login.status).toBe(200);
    expect(login.body.result.user.language).toBe('ar');

    // Every payment page language is accepted; "" and null go back to the browser's.
    for (const code of PAGE_LANGUAGES) expect((await owner.call('POST', '/me/language', { language: code })).body.result.language).toBe(code);
    expect((await owner.call('POST', '/me/language', { language: '' })).body.result).toEqual({ language: null });
    expect(await stored('lang-owner@shop.example')).toBeNull();
    await owner.call('POST', '/me/language', { language: 'de' });
    expect((await owner.call('POST', '/me/language', { language: null })).body.result).toEqual({ language: null });
    expect((await owner.call('GET', '/me')).body.result.user.language).toBeNull();
  });

  it('refuses an unknown language, a wrong type and a request without CSRF; nothing changes', async () => {
    const owner = await signedInOwner(gw, 'owner', 'lang-refused@shop.example');
    await owner.call('POST', '/me/language', { language: 'fr' });
    for (const language of ['xx', 'EN', 'en-US', '__proto__', 'toString']) {
      const r = await owner.call('POST', '/me/language', { language });
      expect(r.status).toBe(422);
      expect(r.body.state).toBe(1);
      expect(r.body.message).toMatch(/^The language must be one of en, es, .* or empty for the browser's\.$/);
    }
    // Text the dashboard's body rules refuse before the route sees it (a NUL, a huge value): 422 too.
    for (const language of ['ar\u0000', 'x'.repeat(10_000)]) {
      const r = await owner.call('POST', '/me/language', { language });
      expect(r.status).toBe(422);
      expect(r.body.state).toBe(1);
    }
    for (const language of [5, true, ['ar'], { code: 'ar' }]) {
      const r = await owner.call('POST', '/me/language', { language });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.body.state).toBe(1);
    }
    const noCsrf = await owner.call('POST', '/me/language', { language: 'de' }, { 'x-csrf-token': 'wrong' });
    expect(noCsrf.status).toBe(403);
    expect(await stored('lang-refused@shop.example')).toBe('fr');
    expect((await browser(gw).call('POST', '/me/language', { language: 'de' })).status).toBe(401);
  });

  it('shows a stored language the dashboard no longer knows as none, never failing /me', async () => {
    const owner = await signedInOwner(gw, 'owner', 'lang-stale@shop.example');
    await gw.ctx.storage.db.updateTable('dashboard_users').set({ language: 'tlh' }).where('email', '=', 'lang-stale@shop.example').execute();
    const me = await owner.call('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.result.user.language).toBeNull();
  });
});
