// Sign-in throttling against bursts: parallel attempts sent at once, for one account under many
// spellings and for many accounts from one address, must not get more password checks than the
// limit. Driven through the app as a client would, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { browser, signedInOwner } from './browser.ts';
import { ACCOUNT_LIMIT, ADDRESS_LIMIT } from '../../src/dashboard/throttle.ts';

const THROTTLED = { state: 1, message: 'Too many failed sign-ins. Try again later.' };

async function burst(gw: TestGateway, attempts: Array<{ email: string; password: string; ip: string }>) {
  const answers = await Promise.all(attempts.map((a) => browser(gw, a.ip).call('POST', '/login', { email: a.email, password: a.password })));
  const checked = answers.filter((r) => r.status === 401);
  const throttled = answers.filter((r) => r.status === 429);
  for (const r of throttled) {
    expect(r.body).toMatchObject(THROTTLED);
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
  }
  expect(checked.length + throttled.length).toBe(attempts.length);
  return { checked: checked.length, throttled: throttled.length };
}

describe.each(await backends())('sign-in bursts on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('40 wrong passwords for one account at once: only the limit reach the password check', { timeout: 60_000 }, async () => {
    await signedInOwner(gw, 'owner', 'burst@shop.example', 'the right password');
    const attempts = Array.from({ length: 40 }, (_, i) => ({ email: 'burst@shop.example', password: `guess number ${i}`, ip: `10.1.0.${i + 1}` }));
    expect(await burst(gw, attempts)).toEqual({ checked: ACCOUNT_LIMIT, throttled: 40 - ACCOUNT_LIMIT });
    // Locked even for the right password now.
    expect((await browser(gw, '10.1.1.1').call('POST', '/login', { email: 'burst@shop.example', password: 'the right password' })).status).toBe(429);
  });

  it('25 at once under padded and mixed-case spellings count on one account', { timeout: 60_000 }, async () => {
    await signedInOwner(gw, 'owner', 'owner-burst@shop.example', 'the right password');
    const spellings = ['OWNER-BURST@SHOP.EXAMPLE', '  owner-burst@shop.example', 'Owner-Burst@Shop.Example  ', '\towner-burst@SHOP.example', 'owner-burst@shop.example'];
    const attempts = Array.from({ length: 25 }, (_, i) => ({ email: spellings[i % spellings.length]!, password: `guess number ${i}`, ip: `10.2.0.${i + 1}` }));
    expect(await burst(gw, attempts)).toEqual({ checked: ACCOUNT_LIMIT, throttled: 25 - ACCOUNT_LIMIT });
  });

  it('30 different emails from one address at once: only the address limit get checked', { timeout: 60_000 }, async () => {
    const attempts = Array.from({ length: 30 }, (_, i) => ({ email: `sprayed${i}@shop.example`, password: 'guess guess guess', ip: '10.3.0.1' }));
    expect(await burst(gw, attempts)).toEqual({ checked: ADDRESS_LIMIT, throttled: 30 - ADDRESS_LIMIT });
    // Another address is not affected.
    expect((await browser(gw, '10.3.0.2').call('POST', '/login', { email: 'sprayed0@shop.example', password: 'guess guess guess' })).status).toBe(401);
  });

  it('a successful sign-in gives the address back its attempt and clears the account', { timeout: 60_000 }, async () => {
    await signedInOwner(gw, 'owner', 'ok-burst@shop.example', 'the right password');
    const ip = '10.4.0.1';
    // One attempt short of the address's limit: without the release, the second sign-in is refused.
    await gw.ctx.storage.db.insertInto('dashboard_login_throttle').values({ key: `ip:${ip}`, failures: ADDRESS_LIMIT - 1, window_start: gw.clock.now }).execute();
    for (let i = 0; i < 3; i++) {
      const r = await browser(gw, ip).call('POST', '/login', { email: 'OK-burst@shop.example ', password: 'the right password' });
      expect(r.status).toBe(200);
    }
    const keys = await gw.ctx.storage.db.selectFrom('dashboard_login_throttle').selectAll().where('key', 'in', [`ip:${ip}`, 'account:ok-burst@shop.example']).execute();
    expect(keys.map((k) => [k.key, k.failures])).toEqual([[`ip:${ip}`, ADDRESS_LIMIT - 1]]);
  });
});
