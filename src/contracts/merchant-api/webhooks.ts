// Webhook resends and test webhooks; the webhook bodies the gateway sends, typed field by field, and
// the order their fields are sent in (docs/webhooks.md), `sign` last.
import { isMissing, validationErrors, type Input } from '../rules.ts';
import { operation, type Maybe } from './operation.ts';
import { Empty, INVOICE_STATUS, PAYOUT_STATUS } from './objects.ts';
import { lowerUuid, recordRef, text, type RecordRef } from './parse.ts';

const INVOICE_REF = {
  uuid: 'required_without:order_id|uuid',
  order_id: 'required_without:uuid|string|min:1|max:128|alpha_dash',
};

/** The invoice whose webhook to resend: by uuid or order_id (order_id wins), or (v2) by the txid that paid it. */
export type ResendParams = (RecordRef & { txid: null }) | { uuid: null; order_id: null; txid: string };

type ResendBody = { uuid?: Maybe<string>; order_id?: Maybe<string>; txid?: Maybe<string> };

export const resendWebhookOp = operation<ResendParams, Empty, ResendBody>({
  id: 'resendWebhook',
  path: '/v1/payment/resend',
  summary: 'Resend the webhook of a paid invoice (order_id wins over uuid; at most 10 times)',
  group: 'webhooks',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: INVOICE_REF,
  parse: (b) => ({ ...recordRef(b, 'order_id'), txid: null }),
  result: Empty,
  example: { params: { order_id: 'shop-order-1042' }, result: [] },
});

/** The v2 resend also finds the invoice by the transaction that paid it, when neither id is given. */
export const RESEND_BY_TXID_RULES = { txid: 'string|min:1|max:128' };

/** v2: with neither uuid nor order_id, the txid (checked alone); with one of them, the v1 rules. */
function resendV2Errors(input: Input): Record<string, string[]> {
  if (!isMissing(input.order_id) || !isMissing(input.uuid)) return validationErrors(input, INVOICE_REF);
  if (!isMissing(input.txid)) return validationErrors(input, RESEND_BY_TXID_RULES);
  return { uuid: ['validation.required_without'], order_id: ['validation.required_without'], txid: ['validation.required_without'] };
}

export const resendWebhookV2Op = operation<ResendParams, Empty, ResendBody>({
  id: 'resendWebhookV2',
  path: '/v2/payment/resend',
  summary: 'Resend the webhook of a paid invoice, found by order_id, uuid or txid',
  group: 'webhooks',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: { uuid: 'uuid', order_id: 'string|min:1|max:128|alpha_dash', ...RESEND_BY_TXID_RULES },
  check: resendV2Errors,
  parse: (b) => (isMissing(b.order_id) && isMissing(b.uuid) ? { uuid: null, order_id: null, txid: String(b.txid) } : { ...recordRef(b, 'order_id'), txid: null }),
  result: Empty,
  example: { params: { txid: '6e7e2f8a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6' }, result: [] },
});

export interface TestWebhookBody {
  url_callback: string;
  currency: string;
  network: string;
  uuid?: Maybe<string>;
  order_id?: Maybe<string>;
  status?: Maybe<string>;
}

/** A test webhook: codes as sent, the record it names (uuid in lower case) if any, the status (default paid). */
export interface TestWebhookParams {
  url_callback: string;
  currency: string;
  network: string;
  uuid: string | null;
  order_id: string | null;
  status: string;
}

function parseTestWebhook(b: TestWebhookBody): TestWebhookParams {
  return {
    url_callback: String(b.url_callback),
    currency: String(b.currency),
    network: String(b.network),
    uuid: lowerUuid(b.uuid),
    order_id: text(b.order_id),
    status: text(b.status) ?? 'paid',
  };
}

const testRules = (statuses: readonly string[], idsRequired: boolean) => ({
  url_callback: 'required|string|min:6|max:150|url',
  currency: 'required|string',
  network: 'required|string',
  ...(idsRequired
    ? { uuid: 'required_without:order_id|uuid', order_id: 'required_without:uuid|string|min:1|max:32|alpha_dash' }
    : { uuid: 'uuid', order_id: 'string|min:1|max:32|alpha_dash' }),
  // The spec lists status as required with the default `paid`: a missing status means paid.
  status: `string|in:${statuses.join(',')}`,
});

const test = { group: 'webhooks', signedWith: 'payment', blockedMerchant: 'allowed', result: Empty, parse: parseTestWebhook } as const;
const EXAMPLE = { url_callback: 'https://shop.example.com/satchel/webhook', currency: 'USDT', network: 'TRON', status: 'paid' };

export const testPaymentWebhookOp = operation<TestWebhookParams, Empty, TestWebhookBody>({
  ...test,
  id: 'testPaymentWebhook',
  path: '/v1/test-webhook/payment',
  summary: 'Send a test invoice webhook now (nothing is saved)',
  params: testRules(INVOICE_STATUS.options, false),
  example: { params: EXAMPLE, result: [] },
});

// The spec validates test webhooks with the payment key, but a popular SDK signs the payout test
// with the payout key; both are the merchant's own secrets, so that one route takes either.
export const testPayoutWebhookOp = operation<TestWebhookParams, Empty, TestWebhookBody>({
  ...test,
  signedWith: 'payment_or_payout',
  id: 'testPayoutWebhook',
  path: '/v1/test-webhook/payout',
  summary: 'Send a test payout webhook now (nothing is saved)',
  params: testRules(PAYOUT_STATUS.options, false),
  example: { params: EXAMPLE, result: [] },
});

export const testWalletWebhookOp = operation<TestWebhookParams, Empty, TestWebhookBody>({
  ...test,
  id: 'testWalletWebhook',
  path: '/v1/test-webhook/wallet',
  summary: 'Send a test static wallet webhook now (nothing is saved)',
  params: testRules(INVOICE_STATUS.options, true),
  example: { params: { ...EXAMPLE, order_id: 'customer-381' }, result: [] },
});

/** The body of an invoice (`payment`) or static wallet top-up (`wallet`) webhook, without `sign`. */
export interface PaymentWebhook {
  type: 'payment' | 'wallet';
  uuid: string;
  order_id: string | null;
  amount: string | null;
  payment_amount: string | null;
  payment_amount_usd: string | null;
  merchant_amount: string | null;
  commission: string | null;
  is_final: boolean;
  status: string;
  from: string | null;
  wallet_address_uuid: string | null;
  network: string | null;
  currency: string;
  payer_currency: string | null;
  payer_amount: string | null;
  payer_amount_exchange_rate: string | null;
  additional_data: string | null;
  convert?: Record<string, unknown>;
  txid: string | null;
  /** An invoice's (`payment`) only: the recurrence whose period it pays, or null. */
  recurrence_uuid?: string | null;
}

/** The statuses after which an invoice (or a static wallet top-up) changes no more: its webhook's
 * `is_final`. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set([
  'paid', 'paid_over', 'fail', 'wrong_amount', 'cancel', 'system_fail', 'refund_process', 'refund_fail', 'refund_paid',
]);

/** The body of a payout webhook, without `sign`. */
export interface PayoutWebhook {
  type: 'payout';
  uuid: string;
  order_id: string;
  amount: string | null;
  merchant_amount: string | null;
  commission: string | null;
  is_final: boolean;
  status: string;
  txid: string | null;
  currency: string;
  network: string | null;
  payer_currency: string | null;
  payer_amount: string | null;
}

/**
 * The keys of T in the order a webhook sends them. The compiler rejects a list that leaves out a
 * key of T or names one T does not have, so the list and the typed body cannot drift apart.
 */
function fieldOrder<T>() {
  return <const K extends readonly (keyof T)[]>(
    keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, K[number]> }),
  ): readonly (keyof T)[] => keys;
}

/** PaymentWebhook's fields in the order they are sent (`convert` only when there is one). */
export const PAYMENT_WEBHOOK_ORDER = fieldOrder<PaymentWebhook>()([
  'type', 'uuid', 'order_id', 'amount', 'payment_amount', 'payment_amount_usd', 'merchant_amount', 'commission',
  'is_final', 'status', 'from', 'wallet_address_uuid', 'network', 'currency', 'payer_currency', 'payer_amount',
  'payer_amount_exchange_rate', 'additional_data', 'convert', 'txid', 'recurrence_uuid',
]);

/** PayoutWebhook's fields in the order they are sent. */
export const PAYOUT_WEBHOOK_ORDER = fieldOrder<PayoutWebhook>()([
  'type', 'uuid', 'order_id', 'amount', 'merchant_amount', 'commission', 'is_final', 'status', 'txid', 'currency',
  'network', 'payer_currency', 'payer_amount',
]);
