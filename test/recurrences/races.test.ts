// Races and crashes of the `recurrences` job, on both databases: two workers (two gateway contexts
// on one database) running the job side by side make exactly one renewal invoice, one `recurrence`
// webhook and one payer email per transition; a crash in the middle of a renewal (the invoice made,
// the status change not yet written), then the job run again, makes no second invoice and queues
// each webhook and email once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/context.ts';
import { createContext } from '../../src/compose.ts';
import { advanceRecurrences } from '../../src/recurrences/lifecycle.ts';
import { setPayerEmails } from '../../src/merchants/store.ts';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

const quiet = { error() {} };
let n = 0;

describe.each(await backends())('recurrence races and crashes on $name', (backend) => {
  let sink: SmtpSink;
  let gw: TestGateway;
  let second: Ctx;
  beforeAll(async () => {
    sink = await startSmtpSink();
    gw = await startTestGateway(backend, { env: { SATCHEL_SMTP_URL: sink.url, SATCHEL_SMTP_FROM: 'pay@shop.example' } });
    await setPayerEmails(gw.ctx.storage.db, gw.merchant.id, true);
    // A second worker: its own context (its own connections) on the same database and clock.
    second = await createContext(gw.config, { now: () => gw.clock.now });
  });
  afterAll(async () => {
    await second?.storage.close();
    await gw?.close();
    await sink?.close();
  });

  const db = () => gw.ctx.storage.db;
  const job = (ctx: Ctx) => ctx.features.jobs.recurrences(ctx, new AbortController().signal);
  /** `count` recurrences subscribed (with a payer email) and paid: active, all due at the same moment. */
  const actives = async (count: number) => {
    const out: Array<{ uuid: string; email: string }> = [];
    for (let k = 0; k < count; k++) {
      const email = `race-${++n}@example.com`;
      const r = await gw.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Race plan', period: 'weekly', order_id: `race-${n}`, url_callback: 'https://shop.example/cb' });
      const s = await gw.app.inject({ method: 'POST', url: `/api/pay/recurrence/${r.body.result.uuid}/subscribe`, payload: { currency: 'USDT', network: 'TRON', email } });
      expect(s.statusCode).toBe(200);
      expect((await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice: s.json().result.invoice.uuid } })).statusCode).toBe(200);
      out.push({ uuid: r.body.result.uuid, email });
    }
    await job(gw.ctx);
    return out;
  };
  const rows = (uuid: string) => db().selectFrom('recurrences').selectAll().where('id', '=', uuid).executeTakeFirstOrThrow();
  const invoicesOf = (uuid: string) => db().selectFrom('invoices').select(['id', 'recurrence_period']).where('recurrence_id', '=', uuid).orderBy('recurrence_period').execute();
  const hookStatuses = async (uuid: string) =>
    (await db().selectFrom('webhooks').select('body').where('ref_id', '=', uuid).where('kind', '=', 'recurrence').orderBy('created_at').orderBy('id').execute()).map(
      (w) => (JSON.parse(w.body) as { status: string; invoice_uuid: string | null }),
    );
  const mailsTo = (email: string) => sink.messages.filter((m) => m.to.includes(email)).map((m) => m.subject);

  it('two workers side by side: one renewal invoice, one webhook and one email per transition', async () => {
    const subs = await actives(4);
    gw.clock.now = Number((await rows(subs[0]!.uuid)).next_due_at);
    for (const s of subs) expect(Number((await rows(s.uuid)).next_due_at)).toBeLessThanOrEqual(gw.clock.now);
    await Promise.all([job(gw.ctx), job(second), job(gw.ctx), job(second)]);
    await Promise.all([job(gw.ctx), job(second)]);
    for (const s of subs) {
      const r = await rows(s.uuid);
      expect(r).toMatchObject({ status: 'wait_payment', period_index: 1 });
      const invoices = await invoicesOf(s.uuid);
      expect(invoices.map((i) => Number(i.recurrence_period))).toEqual([0, 1]);
      expect(r.invoice_id).toBe(invoices[1]!.id);
      const hooks = await hookStatuses(s.uuid);
      expect(hooks.map((h) => h.status)).toEqual(['active', 'wait_payment']);
      expect(hooks[1]!.invoice_uuid).toBe(r.invoice_id);
      expect(mailsTo(s.email)).toEqual(['Test shop: Your subscription to Race plan is active', 'Test shop: Your subscription to Race plan is due for renewal']);
    }
  });

  it('a crash after the renewal invoice is made, before the status change: no second invoice, each webhook and email once', async () => {
    const [s] = await actives(1);
    const { uuid, email } = s!;
    gw.clock.now = Number((await rows(uuid)).next_due_at);
    // The fault: the invoice is made (committed), then the process "dies" before the recurrence is updated.
    let made = 0;
    const faulty: Ctx = {
      ...gw.ctx,
      features: {
        ...gw.ctx.features,
        invoices: {
          ...gw.ctx.features.invoices,
          create: async (...args: Parameters<Ctx['features']['invoices']['create']>) => {
            await gw.ctx.features.invoices.create(...args);
            made++;
            throw new Error('crash between the renewal invoice and the status change');
          },
        },
      },
    };
    await advanceRecurrences(faulty, quiet);
    expect(made).toBe(1);
    expect(await rows(uuid)).toMatchObject({ status: 'active', period_index: 0 });
    expect((await invoicesOf(uuid)).length).toBe(2);
    expect((await hookStatuses(uuid)).map((h) => h.status)).toEqual(['active']);

    // The restarted worker runs the job (twice, and beside another): it finds the invoice of the period.
    await Promise.all([job(gw.ctx), job(second)]);
    await job(gw.ctx);
    const r = await rows(uuid);
    expect(r).toMatchObject({ status: 'wait_payment', period_index: 1 });
    const invoices = await invoicesOf(uuid);
    expect(invoices.map((i) => Number(i.recurrence_period))).toEqual([0, 1]);
    expect(r.invoice_id).toBe(invoices[1]!.id);
    const hooks = await hookStatuses(uuid);
    expect(hooks.map((h) => h.status)).toEqual(['active', 'wait_payment']);
    expect(hooks[1]!.invoice_uuid).toBe(invoices[1]!.id);
    expect(mailsTo(email)).toEqual(['Test shop: Your subscription to Race plan is active', 'Test shop: Your subscription to Race plan is due for renewal']);
  });
});
