// The guards of automatic renewals (docs/recurring.md, "Automatic renewals"), on a real EVM chain
// (anvil) and both databases: a renewal re-quoted above the amount per period the payer approved is
// not pulled; a pull that reverts ends automatic renewals only when the chain shows the allowance
// really gone (a dropped balance does not: the next period is pulled again); renewals are taken
// oldest due first and none is taken again and again in place of others; the pull and email steps
// of the `recurrences` job take no new work once their signal aborts (deadline or shutdown).
// Migration 030 fills the approved amount of allowances recorded before it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Kysely } from 'kysely';
import { erc20Abi, parseGwei, parseUnits, type Hex } from 'viem';
import { allowanceMessage } from '../../src/contracts/allowance-message.ts';
import { backends } from '../helpers/backends.ts';
import { PAYER, startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';
import { advanceRecurrences } from '../../src/recurrences/lifecycle.ts';
import { pullRenewals, type PullFallback, type PullLogger } from '../../src/recurrences/pulls.ts';
import { sendRecurrenceEmails } from '../../src/recurrences/emails.ts';
import { setPayerEmails } from '../../src/merchants/store.ts';
import { openStorage, type Storage } from '../../src/db/dialect.ts';
import { migrateToLatest, migrateUpTo } from '../../src/db/migrate.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

const CONFIRMATIONS = 2;
/** An anvil account that holds what the payer moves away, and gives it back. */
const ELSEWHERE = 3;
let n = 0;

const list = await backends();

describe.each(list)('automatic renewal guards on anvil on $name', (backend) => {
  let g: EvmGateway;
  beforeAll(async () => {
    g = await startEvmGateway(backend, { confirmations: CONFIRMATIONS });
    await g.anvil.rpc('anvil_setBalance', [g.driver().hotWallet, '0x56BC75E2D63100000']); // 100 ETH for the pulls' gas
  }, 60_000);
  afterAll(async () => g?.stopAll());

  const payer = () => g.anvil.account(PAYER).address;
  const db = () => g.ctx.storage.db;
  const units = (amount: string) => parseUnits(amount, 6);
  const pay = (path: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) =>
    g.app.inject({ method, url: `/api/pay/recurrence/${path}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const rec = (id: string) => db().selectFrom('recurrences').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const inv = (id: string) => db().selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const pulls = (id: string) => db().selectFrom('recurrence_pulls').selectAll().where('recurrence_id', '=', id).orderBy('period').execute();
  const allowanceRow = (id: string) => db().selectFrom('recurrence_allowances').selectAll().where('recurrence_id', '=', id).executeTakeFirstOrThrow();
  const approve = async (amount: string) => {
    await g.anvil.wallet(PAYER).writeContract({ address: g.usdt.address, abi: erc20Abi, functionName: 'approve', args: [g.driver().hotWallet as Hex, units(amount)] });
    await g.mineAndTick();
  };
  const register = async (uuid: string) => {
    const t = (await pay(`${uuid}/allowance`)).json().result;
    const signature = await g.anvil.wallet(PAYER).signMessage({ message: allowanceMessage({ ...t, uuid }) });
    const r = await pay(`${uuid}/allowance`, 'POST', { address: payer(), signature });
    expect(r.statusCode, r.body).toBe(200);
  };
  const done = async (...uuids: string[]) => {
    for (const uuid of uuids) expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  };
  const moveTo = async (at: number) => {
    const ms = at - g.clock.now + 1000;
    if (ms <= 0) return;
    g.clock.advance(ms);
    await g.anvil.rpc('evm_increaseTime', [Math.ceil(ms / 1000)]);
  };
  /** A payer transaction that the next block puts before the gateway's pull (a far higher tip). */
  const first = (functionName: 'transfer' | 'approve', to: string, amount: bigint) =>
    g.anvil.wallet(PAYER).writeContract({
      address: g.usdt.address, abi: erc20Abi, functionName, args: [to as Hex, amount], gas: 100_000n,
      maxPriorityFeePerGas: parseGwei('500'), maxFeePerGas: parseGwei('1000'),
    });
  const collect = () => {
    const told: PullFallback[] = [];
    const log: PullLogger = { warn: () => {}, error: (o) => { throw new Error(JSON.stringify(o)); } };
    return { told, log, hooks: { fallback: (_c: unknown, _t: unknown, f: PullFallback) => void told.push(f) } };
  };

  /** A weekly recurrence on ETH in USDT (`currency`: the plan's price currency), its first period paid by hand: `active`. */
  const activeOne = async (currency = 'USDT') => {
    const created = await g.api('/v1/recurrence/create', { amount: '10', currency, name: 'Guarded plan', period: 'weekly', order_id: `guard-${backend.name}-${++n}` });
    expect(created.status, created.raw).toBe(200);
    const uuid = created.body.result.uuid as string;
    const s = await pay(`${uuid}/subscribe`, 'POST', { currency: 'USDT', network: 'ETH' });
    expect(s.statusCode, s.body).toBe(200);
    const inv0 = s.json().result.invoice;
    await g.payToken(inv0.address, inv0.payer_amount ?? '10');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    return uuid;
  };

  it('a renewal re-quoted above the approved amount per period is not pulled (`amount`), the allowance stays, the next period is pulled', async () => {
    // A plan priced in USD, paid in USDT: each renewal invoice is quoted anew.
    const uuid = await activeOne('USD');
    await approve('120');
    await register(uuid);
    expect((await allowanceRow(uuid)).amount_per_period).toBe('10');
    const quote = g.ctx.rates.quote.bind(g.ctx.rates);
    const dearer = vi.spyOn(g.ctx.rates, 'quote').mockImplementation(async (base, to, source) => {
      const q = await quote(base, to, source);
      return base === 'USD' && to === 'USDT' ? { ...q, rate: '1.1' } : q;
    });
    const before = await g.usdt.balanceOf(payer());
    try {
      await moveTo(Number((await rec(uuid)).next_due_at));
      await advanceRecurrences(g.ctx);
    } finally {
      dearer.mockRestore();
    }
    const r = await rec(uuid);
    const renewal = await inv(r.invoice_id!);
    expect(renewal.payer_amount).toBe('11');
    const { told, log, hooks } = collect();
    await pullRenewals(g.ctx, log, hooks);
    expect(told).toEqual([{ recurrence: uuid, period: 1, invoice: renewal.id, reason: 'amount' }]);
    expect(await pulls(uuid)).toMatchObject([{ period: 1, status: 'skipped', error: 'amount', txid: null }]);
    expect((await allowanceRow(uuid)).status).toBe('active');
    // Skipped for this period: not taken again, nothing signed, nothing moved.
    await pullRenewals(g.ctx, log, hooks);
    await g.mineAndTick(CONFIRMATIONS + 1);
    expect(told).toHaveLength(1);
    expect(await db().selectFrom('scan_outgoing').select('id').where('kind', '=', 'pull').where('to_address', '=', renewal.address!).execute()).toEqual([]);
    expect(await g.usdt.balanceOf(payer())).toBe(before);

    // The payer pays this one by hand; the next renewal is quoted within the approved amount and pulled.
    await g.payToken(renewal.address!, '11');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    await moveTo(Number((await rec(uuid)).next_due_at));
    await g.tick();
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    const next = await rec(uuid);
    expect(next).toMatchObject({ status: 'active', period_index: 2 });
    expect((await pulls(uuid))[1]).toMatchObject({ period: 2, status: 'confirmed', amount: '10' });
    expect(await g.usdt.balanceOf(payer())).toBe(before - units('21'));
    await done(uuid);
  });

  it('a pull that reverts for a dropped balance keeps the allowance: that period falls back, the payer tops up, the next period is pulled', async () => {
    const uuid = await activeOne();
    await approve('100');
    await register(uuid);
    await moveTo(Number((await rec(uuid)).next_due_at));
    await g.tick(); // the renewal invoice, its pull signed and broadcast
    expect(await pulls(uuid)).toMatchObject([{ period: 1, status: 'sent' }]);
    // The payer's funds leave in the same block, ahead of the pull: transferFrom reverts.
    const held = await g.usdt.balanceOf(payer());
    const elsewhere = g.anvil.account(ELSEWHERE).address;
    await first('transfer', elsewhere, held);
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    expect(await g.usdt.balanceOf(payer())).toBe(0n);
    expect(await pulls(uuid)).toMatchObject([{ period: 1, status: 'failed', error: 'reverted' }]);
    // The chain still shows the allowance: automatic renewals stay on.
    expect((await allowanceRow(uuid)).status).toBe('active');
    const r = await rec(uuid);
    expect(r).toMatchObject({ status: 'wait_payment', period_index: 1 });

    // The payer tops up and pays this period by hand.
    await g.usdt.transfer(ELSEWHERE, payer(), held);
    await g.mineAndTick();
    const renewal = await inv(r.invoice_id!);
    await g.payToken(renewal.address!, '10');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    // The next period is pulled automatically.
    await moveTo(Number((await rec(uuid)).next_due_at));
    await g.tick();
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    expect(await rec(uuid)).toMatchObject({ status: 'active', period_index: 2 });
    expect((await pulls(uuid))[1]).toMatchObject({ period: 2, status: 'confirmed' });
    expect(await g.usdt.balanceOf(payer())).toBe(held - units('20'));
    await done(uuid);
  });

  it('a pull that reverts because the payer revoked meanwhile revokes the allowance: the chain shows it gone', async () => {
    const uuid = await activeOne();
    await approve('100');
    await register(uuid);
    await moveTo(Number((await rec(uuid)).next_due_at));
    await g.tick();
    expect(await pulls(uuid)).toMatchObject([{ period: 1, status: 'sent' }]);
    await first('approve', g.driver().hotWallet, 0n);
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    expect(await pulls(uuid)).toMatchObject([{ period: 1, status: 'failed', error: 'reverted' }]);
    expect((await allowanceRow(uuid)).status).toBe('revoked');
    await done(uuid);
  });

  it('a re-read that fails after a revert keeps the allowance (a transient fault ends nothing)', async () => {
    const uuid = await activeOne();
    await approve('100');
    await register(uuid);
    await moveTo(Number((await rec(uuid)).next_due_at));
    await g.tick();
    await first('approve', g.driver().hotWallet, 0n);
    // The pull reverts; when the gateway asks the chain again, the node does not answer.
    const silent = vi.spyOn(g.driver().allowances, 'allowanceOf').mockRejectedValue(new Error('node down'));
    try {
      await g.mineAndTick(CONFIRMATIONS + 1);
      await g.tick();
    } finally {
      silent.mockRestore();
    }
    expect(await pulls(uuid)).toMatchObject([{ period: 1, status: 'failed', error: 'reverted' }]);
    expect((await allowanceRow(uuid)).status).toBe('active');
    await done(uuid);
  });

  it('oldest due first, `limit` a round: a renewal paid in part by hand is not taken again and again, every other one is pulled across rounds', async () => {
    const [a, b, c] = [await activeOne(), await activeOne(), await activeOne()];
    await moveTo(Math.max(...(await Promise.all([a, b, c].map(async (u) => Number((await rec(u)).next_due_at))))));
    await g.tick(); // three renewal invoices, no allowance yet: nothing pulled
    // A's renewal gets part of its amount by hand: no pull is for it any more this period.
    const renewalA = await inv((await rec(a)).invoice_id!);
    await g.payToken(renewalA.address!, '3');
    await g.mineAndTick(CONFIRMATIONS);
    expect(await rec(a)).toMatchObject({ status: 'wait_payment', period_index: 1 });
    expect((await inv(renewalA.id)).payment_amount).not.toBeNull();
    await approve('120');
    for (const u of [a, b, c]) await register(u);
    // As if approved before the renewals were made: an allowance recorded during `wait_payment`
    // leaves that renewal to the payer (pull-reminders.test.ts), and this test is about the order.
    await db().updateTable('recurrence_allowances').set({ created_at: 0 }).where('recurrence_id', 'in', [a, b, c]).execute();
    const before = await g.usdt.balanceOf(payer());
    const { log, hooks } = collect();
    const order: string[] = [];
    for (let round = 0; round < 3; round++) {
      await pullRenewals(g.ctx, log, hooks, 1);
      for (const u of [b, c]) if ((await pulls(u)).length > 0 && !order.includes(u)) order.push(u);
    }
    // One a round, B (due first) then C; A never.
    expect(order).toEqual([b, c]);
    expect(await pulls(a)).toEqual([]);
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    for (const u of [b, c]) {
      expect(await pulls(u)).toMatchObject([{ period: 1, status: 'confirmed' }]);
      expect((await rec(u)).status).toBe('active');
    }
    expect(await g.usdt.balanceOf(payer())).toBe(before - units('20'));
    await done(a, b, c);
  });

  it('the pull step takes nothing new once its signal aborts (deadline or shutdown); the rest is pulled next round', async () => {
    const [d, e] = [await activeOne(), await activeOne()];
    await approve('120');
    for (const u of [d, e]) await register(u);
    await moveTo(Math.max(Number((await rec(d)).next_due_at), Number((await rec(e)).next_due_at)));
    await advanceRecurrences(g.ctx);
    // The deadline passes while the first pull is under way: it is finished, the second waits.
    const step = new AbortController();
    const { log } = collect();
    await pullRenewals(g.ctx, log, { afterBroadcast: () => step.abort() }, 100, step.signal);
    expect(await pulls(d)).toMatchObject([{ period: 1, status: 'sent' }]);
    expect(await pulls(e)).toEqual([]);
    // A shutting-down worker's round pulls nothing.
    const shutdown = new AbortController();
    shutdown.abort();
    await g.ctx.features.jobs.recurrences(g.ctx, shutdown.signal);
    expect(await pulls(e)).toEqual([]);
    // The next round takes it.
    await pullRenewals(g.ctx, log);
    expect(await pulls(e)).toMatchObject([{ period: 1, status: 'sent' }]);
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    for (const u of [d, e]) expect(await pulls(u)).toMatchObject([{ status: 'confirmed' }]);
    await done(d, e);
  });
});

describe.each(list)('the email step of the recurrences job on $name', (backend) => {
  let sink: SmtpSink;
  let gw: TestGateway;
  beforeAll(async () => {
    sink = await startSmtpSink();
    gw = await startTestGateway(backend, { env: { SATCHEL_SMTP_URL: sink.url, SATCHEL_SMTP_FROM: 'pay@shop.example' } });
    await setPayerEmails(gw.ctx.storage.db, gw.merchant.id, true);
  });
  afterAll(async () => {
    await gw?.close();
    await sink?.close();
  });

  it('sends nothing new once its signal aborts; what is left is sent next round', async () => {
    for (let k = 0; k < 3; k++) {
      const r = await gw.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Mail plan', period: 'weekly', order_id: `mail-${++n}` });
      const s = await gw.app.inject({ method: 'POST', url: `/api/pay/recurrence/${r.body.result.uuid}/subscribe`, payload: { currency: 'USDT', network: 'TRON', email: `mail-${n}@example.com` } });
      expect(s.statusCode).toBe(200);
      expect((await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice: s.json().result.invoice.uuid } })).statusCode).toBe(200);
    }
    await advanceRecurrences(gw.ctx); // three "subscribed" emails queued
    const queued = () => gw.ctx.storage.db.selectFrom('recurrence_emails').select('status').execute();
    expect((await queued()).map((e) => e.status)).toEqual(['pending', 'pending', 'pending']);
    // The step's deadline passes while the first email is being sent.
    const step = new AbortController();
    const send = gw.ctx.mail.send.bind(gw.ctx.mail);
    const spy = vi.spyOn(gw.ctx.mail, 'send').mockImplementation(async (m) => {
      const r = await send(m);
      step.abort();
      return r;
    });
    try {
      expect(await sendRecurrenceEmails(gw.ctx, 50, step.signal)).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect((await queued()).map((e) => e.status).sort()).toEqual(['pending', 'pending', 'sent']);
    // A shutting-down worker's round sends nothing.
    const shutdown = new AbortController();
    shutdown.abort();
    await gw.ctx.features.jobs.recurrences(gw.ctx, shutdown.signal);
    expect((await queued()).filter((e) => e.status === 'sent')).toHaveLength(1);
    expect(sink.messages).toHaveLength(1);
    // The next round sends the rest.
    await gw.ctx.features.jobs.recurrences(gw.ctx, new AbortController().signal);
    expect((await queued()).map((e) => e.status)).toEqual(['sent', 'sent', 'sent']);
    expect(sink.messages).toHaveLength(3);
  });
});

describe.each(list)('migration 030 (approved amount per period) on $name', (backend) => {
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  let storage: Storage;
  beforeAll(async () => {
    db = await backend.create();
    storage = db.databaseUrl ? openStorage({ databaseUrl: db.databaseUrl }) : openStorage({ sqlitePath: ':memory:' });
  });
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it('fills allowances recorded before it from their recurrence per-period payer amount', async () => {
    const ran = await migrateUpTo(storage, '029_recurrence_emails');
    expect(ran).not.toContain('030_allowance_amount');
    const old = storage.db as unknown as Kysely<any>;
    const T = 1_700_000_000_000;
    await old.insertInto('recurrences').values({
      id: 'rec-1', merchant_id: 'm-1', order_id: null, name: 'Old plan', amount: '10', currency: 'USD', to_currency: null, payer_currency: 'USDT',
      network: 'ETH', payer_amount: '10.5', payer_amount_usd: '10.00', url_callback: null, discount_days: null, discount_amount: null, end_of_discount: null,
      period: 'monthly', status: 'active', additional_data: null, period_index: 2, invoice_id: null, anchor_at: T, anchor_period: 0, next_due_at: T + 1,
      grace_until: null, last_pay_off: T, created_at: T, updated_at: T, version: 3,
    }).execute();
    const allowance = (id: string) => ({
      recurrence_id: id, network: 'ETH', currency: 'USDT', token: '0xtoken', collector: '0xcollector', payer_address: '0xpayer', cap: '126',
      approve_txid: null, status: 'active', created_at: T, updated_at: T,
    });
    await old.insertInto('recurrence_allowances').values([allowance('rec-1'), allowance('rec-gone')]).execute();
    expect(await migrateToLatest(storage)).toContain('030_allowance_amount');
    const rows = await storage.db.selectFrom('recurrence_allowances').select(['recurrence_id', 'amount_per_period', 'cap']).orderBy('recurrence_id').execute();
    expect(rows).toEqual([
      { recurrence_id: 'rec-1', amount_per_period: '10.5', cap: '126' },
      { recurrence_id: 'rec-gone', amount_per_period: null, cap: '126' },
    ]);
  });
});
