// The result objects the spec names (Invoice, Payout, static wallet, pagination, ...), as zod
// schemas; each exported type is what the feature that builds the object returns.
import * as z from 'zod';
import { INVOICE_STATUSES } from '../invoice-status.ts';

/** An amount on the wire: a decimal string ("10.28"), never a JSON number. */
export const amount = z.string().regex(/^-?\d+(\.\d+)?$/);
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/);

export const INVOICE_STATUS = z.enum(INVOICE_STATUSES);
export const PAYOUT_STATUS = z.enum(['process', 'check', 'paid', 'fail', 'cancel', 'system_fail']);

export const InvoiceConvert = z.object({ to_currency: z.string(), commission: z.string().nullable(), rate: z.string(), amount: z.string() });
export type InvoiceConvert = z.infer<typeof InvoiceConvert>;

/** The spec's Invoice object (creation adds payment_amount_usd, payer_amount_exchange_rate,
 * commission and address_qr_code). */
export const Invoice = z.object({
  uuid,
  order_id: z.string(),
  amount,
  payment_amount: amount.nullable(),
  payment_amount_usd: amount.optional(),
  payer_amount: amount.nullable(),
  payer_amount_exchange_rate: z.string().nullable().optional(),
  discount_percent: z.number().int().nullable(),
  discount: amount,
  payer_currency: z.string().nullable(),
  currency: z.string(),
  comments: z.string().nullable(),
  merchant_amount: amount.nullable(),
  network: z.string().nullable(),
  address: z.string().nullable(),
  /** The comment the payer must send with the payment, on a network that tells invoices apart by
   * it (the address is then the merchant's own account); null on every other network. */
  payment_comment: z.string().nullable(),
  from: z.string().nullable(),
  txid: z.string().nullable(),
  payment_status: INVOICE_STATUS,
  status: INVOICE_STATUS,
  url: z.string(),
  expired_at: z.number().int(),
  is_final: z.boolean(),
  additional_data: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  commission: amount.optional(),
  address_qr_code: z.string().nullable().optional(),
  convert: InvoiceConvert.optional(),
  /** The recurrence (src/recurrences/) whose period this invoice pays; null for any other invoice.
   * After the spec's fields: an addition, not a reordering. */
  recurrence_uuid: uuid.nullable(),
});
export type Invoice = z.infer<typeof Invoice>;

export const PayoutConvert = z.object({ to_currency: z.string(), from_currency: z.string(), commission: z.string().nullable(), rate: z.string(), from_amount: z.string() });
export type PayoutConvert = z.infer<typeof PayoutConvert>;

/** The spec's Payout object (creation adds commission and merchant_amount; history adds times). */
export const Payout = z.object({
  uuid,
  amount,
  currency: z.string(),
  network: z.string().nullable(),
  address: z.string(),
  txid: z.string().nullable(),
  status: PAYOUT_STATUS,
  is_final: z.boolean(),
  balance: z.number(),
  payer_currency: z.string().nullable(),
  payer_amount: z.number(),
  commission: amount.nullable().optional(),
  merchant_amount: amount.nullable().optional(),
  convert: PayoutConvert.optional(),
  created_at: timestamp.optional(),
  updated_at: timestamp.optional(),
});
export type Payout = z.infer<typeof Payout>;

export const Paginate = z.object({
  count: z.number().int(),
  hasPages: z.boolean(),
  nextCursor: z.string().nullable(),
  previousCursor: z.string().nullable(),
  perPage: z.number().int(),
});

export const StaticWallet = z.object({
  wallet_uuid: uuid,
  uuid,
  order_id: z.string(),
  address: z.string(),
  /** As on the Invoice: the comment every top-up must carry, or null. */
  payment_comment: z.string().nullable(),
  network: z.string(),
  currency: z.string(),
  url: z.string(),
});
export type StaticWallet = z.infer<typeof StaticWallet>;

export const Qr = z.object({ image: z.string() });

/** `[]`: the result of an operation that returns no data. */
export const Empty = z.array(z.never()).max(0);
export type Empty = z.infer<typeof Empty>;

export const Service = z.object({
  network: z.string(),
  currency: z.string(),
  is_available: z.boolean(),
  limit: z.object({ min_amount: amount, max_amount: amount }),
  commission: z.object({ fee_amount: amount, percent: amount }),
});
export type Service = z.infer<typeof Service>;
