// Invoices in any status, written straight to the database (the lifecycle that moves them is
// not what these tests are about).
import { randomUUID } from 'node:crypto';
import type { InvoiceRow } from '../../src/invoices/invoice-object.ts';
import type { TestGateway } from '../helpers/gateway.ts';

export function invoiceRow(merchantId: string, o: Partial<InvoiceRow> = {}): InvoiceRow {
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);
  return {
    id: randomUUID(),
    merchant_id: merchantId,
    order_id: `o-${randomUUID().slice(0, 8)}`,
    amount: '15',
    currency: 'USDT',
    network: 'TRON',
    payer_currency: 'USDT',
    payer_amount: '15',
    exchange_rate: '1',
    rate_source: 'static',
    rate_quotes: null,
    discount_percent: null,
    discount: '0',
    commission: '0.3',
    commission_percent: '2',
    merchant_amount: '14.7',
    payment_amount: '15',
    payment_amount_usd: '15',
    address: 'TXbXyYbJm2Kk4w5yJdtwvPmfPxMWhdQhdW',
    address_path: null,
    payment_comment: null,
    from_address: 'TXbXyYbJm2Kk4w5yJdtwvPmfPxMWhdQhdW',
    txid: '6e7e2f8a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6',
    status: 'paid',
    is_final: 1,
    url_return: null,
    url_success: null,
    url_callback: 'https://shop.example/cb',
    is_payment_multiple: 1,
    lifetime: 3600,
    to_currency: null,
    subtract: 0,
    accuracy_payment_percent: '0',
    additional_data: null,
    currencies: null,
    except_currencies: null,
    course_source: null,
    from_referral_code: null,
    payer_email: null,
    theme: null,
    comments: null,
    expired_at: now / 1000 + 3600,
    created_at: now,
    updated_at: now,
    version: 1,
    credited: '14.7',
    resend_count: 0,
    recurrence_id: null,
    recurrence_period: null,
    ...o,
  };
}

export async function insertInvoice(gw: TestGateway, o: Partial<InvoiceRow> = {}): Promise<InvoiceRow> {
  const row = invoiceRow(gw.merchant.id, o);
  await gw.ctx.storage.db.insertInto('invoices').values(row).execute();
  return row;
}
