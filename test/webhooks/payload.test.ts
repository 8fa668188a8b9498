import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { paymentWebhookFields, payoutWebhookFields, signedBody, webhookSign } from '../../src/webhooks/payload.ts';
import { invoiceRow } from './invoices.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/webhooks.json', import.meta.url), 'utf8')) as {
  api_key: string;
  body_without_sign: string;
  sign: string;
  delivered_body: string;
};

describe('webhook payloads', () => {
  it('signs and encodes the shared fixture byte for byte', () => {
    const fields = JSON.parse(fixture.body_without_sign) as Record<string, unknown>;
    expect(webhookSign(fields, fixture.api_key)).toBe(fixture.sign);
    expect(signedBody(fields, fixture.api_key)).toBe(fixture.delivered_body);
    // The same md5 a merchant computes over the text before `sign`.
    const md5 = createHash('md5').update(Buffer.from(fixture.body_without_sign, 'utf8').toString('base64') + fixture.api_key).digest('hex');
    expect(md5).toBe(fixture.sign);
  });

  it('builds the fixture from an invoice row: fields in order, amounts as strings, sign last', () => {
    const inv = invoiceRow('m', {
      id: '62f88b36-a9d5-4fa6-aa26-e040c3dbf26d',
      order_id: 'shop-order-1042',
      additional_data: 'note: cafe/bar — “quoted”',
    });
    const fields = paymentWebhookFields(inv, 'payment');
    expect(Object.keys(fields)).toEqual([
      'type', 'uuid', 'order_id', 'amount', 'payment_amount', 'payment_amount_usd', 'merchant_amount', 'commission',
      'is_final', 'status', 'from', 'wallet_address_uuid', 'network', 'currency', 'payer_currency', 'payer_amount',
      'payer_amount_exchange_rate', 'additional_data', 'txid', 'recurrence_uuid',
    ]);
    // recurrence_uuid (null: this invoice pays no recurrence) is appended after the spec's fields,
    // which stay byte for byte what the fixture delivered.
    expect(fields.recurrence_uuid).toBeNull();
    const { recurrence_uuid: _appended, ...specFields } = fields;
    expect(signedBody(specFields, fixture.api_key)).toBe(fixture.delivered_body);
  });

  it('puts sign last even when the fields already carry one', () => {
    const body = signedBody({ sign: 'old', a: 'x' }, 'k');
    expect(Object.keys(JSON.parse(body))).toEqual(['a', 'sign']);
    expect(JSON.parse(body).sign).toBe(webhookSign({ a: 'x' }, 'k'));
  });

  it('reports the commission actually kept once money is credited, the priced one before', () => {
    const over = invoiceRow('m', { payment_amount: '20', credited: '19.6', commission: '0.3' });
    expect(paymentWebhookFields(over, 'payment').commission).toBe('0.40');
    const open = invoiceRow('m', { status: 'process', is_final: 0, payment_amount: null, credited: '0', commission: '0.3', txid: null, from_address: null });
    const f = paymentWebhookFields(open, 'payment');
    expect(f).toMatchObject({ commission: '0.30', payment_amount: null, is_final: false, status: 'process', from: null, txid: null });
  });

  it('writes null where unknown, keeps small amounts exact and adds wallet fields and convert', () => {
    const inv = invoiceRow('m', {
      amount: '0.00012345', payment_amount: '0.00012345', payment_amount_usd: null, merchant_amount: null,
      payer_amount: null, exchange_rate: null, network: null, payer_currency: null, credited: '0', commission: null,
    });
    const f = paymentWebhookFields(inv, 'wallet', { wallet_address_uuid: 'w-1', status: 'paid_over', convert: { to_currency: 'USDT', amount: '1.00' } });
    expect(f).toMatchObject({
      type: 'wallet', amount: '0.00012345', payment_amount_usd: null, merchant_amount: null, commission: null,
      payer_amount: null, payer_amount_exchange_rate: null, network: null, status: 'paid_over', wallet_address_uuid: 'w-1',
    });
    expect(Object.keys(f).slice(-3)).toEqual(['additional_data', 'convert', 'txid']);
  });

  it('builds payout fields in their own order', () => {
    const f = payoutWebhookFields({
      uuid: 'p-1', order_id: 'po-1', amount: '10', merchant_amount: '11', commission: '1', is_final: true, status: 'paid',
      txid: 'abc', currency: 'USDT', network: 'TRON', payer_currency: 'USDT', payer_amount: '10',
    });
    expect(Object.keys(f)).toEqual(['type', 'uuid', 'order_id', 'amount', 'merchant_amount', 'commission', 'is_final', 'status', 'txid', 'currency', 'network', 'payer_currency', 'payer_amount']);
    expect(f).toMatchObject({ type: 'payout', amount: '10.00', merchant_amount: '11.00', commission: '1.00', is_final: true });
  });
});
