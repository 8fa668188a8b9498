// The recurrence record, the Recurrence object the API answers with, and the `recurrence` webhook.
import type { Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB, RecurrencesTable } from '../db/schema.ts';
import { isoMsk, money } from '../money/format.ts';
import { enqueueWebhook } from '../webhooks/outbox.ts';
import { signedBody } from '../webhooks/payload.ts';
import { enqueueRecurrenceEmail } from './emails.ts';
import {
  RECURRENCE_WEBHOOK_ORDER,
  type Recurrence,
  type RecurrencePeriod,
  type RecurrenceStatus,
  type RecurrenceWebhook,
} from '../contracts/merchant-api/recurrences.ts';

export type RecurrenceRow = RecurrencesTable;

/** Statuses after which nothing moves a recurrence any more. */
export const CANCELLED: ReadonlySet<string> = new Set(['cancel_by_merchant', 'cancel_by_user']);

function time(ms: number | null): string | null {
  return ms === null ? null : isoMsk(Number(ms));
}

/** The Recurrence object, fields in the API's order. */
export function presentRecurrence(ctx: Pick<Ctx, 'config'>, row: RecurrenceRow): Recurrence {
  return {
    uuid: row.id,
    name: row.name,
    order_id: row.order_id,
    amount: money(row.amount),
    currency: row.currency,
    payer_currency: row.payer_currency,
    payer_amount_usd: money(row.payer_amount_usd),
    payer_amount: money(row.payer_amount),
    url_callback: row.url_callback,
    discount_days: row.discount_days === null ? null : Number(row.discount_days),
    discount_amount: money(row.discount_amount),
    end_of_discount: time(row.end_of_discount),
    period: row.period as RecurrencePeriod,
    status: row.status as RecurrenceStatus,
    url: recurrenceUrl(ctx, row.id),
    last_pay_off: time(row.last_pay_off),
    additional_data: row.additional_data,
  };
}

/** The payer's page of a recurrence. */
export function recurrenceUrl(ctx: Pick<Ctx, 'config'>, id: string): string {
  return `${ctx.config.publicUrl}/pay/recurrence/${id}`;
}

/** The `recurrence` webhook's fields, in their order, without `sign`. */
export function recurrenceWebhookFields(row: RecurrenceRow, invoiceId: string | null): RecurrenceWebhook {
  const fields: RecurrenceWebhook = {
    type: 'recurrence',
    uuid: row.id,
    order_id: row.order_id,
    status: row.status as RecurrenceStatus,
    amount: money(row.amount),
    currency: row.currency,
    period: row.period as RecurrencePeriod,
    invoice_uuid: invoiceId,
    last_pay_off: time(row.last_pay_off),
    additional_data: row.additional_data,
  };
  const out: Record<string, unknown> = {};
  for (const key of RECURRENCE_WEBHOOK_ORDER) out[key] = fields[key];
  return out as unknown as RecurrenceWebhook;
}

/**
 * Queues the `recurrence` webhook for `row` as it now stands, in the transaction of its status
 * change (the outbox: a crash neither loses nor invents one). Signed with the payment key like the
 * payment webhooks, delivered and retried by the same deliverer. Nothing without a url_callback.
 * The payer's email of the same transition is queued here too (./emails.ts).
 */
export async function enqueueRecurrenceWebhook(ctx: Ctx, trx: Transaction<DB>, row: RecurrenceRow, invoiceId: string | null): Promise<void> {
  await enqueueRecurrenceEmail(ctx, trx, row, invoiceId);
  if (!row.url_callback) return;
  const merchant = await trx.selectFrom('merchants').select('payment_key').where('id', '=', row.merchant_id).executeTakeFirstOrThrow();
  await enqueueWebhook(trx, {
    merchantId: row.merchant_id,
    kind: 'recurrence',
    refId: row.id,
    url: row.url_callback,
    body: signedBody(recurrenceWebhookFields(row, invoiceId) as unknown as Record<string, unknown>, merchant.payment_key),
    allowPrivate: ctx.chains.isTestNetwork(row.network),
    now: ctx.now(),
  });
}
