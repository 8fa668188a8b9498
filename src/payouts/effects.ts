// What finishing an outgoing payment means beyond the payout itself, by kind.
import type { Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { refundOutcome } from '../refunds/effects.ts';
import { forceRefundOutcome, walletRefundOutcome } from '../wallets/effects.ts';
import type { OutgoingKind, PayoutRow } from './model.ts';

export type OutcomeEffect = (ctx: Ctx, trx: Transaction<DB>, row: PayoutRow) => Promise<void>;

/**
 * Row locks an outcome's effects will take, taken before the ledger's: every path locks an
 * invoice before a balance (payments and refund requests do), so settling never deadlocks with them.
 */
export const outcomeLocks: Partial<Record<OutgoingKind, OutcomeEffect>> = {
  refund: async (ctx, trx, row) => {
    if (row.ref_id) await ctx.storage.forUpdate(trx.selectFrom('invoices').select('id').where('id', '=', row.ref_id)).execute();
  },
};

export const outcomeEffects: Partial<Record<OutgoingKind, OutcomeEffect>> = {
  refund: refundOutcome,
  wallet_refund: walletRefundOutcome,
  force_refund: forceRefundOutcome,
};
