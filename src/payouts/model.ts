// The payout record, the spec's Payout object and the payout webhook (docs/payouts.md).
import type { Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { Payout, PayoutConvert } from '../contracts/merchant-api/objects.ts';
import type { DB, PayoutsTable } from '../db/schema.ts';
import { isoMsk } from '../invoices/model.ts';
import { money } from '../money/format.ts';
import { enqueueWebhook } from '../webhooks/outbox.ts';
import { payoutWebhookFields, signedBody, type PayoutWebhookSource } from '../webhooks/payload.ts';
import type { PayoutWebhook } from '../contracts/merchant-api/webhooks.ts';

export type PayoutRow = PayoutsTable;

export type { OutgoingKind } from '../context.ts';

export const PAYOUT_STATUSES = ['process', 'check', 'paid', 'fail', 'cancel', 'system_fail'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** A payout is final once paid, failed, cancelled or in system failure. */
export const PAYOUT_FINAL: ReadonlySet<string> = new Set(['paid', 'fail', 'cancel', 'system_fail']);

export interface PresentPayoutOptions {
  /** Remaining funds of the balance the payout was taken from. */
  balance: string;
  /** Include `commission` and `merchant_amount` (the spec shows them in the creation response). */
  creation?: boolean;
  /** Include `created_at` / `updated_at` (history items). */
  times?: boolean;
}

/**
 * The spec's Payout object, fields in the spec's order. `balance` and `payer_amount` are JSON
 * numbers, as the spec types them (display values: every other amount is an exact string).
 */
export function presentPayout(row: PayoutRow, opts: PresentPayoutOptions): Payout {
  return {
    uuid: row.id,
    amount: money(row.amount),
    currency: row.currency,
    network: row.network,
    address: row.address,
    txid: row.txid,
    status: row.status as PayoutStatus,
    is_final: row.is_final === 1,
    balance: Number(opts.balance),
    payer_currency: row.payer_currency,
    payer_amount: Number(row.payer_amount),
    ...(opts.creation ? { commission: money(row.commission), merchant_amount: money(row.merchant_amount) } : {}),
    ...(row.convert ? { convert: JSON.parse(row.convert) as PayoutConvert } : {}),
    ...(opts.times ? { created_at: isoMsk(Number(row.created_at)), updated_at: isoMsk(Number(row.updated_at)) } : {}),
  };
}

/** What a payout webhook is built from (also used by the test webhooks). */
export function payoutWebhookSourceOf(row: PayoutRow): PayoutWebhookSource {
  return {
    uuid: row.id,
    order_id: row.order_id ?? '',
    amount: row.amount,
    merchant_amount: row.merchant_amount,
    commission: row.commission,
    is_final: row.is_final === 1,
    status: row.status,
    txid: row.txid,
    currency: row.currency,
    network: row.network,
    payer_currency: row.payer_currency,
    payer_amount: row.payer_amount,
  };
}

/** Payout webhook fields (the spec's order, without `sign`) for a payout row as it stands. */
export function payoutWebhookFieldsOf(row: PayoutRow): PayoutWebhook {
  return payoutWebhookFields(payoutWebhookSourceOf(row));
}

/** Queues the payout's webhook, signed with the PAYOUT key, in the caller's transaction. */
export async function enqueuePayoutWebhook(ctx: Ctx, trx: Transaction<DB>, row: PayoutRow): Promise<void> {
  if (row.kind !== 'payout' || !row.url_callback) return;
  const merchant = await trx.selectFrom('merchants').select('payout_key').where('id', '=', row.merchant_id).executeTakeFirstOrThrow();
  await enqueueWebhook(trx, {
    merchantId: row.merchant_id,
    kind: 'payout',
    refId: row.id,
    url: row.url_callback,
    body: signedBody(payoutWebhookFieldsOf(row), merchant.payout_key),
    allowPrivate: ctx.chains.isTestNetwork(row.network),
    now: ctx.now(),
  });
}
