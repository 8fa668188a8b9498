// A renewal the gateway collects itself (an active allowance, on anvil) must not ask the payer to
// pay it by hand as well, or a prompt payer pays the period twice: the email is "collected
// automatically, nothing to do" (`renewal_auto`), not "renewal due", and the payer view says
// `auto_pull` (pending, then sent with its transaction, then confirmed) so the page shows no
// invoice. A pull that falls back (the allowance revoked) reminds the payer to pay after all
// (queuePullFallbackEmail, once per period), drops the "nothing to do" email not sent yet, and the
// payer view shows the invoice again. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi, parseUnits, type Hex } from 'viem';
import { allowanceMessage } from '../../src/contracts/allowance-message.ts';
import { backends } from '../helpers/backends.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { PAYER, startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';
import { advanceRecurrences } from '../../src/recurrences/lifecycle.ts';
import { pullRenewals } from '../../src/recurrences/pulls.ts';
import { queuePullFallbackEmail, sendRecurrenceEmails } from '../../src/recurrences/emails.ts';
import { setPayerEmails } from '../../src/merchants/store.ts';
import { ALLOWANCE_PERIODS } from '../../src/recurrences/allowance.ts';

const CONFIRMATIONS = 2;
let n = 0;
const quiet = { warn: () => {}, error: (o: unknown) => { throw new Error(JSON.stringify(o)); } };

describe.each(await backends())('a renewal collected automatically is not asked of the payer on $name', (backend) => {
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
    const created = await g.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Pro plan', period: 'weekly', order_id: `auto-${backend.name}-${++n}` });
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

  it('says "collected automatically" by email and on the page, never "pay the renewal", then shows the pull', async () => {
    const addr = `auto-${++n}@example.com`;
    const uuid = await withAllowance(addr);
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    const r = await rec(uuid);
    expect(r).toMatchObject({ status: 'wait_payment', period_index: 1 });

    // The page: no invoice to pay, the renewal is being collected.
    const pending = await view(uuid);
    expect(pending).toMatchObject({ status: 'wait_payment', invoice_uuid: r.invoice_id, auto_pull: { status: 'pending', txid: null, explorer_url: null } });

    // The email: nothing to do, and no link to pay the invoice.
    await sendRecurrenceEmails(g.ctx);
    const mails = sink.messages.filter((m) => m.to.includes(addr));
    expect(mails.map((m) => m.subject)).toEqual(['EVM shop: Your subscription to Pro plan is active', 'EVM shop: Your renewal of Pro plan will be collected automatically']);
    const text = mails[1]!.text.replace(/\r\n/g, '\n');
    expect(text).toContain('It will be collected automatically from the wallet you approved, so there is nothing to do.');
    expect(text).toContain(`Your subscription:\nhttps://pay.example.test/pay/recurrence/${uuid}`);
    expect(text).not.toContain(`/pay/${r.invoice_id}`);
    expect(text).not.toContain('Pay the renewal');

    // Pulled: the page shows the transaction, then its confirmation; the recurrence goes on.
    await pullRenewals(g.ctx, quiet, { fallback: queuePullFallbackEmail });
    const pull = await db().selectFrom('recurrence_pulls').selectAll().where('recurrence_id', '=', uuid).executeTakeFirstOrThrow();
    expect(pull.status).toBe('sent');
    expect((await view(uuid)).auto_pull).toMatchObject({ status: 'sent', txid: pull.txid });
    await g.mineAndTick(CONFIRMATIONS + 1);
    await pullRenewals(g.ctx, quiet, { fallback: queuePullFallbackEmail });
    expect((await db().selectFrom('recurrence_pulls').select('status').where('id', '=', pull.id).executeTakeFirstOrThrow()).status).toBe('confirmed');
    await g.tick();
    const after = await view(uuid);
    expect(after.status).toBe('active');
    expect(after.auto_pull).toBeNull();
    // No "renewal due" was ever queued for this period.
    expect((await emails(uuid)).map((e) => e.kind)).not.toContain('renewal_due');
    expect((await db().selectFrom('invoices').select('status').where('id', '=', r.invoice_id!).executeTakeFirstOrThrow()).status).toBe('paid');
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });

  it('a pull that falls back reminds the payer to pay, once, instead of "nothing to do"; the page shows the invoice', async () => {
    const addr = `fallback-${++n}@example.com`;
    const uuid = await withAllowance(addr, '100');
    await approve('0'); // revoked on chain: the gateway still records the allowance active
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    const r = await rec(uuid);
    expect(r.status).toBe('wait_payment');
    expect((await emails(uuid)).map((e) => [e.kind, e.status])).toContainEqual(['renewal_auto', 'pending']);
    expect((await view(uuid)).auto_pull).toMatchObject({ status: 'pending' });

    await pullRenewals(g.ctx, { warn: () => {}, error: quiet.error }, { fallback: queuePullFallbackEmail });
    expect(await db().selectFrom('recurrence_pulls').select(['status', 'error']).where('recurrence_id', '=', uuid).execute()).toEqual([{ status: 'skipped', error: 'allowance' }]);
    // The hook again (a worker told twice): still one reminder for the period.
    await g.ctx.storage.write((trx) => queuePullFallbackEmail(g.ctx, trx, { recurrence: uuid, period: 1, invoice: r.invoice_id!, reason: 'allowance' }));
    const rows = (await emails(uuid)).filter((e) => e.kind !== 'subscribed');
    expect(rows.map((e) => [e.kind, e.status, e.invoice_id])).toEqual([
      ['renewal_auto', 'skipped', r.invoice_id],
      ['renewal_due', 'pending', r.invoice_id],
    ]);

    await sendRecurrenceEmails(g.ctx);
    const mails = sink.messages.filter((m) => m.to.includes(addr));
    expect(mails.map((m) => m.subject)).toEqual(['EVM shop: Your subscription to Pro plan is active', 'EVM shop: Your subscription to Pro plan is due for renewal']);
    expect(mails[1]!.text.replace(/\r\n/g, '\n')).toContain(`Pay the renewal here:\nhttps://pay.example.test/pay/${r.invoice_id}`);

    // The page: the invoice to pay again, no automatic collection.
    const v = await view(uuid);
    expect(v).toMatchObject({ status: 'wait_payment', invoice_uuid: r.invoice_id, auto_pull: null });
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
    // A cancelled recurrence gets no reminder from a late fallback.
    await g.ctx.storage.write((trx) => queuePullFallbackEmail(g.ctx, trx, { recurrence: uuid, period: 1, invoice: r.invoice_id!, reason: 'refused' }));
    expect((await emails(uuid)).filter((e) => e.kind === 'renewal_due')).toHaveLength(1);
  });
});
