// The invoice record's statuses and the spec's Invoice object.
import type { InvoicesTable } from '../db/schema.ts';
import type { Invoice } from '../contracts/merchant-api/objects.ts';
import { isoMsk, money } from '../money/format.ts';
import type { InvoiceStatus } from '../contracts/invoice-status.ts';
import type { Ctx } from '../context.ts';

export type InvoiceRow = InvoicesTable;

export { INVOICE_STATUSES, type InvoiceStatus } from '../contracts/invoice-status.ts';

export interface PresentOptions {
  publicUrl: string;
  /** The `payment_comment` shown for a row's stored payment reference: null on a network whose
   * format carries the reference in the payment link only (Solana Pay), the reference elsewhere. */
  showComment: (network: string | null, reference: string | null) => string | null;
  /** Include the fields the spec shows only in the creation response. */
  creation?: { qr: string | null } | null;
}

/** The columns the Invoice object is made of (reading only these keeps the hot info path lean). */
export const PRESENTED_COLUMNS = [
  'id', 'order_id', 'amount', 'payment_amount', 'payment_amount_usd', 'payer_amount', 'exchange_rate',
  'discount_percent', 'discount', 'payer_currency', 'currency', 'comments', 'merchant_amount', 'network',
  'address', 'payment_comment', 'from_address', 'txid', 'status', 'expired_at', 'is_final', 'additional_data', 'created_at',
  'updated_at', 'commission', 'recurrence_id',
] as const satisfies ReadonlyArray<keyof InvoiceRow>;

export type PresentedInvoice = Pick<InvoiceRow, (typeof PRESENTED_COLUMNS)[number]>;

/** The options every presentation of an invoice takes from the gateway. */
export function presentOptions(ctx: Pick<Ctx, 'config' | 'registry' | 'chains'>): PresentOptions {
  return { publicUrl: ctx.config.publicUrl, showComment: (network, reference) => ctx.chains.families.addresses.shownComment(ctx.registry.network(network), reference) };
}

/** The spec's Invoice object, fields in the spec's order. */
export function presentInvoice(row: PresentedInvoice, opts: PresentOptions): Invoice {
  const status = row.status as InvoiceStatus;
  return {
    uuid: row.id,
    order_id: row.order_id,
    amount: money(row.amount),
    payment_amount: money(row.payment_amount),
    ...(opts.creation ? { payment_amount_usd: money(row.payment_amount_usd ?? '0') } : {}),
    payer_amount: money(row.payer_amount),
    ...(opts.creation ? { payer_amount_exchange_rate: row.exchange_rate } : {}),
    discount_percent: row.discount_percent,
    discount: money(row.discount ?? '0'),
    payer_currency: row.payer_currency,
    currency: row.currency,
    comments: row.comments,
    merchant_amount: money(row.merchant_amount),
    network: row.network,
    address: row.address,
    payment_comment: opts.showComment(row.network, row.payment_comment),
    from: row.from_address,
    txid: row.txid,
    payment_status: status,
    status,
    url: `${opts.publicUrl}/pay/${row.id}`,
    expired_at: Number(row.expired_at),
    is_final: row.is_final === 1,
    additional_data: row.additional_data,
    created_at: isoMsk(Number(row.created_at)),
    updated_at: isoMsk(Number(row.updated_at)),
    ...(opts.creation ? { commission: money(row.commission ?? '0'), address_qr_code: opts.creation.qr } : {}),
    // Not in the spec's list: appended after it, so that clients reading the spec's fields by
    // position (or pinning the list) meet them where they were. Null for an invoice of no recurrence.
    recurrence_uuid: row.recurrence_id ?? null,
  };
}
