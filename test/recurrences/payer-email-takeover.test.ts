// Whoever holds a subscription's link may call subscribe while it waits to be accepted: a later call
// must not take the payer's emails over. The first address given stays (with its language): a
// later call with another address, or with none, changes nothing, and the emails go to the first
// address. Until an address is given, one may still be given. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { setPayerEmails } from '../../src/merchants/store.ts';

let n = 0;
const uniq = () => `${Date.now().toString(36)}-${++n}`;

describe.each(await backends())('the payer\'s email cannot be taken over on $name', (backend) => {
  let sink: SmtpSink;
  let gw: TestGateway;
  beforeAll(async () => {
    sink = await startSmtpSink();
    gw = await startTestGateway(backend, { env: { SATCHEL_SMTP_URL: sink.url, SATCHEL_SMTP_FROM: 'pay@shop.example' } });
    await setPayerEmails(gw.ctx.storage.db, gw.merchant.id, true);
    gw.ctx.merchants.invalidate(gw.merchant.id);
  });
  afterAll(async () => {
    await gw?.close();
    await sink?.close();
  });

  const create = async () => {
    const r = await gw.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Pro plan', period: 'monthly', order_id: `t-${uniq()}` });
    expect(r.status).toBe(200);
    return r.body.result.uuid as string;
  };
  const subscribe = async (uuid: string, extra: Record<string, unknown>) => {
    const r = await gw.app.inject({ method: 'POST', url: `/api/pay/recurrence/${uuid}/subscribe`, payload: { currency: 'USDT', network: 'TRON', ...extra } });
    expect(r.statusCode, r.body).toBe(200);
    return r.json().result.invoice.uuid as string;
  };
  const row = (uuid: string) => gw.ctx.storage.db.selectFrom('recurrences').selectAll().where('id', '=', uuid).executeTakeFirstOrThrow();
  const job = () => gw.ctx.features.jobs.recurrences(gw.ctx, new AbortController().signal);

  it('a second subscribe with another address, or none, keeps the first; the emails go to it', async () => {
    const payer = `payer-${uniq()}@example.com`;
    const thief = `thief-${uniq()}@example.com`;
    const uuid = await create();
    const invoice = await subscribe(uuid, { email: payer, lang: 'de' });
    // Someone else with the link, before the first payment.
    expect(await subscribe(uuid, { email: thief, lang: 'en' })).toBe(invoice);
    expect(await row(uuid)).toMatchObject({ status: 'wait_accept', payer_email: payer, payer_lang: 'de' });
    expect(await subscribe(uuid, { lang: 'fr' })).toBe(invoice);
    expect(await row(uuid)).toMatchObject({ payer_email: payer, payer_lang: 'de' });

    expect((await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice } })).statusCode).toBe(200);
    await job();
    expect((await row(uuid)).status).toBe('active');
    const mail = await sink.next(payer);
    expect(mail.subject).toBe('Test shop: Ihr Abonnement für Pro plan ist aktiv');
    expect(sink.messages.filter((m) => m.to.includes(thief))).toEqual([]);
  });

  it('an address may still be given by a later call when none was', async () => {
    const payer = `late-${uniq()}@example.com`;
    const uuid = await create();
    const invoice = await subscribe(uuid, { lang: 'es' });
    expect(await row(uuid)).toMatchObject({ payer_email: null, payer_lang: 'es' });
    expect(await subscribe(uuid, { email: payer, lang: 'it' })).toBe(invoice);
    expect(await row(uuid)).toMatchObject({ payer_email: payer, payer_lang: 'it' });
  });
});
