// Automatic renewals on EVM networks (docs/recurring.md): when a recurrence with an allowance has
// a renewal invoice waiting, the worker pulls exactly that invoice's amount from the payer with
// transferFrom into the invoice's deposit address, where it is received like any payment (the
// invoice becomes paid, and the recurrence active again, by the usual paths). A period is pulled
// at most once: its pull row is reserved (unique per recurrence and period) before anything is
// signed, the driver signs and stores the transaction idempotently on the pull's id, the row records
// its hash (`planned`) before the broadcast, and a pull found `planned` after a crash is broadcast
// again from the stored bytes, never signed anew (a stored transaction whose hash the row missed is
// recorded first: a pull is never marked failed while its signed transaction exists). An allowance or balance found short, or a pull the
// chain refused, leaves the renewal invoice to be paid by hand (and reported for the reminder).
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import type { AllowancePuller } from '../chain/contract.ts';
import type { RecurrencePullsTable } from '../db/schema.ts';
import { Decimal } from '../money/decimal.ts';
import type { RecurrencePeriod } from '../contracts/merchant-api/recurrences.ts';
import { periodStart } from './periods.ts';

export interface PullLogger {
  warn(o: unknown, msg?: string): void;
  error(o: unknown, msg?: string): void;
}

/** Why a period was not pulled and its renewal invoice waits for the payer instead. */
export type PullFallbackReason = 'allowance' | 'balance' | 'refused' | 'reverted' | 'no_collector';

/** A renewal left to the payer: what the reminder (docs/recurring.md, emails) is sent for. */
export interface PullFallback {
  recurrence: string;
  period: number;
  invoice: string;
  reason: PullFallbackReason;
}

export interface PullHooks {
  /** Told of every renewal that falls back to the invoice (the reminder email's hook). */
  fallback?(ctx: Ctx, f: PullFallback): Promise<void> | void;
  /** Test-only fault injection: runs right after a pull's broadcast, before it is recorded as sent. */
  afterBroadcast?(pull: RecurrencePullsTable): void;
}

type Pull = RecurrencePullsTable;

/** The network's puller when its driver has one and a collector to pull with. */
export function pullerOf(ctx: Ctx, network: string | null): AllowancePuller | null {
  if (!network || !ctx.chains.offered(network)) return null;
  const p = ctx.chains.driver(network).allowances;
  return p && p.collector() !== null ? p : null;
}

async function update(ctx: Ctx, id: string, patch: Partial<Pull>): Promise<void> {
  await ctx.storage.write(async (trx) => {
    await trx.updateTable('recurrence_pulls').set({ ...patch, updated_at: ctx.now() }).where('id', '=', id).execute();
  });
}

async function fallBack(ctx: Ctx, log: PullLogger, hooks: PullHooks, pull: Pull, reason: PullFallbackReason, status: 'skipped' | 'failed'): Promise<void> {
  await ctx.storage.write(async (trx) => {
    await trx.updateTable('recurrence_pulls').set({ status, error: reason, updated_at: ctx.now() }).where('id', '=', pull.id).execute();
    if (reason === 'allowance' || reason === 'reverted') {
      await trx.updateTable('recurrence_allowances').set({ status: 'revoked', updated_at: ctx.now() }).where('recurrence_id', '=', pull.recurrence_id).execute();
    }
  });
  const f: PullFallback = { recurrence: pull.recurrence_id, period: pull.period, invoice: pull.invoice_id, reason };
  log.warn({ ...f, reminder: true }, 'automatic renewal not pulled: the renewal invoice waits for the payer');
  await hooks.fallback?.(ctx, f);
}

/**
 * The hash of the pull's transaction: recorded on the row, or stored by the driver under the pull's
 * id (signed, then a crash before the row recorded it). Read from the database, so it is known
 * even while the network's node is silent.
 */
async function storedTxid(ctx: Ctx, pull: Pull): Promise<string | null> {
  if (pull.txid !== null) return pull.txid;
  if (!ctx.registry.network(pull.network)) return null;
  return (await ctx.chains.driver(pull.network).allowances?.storedPull(pull.id)) ?? null;
}

/** Carries a reserved or planned pull on: signs (once), records the hash, broadcasts, records `sent`. */
async function carry(ctx: Ctx, log: PullLogger, hooks: PullHooks, pull: Pull): Promise<void> {
  const stored = await storedTxid(ctx, pull);
  if (stored !== null && pull.txid === null) {
    // Signed and stored, then a crash before its hash was recorded: that transaction exists (the
    // chain poll broadcasts what is stored), so the pull carries on as sent, never failed.
    await update(ctx, pull.id, { txid: stored });
    pull = { ...pull, txid: stored };
  }
  const puller = pullerOf(ctx, pull.network);
  if (!puller) {
    // The node not answering yet (after a restart): a signed pull stays planned and is carried on
    // by a later round; one never signed is invoiced to the payer.
    if (pull.txid !== null) {
      log.warn({ recurrence: pull.recurrence_id, period: pull.period, txid: pull.txid }, 'recurrence pull waits for its network to answer');
      return;
    }
    return fallBack(ctx, log, hooks, pull, 'no_collector', 'failed');
  }
  if (pull.txid === null) {
    // Reserved, not yet signed. A subscription cancelled, or an invoice paid by hand, meanwhile is
    // not pulled any more.
    const still = await ctx.storage.db.selectFrom('recurrences').select(['status', 'invoice_id']).where('id', '=', pull.recurrence_id).executeTakeFirst();
    const open = await ctx.storage.db.selectFrom('invoices').select(['status', 'payment_amount']).where('id', '=', pull.invoice_id).executeTakeFirst();
    if (still?.status !== 'wait_payment' || still.invoice_id !== pull.invoice_id || open?.status !== 'process' || open.payment_amount !== null) {
      await update(ctx, pull.id, { status: 'failed', error: 'not_due' });
      return;
    }
    const { txid } = await puller.preparePull({ id: pull.id, currency: pull.currency, from: pull.from_address, to: pull.to_address, amount: pull.amount });
    await update(ctx, pull.id, { txid });
    pull = { ...pull, txid };
  }
  if ((await puller.broadcastPull(pull.id)) === 'refused') return fallBack(ctx, log, hooks, pull, 'refused', 'failed');
  hooks.afterBroadcast?.(pull);
  await update(ctx, pull.id, { status: 'sent' });
}

/** A sent pull final on chain: `confirmed`, or reverted (the allowance went meanwhile) and invoiced. */
async function settle(ctx: Ctx, log: PullLogger, hooks: PullHooks, pull: Pull): Promise<void> {
  const puller = pullerOf(ctx, pull.network);
  if (!puller) return;
  const status = await puller.pullStatus(pull.id);
  if (status === 'confirmed') await update(ctx, pull.id, { status: 'confirmed' });
  else if (status === 'failed') await fallBack(ctx, log, hooks, pull, 'reverted', 'failed');
}

/** Reserves the pull of a renewal due now, or records why it falls back to the invoice. */
async function plan(ctx: Ctx, log: PullLogger, hooks: PullHooks, recurrenceId: string): Promise<Pull | null> {
  const db = ctx.storage.db;
  const rec = await db.selectFrom('recurrences').selectAll().where('id', '=', recurrenceId).executeTakeFirst();
  if (!rec || rec.status !== 'wait_payment' || !rec.invoice_id || rec.anchor_at === null) return null;
  const allowance = await db.selectFrom('recurrence_allowances').selectAll().where('recurrence_id', '=', rec.id).where('status', '=', 'active').executeTakeFirst();
  if (!allowance || allowance.network !== rec.network) return null;
  const inv = await db.selectFrom('invoices').selectAll().where('id', '=', rec.invoice_id).executeTakeFirst();
  if (!inv || inv.recurrence_id !== rec.id || inv.recurrence_period !== rec.period_index) return null;
  // Only an open renewal nothing was paid to yet, on the allowance's token, and never before its period starts.
  if (inv.status !== 'process' || inv.payment_amount !== null || !inv.address || !inv.payer_amount) return null;
  if (inv.network !== allowance.network || inv.payer_currency !== allowance.currency) return null;
  const start = periodStart({ anchor_at: Number(rec.anchor_at), anchor_period: rec.anchor_period, period: rec.period as RecurrencePeriod }, rec.period_index);
  if (start > ctx.now()) return null;
  const now = ctx.now();
  const pull: Pull = {
    id: randomUUID(),
    recurrence_id: rec.id,
    period: rec.period_index,
    invoice_id: inv.id,
    network: allowance.network,
    currency: allowance.currency,
    from_address: allowance.payer_address,
    to_address: inv.address,
    amount: inv.payer_amount,
    txid: null,
    status: 'planned',
    error: null,
    created_at: now,
    updated_at: now,
  };
  const puller = pullerOf(ctx, pull.network);
  let short: PullFallbackReason | null = puller ? null : 'no_collector';
  if (puller) {
    // Checked before anything is signed: a revoked or short allowance, or a payer without the funds, is invoiced.
    const seen = await puller.allowanceOf(pull.currency, pull.from_address);
    if (Decimal.parse(seen.allowance).lt(pull.amount)) short = 'allowance';
    else if (Decimal.parse(seen.balance).lt(pull.amount)) short = 'balance';
  }
  const inserted = await ctx.storage.write(async (trx) => {
    const r = await trx.insertInto('recurrence_pulls').values(short ? { ...pull, status: 'skipped', error: short } : pull)
      .onConflict((oc) => oc.columns(['recurrence_id', 'period']).doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
  });
  if (!inserted) return null; // another worker planned this period
  if (short) {
    await fallBack(ctx, log, hooks, pull, short, 'skipped');
    return null;
  }
  return pull;
}

/**
 * The worker's pull step (after the renewals of the `recurrences` job): pulls left `planned` by a
 * crash are carried on from their stored transaction, sent ones are settled by their receipts, and
 * every renewal invoice of a recurrence with an allowance not pulled yet is pulled. Returns how
 * many pulls moved.
 */
export async function pullRenewals(ctx: Ctx, log: PullLogger = console, hooks: PullHooks = {}, limit = 100): Promise<number> {
  const db = ctx.storage.db;
  let moved = 0;
  const open = await db.selectFrom('recurrence_pulls').selectAll().where('status', 'in', ['planned', 'sent']).orderBy('created_at').limit(limit).execute();
  for (const pull of open) {
    try {
      if (pull.status === 'planned') await carry(ctx, log, hooks, pull);
      else await settle(ctx, log, hooks, pull);
      moved++;
    } catch (err) {
      log.error({ err, recurrence: pull.recurrence_id, period: pull.period }, 'recurrence pull could not be carried on');
    }
  }
  const due = await db
    .selectFrom('recurrences')
    .innerJoin('recurrence_allowances', 'recurrence_allowances.recurrence_id', 'recurrences.id')
    .leftJoin('recurrence_pulls', (j) => j.onRef('recurrence_pulls.recurrence_id', '=', 'recurrences.id').onRef('recurrence_pulls.period', '=', 'recurrences.period_index'))
    .select('recurrences.id')
    .where('recurrences.status', '=', 'wait_payment')
    .where('recurrence_allowances.status', '=', 'active')
    .where('recurrence_pulls.id', 'is', null)
    .limit(limit)
    .execute();
  for (const { id } of due) {
    try {
      const pull = await plan(ctx, log, hooks, id);
      if (pull) {
        await carry(ctx, log, hooks, pull);
        moved++;
      }
    } catch (err) {
      log.error({ err, recurrence: id }, 'recurrence pull could not be made');
    }
  }
  return moved;
}
