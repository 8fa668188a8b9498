// Refunds from static wallets that finished: the one refund of a blocked wallet's funds, and the
// forced refund of a single top-up to its sender.
import type { Transaction } from 'kysely';
import type { Ctx, OutgoingOutcome } from '../context.ts';
import type { DB } from '../db/schema.ts';
import type { PayoutRow } from '../outgoing/payout-record.ts';
import { enqueueTopupWebhook } from './webhook.ts';

async function settleWalletRefund(ctx: Ctx, trx: Transaction<DB>, row: PayoutRow): Promise<void> {
  if (!row.ref_id) return;
  const w = await ctx.storage.forUpdate(trx.selectFrom('static_wallets').selectAll().where('id', '=', row.ref_id)).executeTakeFirst();
  if (!w || w.refund_id !== row.id) return;
  const now = ctx.now();
  if (row.status === 'paid') {
    await trx.updateTable('static_wallets').set({ refund_status: 'paid', updated_at: now }).where('id', '=', w.id).execute();
    await trx.updateTable('wallet_topups').set({ outcome: 'refunded', updated_at: now }).where('wallet_refund_id', '=', row.id).execute();
  } else {
    // The money never left: the blocked funds stay refundable, and the one refund is still to come.
    await trx.updateTable('static_wallets').set({ refund_status: 'fail', updated_at: now }).where('id', '=', w.id).execute();
    await trx.updateTable('wallet_topups').set({ wallet_refund_id: null, updated_at: now }).where('wallet_refund_id', '=', row.id).execute();
  }
}

async function settleForceRefund(ctx: Ctx, trx: Transaction<DB>, row: PayoutRow): Promise<void> {
  if (!row.ref_id) return;
  const t = await ctx.storage.forUpdate(trx.selectFrom('wallet_topups').selectAll().where('id', '=', row.ref_id)).executeTakeFirst();
  if (!t || t.refund_id !== row.id) return;
  const w = await trx.selectFrom('static_wallets').selectAll().where('id', '=', t.wallet_id).executeTakeFirstOrThrow();
  const now = ctx.now();
  // A failed forced refund leaves the top-up with the blocked funds (refundable once, by request).
  const patch = row.status === 'paid' ? { outcome: 'refunded', updated_at: now } : { outcome: 'blocked', refund_id: null, updated_at: now };
  await trx.updateTable('wallet_topups').set(patch).where('id', '=', t.id).execute();
  await enqueueTopupWebhook(ctx, trx, w, { ...t, ...patch }, row.status === 'paid' ? 'refund_paid' : 'refund_fail');
}

/** Nothing to lock ahead of the ledger: a wallet's rows are locked after its balance everywhere. */
const noLock = async (): Promise<void> => {};

export const walletRefundOutcome: OutgoingOutcome = { lock: noLock, settle: settleWalletRefund };
export const forceRefundOutcome: OutgoingOutcome = { lock: noLock, settle: settleForceRefund };
