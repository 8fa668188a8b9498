// Webhook bodies (docs/webhooks.md): the fields in their fixed order and the signature as the last
// key.
import { Decimal } from '../money/decimal.ts';
import type { InvoicesTable as InvoiceRow } from '../db/schema.ts';
import { money } from '../money/format.ts';
import { phpJsonEncode } from './php-json.ts';
import { signBytes } from '../contracts/sign.ts';
import { PAYMENT_WEBHOOK_ORDER, PAYOUT_WEBHOOK_ORDER, type PaymentWebhook, type PayoutWebhook } from '../contracts/merchant-api/webhooks.ts';

/** md5_hex(base64(J) + key), where J is the PHP encoding of the fields without `sign`. */
export function webhookSign(fields: object, key: string): string {
  return signBytes(phpJsonEncode(fields), key);
}

/** The exact body to deliver: `fields` with `sign` appended as the last key, PHP-encoded. */
export function signedBody(fields: PaymentWebhook | PayoutWebhook | Record<string, unknown>, key: string): string {
  const rest: Record<string, unknown> = { ...fields };
  delete rest.sign;
  return phpJsonEncode({ ...rest, sign: webhookSign(rest, key) });
}

/** `fields` with its keys in the contract's `order`; a key `fields` does not have stays out. */
function inContractOrder<T extends object>(order: readonly (keyof T)[], fields: T): T {
  const out = {} as T;
  for (const key of order) if (Object.hasOwn(fields, key)) out[key] = fields[key];
  return out;
}

export interface PaymentWebhookExtra {
  /** The static wallet a `wallet` top-up arrived at. */
  wallet_address_uuid?: string | null;
  /** Overrides the invoice's status (test webhooks). */
  status?: string;
  /** Only when the payment was converted; left out otherwise. */
  convert?: Record<string, unknown> | null;
}

/** What a payment webhook is built from: an invoice row (or a made-up one for a test webhook). */
export type WebhookInvoice = Pick<
  InvoiceRow,
  | 'id' | 'order_id' | 'amount' | 'payment_amount' | 'payment_amount_usd' | 'merchant_amount' | 'commission'
  | 'credited' | 'is_final' | 'status' | 'from_address' | 'network' | 'currency' | 'payer_currency'
  | 'payer_amount' | 'exchange_rate' | 'additional_data' | 'txid'
> & { recurrence_id?: string | null };

/** Payment and static-wallet top-up fields, in the spec's order, without `sign`. */
export function paymentWebhookFields(inv: WebhookInvoice, type: 'payment' | 'wallet', extra: PaymentWebhookExtra = {}): PaymentWebhook {
  return inContractOrder(PAYMENT_WEBHOOK_ORDER, {
    type,
    uuid: inv.id,
    order_id: inv.order_id,
    amount: money(inv.amount),
    payment_amount: money(inv.payment_amount),
    payment_amount_usd: money(inv.payment_amount_usd),
    merchant_amount: money(inv.merchant_amount),
    commission: keptCommission(inv),
    is_final: inv.is_final === 1,
    status: extra.status ?? inv.status,
    from: inv.from_address,
    wallet_address_uuid: extra.wallet_address_uuid ?? null,
    network: inv.network,
    currency: inv.currency,
    payer_currency: inv.payer_currency,
    payer_amount: money(inv.payer_amount),
    payer_amount_exchange_rate: inv.exchange_rate,
    additional_data: inv.additional_data,
    txid: inv.txid,
    ...(extra.convert ? { convert: extra.convert } : {}),
    // Appended after the spec's fields, on invoice webhooks only (a top-up belongs to no recurrence).
    ...(type === 'payment' ? { recurrence_uuid: inv.recurrence_id ?? null } : {}),
  });
}

/** What the gateway actually kept: once money is credited, what was paid minus what was credited
 * (an over- or underpayment changes it); before that, the commission priced at creation. */
function keptCommission(inv: WebhookInvoice): string | null {
  const credited = Decimal.tryParse(inv.credited ?? '0');
  if (credited && !credited.isZero() && inv.payment_amount !== null) {
    return money(Decimal.parse(inv.payment_amount).sub(credited).toString());
  }
  return money(inv.commission);
}

/** What a payout webhook is built from: its fields as stored, amounts not yet formatted. */
export type PayoutWebhookSource = Omit<PayoutWebhook, 'type'>;

/** Payout fields, in the spec's order, without `sign`. */
export function payoutWebhookFields(p: PayoutWebhookSource): PayoutWebhook {
  return inContractOrder(PAYOUT_WEBHOOK_ORDER, {
    ...p,
    type: 'payout',
    amount: money(p.amount),
    merchant_amount: money(p.merchant_amount),
    commission: money(p.commission),
    payer_amount: money(p.payer_amount),
  });
}
