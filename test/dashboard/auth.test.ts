// Dashboard sign-in as a browser does it: set-password links, cookies, CSRF, throttling, expiry,
// roles and the audit log, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createUser, issueSetPasswordLink } from '../../src/dashboard/users.ts';
import { browser, signedInOwner } from './browser.ts';
import { IDLE_MS } from '../../src/dashboard/sessions.ts';
import { ACCOUNT_LIMIT, WINDOW_MS } from '../../src/dashboard/throttle.ts';

describe.each(await backends())('dashboard sign-in on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers 401 to every /api/dashboard path without a session, never a redirect', async () => {
    const b = browser(gw);
    for (const path of ['/me', '/users', '/audit', '/no-such-thing']) {
      const r = await b.call('GET', path);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ state: 1, message: 'Sign in to continue.', code: 'session_required' });
    }
    expect((await b.call('POST', '/logout')).status).toBe(401);
    expect((await b.call('GET', '/me', undefined, { cookie: 'satchel_session=' + 'x'.repeat(43) })).status).toBe(401);
  });

  it('sets a password once through the link, signs in with an HttpOnly Lax Secure cookie, and stores only hashes', async () => {
    const user = await createUser(gw.ctx.storage, { merchantId: gw.merchant.id, email: 'Link@Shop.example', role: 'owner' }, gw.clock.now);
    expect(user.email).toBe('link@shop.example');
    const token = await issueSetPasswordLink(gw.ctx.storage, user.id, gw.clock.now);
    const b = browser(gw);
    expect((await b.call('POST', '/link', { token })).body.result).toEqual({ email: 'link@shop.example', has_password: false });
    const short = await b.call('POST', '/set-password', { token, password: 'short' });
    expect(short.status).toBe(422);
    expect(short.body.message).toBe('The password needs at least 10 characters.');
    const ok = await b.call('POST', '/set-password', { token, password: 'a long enough secret' });
    expect(ok.status).toBe(200);
    expect(ok.setCookie).toMatch(/^__Host-satchel_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200; Secure$/);
    expect(ok.body.result.user).toMatchObject({ email: 'link@shop.example', role: 'owner' });
    expect(ok.body.result.merchant.id).toBe(gw.merchant.id);
    const me = await b.call('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.result.can_manage).toBe(true);

    // The link is spent; the raw token and the cookie are nowhere in the database.
    expect((await browser(gw).call('POST', '/set-password', { token, password: 'another long secret' })).status).toBe(410);
    const cookieToken = b.cookie!.split('=')[1]!;
    const sessions = await gw.ctx.storage.db.selectFrom('dashboard_sessions').selectAll().execute();
    const links = await gw.ctx.storage.db.selectFrom('dashboard_links').selectAll().execute();
    expect(JSON.stringify(sessions)).not.toContain(cookieToken);
    expect(JSON.stringify(links)).not.toContain(token);
    const row = await gw.ctx.storage.db.selectFrom('dashboard_users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$15\$8\$1\$/);
  });

  it('signs in with email and password, refuses a wrong one without saying which part was wrong', async () => {
    await signedInOwner(gw, 'owner', 'login@shop.example', 'the right password');
    const b = browser(gw, '10.0.0.2');
    const wrong = await b.call('POST', '/login', { email: 'login@shop.example', password: 'the wrong password' });
    const unknown = await b.call('POST', '/login', { email: 'nobody@shop.example', password: 'the right password' });
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    const ok = await b.call('POST', '/login', { email: 'LOGIN@shop.example', password: 'the right password' });
    expect(ok.status).toBe(200);
    expect((await b.call('GET', '/me')).body.result.user.email).toBe('login@shop.example');
  });

  it('refuses state changes without the Origin or the CSRF token', async () => {
    const b = await signedInOwner(gw, 'owner', 'csrf@shop.example');
    const csrf = b.csrf!;
    expect((await b.call('POST', '/logout', {}, { origin: 'https://evil.example' })).status).toBe(403);
    b.csrf = null;
    const noToken = await b.call('POST', '/logout', {});
    expect(noToken.status).toBe(403);
    expect(noToken.body.message).toMatch(/cross-site request check failed/);
    b.csrf = csrf.slice(0, -1) + (csrf.endsWith('A') ? 'B' : 'A');
    expect((await b.call('POST', '/logout', {})).status).toBe(403);
    const form = await gw.app.inject({ method: 'POST', url: '/api/dashboard/logout', headers: { cookie: b.cookie!, 'x-csrf-token': csrf, 'content-type': 'application/json' }, payload: '{}' });
    expect(form.statusCode).toBe(403); // no Origin at all
    expect((await b.call('POST', '/login', { email: 'csrf@shop.example', password: 'correct horse battery' }, { origin: 'https://evil.example' })).status).toBe(403);
    b.csrf = csrf;
    expect((await b.call('GET', '/me')).status).toBe(200); // still signed in after the refusals
    expect((await b.call('POST', '/logout', {})).status).toBe(200);
    expect((await b.call('GET', '/me')).status).toBe(401);
  });

  it('throttles sign-ins per account, then per address, and lets them in again after the window', { timeout: 90_000 }, async () => {
    await signedInOwner(gw, 'owner', 'throttle@shop.example', 'the right password');
    const b = browser(gw, '10.0.0.3');
    for (let i = 0; i < ACCOUNT_LIMIT; i++) expect((await b.call('POST', '/login', { email: 'throttle@shop.example', password: 'guess ' + i })).status).toBe(401);
    const locked = await b.call('POST', '/login', { email: 'throttle@shop.example', password: 'the right password' });
    expect(locked.status).toBe(429);
    expect(locked.body.message).toBe('Too many failed sign-ins. Try again later.');
    expect(locked.body.retry_after).toBeGreaterThan(0);
    // The account is locked from every address; other accounts from this address still work.
    expect((await browser(gw, '10.0.0.4').call('POST', '/login', { email: 'throttle@shop.example', password: 'the right password' })).status).toBe(429);
    const spray = browser(gw, '10.0.0.5');
    for (let i = 0; i < 20; i++) await spray.call('POST', '/login', { email: `user${i}@shop.example`, password: 'guess guess' });
    expect((await spray.call('POST', '/login', { email: 'login@shop.example', password: 'the right password' })).status).toBe(429);
    gw.clock.advance(WINDOW_MS + 1);
    expect((await b.call('POST', '/login', { email: 'throttle@shop.example', password: 'the right password' })).status).toBe(200);
  });

  it('ends sessions when idle, and everywhere on request', async () => {
    const a = await signedInOwner(gw, 'owner', 'expiry@shop.example', 'the right password');
    gw.clock.advance(IDLE_MS - 60_000);
    expect((await a.call('GET', '/me')).status).toBe(200); // a request keeps it alive
    gw.clock.advance(IDLE_MS - 60_000);
    expect((await a.call('GET', '/me')).status).toBe(200);
    gw.clock.advance(IDLE_MS + 1);
    expect((await a.call('GET', '/me')).status).toBe(401);

    const one = browser(gw, '10.0.1.1');
    const two = browser(gw, '10.0.1.2');
    await one.call('POST', '/login', { email: 'expiry@shop.example', password: 'the right password' });
    await two.call('POST', '/login', { email: 'expiry@shop.example', password: 'the right password' });
    expect((await one.call('POST', '/logout-all')).body.result).toEqual({ signed_out: 2 });
    expect((await two.call('GET', '/me')).status).toBe(401);
  });

  it('ends a session at its absolute expiry however active it is', async () => {
    const b = await signedInOwner(gw, 'owner', 'absolute@shop.example');
    for (let h = 0; h < 11; h++) {
      gw.clock.advance(3600_000);
      expect((await b.call('GET', '/me')).status).toBe(200);
    }
    gw.clock.advance(3600_000);
    expect((await b.call('GET', '/me')).status).toBe(401);
  });

  it('lets an owner invite and remove users, refuses the same to a viewer, and audits it', async () => {
    const owner = await signedInOwner(gw, 'owner', 'boss@shop.example');
    const invited = await owner.call('POST', '/users', { email: 'clerk@shop.example', role: 'viewer' });
    expect(invited.status).toBe(200);
    expect(invited.body.result.link).toMatch(/^https:\/\/pay\.example\.test\/dashboard\/set-password#[\w-]{43}$/);
    const token = invited.body.result.link.split('#')[1];
    const viewer = browser(gw, '10.0.2.1');
    expect((await viewer.call('POST', '/set-password', { token, password: 'viewer password 1' })).status).toBe(200);
    expect((await viewer.call('GET', '/me')).body.result.can_manage).toBe(false);
    const refused = await viewer.call('POST', '/users', { email: 'x@shop.example', role: 'owner' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Your role cannot do this.');
    expect((await viewer.call('GET', '/audit')).status).toBe(403);
    expect((await owner.call('POST', '/users', { email: 'not an email', role: 'viewer' })).body.message).toBe('Enter a valid email address.');
    const removed = await owner.call('POST', '/users/remove', { id: invited.body.result.user.id });
    expect(removed.body.result.disabled).toBe(true);
    expect((await viewer.call('GET', '/me')).status).toBe(401);
    const log = await owner.call('GET', '/audit');
    const actions = log.body.result.map((e: any) => `${e.action} ${e.target ?? ''}`.trim());
    expect(actions).toContain('user_invite clerk@shop.example');
    expect(actions).toContain('user_remove clerk@shop.example');
    expect(log.body.result.find((e: any) => e.action === 'user_remove')).toMatchObject({ email: 'boss@shop.example', ip: '10.0.0.1' });
  });
});
