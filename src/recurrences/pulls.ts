// Automatic renewals on EVM networks (docs/recurring.md): when a recurrence with an allowance has
// a renewal invoice waiting, the worker pulls exactly that invoice's amount from the payer with
// transferFrom into the invoice's deposit address, where it is received like any payment (the
// invoice becomes paid, and the recurrence active again, by the usual paths). A period is pulled
// at most once: its pull row is reserved (unique per recurrence and period) before anything is
// signed, the driver signs and stores the transaction idempotently on the pull's id, the row records
// its hash (`planned`) before the broadcast, and a pull found `planned` after a crash is broadcast
// again from the stored bytes, never signed anew (a stored transaction whose hash the row missed is
// recorded first: a pull is never marked failed while its signed transaction exists). A renewal
// that asks more than the payer approved per period, an allowance or balance found short, or a pull
// the chain refused, leaves the renewal invoice to be paid by hand (and reported for the reminder);
// the allowance itself is revoked only when the chain shows it below one period.
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import { NodeError } from '../chain/errors.ts';
import type { DB, RecurrencePullsTable } from '../db/schema.ts';
import { Decimal } from '../money/decimal.ts';
import type { RecurrencePeriod } from '../contracts/merchant-api/recurrences.ts';
import { periodStart } from './periods.ts';
import { allowanceCovers, nodeFallbackMargin, pullerOf, waitsForNode } from './pull-rules.ts';

export { allowanceCovers, nodeFallbackMargin, pullerOf, waitsForNode } from './pull-rules.ts';

export interface PullLogger {
  warn(o: unknown, msg?: string): void;
  error(o: unknown, msg?: string): void;
}

/**
 * Why a period was not pulled and its renewal invoice waits for the payer instead. `amount`: the
 * renewal invoice (re-quoted each period for a fiat-priced plan) asks more than the amount per
 * period the payer approved.
 */
export type PullFallbackReason = 'amount' | 'allowance' | 'balance' | 'refused' | 'reverted' | 'no_collector' | 'node';

/** A renewal left to the payer: what the reminder (docs/recurring.md, emails) is sent for. */
export interface PullFallback {
  recurrence: string;
  period: number;
  invoice: string;
  reason: PullFallbackReason;
}

export interface PullHooks {
  /**
   * Told of every renewal that falls back to the invoice (the reminder email's hook), inside the
   * transaction that records the fallback: what it writes (the reminder) commits with it or not at
   * all, so a crash or a throw between them cannot leave a fallback without its reminder (a throw
   * rolls the fallback back too, and a later round decides the period again).
   */
  fallback?(ctx: Ctx, trx: Transaction<DB>, f: PullFallback): Promise<void> | void;
  /** Test-only fault injection: runs right after a pull's broadcast, before it is recorded as sent. */
  afterBroadcast?(pull: RecurrencePullsTable): void;
}

type Pull = RecurrencePullsTable;

async function update(ctx: Ctx, id: string, patch: Partial<Pull>): Promise<void> {
  await ctx.storage.write(async (trx) => {
    await trx.updateTable('recurrence_pulls').set({ ...patch, updated_at: ctx.now() }).where('id', '=', id).execute();
  });
}

/**
 * Whether the payer's allowance is really gone: the chain shows it below one period's approved
 * amount (`seen`: the allowance just read, else it is read again now). A pull that reverted for a
 * balance that dropped, or a read that fails, says nothing about the allowance: it stays active and
 * the next period is pulled again.
 */
async function allowanceGone(ctx: Ctx, log: PullLogger, pull: Pull, seen?: string): Promise<boolean> {
  const row = await ctx.storage.db.selectFrom('recurrence_allowances').select(['status', 'payer_address', 'amount_per_period']).where('recurrence_id', '=', pull.recurrence_id).executeTakeFirst();
  // Nothing to revoke, or recorded anew (another address) since this pull was planned.
  if (!row || row.status !== 'active' || row.payer_address !== pull.from_address) return false;
  const perPeriod = row.amount_per_period ?? pull.amount;
  if (seen === undefined) {
    const puller = pullerOf(ctx, pull.network);
    if (!puller) return false;
    try {
      seen = (await puller.allowanceOf(pull.currency, pull.from_address)).allowance;
    } catch (err) {
      log.warn({ err, recurrence: pull.recurrence_id, period: pull.period }, 'allowance could not be read again: kept for the next period');
      return false;
    }
  }
  return Decimal.parse(seen).lt(perPeriod);
}

/**
 * Records the pull fallen back (`insert`: the period's row is new, written `skipped` now, unless
 * another worker decided the period first) and hands it to the fallback hook in the same
 * transaction. Returns whether it was recorded.
 */
async function fallBack(ctx: Ctx, log: PullLogger, hooks: PullHooks, pull: Pull, reason: PullFallbackReason, status: 'skipped' | 'failed', seen?: string, insert = false): Promise<boolean> {
  // Only an allowance the chain shows short ends automatic renewals; read before the write below.
  const revoke = (reason === 'allowance' || reason === 'reverted') && (await allowanceGone(ctx, log, pull, seen));
  const f: PullFallback = { recurrence: pull.recurrence_id, period: pull.period, invoice: pull.invoice_id, reason };
  const recorded = await ctx.storage.write(async (trx) => {
    if (insert) {
      const r = await trx.insertInto('recurrence_pulls').values({ ...pull, status, error: reason })
        .onConflict((oc) => oc.columns(['recurrence_id', 'period']).doNothing()).executeTakeFirst();
      if (Number(r.numInsertedOrUpdatedRows ?? 0n) !== 1) return false; // another worker decided this period
    } else {
      await trx.updateTable('recurrence_pulls').set({ status, error: reason, updated_at: ctx.now() }).where('id', '=', pull.id).execute();
    }
    if (revoke) {
      await trx
        .updateTable('recurrence_allowances')
        .set({ status: 'revoked', updated_at: ctx.now() })
        .where('recurrence_id', '=', pull.recurrence_id)
        .where('payer_address', '=', pull.from_address)
        .execute();
    }
    await hooks.fallback?.(ctx, trx, f);
    return true;
  });
  if (recorded) log.warn({ ...f, reminder: true }, 'automatic renewal not pulled: the renewal invoice waits for the payer');
  return recorded;
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
    await fallBack(ctx, log, hooks, pull, 'no_collector', 'failed');
    return;
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
    // Never signed for more than the payer approved per period (a pull reserved before that was kept).
    const approved = await ctx.storage.db.selectFrom('recurrence_allowances').select('amount_per_period').where('recurrence_id', '=', pull.recurrence_id).executeTakeFirst();
    if (!approved || approved.amount_per_period === null || Decimal.parse(pull.amount).gt(approved.amount_per_period)) {
      await fallBack(ctx, log, hooks, pull, 'amount', 'skipped');
      return;
    }
    const { txid } = await puller.preparePull({ id: pull.id, currency: pull.currency, from: pull.from_address, to: pull.to_address, amount: pull.amount });
    await update(ctx, pull.id, { txid });
    pull = { ...pull, txid };
  }
  if ((await puller.broadcastPull(pull.id)) === 'refused') {
    await fallBack(ctx, log, hooks, pull, 'refused', 'failed');
    return;
  }
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

/**
 * Reserves the pull of a renewal due now (the pull), or records why it falls back to the invoice
 * (`skipped`: the period's pull row says so, so it is not taken again), or leaves it for a later
 * round (null: not due yet, or not for a pull at all).
 */
async function plan(ctx: Ctx, log: PullLogger, hooks: PullHooks, recurrenceId: string, silent = false): Promise<Pull | 'skipped' | null> {
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
  if (!allowanceCovers(allowance, inv)) return null;
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
  // Its node cannot be asked (not answered yet, or failed this round): a later round pulls, unless
  // the grace ends soon, when the payer is asked to pay by hand after all (`node`).
  const late = rec.grace_until !== null && Number(rec.grace_until) - now <= nodeFallbackMargin(ctx);
  const puller = silent ? null : pullerOf(ctx, pull.network);
  if (silent || (!puller && waitsForNode(ctx, pull.network))) {
    if (!late) return null;
    return (await fallBack(ctx, log, hooks, pull, 'node', 'skipped', undefined, true)) ? 'skipped' : null;
  }
  let short: PullFallbackReason | null = puller ? null : 'no_collector';
  let seen: { allowance: string; balance: string } | undefined;
  // A fiat-priced plan's renewal is re-quoted each period: never pull more than the payer approved
  // per period (nor with an allowance whose approved amount is unknown). The payer pays it by hand.
  if (allowance.amount_per_period === null || Decimal.parse(pull.amount).gt(allowance.amount_per_period)) short = 'amount';
  else if (puller) {
    // Checked before anything is signed: a revoked or short allowance, or a payer without the funds, is invoiced.
    try {
      seen = await puller.allowanceOf(pull.currency, pull.from_address);
    } catch (err) {
      if (!late || !nodeDown(err)) throw err;
      return (await fallBack(ctx, log, hooks, pull, 'node', 'skipped', undefined, true)) ? 'skipped' : null;
    }
    if (Decimal.parse(seen.allowance).lt(pull.amount)) short = 'allowance';
    else if (Decimal.parse(seen.balance).lt(pull.amount)) short = 'balance';
  }
  // A period that falls back is recorded `skipped` in the transaction that queues its reminder.
  if (short) return (await fallBack(ctx, log, hooks, pull, short, 'skipped', seen?.allowance, true)) ? 'skipped' : null;
  const inserted = await ctx.storage.write(async (trx) => {
    const r = await trx.insertInto('recurrence_pulls').values(pull)
      .onConflict((oc) => oc.columns(['recurrence_id', 'period']).doNothing()).executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
  });
  if (!inserted) return null; // another worker planned this period
  return pull;
}

/** A renewal that may be pulled: the recurrence, when its period fell due (grace_until orders by it), its network. */
interface DueRow {
  id: string;
  grace_until: number | null;
  network: string;
}

/**
 * Renewals waiting for their pull, oldest due first (a period's grace ends a fixed time after it
 * falls due), after `after` in that order. Only those a pull can be for: an open renewal invoice
 * nothing was paid to, on the allowance's network and token, and no pull row for the period yet (a
 * skipped one is the period's answer): a renewal paid by hand, in part or in full, is never taken
 * again and again in place of others.
 */
function dueRenewals(ctx: Ctx, after: { grace: number; id: string } | null, limit: number): Promise<DueRow[]> {
  return ctx.storage.db
    .selectFrom('recurrences as r')
    .innerJoin('recurrence_allowances as a', 'a.recurrence_id', 'r.id')
    .innerJoin('invoices as i', 'i.id', 'r.invoice_id')
    .leftJoin('recurrence_pulls as p', (j) => j.onRef('p.recurrence_id', '=', 'r.id').onRef('p.period', '=', 'r.period_index'))
    .select(['r.id', 'r.grace_until', 'a.network'])
    .where('r.status', '=', 'wait_payment')
    .where('r.grace_until', 'is not', null)
    .where('a.status', '=', 'active')
    .whereRef('a.network', '=', 'r.network')
    .where('p.id', 'is', null)
    .where('i.status', '=', 'process')
    .where('i.payment_amount', 'is', null)
    .whereRef('i.network', '=', 'a.network')
    .whereRef('i.payer_currency', '=', 'a.currency')
    .whereRef('a.created_at', '<=', 'i.created_at')
    .$if(after !== null, (q) =>
      q.where((eb) => eb.or([eb('r.grace_until', '>', after!.grace), eb.and([eb('r.grace_until', '=', after!.grace), eb('r.id', '>', after!.id)])])),
    )
    .orderBy('r.grace_until')
    .orderBy('r.id')
    .limit(limit)
    .execute() as Promise<DueRow[]>;
}

/** Pulls under way (`planned`, `sent`), oldest first, after `after` in that order. */
function openPulls(ctx: Ctx, after: { at: number; id: string } | null, limit: number): Promise<Pull[]> {
  return ctx.storage.db
    .selectFrom('recurrence_pulls')
    .selectAll()
    .where('status', 'in', ['planned', 'sent'])
    .$if(after !== null, (q) => q.where((eb) => eb.or([eb('created_at', '>', after!.at), eb.and([eb('created_at', '=', after!.at), eb('id', '>', after!.id)])])))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** A node that failed once this round is not asked again until the next: it would only use up the step's time. */
function nodeDown(err: unknown): boolean {
  return err instanceof NodeError;
}

/**
 * The worker's pull step (after the renewals of the `recurrences` job): pulls left `planned` by a
 * crash are carried on from their stored transaction, sent ones are settled by their receipts, and
 * then renewal invoices of recurrences with an allowance are pulled, oldest due first, at most
 * `limit` of them a round (what is left is taken next round). Once `signal` aborts (the step's
 * deadline, or the worker shutting down) nothing new is taken: the item under way ends, and the
 * rest waits for the next round. Returns how many pulls moved.
 */
export async function pullRenewals(ctx: Ctx, log: PullLogger = console, hooks: PullHooks = {}, limit = 100, signal?: AbortSignal): Promise<number> {
  let moved = 0;
  // Networks whose node failed this round: their other items wait for the next round.
  const down = new Set<string>();
  // Every open pull, a page at a time (oldest first): one stuck on a silent network holds up no other.
  let lastOpen: { at: number; id: string } | null = null;
  for (let more = true; more && !signal?.aborted; ) {
    const open = await openPulls(ctx, lastOpen, limit);
    more = open.length === limit;
    for (const pull of open) {
      if (signal?.aborted) break;
      lastOpen = { at: Number(pull.created_at), id: pull.id };
      if (down.has(pull.network)) continue;
      try {
        if (pull.status === 'planned') await carry(ctx, log, hooks, pull);
        else await settle(ctx, log, hooks, pull);
        moved++;
      } catch (err) {
        if (nodeDown(err)) down.add(pull.network);
        log.error({ err, recurrence: pull.recurrence_id, period: pull.period }, 'recurrence pull could not be carried on');
      }
    }
  }
  // Then new pulls. A renewal left for later (its period not started, its node down) is passed
  // over without counting against `limit`, so it holds up no other; one planned or skipped has its
  // pull row and is not selected again for its period.
  let taken = 0;
  let lastDue: { grace: number; id: string } | null = null;
  for (let more = true; more && taken < limit && !signal?.aborted; ) {
    const due = await dueRenewals(ctx, lastDue, limit);
    more = due.length === limit;
    for (const { id, grace_until, network } of due) {
      if (signal?.aborted || taken >= limit) break;
      lastDue = { grace: Number(grace_until), id };
      try {
        // A node down this round is not asked again; plan still falls back a renewal near grace end.
        const pull = await plan(ctx, log, hooks, id, down.has(network));
        if (pull === null) continue;
        taken++;
        if (pull !== 'skipped') {
          await carry(ctx, log, hooks, pull);
          moved++;
        }
      } catch (err) {
        if (nodeDown(err)) down.add(network);
        log.error({ err, recurrence: id }, 'recurrence pull could not be made');
      }
    }
  }
  return moved;
}
