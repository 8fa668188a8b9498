// Every payment that leaves the gateway (payouts, invoice refunds, blocked-wallet refunds, forced
// refunds) is a row of `payouts` and moves through the payout statuses: process (funds reserved)
// -> check (broadcast) -> paid (confirmed) | fail (funds returned). This module is the only writer
// of that table: it enqueues each payment (with the reservation of its funds), leases it to the
// sender, and makes every later move, each in one transaction with its ledger entry and webhook.
import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Ctx, OutgoingOutcome } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { post } from '../ledger/index.ts';
import { Decimal } from '../money/decimal.ts';
import { enqueuePayoutWebhook, type OutgoingKind, type PayoutRow } from './payout-record.ts';
import { holdFloat } from './float.ts';

export interface NewOutgoing {
  merchantId: string;
  kind: Exclude<OutgoingKind, 'payout'>;
  refId: string;
  /** Amount asked for, in `currency`. */
  amount: string;
  currency: string;
  network: string;
  address: string;
  isSubtract: boolean;
  /** What the address receives. */
  payerAmount: string;
  commission: string;
  /** Reserved from the business balance in `currency` ('0' when the money is not the merchant's). */
  merchantAmount: string;
  now: number;
}

/** A row for an outgoing payment other than a merchant payout (no order_id, recommended priority). */
export function newOutgoing(o: NewOutgoing): PayoutRow {
  return {
    id: randomUUID(),
    merchant_id: o.merchantId,
    kind: o.kind,
    order_id: null,
    ref_id: o.refId,
    amount: o.amount,
    currency: o.currency,
    network: o.network,
    address: o.address,
    memo: null,
    priority: 'recommended',
    is_subtract: o.isSubtract ? 1 : 0,
    payer_currency: o.currency,
    payer_amount: o.payerAmount,
    commission: o.commission,
    merchant_amount: o.merchantAmount,
    debit_currency: o.currency,
    convert: null,
    course_source: null,
    url_callback: null,
    status: 'process',
    is_final: 0,
    txid: null,
    confirmations: 0,
    attempts: 0,
    next_attempt_at: o.now,
    last_error: null,
    created_at: o.now,
    updated_at: o.now,
  };
}

/**
 * Enqueues an outgoing payment inside `trx`: records the row and books the reservation of its
 * funds (the ledger debit of `merchant_amount`, when the money is the merchant's). A merchant
 * payout whose (merchant, order_id) is taken records nothing (`inserted` false). The balance
 * after the debit, if one was booked; InsufficientFunds when it cannot cover it. On a watch-only
 * network, then the payout float's caps (./float.ts): a BusinessError beyond them, which undoes
 * the row and the debit with the transaction. A forced refund (sent back to a blocked wallet's
 * payer as the transfer is recorded) is not a request anyone can be answered on: it counts toward
 * the float's day but is never refused here.
 */
export async function enqueueOutgoing(ctx: Ctx, trx: Transaction<DB>, row: PayoutRow): Promise<{ inserted: boolean; balance: string | null }> {
  const r = await trx
    .insertInto('payouts')
    .values(row)
    .onConflict((oc) => oc.columns(['merchant_id', 'order_id']).doNothing())
    .executeTakeFirst();
  if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) return { inserted: false, balance: null };
  const balance = Decimal.parse(row.merchant_amount).gt('0') ? await reserveFunds(ctx, trx, row) : null;
  if (row.kind !== 'force_refund') await holdFloat(ctx, trx, row);
  return { inserted: true, balance };
}

/** Books the reservation of an outgoing payment's funds (the ledger debit), inside `trx`. */
async function reserveFunds(ctx: Ctx, trx: Transaction<DB>, row: PayoutRow): Promise<string | null> {
  return post(trx, {
    merchantId: row.merchant_id,
    wallet: 'business',
    currency: row.debit_currency,
    amount: Decimal.parse(row.merchant_amount).neg().toString(),
    reason: row.kind,
    ref: { kind: row.kind, id: row.id },
    key: `payout:${row.id}:reserve`,
    now: ctx.now(),
  });
}

async function lock(ctx: Ctx, trx: Transaction<DB>, id: string): Promise<PayoutRow | undefined> {
  return ctx.storage.forUpdate(trx.selectFrom('payouts').selectAll().where('id', '=', id)).executeTakeFirst();
}

/**
 * Makes an outgoing payment final: `paid`, or `fail` with its reserved funds returned (a ledger
 * credit keyed on the payout, so it happens once). Then the kind's own effects (invoice refund
 * status, static wallet refund state) and the payout webhook.
 */
export async function settleOutgoing(ctx: Ctx, trx: Transaction<DB>, row: PayoutRow, status: 'paid' | 'fail', error: string | null = null): Promise<PayoutRow> {
  if (row.is_final === 1) return row;
  await ctx.features.outcomes[row.kind as OutgoingKind].lock(ctx, trx, row);
  const now = ctx.now();
  const patch: Partial<PayoutRow> = { status, is_final: 1, updated_at: now };
  if (error) patch.last_error = error;
  await trx.updateTable('payouts').set(patch).where('id', '=', row.id).execute();
  const reserved = Decimal.parse(row.merchant_amount);
  if (status === 'fail' && reserved.gt('0')) {
    await post(trx, {
      merchantId: row.merchant_id,
      wallet: 'business',
      currency: row.debit_currency,
      amount: reserved.toString(),
      reason: `${row.kind}_return`,
      ref: { kind: row.kind, id: row.id },
      key: `payout:${row.id}:return`,
      now,
    });
  }
  const updated = { ...row, ...patch };
  await enqueuePayoutWebhook(ctx, trx, updated);
  await ctx.features.outcomes[row.kind as OutgoingKind].settle(ctx, trx, updated);
  return updated;
}

/** What the chain said about one of our transactions, applied to its payout. */
export async function applyEvent(ctx: Ctx, trx: Transaction<DB>, row: PayoutRow, status: 'confirmed' | 'failed', confirmations: number): Promise<void> {
  if (row.is_final === 1) return; // a reorganisation after `paid` is an operator's matter
  if (status === 'failed') {
    await settleOutgoing(ctx, trx, row, 'fail', 'The transaction failed on chain');
    return;
  }
  let current = row;
  if (confirmations !== row.confirmations) {
    await trx.updateTable('payouts').set({ confirmations, updated_at: ctx.now() }).where('id', '=', row.id).execute();
    current = { ...row, confirmations };
  }
  if (confirmations >= ctx.chains.confirmations(row.network)) await settleOutgoing(ctx, trx, current, 'paid');
}

/**
 * Records the broadcast of a payout: its txid and status `check` (webhook). If the chain already
 * reported on that txid (the report can overtake this record after a crash), applies it now.
 */
export async function recordBroadcast(ctx: Ctx, trx: Transaction<DB>, id: string, txid: string): Promise<void> {
  const row = await lock(ctx, trx, id);
  if (!row || row.status !== 'process' || row.is_final === 1) return;
  const patch: Partial<PayoutRow> = { txid, status: 'check', updated_at: ctx.now(), last_error: null };
  await trx.updateTable('payouts').set(patch).where('id', '=', id).execute();
  const updated = { ...row, ...patch };
  await enqueuePayoutWebhook(ctx, trx, updated);
  const ev = await trx.selectFrom('outgoing_events').selectAll().where('network', '=', row.network).where('txid', '=', txid).executeTakeFirst();
  if (ev) await applyEvent(ctx, trx, updated, ev.status === 'failed' ? 'failed' : 'confirmed', ev.confirmations);
}

/**
 * The `outgoing` hook of the chain sink: remembers what the driver said (so a report about a
 * transaction whose payout has not recorded its txid yet is not lost) and applies it.
 */
export async function onOutgoingEvent(ctx: Ctx, network: string, txid: string, status: 'confirmed' | 'failed', confirmations: number): Promise<void> {
  const code = network.toUpperCase();
  await ctx.storage.write(async (trx) => {
    const now = ctx.now();
    await trx
      .insertInto('outgoing_events')
      .values({ network: code, txid, status, confirmations, updated_at: now })
      .onConflict((oc) => oc.columns(['network', 'txid']).doUpdateSet({ status, confirmations, updated_at: now }))
      .execute();
    const row = await ctx.storage.forUpdate(trx.selectFrom('payouts').selectAll().where('network', '=', code).where('txid', '=', txid)).executeTakeFirst();
    if (row) await applyEvent(ctx, trx, row, status, confirmations);
  });
}

/**
 * The `outgoingReplaced` hook of the chain sink: a payment the driver replaced by a fee bump (same
 * coins, same payee, higher fee) now goes by the txid the chain confirmed.
 */
export async function onOutgoingReplaced(ctx: Ctx, network: string, oldTxid: string, newTxid: string): Promise<void> {
  await ctx.storage.write(async (trx) => {
    await trx
      .updateTable('payouts')
      .set({ txid: newTxid, updated_at: ctx.now() })
      .where('network', '=', network.toUpperCase())
      .where('txid', '=', oldTxid)
      .execute();
  });
}

/** Fails a payout that was never broadcast (a definite refusal by the driver). */
export async function failUnsent(ctx: Ctx, trx: Transaction<DB>, id: string, error: string): Promise<void> {
  const row = await lock(ctx, trx, id);
  if (!row || row.status !== 'process' || row.txid !== null) return;
  await settleOutgoing(ctx, trx, row, 'fail', error);
}

/**
 * Applies what the drivers reported about payouts that have not taken it in yet. The report and
 * the record of a txid can race on PostgreSQL (each transaction blind to the other's uncommitted
 * row); this sweep, run with the payout job, closes that window.
 */
export async function applyPendingEvents(ctx: Ctx, limit = 100): Promise<number> {
  const due = await ctx.storage.db
    .selectFrom('payouts')
    .innerJoin('outgoing_events', (j) => j.onRef('outgoing_events.network', '=', 'payouts.network').onRef('outgoing_events.txid', '=', 'payouts.txid'))
    .select('payouts.id')
    .where('payouts.is_final', '=', 0)
    .where('payouts.status', '=', 'check')
    .where((eb) => eb.or([eb('outgoing_events.status', '=', 'failed'), eb('outgoing_events.confirmations', '>', eb.ref('payouts.confirmations'))]))
    .limit(limit)
    .execute();
  for (const { id } of due) {
    await ctx.storage.write(async (trx) => {
      const row = await lock(ctx, trx, id);
      if (!row || row.is_final === 1 || !row.txid) return;
      const ev = await trx.selectFrom('outgoing_events').selectAll().where('network', '=', row.network).where('txid', '=', row.txid).executeTakeFirst();
      if (ev) await applyEvent(ctx, trx, row, ev.status === 'failed' ? 'failed' : 'confirmed', ev.confirmations);
    });
  }
  return due.length;
}

/** A merchant's own payout: nothing beyond the payout row and its webhook. */
export const payoutOutcome: OutgoingOutcome = {
  lock: async () => {},
  settle: async () => {},
};

/**
 * Claims up to `limit` payments due for sending: a lease until `until` (next_attempt_at moved
 * forward, one more attempt counted) in one transaction, rows taken with SKIP LOCKED on PostgreSQL.
 */
export async function claimDue(ctx: Ctx, limit: number, until: number): Promise<PayoutRow[]> {
  const now = ctx.now();
  return ctx.storage.write(async (trx) => {
    const rows = await ctx.storage
      .skipLocked(
        trx
          .selectFrom('payouts')
          .selectAll()
          .where('status', '=', 'process')
          .where('txid', 'is', null)
          .where('next_attempt_at', '<=', now)
          .orderBy('next_attempt_at')
          .orderBy('id')
          .limit(limit),
      )
      .execute();
    if (rows.length > 0) {
      await trx
        .updateTable('payouts')
        .set({ next_attempt_at: until, attempts: sql<number>`attempts + 1` })
        .where('id', 'in', rows.map((r) => r.id))
        .execute();
    }
    return rows;
  });
}

/** Ends the lease of claimed payments that were not sent, so that another worker takes them now. */
export async function releaseClaims(ctx: Ctx, ids: string[]): Promise<void> {
  await ctx.storage.db
    .updateTable('payouts')
    .set({ next_attempt_at: ctx.now(), attempts: sql<number>`attempts - 1` })
    .where('id', 'in', ids)
    .where('status', '=', 'process')
    .where('txid', 'is', null)
    .execute();
}

/** A send that may yet succeed failed: remembers why and when to try again. */
export async function recordSendError(ctx: Ctx, id: string, error: string, retryAt: number): Promise<void> {
  await ctx.storage.db
    .updateTable('payouts')
    .set({ last_error: error, next_attempt_at: retryAt, updated_at: ctx.now() })
    .where('id', '=', id)
    .where('status', '=', 'process')
    .execute();
}
