// The `wallet` webhook (docs/webhooks.md): one per confirmed top-up of a static wallet, signed with
// the payment key, in the payment webhook's field order with `type` "wallet" and
// `wallet_address_uuid`.
import type { Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { Decimal } from '../money/decimal.ts';
import { enqueueWebhook } from '../webhooks/outbox.ts';
import { paymentWebhookFields, signedBody } from '../webhooks/payload.ts';
import type { StaticWalletRow, TopupRow } from './wallet-object.ts';
import type { PaymentWebhook } from '../contracts/merchant-api/webhooks.ts';

/**
 * Fields of a top-up webhook, without `sign`. `status` is `paid` for a credited top-up, `locked`
 * for one kept on a blocked wallet, and `refund_process` / `refund_paid` / `refund_fail` for one
 * refunded to its sender (is_force_refund). `uuid` identifies the top-up.
 */
export function topupWebhookFields(w: StaticWalletRow, t: TopupRow, status: string): PaymentWebhook {
  // What the gateway kept: commission and creation fee of a credited top-up, the network fee of
  // one sent back to its sender, nothing of one held on a blocked wallet.
  const kept = t.outcome === 'credited' ? Decimal.parse(t.commission).add(t.creation_fee) : t.outcome === 'blocked' ? Decimal.ZERO : Decimal.parse(t.commission);
  return paymentWebhookFields(
    {
      id: t.id,
      order_id: w.order_id,
      amount: t.amount,
      payment_amount: t.amount,
      payment_amount_usd: t.payment_amount_usd,
      merchant_amount: t.merchant_amount,
      commission: kept.toString(),
      credited: t.merchant_amount,
      is_final: 1,
      status,
      from_address: t.from_address,
      network: t.network,
      currency: t.currency,
      payer_currency: t.currency,
      payer_amount: t.amount,
      exchange_rate: null,
      additional_data: null,
      txid: t.txid,
    },
    'wallet',
    { wallet_address_uuid: w.id },
  );
}

export async function enqueueTopupWebhook(ctx: Ctx, trx: Transaction<DB>, w: StaticWalletRow, t: TopupRow, status: string): Promise<void> {
  if (!w.url_callback) return;
  const merchant = await trx.selectFrom('merchants').select('payment_key').where('id', '=', w.merchant_id).executeTakeFirstOrThrow();
  await enqueueWebhook(trx, {
    merchantId: w.merchant_id,
    kind: 'wallet',
    refId: t.id,
    url: w.url_callback,
    body: signedBody(topupWebhookFields(w, t, status), merchant.payment_key),
    allowPrivate: ctx.chains.isTestNetwork(w.network),
    now: ctx.now(),
  });
}
