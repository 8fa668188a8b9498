// "Invite by email": with SMTP configured the invitation reaches the invited person's mailbox, in
// the inviter's dashboard language, and its link lets them choose a password; without SMTP the
// owner gets the link to pass on and nothing is sent; a line break in the email is refused. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { browser, signedInOwner } from './browser.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { createUser } from '../../src/dashboard/users.ts';

const LINK = /https:\/\/pay\.example\.test\/dashboard\/set-password#([\w-]{43})/;

describe.each(await backends())('inviting by email on $name', (backend) => {
  let sink: SmtpSink;
  let gw: TestGateway;
  let plain: TestGateway;
  beforeAll(async () => {
    sink = await startSmtpSink({ user: 'relay-user', pass: 'relay secret' });
    gw = await startTestGateway(backend, { env: { SATCHEL_SMTP_URL: sink.url, SATCHEL_SMTP_FROM: 'Test shop payments <pay@shop.example>' } });
    plain = await startTestGateway(backend);
  });
  afterAll(async () => {
    await gw?.close();
    await plain?.close();
    await sink?.close();
  });

  it('sends the invitation with a working one-time link, and tells the page email is on', async () => {
    const owner = await signedInOwner(gw, 'owner', 'ana@shop.example');
    expect((await owner.call('GET', '/me')).body.result.email_enabled).toBe(true);
    const r = await owner.call('POST', '/users', { email: 'New.Colleague@Shop.example', role: 'viewer' });
    expect(r.status).toBe(200);
    expect(r.body.result.email).toEqual({ sent: true, reason: null });

    const m = await sink.next('new.colleague@shop.example');
    expect(m.from).toBe('pay@shop.example');
    expect(m.subject).toBe('ana@shop.example invited you to the Test shop dashboard');
    expect(m.text).toContain('ana@shop.example invited you to the payments dashboard of Test shop.');
    const token = LINK.exec(m.text)?.[1];
    expect(token, m.text).toBeDefined();
    expect(m.html).toContain(`href="https://pay.example.test/dashboard/set-password#${token}"`);

    // The invited person follows the link from the mail: it opens, and the password they choose signs them in.
    const invitee = browser(gw, '10.7.0.1');
    expect((await invitee.call('POST', '/link', { token })).body.result).toEqual({ email: 'new.colleague@shop.example', has_password: false });
    const set = await invitee.call('POST', '/set-password', { token, password: 'my own new password' });
    expect(set.status).toBe(200);
    expect(set.body.result.user).toMatchObject({ email: 'new.colleague@shop.example', role: 'viewer' });
    expect((await invitee.call('GET', '/me')).status).toBe(200);
  });

  it('writes in the inviter\'s dashboard language', async () => {
    const owner = await signedInOwner(gw, 'owner', 'jonas@shop.example');
    expect((await owner.call('POST', '/me/language', { language: 'de' })).status).toBe(200);
    expect((await owner.call('POST', '/users', { email: 'kollege@shop.example', role: 'viewer' })).body.result.email.sent).toBe(true);
    const de = await sink.next('kollege@shop.example');
    expect(de.subject).toBe('jonas@shop.example hat Sie zum Dashboard von Test shop eingeladen');
    expect(de.text).toContain('Wählen Sie Ihr Passwort über diesen Link');
    expect(de.text).toMatch(LINK);

    const ar = await signedInOwner(gw, 'owner', 'layla@shop.example');
    expect((await ar.call('POST', '/me/language', { language: 'ar' })).status).toBe(200);
    await ar.call('POST', '/users', { email: 'zamil@shop.example', role: 'owner' });
    const m = await sink.next('zamil@shop.example');
    expect(m.subject).toBe('دعاك layla@shop.example إلى لوحة تحكم Test shop');
    expect(m.html).toContain('dir="rtl"');
  });

  it('an email of another merchant\'s user gets a note without a link, and the owner the same answer as for any email', async () => {
    const other = await createMerchant(gw.ctx.storage.db, 'Other shop');
    await createUser(gw.ctx.storage, { merchantId: other.id, email: 'busy@other.example', role: 'owner' }, gw.clock.now);
    const owner = await signedInOwner(gw, 'owner', 'omar@shop.example');
    const r = await owner.call('POST', '/users', { email: 'busy@other.example', role: 'viewer' });
    expect(r.status).toBe(200);
    expect(r.body.result.email).toEqual({ sent: true, reason: null });
    const m = await sink.next('busy@other.example');
    expect(m.text).toContain('already belongs to another account on this gateway');
    expect(m.text).not.toMatch(LINK);
  });

  it('refuses a line break in the email with the validation envelope: nothing stored, nothing sent', async () => {
    const owner = await signedInOwner(gw, 'owner', 'rita@shop.example');
    const before = sink.messages.length;
    for (const email of ['victim@shop.example\r\nBcc: all@shop.example', 'victim@shop.example\nX: y']) {
      const r = await owner.call('POST', '/users', { email, role: 'viewer' });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ state: 1, message: 'Check the highlighted fields.', code: 'validation', errors: { email: ['validation.email'] } });
    }
    expect(sink.messages.length).toBe(before);
    expect(await gw.ctx.storage.db.selectFrom('dashboard_users').select('id').where('email', 'like', 'victim@%').execute()).toEqual([]);
  });

  it('without SMTP: the owner gets the link to pass on, the page is told email is off, nothing is sent', async () => {
    const owner = await signedInOwner(plain, 'owner', 'ana@shop.example');
    expect((await owner.call('GET', '/me')).body.result.email_enabled).toBe(false);
    const before = sink.messages.length;
    const r = await owner.call('POST', '/users', { email: 'friend@shop.example', role: 'viewer' });
    expect(r.status).toBe(200);
    expect(r.body.result.email).toBeNull();
    const token = LINK.exec(r.body.result.link)?.[1];
    expect((await browser(plain, '10.7.0.2').call('POST', '/set-password', { token, password: 'my own new password' })).status).toBe(200);
    expect(sink.messages.length).toBe(before);
  });

  it('a mail server that fails does not fail the invitation: the link is there and the reason said', async () => {
    const down = await startTestGateway(backend, { env: { SATCHEL_SMTP_URL: sink.url.replace('relay%20secret', 'wrong'), SATCHEL_SMTP_FROM: 'pay@shop.example' } });
    try {
      const owner = await signedInOwner(down, 'owner', 'ana@shop.example');
      const r = await owner.call('POST', '/users', { email: 'later@shop.example', role: 'viewer' });
      expect(r.status).toBe(200);
      expect(r.body.result.email.sent).toBe(false);
      expect(r.body.result.email.reason).toMatch(/^The mail server did not take the message: /);
      const token = LINK.exec(r.body.result.link)?.[1];
      expect((await browser(down, '10.7.0.3').call('POST', '/set-password', { token, password: 'my own new password' })).status).toBe(200);
    } finally {
      await down.close();
    }
  });
});
