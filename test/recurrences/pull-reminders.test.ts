// The renewal reminder of automatic renewals (docs/recurring.md, "Emails to the payer" and
// "Automatic renewals"), on anvil and both databases: the reminder is queued in the transaction that
// records the pull's fallback (a hook that throws rolls both back, a later round decides again); a
// node that has not answered yet makes the pull wait rather than record `no_collector`, and a
// renewal already told "renewal due" gets no second one; an allowance recorded while the renewal
// already waits does not pull that renewal (its payer has the invoice's link), only later ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi, parseUnits, type Hex } from 'viem';
import { allowanceMessage } from '../../src/contracts/allowance-message.ts';
import { backends } from '../helpers/backends.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { PAYER, startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';
import { advanceRecurrences } from '../../src/recurrences/lifecycle.ts';
import { pullRenewals, type PullHooks } from '../../src/recurrences/pulls.ts';
import { queuePullFallbackEmail } from '../../src/recurrences/emails.ts';
import { setPayerEmails } from '../../src/merchants/store.ts';
import { ALLOWANCE_PERIODS } from '../../src/recurrences/allowance.ts';

const CONFIRMATIONS = 2;
let n = 0;
const quiet = { warn: () => {}, error: (o: unknown) => { throw new Error(JSON.stringify(o)); } };
const hooks: PullHooks = { fallback: queuePullFallbackEmail };

describe.each(await backends())('renewal reminders of automatic renewals on $name', (backend) => {
  let g: EvmGateway;
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
    g = await startEvmGateway(backend, { confirmations: CONFIRMATIONS, env: { SATCHEL_SMTP_URL: sink.url, SATCHEL_SMTP_FROM: 'pay@shop.example' } });
    await g.anvil.rpc('anvil_setBalance', [g.driver().hotWallet, '0x56BC75E2D63100000']);
    await setPayerEmails(g.ctx.storage.db, g.merchant.id, true);
    g.ctx.merchants.invalidate(g.merchant.id);
  }, 60_000);
  afterAll(async () => {
    await g?.stopAll();
    await sink?.close();
  });

  const db = () => g.ctx.storage.db;
  const payer = () => g.anvil.account(PAYER).address;
  const pay = (path: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) =>
    g.app.inject({ method, url: `/api/pay/recurrence/${path}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const view = async (uuid: string) => {
    const r = await pay(uuid);
    expect(r.statusCode, r.body).toBe(200);
    return r.json().result;
  };
  const rec = (id: string) => db().selectFrom('recurrences').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const emails = (id: string) => db().selectFrom('recurrence_emails').select(['kind', 'status', 'invoice_id', 'transition']).where('recurrence_id', '=', id).orderBy('created_at').orderBy('transition').execute();
  const approve = async (amount: string) => {
    await g.anvil.wallet(PAYER).writeContract({ address: g.usdt.address, abi: erc20Abi, functionName: 'approve', args: [g.driver().hotWallet as Hex, parseUnits(amount, 6)] });
    await g.mineAndTick();
  };
  const register = async (uuid: string) => {
    const t = (await pay(`${uuid}/allowance`)).json().result;
    const signature = await g.anvil.wallet(PAYER).signMessage({ message: allowanceMessage({ ...t, uuid }) });
    const r = await pay(`${uuid}/allowance`, 'POST', { address: payer(), signature });
    expect(r.statusCode, r.body).toBe(200);
  };
  const moveTo = async (at: number) => {
    const ms = at - g.clock.now + 1000;
    if (ms <= 0) return;
    g.clock.advance(ms);
    await g.anvil.rpc('evm_increaseTime', [Math.ceil(ms / 1000)]);
  };
  /** Subscribed with an email, the first period paid by hand, the allowance approved and recorded. */
  const withAllowance = async (addr: string, cap = String(10 * ALLOWANCE_PERIODS)) => {
    const created = await g.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Pro plan', period: 'weekly', order_id: `rem-${backend.name}-${++n}` });
    expect(created.status, created.raw).toBe(200);
    const uuid = created.body.result.uuid as string;
    const s = await pay(`${uuid}/subscribe`, 'POST', { currency: 'USDT', network: 'ETH', email: addr, lang: 'en' });
    expect(s.statusCode, s.body).toBe(200);
    await g.payToken(s.json().result.invoice.address, '10');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    expect((await sink.next(addr)).subject).toContain('is active');
    await approve(cap);
    await register(uuid);
    return uuid;
  };

  const pulls = (id: string) => db().selectFrom('recurrence_pulls').select(['period', 'status', 'error']).where('recurrence_id', '=', id).orderBy('period').execute();
  const renewalEmails = async (id: string) => (await emails(id)).filter((e) => e.kind !== 'subscribed').map((e) => [e.kind, e.status]);
  /** The node of ETH as if it had missed the check at the worker's start (not answering yet). */
  const silence = (on: boolean) => {
    const silent = (g.ctx.chains as unknown as { silent: Set<string> }).silent;
    if (on) silent.add('ETH');
    else silent.delete('ETH');
  };

  it('queues the reminder in the transaction of the fallback: a hook that throws leaves the period undecided', async () => {
    const uuid = await withAllowance(`trx-${++n}@example.com`, '100');
    await approve('0'); // revoked on chain: the pull falls back (`allowance`)
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    expect(await renewalEmails(uuid)).toEqual([['renewal_auto', 'pending']]);

    // The reminder's write fails (a busy database): nothing of the fallback is kept.
    const errors: unknown[] = [];
    const failing: PullHooks = { fallback: async (c, trx, f) => { await queuePullFallbackEmail(c, trx, f); throw new Error('database is busy'); } };
    await pullRenewals(g.ctx, { warn: () => {}, error: (o) => void errors.push(o) }, failing);
    expect(errors).toHaveLength(1);
    expect(await pulls(uuid)).toEqual([]);
    expect(await renewalEmails(uuid)).toEqual([['renewal_auto', 'pending']]);
    expect((await view(uuid)).auto_pull).toMatchObject({ status: 'pending' });

    // The next round decides the period again, and the reminder goes with it.
    await pullRenewals(g.ctx, { warn: () => {}, error: quiet.error }, hooks);
    expect(await pulls(uuid)).toEqual([{ period: 1, status: 'skipped', error: 'allowance' }]);
    expect(await renewalEmails(uuid)).toEqual([['renewal_auto', 'skipped'], ['renewal_due', 'pending']]);
    expect((await view(uuid)).auto_pull).toBeNull();
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });

  it('waits for a node not answering yet instead of recording no_collector, then pulls; no second "renewal due"', async () => {
    const uuid = await withAllowance(`node-${++n}@example.com`);
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    const r = await rec(uuid);
    try {
      silence(true);
      await pullRenewals(g.ctx, quiet, hooks);
      expect(await pulls(uuid)).toEqual([]);
      expect((await view(uuid)).auto_pull).toMatchObject({ status: 'pending' });
      expect(await renewalEmails(uuid)).toEqual([['renewal_auto', 'pending']]);
    } finally {
      silence(false);
    }
    await pullRenewals(g.ctx, quiet, hooks);
    expect(await pulls(uuid)).toEqual([{ period: 1, status: 'sent', error: null }]);
    await g.mineAndTick(CONFIRMATIONS + 1);
    await pullRenewals(g.ctx, quiet, hooks);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    expect((await emails(uuid)).map((e) => e.kind)).not.toContain('renewal_due');

    // A renewal whose transition already queued "renewal due" (the node silent then, before this
    // fix): a fallback of its pull queues no second one.
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    const r2 = await rec(uuid);
    await db().updateTable('recurrence_emails').set({ kind: 'renewal_due' }).where('recurrence_id', '=', uuid).where('invoice_id', '=', r2.invoice_id).execute();
    await g.ctx.storage.write((trx) => queuePullFallbackEmail(g.ctx, trx, { recurrence: uuid, period: 2, invoice: r2.invoice_id!, reason: 'refused' }));
    expect((await emails(uuid)).filter((e) => e.invoice_id === r2.invoice_id).map((e) => e.kind)).toEqual(['renewal_due']);
    expect(r.invoice_id).not.toBe(r2.invoice_id);
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });

  it('an allowance recorded while the renewal already waits pulls only later renewals', async () => {
    const addr = `late-${++n}@example.com`;
    const created = await g.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Pro plan', period: 'weekly', order_id: `rem-${backend.name}-${++n}` });
    const uuid = created.body.result.uuid as string;
    const s = await pay(`${uuid}/subscribe`, 'POST', { currency: 'USDT', network: 'ETH', email: addr, lang: 'en' });
    await g.payToken(s.json().result.invoice.address, '10');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    const r = await rec(uuid);
    expect(r.status).toBe('wait_payment');
    expect((await renewalEmails(uuid)).map(([k]) => k)).toEqual(['renewal_due']);

    // Recorded now: the payer already holds the invoice's link, so this period stays theirs.
    g.clock.advance(1000);
    await approve(String(10 * ALLOWANCE_PERIODS));
    await register(uuid);
    expect((await view(uuid)).auto_pull).toBeNull();
    await pullRenewals(g.ctx, quiet, hooks);
    expect(await pulls(uuid)).toEqual([]);
    expect((await renewalEmails(uuid)).map(([k]) => k)).toEqual(['renewal_due']);

    // Paid by hand; the next renewal is collected automatically.
    await g.payToken((await db().selectFrom('invoices').select('address').where('id', '=', r.invoice_id!).executeTakeFirstOrThrow()).address!, '10');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    expect((await emails(uuid)).at(-1)?.kind).toBe('renewal_auto');
    expect((await view(uuid)).auto_pull).toMatchObject({ status: 'pending' });
    await pullRenewals(g.ctx, quiet, hooks);
    expect(await pulls(uuid)).toEqual([{ period: 2, status: 'sent', error: null }]);
    await g.mineAndTick(CONFIRMATIONS + 1);
    await pullRenewals(g.ctx, quiet, hooks);
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });

  it('a node down near the end of grace falls back (`node`): the reminder goes out and the page shows the invoice', async () => {
    const uuid = await withAllowance(`outage-${++n}@example.com`);
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    const r = await rec(uuid);
    try {
      silence(true);
      await pullRenewals(g.ctx, quiet, hooks);
      expect(await pulls(uuid)).toEqual([]); // early in grace: waits for the node
      await moveTo(Number(r.grace_until) - 12 * 3_600_000);
      await pullRenewals(g.ctx, quiet, hooks);
      expect(await pulls(uuid)).toEqual([{ period: 1, status: 'skipped', error: 'node' }]);
      expect(await renewalEmails(uuid)).toEqual([['renewal_auto', 'skipped'], ['renewal_due', 'pending']]);
      expect(await view(uuid)).toMatchObject({ status: 'wait_payment', invoice_uuid: r.invoice_id, auto_pull: null });
    } finally {
      silence(false);
    }
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });

  it('does not lapse a renewal whose pull is under way at the end of grace; it lapses once the pull fails', async () => {
    const uuid = await withAllowance(`lapse-${++n}@example.com`);
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    const r = await rec(uuid);
    const renewal = await db().selectFrom('invoices').selectAll().where('id', '=', r.invoice_id!).executeTakeFirstOrThrow();
    const now = g.clock.now;
    await db().insertInto('recurrence_pulls').values({
      id: crypto.randomUUID(), recurrence_id: uuid, period: 1, invoice_id: renewal.id, network: 'ETH', currency: 'USDT',
      from_address: payer().toLowerCase(), to_address: renewal.address!, amount: renewal.payer_amount!, txid: '0x' + 'ab'.repeat(32),
      status: 'sent', error: null, created_at: now, updated_at: now,
    }).execute();
    await moveTo(Number(r.grace_until));
    await advanceRecurrences(g.ctx);
    expect((await rec(uuid)).status).toBe('wait_payment');
    await db().updateTable('recurrence_pulls').set({ status: 'failed', error: 'reverted' }).where('recurrence_id', '=', uuid).execute();
    await advanceRecurrences(g.ctx);
    expect((await rec(uuid)).status).toBe('inactive');
  });
});
