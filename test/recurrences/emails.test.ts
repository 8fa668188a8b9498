// Payer emails of subscriptions, read from a local SMTP sink: each of the five (subscribed, renewal
// due, paid, failed, cancelled) with its subject, its links and the payer's language; nothing when
// the merchant's switch is off, without SMTP, or without the payer's address; a bad address
// refused before anything is written; and each email sent once, however often the job runs. On
// both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { setPayerEmails } from '../../src/merchants/store.ts';
import { cancelRecurrence } from '../../src/recurrences/api.ts';

const PAGE = /https:\/\/pay\.example\.test\/pay\/recurrence\/[0-9a-f-]{36}/;
let n = 0;
const uniq = () => `${Date.now().toString(36)}-${++n}`;

function helpers(gw: () => TestGateway) {
  const job = () => gw().ctx.features.jobs.recurrences(gw().ctx, new AbortController().signal);
  const create = async (body: Record<string, unknown> = {}) => {
    const r = await gw().api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Pro plan', period: 'monthly', order_id: `m-${uniq()}`, ...body });
    expect(r.status).toBe(200);
    return r.body.result.uuid as string;
  };
  const subscribe = (uuid: string, extra: Record<string, unknown>) =>
    gw().app.inject({ method: 'POST', url: `/api/pay/recurrence/${uuid}/subscribe`, payload: { currency: 'USDT', network: 'TRON', ...extra } });
  const pay = async (invoice: string) => expect((await gw().app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice } })).statusCode).toBe(200);
  const row = (uuid: string) => gw().ctx.storage.db.selectFrom('recurrences').selectAll().where('id', '=', uuid).executeTakeFirstOrThrow();
  /** Subscribed with `extra` (email, lang) and the first period paid: `active`. */
  const active = async (extra: Record<string, unknown>) => {
    const uuid = await create();
    const s = await subscribe(uuid, extra);
    expect(s.statusCode, s.body).toBe(200);
    await pay(s.json().result.invoice.uuid);
    await job();
    expect((await row(uuid)).status).toBe('active');
    return uuid;
  };
  /** Moves the clock to the next due date and runs the job: a renewal invoice, `wait_payment`. */
  const due = async (uuid: string) => {
    gw().clock.now = Number((await row(uuid)).next_due_at);
    await job();
    const r = await row(uuid);
    expect(r.status).toBe('wait_payment');
    return r.invoice_id!;
  };
  return { job, create, subscribe, pay, row, active, due };
}

describe.each(await backends())('payer emails of subscriptions on $name', (backend) => {
  let sink: SmtpSink;
  let gw: TestGateway;
  let plain: TestGateway;
  beforeAll(async () => {
    sink = await startSmtpSink();
    gw = await startTestGateway(backend, { env: { SATCHEL_SMTP_URL: sink.url, SATCHEL_SMTP_FROM: 'Shop payments <pay@shop.example>' } });
    await setPayerEmails(gw.ctx.storage.db, gw.merchant.id, true);
    gw.ctx.merchants.invalidate(gw.merchant.id);
    plain = await startTestGateway(backend);
  });
  afterAll(async () => {
    await gw?.close();
    await plain?.close();
    await sink?.close();
  });
  const h = helpers(() => gw);
  const to = (addr: string) => sink.messages.filter((m) => m.to.includes(addr));

  it('sends subscribed, renewal due, paid, failed: subjects, links, amounts, in English by default', async () => {
    const addr = `payer-${uniq()}@example.com`;
    const uuid = await h.active({ email: addr });
    const subscribed = await sink.next(addr);
    expect(subscribed.from).toBe('pay@shop.example');
    expect(subscribed.subject).toBe('Test shop: Your subscription to Pro plan is active');
    expect(subscribed.text).toContain('Your subscription to Pro plan at Test shop is active: 10.00 USDT per month.');
    expect(subscribed.text).toContain(`https://pay.example.test/pay/recurrence/${uuid}`);

    const invoice = await h.due(uuid);
    let mails = to(addr);
    expect(mails.map((m) => m.subject)).toEqual(['Test shop: Your subscription to Pro plan is active', 'Test shop: Your subscription to Pro plan is due for renewal']);
    expect(mails[1]!.text.replace(/\r\n/g, '\n')).toContain(`Pay the renewal here:\nhttps://pay.example.test/pay/${invoice}`);
    expect(mails[1]!.text).toMatch(PAGE);

    await h.pay(invoice);
    await h.job();
    mails = to(addr);
    expect(mails.length).toBe(3);
    expect(mails[2]!.subject).toBe('Test shop: Renewal of Pro plan paid');
    expect(mails[2]!.text).toContain('10.00 USDT per month');

    await h.due(uuid);
    gw.clock.now = Number((await h.row(uuid)).grace_until);
    await h.job();
    expect((await h.row(uuid)).status).toBe('inactive');
    mails = to(addr);
    expect(mails.map((m) => m.subject.replace('Test shop: ', ''))).toEqual([
      'Your subscription to Pro plan is active',
      'Your subscription to Pro plan is due for renewal',
      'Renewal of Pro plan paid',
      'Your subscription to Pro plan is due for renewal',
      'Your subscription to Pro plan has stopped',
    ]);
    // The job runs again and again: nothing more.
    await h.job();
    await h.job();
    expect(to(addr).length).toBe(5);
    const outbox = await gw.ctx.storage.db.selectFrom('recurrence_emails').select(['status', 'kind']).where('recurrence_id', '=', uuid).execute();
    expect(outbox.map((e) => e.status)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
  });

  it('writes in the payer\'s language: a German payer gets German, cancelled by the merchant', async () => {
    const addr = `kunde-${uniq()}@example.de`;
    const uuid = await h.active({ email: addr, lang: 'de' });
    const m = await sink.next(addr);
    expect(m.subject).toBe('Test shop: Ihr Abonnement für Pro plan ist aktiv');
    expect(m.text).toContain('Ihr Abonnement für Pro plan bei Test shop ist aktiv: 10.00 USDT pro Monat.');
    expect(m.text).toContain(`https://pay.example.test/pay/recurrence/${uuid}`);
    expect((await gw.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
    await h.job();
    const mails = to(addr);
    expect(mails.length).toBe(2);
    expect(mails[1]!.subject).toBe('Test shop: Ihr Abonnement für Pro plan ist gekündigt');
    expect(mails[1]!.text).toMatch(PAGE);
  });

  it('tells a payer who cancelled, in Japanese; an unknown language is English', async () => {
    const addr = `user-${uniq()}@example.jp`;
    const uuid = await h.active({ email: addr, lang: 'ja' });
    await cancelRecurrence(gw.ctx, null, { uuid, order_id: null }, 'cancel_by_user');
    await h.job();
    expect(to(addr).map((m) => m.subject)).toEqual(['Test shop: Pro plan の定期購読が有効になりました', 'Test shop: Pro plan の定期購読が解約されました']);

    const other = `other-${uniq()}@example.com`;
    await h.active({ email: other, lang: 'xx' });
    expect((await sink.next(other)).subject).toBe('Test shop: Your subscription to Pro plan is active');
  });

  it('sends nothing without the payer\'s address, with the switch off, or without SMTP', async () => {
    const before = sink.messages.length;
    await h.active({});
    const off = `off-${uniq()}@example.com`;
    await setPayerEmails(gw.ctx.storage.db, gw.merchant.id, false);
    gw.ctx.merchants.invalidate(gw.merchant.id);
    try {
      const uuid = await h.active({ email: off });
      await h.due(uuid);
    } finally {
      await setPayerEmails(gw.ctx.storage.db, gw.merchant.id, true);
    }
    expect(sink.messages.length).toBe(before);

    // A gateway without SMTP: the switch on, an address given, the subscription runs; nothing queued, nothing fails.
    await setPayerEmails(plain.ctx.storage.db, plain.merchant.id, true);
    const p = helpers(() => plain);
    const uuid = await p.active({ email: `nosmtp-${uniq()}@example.com` });
    await p.due(uuid);
    expect(await plain.ctx.storage.db.selectFrom('recurrence_emails').selectAll().execute()).toEqual([]);
    expect(sink.messages.length).toBe(before);
  });

  it('refuses a bad address before anything is written', async () => {
    const uuid = await h.create();
    for (const email of ['not-an-address', 'a@b.example\r\nBcc: x@evil.example', `${'x'.repeat(250)}@example.com`, 'tab\t@example.com', 42]) {
      const r = await h.subscribe(uuid, { email });
      expect(r.statusCode, String(email)).toBe(422);
      expect(r.json().state).toBe(1);
      expect(r.json().message).toMatch(/^The email address /);
    }
    const row = await h.row(uuid);
    expect(row).toMatchObject({ network: null, invoice_id: null, payer_email: null, status: 'wait_accept' });
    const invoices = await gw.ctx.storage.db.selectFrom('invoices').select('id').where('recurrence_id', '=', uuid).execute();
    expect(invoices).toEqual([]);
  });

  it('sends each email once with two jobs side by side', async () => {
    const addrs = [`twin-a-${uniq()}@example.com`, `twin-b-${uniq()}@example.com`, `twin-c-${uniq()}@example.com`];
    const uuids: string[] = [];
    for (const a of addrs) {
      const uuid = await h.create();
      const s = await h.subscribe(uuid, { email: a, lang: 'fr' });
      await h.pay(s.json().result.invoice.uuid);
      uuids.push(uuid);
    }
    await Promise.all([h.job(), h.job(), h.job()]);
    await Promise.all([h.job(), h.job()]);
    for (const a of addrs) {
      expect(to(a).map((m) => m.subject)).toEqual(['Test shop: Votre abonnement à Pro plan est actif']);
    }
  });
});
