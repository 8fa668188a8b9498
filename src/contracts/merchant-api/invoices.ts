// Invoices: creation, information, history, QR code and refunds.
import * as z from 'zod';
import { ValidationError } from '../../errors.ts';
import { Decimal } from '../../money/decimal.ts';
import { HISTORY_DATE_RULE, isMissing, parseListDate } from '../rules.ts';
import { operation, type Maybe, type WireBoolean, type WireInteger } from './operation.ts';
import { Empty, Invoice, Paginate, Qr } from './objects.ts';
import { code, courseSource, decimalText, flag, integer, recordRef, text, type RecordRef } from './parse.ts';

const UUID_OR_ORDER_ID = {
  uuid: 'required_without:order_id|uuid',
  order_id: 'required_without:uuid|string|min:1|max:128|alpha_dash',
};

export interface InvoiceRef {
  uuid?: Maybe<string>;
  order_id?: Maybe<string>;
}

/** A `currencies` / `except_currencies` item as the client sends it. */
interface CurrencyItem {
  currency: string;
  network?: Maybe<string>;
}

export interface CreateInvoiceBody {
  amount: string;
  currency: string;
  order_id: string;
  network?: Maybe<string>;
  url_return?: Maybe<string>;
  url_success?: Maybe<string>;
  url_callback?: Maybe<string>;
  is_payment_multiple?: Maybe<WireBoolean>;
  lifetime?: Maybe<WireInteger>;
  to_currency?: Maybe<string>;
  subtract?: Maybe<WireInteger>;
  accuracy_payment_percent?: Maybe<number | string>;
  additional_data?: Maybe<string>;
  currencies?: Maybe<CurrencyItem[]>;
  except_currencies?: Maybe<CurrencyItem[]>;
  course_source?: Maybe<string>;
  from_referral_code?: Maybe<string>;
  discount_percent?: Maybe<WireInteger>;
  is_refresh?: Maybe<WireBoolean>;
  payer_email?: Maybe<string>;
  theme?: Maybe<'dark' | 'light'>;
}

/** A cryptocurrency (and maybe its network) an invoice may or may not be paid in, codes in capitals. */
export interface CurrencyChoice {
  currency: string;
  network: string | null;
}

/** An invoice to create; null for what is not given, the spec's defaults applied. */
export interface CreateInvoiceParams {
  /** The amount's decimal text. */
  amount: string;
  /** The currency code, in capitals. */
  currency: string;
  order_id: string;
  /** In capitals. */
  network: string | null;
  url_return: string | null;
  url_success: string | null;
  url_callback: string | null;
  is_payment_multiple: boolean;
  /** Seconds. */
  lifetime: number;
  /** In capitals. */
  to_currency: string | null;
  subtract: number;
  /** A decimal text. */
  accuracy_payment_percent: string;
  additional_data: string | null;
  /** null when not given or empty. */
  currencies: CurrencyChoice[] | null;
  except_currencies: CurrencyChoice[] | null;
  /** The rate source's name. */
  course_source: string | null;
  from_referral_code: string | null;
  discount_percent: number | null;
  is_refresh: boolean;
  payer_email: string | null;
  theme: 'dark' | 'light' | null;
}

function choices(v: Maybe<CurrencyItem[]>): CurrencyChoice[] | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  return v.map((item) => ({ currency: String(item.currency).toUpperCase(), network: code(item.network) }));
}

const EXAMPLE_INVOICE: Invoice = {
  uuid: '62f88b36-a9d5-4fa6-aa26-e040c3dbf26d',
  order_id: 'shop-order-1042',
  amount: '15.00',
  payment_amount: null,
  payer_amount: '15.00',
  discount_percent: null,
  discount: '0.00',
  payer_currency: 'USDT',
  currency: 'USDT',
  comments: null,
  merchant_amount: '14.70',
  network: 'TRON',
  address: 'TXbXyYbJm2Kk4w5yJdtwvPmfPxMWhdQhdW',
  payment_comment: null,
  from: null,
  txid: null,
  payment_status: 'check',
  status: 'check',
  url: 'https://pay.example.com/pay/62f88b36-a9d5-4fa6-aa26-e040c3dbf26d',
  expired_at: 1767229200,
  is_final: false,
  additional_data: null,
  created_at: '2026-01-01T03:00:00+03:00',
  updated_at: '2026-01-01T03:00:00+03:00',
  recurrence_uuid: null,
};

export const createInvoiceOp = operation<CreateInvoiceParams, Invoice, CreateInvoiceBody>({
  id: 'createInvoice',
  path: '/v1/payment',
  summary: 'Create an invoice (or return the one with this order_id)',
  group: 'invoices',
  signedWith: 'payment',
  blockedMerchant: 'forbidden',
  params: {
    amount: 'required|string|numeric|amount',
    currency: 'required|string',
    order_id: 'required|string|min:1|max:128|alpha_dash',
    network: 'string',
    url_return: 'string|min:6|max:255|url',
    url_success: 'string|min:6|max:255|url',
    url_callback: 'string|min:6|max:255|url',
    is_payment_multiple: 'boolean',
    lifetime: 'integer|min:300|max:43200',
    to_currency: 'string',
    subtract: 'integer|min:0|max:100',
    accuracy_payment_percent: 'numeric|min:0|max:5|plain_decimal',
    additional_data: 'string|max:255',
    currencies: 'array',
    except_currencies: 'array',
    course_source: 'string|min:4|max:20|course_source',
    from_referral_code: 'string',
    discount_percent: 'integer|min:-99|max:100',
    is_refresh: 'boolean',
    payer_email: 'string',
    theme: 'string|in:dark,light',
    'currencies.*.currency': 'required|string',
    'currencies.*.network': 'string',
    'except_currencies.*.currency': 'required|string',
    'except_currencies.*.network': 'string',
  },
  parse: (b) => ({
    amount: String(b.amount).trim(),
    currency: String(b.currency).toUpperCase(),
    order_id: String(b.order_id),
    network: code(b.network),
    url_return: text(b.url_return),
    url_success: text(b.url_success),
    url_callback: text(b.url_callback),
    is_payment_multiple: flag(b.is_payment_multiple, true),
    lifetime: integer(b.lifetime, 3600),
    to_currency: code(b.to_currency),
    subtract: integer(b.subtract, 0),
    accuracy_payment_percent: isMissing(b.accuracy_payment_percent) ? '0' : Decimal.parse(String(b.accuracy_payment_percent).trim()).toString(),
    additional_data: text(b.additional_data),
    currencies: choices(b.currencies),
    except_currencies: choices(b.except_currencies),
    course_source: courseSource(b.course_source),
    from_referral_code: text(b.from_referral_code),
    discount_percent: integer(b.discount_percent, null),
    is_refresh: flag(b.is_refresh, false),
    payer_email: text(b.payer_email),
    theme: text(b.theme) as CreateInvoiceParams['theme'],
  }),
  result: Invoice,
  example: {
    params: { amount: '15', currency: 'USDT', network: 'tron', order_id: 'shop-order-1042', url_callback: 'https://shop.example.com/satchel/webhook', lifetime: 3600 },
    result: { ...EXAMPLE_INVOICE, payment_amount_usd: '0.00', payer_amount_exchange_rate: '1', commission: '0.30', address_qr_code: 'data:image/png;base64,iVBORw0KGgo=' },
  },
});

export const invoiceInfoOp = operation<RecordRef, Invoice, InvoiceRef>({
  id: 'invoiceInfo',
  path: '/v1/payment/info',
  summary: 'Invoice information (order_id wins over uuid)',
  group: 'invoices',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  acceptsWebhookBody: true,
  params: UUID_OR_ORDER_ID,
  parse: (b) => recordRef(b, 'order_id'),
  result: Invoice,
  example: { params: { uuid: EXAMPLE_INVOICE.uuid }, result: EXAMPLE_INVOICE },
});

export interface HistoryBody {
  date_from?: Maybe<string>;
  date_to?: Maybe<string>;
  cursor?: Maybe<string>;
}

/** A history page to read: times in epoch milliseconds, the cursor's text as sent. */
export interface HistoryParams {
  date_from: number | null;
  date_to: number | null;
  cursor: string | null;
}

/**
 * The history parameters: dates that are real times (else `validation.regex`), and the cursor from
 * the query string or, as some clients send it, the body.
 */
export function parseHistory(body: HistoryBody, query: Record<string, unknown> = {}): HistoryParams {
  const errors: Record<string, string[]> = {};
  const from = isMissing(body.date_from) ? null : parseListDate(String(body.date_from));
  const to = isMissing(body.date_to) ? null : parseListDate(String(body.date_to));
  if (!isMissing(body.date_from) && from === null) errors.date_from = ['validation.regex'];
  if (!isMissing(body.date_to) && to === null) errors.date_to = ['validation.regex'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const cursor = !isMissing(query.cursor) ? query.cursor : body.cursor;
  return { date_from: from, date_to: to, cursor: typeof cursor === 'string' ? cursor : null };
}

export const InvoicePage = z.object({ items: z.array(Invoice), paginate: Paginate });

export const invoiceListOp = operation<HistoryParams, z.infer<typeof InvoicePage>, HistoryBody>({
  id: 'invoiceList',
  path: '/v1/payment/list',
  summary: 'Invoice history, newest first; the next page with ?cursor=',
  group: 'invoices',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: { date_from: HISTORY_DATE_RULE, date_to: HISTORY_DATE_RULE },
  query: { cursor: 'string' },
  parse: (b, env) => parseHistory(b, env.query),
  result: InvoicePage,
  example: {
    params: { date_from: '2026-01-01 00:00:00', date_to: '2026-01-31 23:59:59' },
    result: { items: [EXAMPLE_INVOICE], paginate: { count: 1, hasPages: false, nextCursor: null, previousCursor: null, perPage: 15 } },
  },
});

export const invoiceQrOp = operation<{ merchant_payment_uuid: string }, z.infer<typeof Qr>>({
  id: 'invoiceQr',
  path: '/v1/payment/qr',
  summary: 'QR code of an invoice address',
  group: 'invoices',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: { merchant_payment_uuid: 'required|string|uuid' },
  parse: (b) => ({ merchant_payment_uuid: b.merchant_payment_uuid.toLowerCase() }),
  result: Qr,
  example: { params: { merchant_payment_uuid: EXAMPLE_INVOICE.uuid }, result: { image: 'data:image/png;base64,iVBORw0KGgo=' } },
});

export interface RefundBody extends InvoiceRef {
  address: string;
  is_subtract: WireBoolean;
  amount?: Maybe<string>;
}

/** A refund: the invoice (uuid wins), the address, and the amount's decimal text (null: all of it). */
export type RefundParams = RecordRef & { address: string; is_subtract: boolean; amount: string | null };

export const refundInvoiceOp = operation<RefundParams, Empty, RefundBody>({
  id: 'refundInvoice',
  path: '/v1/payment/refund',
  summary: 'Refund (part of) a paid invoice (uuid wins over order_id)',
  group: 'invoices',
  signedWith: 'refund',
  blockedMerchant: 'forbidden',
  params: {
    address: 'required|string',
    is_subtract: 'required|boolean',
    uuid: 'required_without:order_id|uuid',
    order_id: 'required_without:uuid|string|min:1|max:128|alpha_dash',
    amount: 'string|amount|positive',
  },
  parse: (b) => ({ ...recordRef(b, 'uuid'), address: String(b.address), is_subtract: flag(b.is_subtract, false), amount: decimalText(b.amount) }),
  result: Empty,
  example: { params: { uuid: EXAMPLE_INVOICE.uuid, address: 'TDD97yguPESTpcrJMqU6h2ozZbibv4Vaqm', is_subtract: true, amount: '5.00' }, result: [] },
});
