// Invoices: creation, information, history, QR code and refunds.
import * as z from 'zod';
import { HISTORY_DATE_RULE } from '../rules.ts';
import { operation, type Maybe, type WireBoolean, type WireInteger } from './operation.ts';
import { Empty, Invoice, Paginate, Qr } from './objects.ts';

const UUID_OR_ORDER_ID = {
  uuid: 'required_without:order_id|uuid',
  order_id: 'required_without:uuid|string|min:1|max:128|alpha_dash',
};

export interface InvoiceRef {
  uuid?: Maybe<string>;
  order_id?: Maybe<string>;
}

export interface CreateInvoiceParams {
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
  currencies?: Maybe<Array<{ currency: string; network?: Maybe<string> }>>;
  except_currencies?: Maybe<Array<{ currency: string; network?: Maybe<string> }>>;
  course_source?: Maybe<string>;
  from_referral_code?: Maybe<string>;
  discount_percent?: Maybe<WireInteger>;
  is_refresh?: Maybe<WireBoolean>;
  payer_email?: Maybe<string>;
  theme?: Maybe<'dark' | 'light'>;
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
};

export const createInvoiceOp = operation<CreateInvoiceParams, Invoice>({
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
  result: Invoice,
  example: {
    params: { amount: '15', currency: 'USDT', network: 'tron', order_id: 'shop-order-1042', url_callback: 'https://shop.example.com/satchel/webhook', lifetime: 3600 },
    result: { ...EXAMPLE_INVOICE, payment_amount_usd: '0.00', payer_amount_exchange_rate: '1', commission: '0.30', address_qr_code: 'data:image/png;base64,iVBORw0KGgo=' },
  },
});

export const invoiceInfoOp = operation<InvoiceRef, Invoice>({
  id: 'invoiceInfo',
  path: '/v1/payment/info',
  summary: 'Invoice information (order_id wins over uuid)',
  group: 'invoices',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  acceptsWebhookBody: true,
  params: UUID_OR_ORDER_ID,
  result: Invoice,
  example: { params: { uuid: EXAMPLE_INVOICE.uuid }, result: EXAMPLE_INVOICE },
});

export interface HistoryParams {
  date_from?: Maybe<string>;
  date_to?: Maybe<string>;
  cursor?: Maybe<string>;
}

export const InvoicePage = z.object({ items: z.array(Invoice), paginate: Paginate });

export const invoiceListOp = operation<HistoryParams, z.infer<typeof InvoicePage>>({
  id: 'invoiceList',
  path: '/v1/payment/list',
  summary: 'Invoice history, newest first; the next page with ?cursor=',
  group: 'invoices',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: { date_from: HISTORY_DATE_RULE, date_to: HISTORY_DATE_RULE },
  query: { cursor: 'string' },
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
  result: Qr,
  example: { params: { merchant_payment_uuid: EXAMPLE_INVOICE.uuid }, result: { image: 'data:image/png;base64,iVBORw0KGgo=' } },
});

export interface RefundParams extends InvoiceRef {
  address: string;
  is_subtract: WireBoolean;
  amount?: Maybe<string>;
}

export const refundInvoiceOp = operation<RefundParams, Empty>({
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
  result: Empty,
  example: { params: { uuid: EXAMPLE_INVOICE.uuid, address: 'TDD97yguPESTpcrJMqU6h2ozZbibv4Vaqm', is_subtract: true, amount: '5.00' }, result: [] },
});
