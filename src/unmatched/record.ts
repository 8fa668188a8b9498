// Recording a payment that arrived at a receiving account but named no deposit (the chain sink's
// `unmatched`, src/chain/ingest.ts). It is credited to nothing: the row waits for the merchant to
// resolve it (./resolve.ts), and the merchant is told by an `unmatched_payment` webhook to its
// default callback URL, written in the same transaction as the row so that neither exists alone.
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { UnmatchedTransfer } from '../chain/contract.ts';
import type { DB, UnmatchedPaymentsTable } from '../db/schema.ts';
import { isoMsk, money } from '../money/format.ts';
import { enqueueWebhook } from '../webhooks/outbox.ts';
import { signedBody } from '../webhooks/payload.ts';

export const UNMATCHED_REASONS = ['no_reference', 'unknown_reference', 'unreadable_reference', 'bounced'] as const;
export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];

/** A memo is whatever a payer typed: kept, but never more than this many characters. */
const MEMO_MAX = 512;

/** The `unmatched_payment` webhook's fields, in their order, without `sign`. */
export type UnmatchedPaymentWebhook = {
  type: 'unmatched_payment';
  /** The unmatched payment's id (what `satchel unmatched assign` and the dashboard take). */
  uuid: string;
  merchant: string;
  network: string;
  currency: string;
  amount: string;
  from: string | null;
  to: string;
  memo: string | null;
  reason: string;
  txid: string;
  /** ISO 8601 at UTC+3, as the API writes its times. */
  received_at: string;
};

export function unmatchedWebhookFields(row: UnmatchedPaymentsTable & { merchant_id: string }): UnmatchedPaymentWebhook {
  return {
    type: 'unmatched_payment',
    uuid: row.id,
    merchant: row.merchant_id,
    network: row.network,
    currency: row.currency,
    amount: money(row.amount),
    from: row.from_address,
    to: row.to_address,
    memo: row.memo,
    reason: row.reason,
    txid: row.txid,
    received_at: isoMsk(Number(row.created_at)),
  };
}

/**
 * The merchant whose receiving material on the network is the account: the exact text the family's
 * custody stores, current or replaced (a payment may arrive at a wallet the merchant has since
 * replaced); the newest row wins when two merchants ever named the same account.
 */
export async function merchantOfAccount(db: Transaction<DB> | Ctx['storage']['db'], network: string, account: string): Promise<string | null> {
  const row = await db
    .selectFrom('merchant_custody')
    .select('merchant_id')
    .where('network', '=', network)
    .where('material', '=', account)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.merchant_id ?? null;
}

function memoOf(memo: string | null): string | null {
  if (typeof memo !== 'string' || memo === '') return null;
  return [...memo].slice(0, MEMO_MAX).join('');
}

/**
 * Records the payment once: a replay of the same (network, txid, index) changes nothing but the
 * confirmations of an open one. The caller (the sink) has checked the amount is a decimal the
 * ledger can hold. Returns the row's id.
 */
export async function recordUnmatched(ctx: Ctx, t: UnmatchedTransfer): Promise<string> {
  const network = t.network.toUpperCase();
  const currency = t.currency.toUpperCase();
  const reason: UnmatchedReason = (UNMATCHED_REASONS as readonly string[]).includes(t.reason) ? t.reason : 'unreadable_reference';
  return ctx.storage.write(async (trx) => {
    const existing = await ctx.storage
      .forUpdate(trx.selectFrom('unmatched_payments').select(['id', 'status', 'confirmations']).where('network', '=', network).where('txid', '=', t.txid).where('idx', '=', t.index))
      .executeTakeFirst();
    if (existing) {
      if (existing.status === 'open' && t.confirmations > existing.confirmations) {
        await trx.updateTable('unmatched_payments').set({ confirmations: t.confirmations, block_height: t.blockHeight }).where('id', '=', existing.id).execute();
      }
      return existing.id;
    }
    const now = ctx.now();
    const row: UnmatchedPaymentsTable = {
      id: randomUUID(),
      merchant_id: await merchantOfAccount(trx, network, t.to),
      network,
      currency,
      txid: t.txid,
      idx: t.index,
      from_address: t.from,
      to_address: t.to,
      amount: t.amount,
      memo: memoOf(t.memo),
      reason,
      block_height: t.blockHeight,
      confirmations: t.confirmations,
      status: 'open',
      invoice_id: null,
      resolved_by: null,
      resolved_at: null,
      resolution_note: null,
      created_at: now,
    };
    // Two scanners reporting the same payment at once: the second insert does nothing.
    const inserted = await trx
      .insertInto('unmatched_payments')
      .values(row)
      .onConflict((oc) => oc.columns(['network', 'txid', 'idx']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
      const other = await trx.selectFrom('unmatched_payments').select('id').where('network', '=', network).where('txid', '=', t.txid).where('idx', '=', t.index).executeTakeFirstOrThrow();
      return other.id;
    }
    if (row.merchant_id) await announce(ctx, trx, { ...row, merchant_id: row.merchant_id });
    return row.id;
  });
}

/** Queues the merchant's `unmatched_payment` webhook, when it has a default callback URL. */
async function announce(ctx: Ctx, trx: Transaction<DB>, row: UnmatchedPaymentsTable & { merchant_id: string }): Promise<void> {
  const merchant = await trx.selectFrom('merchants').select(['id', 'payment_key', 'default_url_callback']).where('id', '=', row.merchant_id).executeTakeFirst();
  const url = merchant?.default_url_callback ?? null;
  if (!merchant || !url) return;
  await enqueueWebhook(trx, {
    merchantId: merchant.id,
    kind: 'unmatched',
    refId: row.id,
    url,
    body: signedBody(unmatchedWebhookFields(row), merchant.payment_key),
    allowPrivate: ctx.chains.isTestNetwork(row.network),
    now: row.created_at,
  });
}
