// POST /v1/payment/resend (and /v2/payment/resend, which also takes `txid`): queue the invoice's
// current payment webhook again.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';
import type { Merchant } from '../merchants/store.ts';
import { enqueueWebhook } from './outbox.ts';
import { paymentWebhookFields, signedBody } from './payload.ts';
import type { ResendParams } from '../contracts/merchant-api/webhooks.ts';

export const MAX_RESENDS = 10;
export const RESENDABLE_STATUSES: ReadonlySet<string> = new Set(['wrong_amount', 'paid', 'paid_over']);

/**
 * Queues the invoice's payment webhook, as it stands now, for another delivery (order_id wins
 * over uuid). Answers `Payment not found` for an unknown invoice, `Notification not found` when
 * there is nothing to resend (no url_callback, or a status other than wrong_amount, paid,
 * paid_over) and `Too much resend` after 10 resends. The count and the queued webhook are written
 * in one transaction with the invoice row locked, so concurrent requests cannot exceed the limit.
 * Returns the id of the queued webhook.
 */
export async function resendPaymentWebhook(ctx: Ctx, merchant: Merchant, params: ResendParams): Promise<string> {
  const { storage } = ctx;
  return storage.write(async (trx) => {
    let q = trx.selectFrom('invoices').selectAll().where('merchant_id', '=', merchant.id);
    if (params.txid !== null) {
      // The v2 path also finds the invoice by the transaction that paid it (order_id, then uuid, win).
      const paidBy = trx.selectFrom('chain_transfers').select('owner_id').where('owner_kind', '=', 'invoice').where('txid', '=', params.txid);
      q = q.where('id', 'in', paidBy);
    } else {
      q = params.uuid !== null ? q.where('id', '=', params.uuid) : q.where('order_id', '=', params.order_id);
    }
    const inv = await storage.forUpdate(q).executeTakeFirst();
    if (!inv) throw new BusinessError(Msg.paymentNotFound);
    if (!inv.url_callback || !RESENDABLE_STATUSES.has(inv.status)) throw new BusinessError(Msg.notificationNotFound);
    if (inv.resend_count >= MAX_RESENDS) throw new BusinessError(Msg.tooMuchResend);
    // A resend goes where the original went, under the same SSRF decision (test mode or not).
    const previous = await trx
      .selectFrom('webhooks')
      .select('allow_private')
      .where('ref_id', '=', inv.id)
      .where('kind', '=', 'payment')
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    const now = ctx.now();
    await trx
      .updateTable('invoices')
      .set({ resend_count: inv.resend_count + 1 })
      .where('id', '=', inv.id)
      .execute();
    return enqueueWebhook(trx, {
      merchantId: merchant.id,
      kind: 'payment',
      refId: inv.id,
      url: inv.url_callback,
      body: signedBody(paymentWebhookFields(inv, 'payment'), merchant.payment_key),
      allowPrivate: previous?.allow_private === 1,
      now,
    });
  });
}
