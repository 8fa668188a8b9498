// The record of an outgoing payment (a row of `payouts`, whatever its kind), its statuses and the
// payout webhook (docs/payouts.md).
import type { Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB, PayoutsTable } from '../db/schema.ts';
import { enqueueWebhook } from '../webhooks/outbox.ts';
import { payoutWebhookFields, signedBody, type PayoutWebhookSource } from '../webhooks/payload.ts';
import type { PayoutWebhook } from '../contracts/merchant-api/webhooks.ts';

export type PayoutRow = PayoutsTable;

export type { OutgoingKind } from '../context.ts';

export const PAYOUT_STATUSES = ['process', 'check', 'paid', 'fail', 'cancel', 'system_fail'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** A payout is final once paid, failed, cancelled or in system failure. */
export const PAYOUT_FINAL: ReadonlySet<string> = new Set(['paid', 'fail', 'cancel', 'system_fail']);

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

/** The merchant's payout a test webhook names (uuid first, else order_id), or null. */
export async function findPayoutForTest(ctx: Ctx, merchantId: string, target: { uuid?: string | null; order_id?: string | null }): Promise<PayoutRow | null> {
  let q = ctx.storage.db.selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', 'payout');
  if (target.uuid) q = q.where('id', '=', target.uuid.toLowerCase());
  else if (target.order_id) q = q.where('order_id', '=', target.order_id);
  else return null;
  return (await q.executeTakeFirst()) ?? null;
}

/** findPayoutForTest, as the webhook source `src/test-webhooks/send.ts` builds the body from. */
export async function findPayoutWebhookSourceForTest(
  ctx: Ctx,
  merchantId: string,
  target: { uuid?: string | null; order_id?: string | null },
): Promise<PayoutWebhookSource | null> {
  const row = await findPayoutForTest(ctx, merchantId, target);
  return row ? payoutWebhookSourceOf(row) : null;
}
