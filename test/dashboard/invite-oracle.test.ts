// Inviting a user must not tell an owner whether an email is used by another merchant: the answer
// for such an email is indistinguishable from the one for a new email, and the invitation it
// gives cannot be used to reach the other merchant's account. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { browser, signedInOwner } from './browser.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { createUser } from '../../src/dashboard/users.ts';

/** The answer's shape: every key with the type of its value, recursively. */
function shape(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v === null ? 'null' : typeof v;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, shape(x)]));
}

describe.each(await backends())('inviting across merchants on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    const other = await createMerchant(gw.ctx.storage.db, 'Other shop');
    await createUser(gw.ctx.storage, { merchantId: other.id, email: 'taken@other.example', role: 'owner' }, gw.clock.now);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers an email of another merchant exactly as a new one, and that invitation cannot be used', async () => {
    const owner = await signedInOwner(gw, 'owner', 'inviter@shop.example');
    const fresh = await owner.call('POST', '/users', { email: 'new-person@shop.example', role: 'viewer' });
    const taken = await owner.call('POST', '/users', { email: 'Taken@Other.example', role: 'viewer' });
    expect(taken.status).toBe(fresh.status);
    expect(fresh.status).toBe(200);
    expect(shape(taken.body)).toEqual(shape(fresh.body));
    expect(taken.body.result.user).toMatchObject({ email: 'taken@other.example', role: 'viewer', disabled: false, has_password: false });
    const link = /^https:\/\/pay\.example\.test\/dashboard\/set-password#[\w-]{43}$/;
    expect(fresh.body.result.link).toMatch(link);
    expect(taken.body.result.link).toMatch(link);

    // The other merchant's user is untouched, and the link opens as an expired one.
    const token = String(taken.body.result.link).split('#')[1]!;
    const used = await browser(gw, '10.9.0.1').call('POST', '/set-password', { token, password: 'a takeover attempt' });
    expect(used.status).toBe(410);
    const row = await gw.ctx.storage.db.selectFrom('dashboard_users').selectAll().where('email', '=', 'taken@other.example').execute();
    expect(row).toHaveLength(1);
    expect(row[0]!.merchant_id).not.toBe(gw.merchant.id);
    // The fresh invitation works.
    const freshToken = String(fresh.body.result.link).split('#')[1]!;
    expect((await browser(gw, '10.9.0.2').call('POST', '/set-password', { token: freshToken, password: 'a good new password' })).status).toBe(200);
  });

  it('still says "already exists" for an email already in the owner\'s own merchant', async () => {
    const owner = await signedInOwner(gw, 'owner', 'inviter2@shop.example');
    const again = await owner.call('POST', '/users', { email: 'inviter2@shop.example', role: 'viewer' });
    expect(again.status).toBe(422);
    // With its code and the email, which the dashboard words in the owner's language.
    expect(again.body).toEqual({ state: 1, message: 'A user with the email inviter2@shop.example already exists.', code: 'email_taken', params: { email: 'inviter2@shop.example' } });
  });
});
