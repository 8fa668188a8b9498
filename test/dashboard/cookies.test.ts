// The session cookie's name follows the scheme: over HTTPS only `__Host-satchel_session` is read,
// so a plain `satchel_session` (which a sibling subdomain or a plain-http answer can plant) can
// neither stand in for a session nor, sent first, push the real one aside. Cookies are not
// storage: one database suffices.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { browser, signedInOwner } from './browser.ts';
import { createUser, issueSetPasswordLink } from '../../src/dashboard/users.ts';

const [sqlite] = await backends();

async function me(gw: TestGateway, cookie: string, headers: Record<string, string> = {}) {
  return gw.app.inject({ method: 'GET', url: '/api/dashboard/me', headers: { cookie, ...headers } });
}

describe('session cookie over https (public URL https)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(sqlite!);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('reads only the __Host- cookie: the plain name with a valid token is not a session', async () => {
    const b = await signedInOwner(gw, 'owner', 'cookie@shop.example');
    expect(b.cookie).toMatch(/^__Host-satchel_session=/);
    const token = b.cookie!.split('=')[1]!;
    expect((await me(gw, `__Host-satchel_session=${token}`)).statusCode).toBe(200);
    const plain = await me(gw, `satchel_session=${token}`);
    expect(plain.statusCode).toBe(401);
    expect(JSON.parse(plain.body)).toEqual({ state: 1, message: 'Sign in to continue.', code: 'session_required' });
  });

  it('a planted plain cookie sent first does not sign the owner out', async () => {
    const b = await signedInOwner(gw, 'owner', 'planted@shop.example');
    const token = b.cookie!.split('=')[1]!;
    const r = await me(gw, `satchel_session=${'p'.repeat(43)}; __Host-satchel_session=${token}`);
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body).result.user.email).toBe('planted@shop.example');
  });
});

describe('session cookie when the public URL is http', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(sqlite!, { env: { SATCHEL_PUBLIC_URL: 'http://pay.example.test', SATCHEL_TRUST_PROXY: '1' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  async function signIn(email: string, headers: Record<string, string>) {
    const user = await createUser(gw.ctx.storage, { merchantId: gw.merchant.id, email, role: 'owner' }, gw.clock.now);
    const token = await issueSetPasswordLink(gw.ctx.storage, user.id, gw.clock.now);
    const b = browser(gw);
    const r = await b.call('POST', '/set-password', { token, password: 'correct horse battery' }, headers);
    expect(r.status).toBe(200);
    return b.cookie!;
  }

  it('plain http uses and reads the plain cookie', async () => {
    const cookie = await signIn('plainhttp@shop.example', { origin: 'http://pay.example.test', host: 'pay.example.test' });
    expect(cookie).toMatch(/^satchel_session=/);
    expect((await me(gw, cookie)).statusCode).toBe(200);
  });

  it('a request that arrived over TLS at a trusted proxy uses and reads only the __Host- cookie', async () => {
    const tls = { 'x-forwarded-proto': 'https', host: 'pay.example.test' };
    const cookie = await signIn('proxied@shop.example', { ...tls, origin: 'https://pay.example.test' });
    expect(cookie).toMatch(/^__Host-satchel_session=/);
    const token = cookie.split('=')[1]!;
    expect((await me(gw, cookie, tls)).statusCode).toBe(200);
    expect((await me(gw, `satchel_session=${token}`, tls)).statusCode).toBe(401);
    expect((await me(gw, `satchel_session=${'p'.repeat(43)}; ${cookie}`, tls)).statusCode).toBe(200);
  });
});
