// The mail seam: what a configured gateway sends reaches the SMTP server as written (subject, text,
// HTML, the URL's credentials used), a message that could inject a header is never sent, a mail
// server that is down is reported, not thrown, and an unconfigured gateway sends nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMailer, noMail } from '../../src/mail/index.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

describe('sending through SMTP', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink({ user: 'gateway@example.test', pass: 'p@ss:word/1' });
  });
  afterAll(async () => {
    await sink?.close();
  });

  it('delivers the subject, plain text and HTML, signed in with the URL\'s user and password', async () => {
    const mail = createMailer({ url: sink.url, from: 'Shop payments <pay@shop.example>' });
    expect(mail.configured).toBe(true);
    const r = await mail.send({ to: 'ana@customer.example', subject: 'Ваш счёт — 10 USDT', text: 'Оплатите по ссылке:\nhttps://pay.example.test/pay/abc\n', html: '<p>Оплатите <a href="https://pay.example.test/pay/abc">здесь</a></p>' });
    expect(r).toEqual({ sent: true });
    const m = await sink.next('ana@customer.example');
    expect(m.user).toBe('gateway@example.test');
    expect(m.from).toBe('pay@shop.example');
    expect(m.headers.from).toContain('Shop payments');
    expect(m.subject).toBe('Ваш счёт — 10 USDT');
    expect(m.text).toContain('https://pay.example.test/pay/abc');
    expect(m.text).toContain('Оплатите по ссылке:');
    expect(m.html).toContain('<a href="https://pay.example.test/pay/abc">');
  });

  it('refuses a line break in the recipient or the subject: nothing reaches the server', async () => {
    const mail = createMailer({ url: sink.url, from: 'pay@shop.example' });
    const before = sink.messages.length;
    const a = await mail.send({ to: 'ana@customer.example\r\nBcc: everyone@victim.example', subject: 'Hi', text: 'x' });
    const b = await mail.send({ to: 'ana@customer.example', subject: 'Hi\r\nBcc: everyone@victim.example', text: 'x' });
    const c = await mail.send({ to: 'ana@customer.example, bob@other.example', subject: 'Hi', text: 'x' });
    expect(a).toEqual({ sent: false, reason: 'The recipient must not contain a line break.' });
    expect(b).toEqual({ sent: false, reason: 'The subject must not contain a line break.' });
    expect(c).toEqual({ sent: false, reason: 'The recipient is not an email address.' });
    expect(sink.messages.length).toBe(before);
  });

  it('reports a mail server that refuses the sign-in or is not there, without throwing', async () => {
    const wrong = createMailer({ url: sink.url.replace('p%40ss', 'nope'), from: 'pay@shop.example' });
    const r = await wrong.send({ to: 'ana@customer.example', subject: 'Hi', text: 'x' });
    expect(r.sent).toBe(false);
    if (!r.sent) expect(r.reason).toMatch(/^The mail server did not take the message: .*Invalid username or password/);
    // A port nothing listens on: taken, then freed.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const down = await createMailer({ url: `smtp://127.0.0.1:${port}`, from: 'pay@shop.example' }).send({ to: 'ana@customer.example', subject: 'Hi', text: 'x' });
    expect(down.sent).toBe(false);
    if (!down.sent) expect(down.reason).toMatch(/^The mail server did not take the message: .*ECONNREFUSED/);
  });

  it('without SMTP configured sends nothing and fails nothing', async () => {
    expect(createMailer(undefined)).toBe(noMail);
    expect(noMail.configured).toBe(false);
    expect(await noMail.send({ to: 'ana@customer.example', subject: 'Hi', text: 'x' })).toEqual({ sent: false, reason: 'Email is not configured on this gateway.' });
  });
});

describe('SMTP settings', () => {
  const base = { SATCHEL_CONFIG: '' };
  it('are read from the environment and from the config file keys, and are off by default', () => {
    expect(loadConfig(base).smtp).toBeUndefined();
    expect(loadConfig({ ...base, SATCHEL_SMTP_URL: 'smtps://u:p@mail.example.com', SATCHEL_SMTP_FROM: 'Pay <pay@example.com>' }).smtp).toEqual({ url: 'smtps://u:p@mail.example.com', from: 'Pay <pay@example.com>' });
  });

  it('are read from the config file keys smtp_url and smtp_from; the variables win over the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'satchel-smtp-'));
    try {
      const file = join(dir, 'satchel.config.json');
      writeFileSync(file, JSON.stringify({ smtp_url: 'smtp://relay.example.com:2525', smtp_from: 'pay@example.com' }));
      expect(loadConfig({ SATCHEL_CONFIG: file }).smtp).toEqual({ url: 'smtp://relay.example.com:2525', from: 'pay@example.com' });
      expect(loadConfig({ SATCHEL_CONFIG: file, SATCHEL_SMTP_FROM: 'Other <other@example.com>' }).smtp).toEqual({ url: 'smtp://relay.example.com:2525', from: 'Other <other@example.com>' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuse, naming the setting, a scheme other than smtp(s), a missing or broken from address, a from without a URL', () => {
    const bad = (env: Record<string, string>, message: RegExp) => {
      expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, ...env })).toThrow(message);
    };
    bad({ SATCHEL_SMTP_URL: 'http://mail.example.com', SATCHEL_SMTP_FROM: 'pay@example.com' }, /smtp_url must start with smtp:\/\/ or smtps:\/\//);
    bad({ SATCHEL_SMTP_URL: 'not a url', SATCHEL_SMTP_FROM: 'pay@example.com' }, /smtp_url is not a URL/);
    bad({ SATCHEL_SMTP_URL: 'smtp://mail.example.com' }, /smtp_from is required/);
    bad({ SATCHEL_SMTP_URL: 'smtp://mail.example.com', SATCHEL_SMTP_FROM: 'pay@example.com\nBcc: x@y.example' }, /smtp_from must not contain a line break/);
    bad({ SATCHEL_SMTP_URL: 'smtp://mail.example.com', SATCHEL_SMTP_FROM: 'nobody' }, /smtp_from must be an address/);
    bad({ SATCHEL_SMTP_FROM: 'pay@example.com' }, /smtp_from .* is set without smtp_url/);
  });
});
