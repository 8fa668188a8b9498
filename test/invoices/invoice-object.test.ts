// The Invoice and static wallet objects' payment_comment: the comment on a network that needs one,
// null on every other, in the spec's place (after the address).
import { describe, expect, it } from 'vitest';
import { presentInvoice, presentOptions, PRESENTED_COLUMNS } from '../../src/invoices/invoice-object.ts';
import { Registry } from '../../src/registry/index.ts';
import { families } from '../../src/compose.ts';
import type { Ctx } from '../../src/context.ts';
import { Invoice, StaticWallet } from '../../src/contracts/merchant-api/objects.ts';
import { invoiceRow } from '../webhooks/invoices.ts';

describe('Invoice.payment_comment', () => {
  const opts = presentOptions({ config: { publicUrl: 'https://pay.example.test' }, registry: Registry.load(), chains: { families } } as unknown as Ctx);

  it('is null on a network without comments, and the object still validates', () => {
    const inv = presentInvoice(invoiceRow('m-1'), opts);
    expect(inv.payment_comment).toBeNull();
    expect(Object.keys(inv).indexOf('payment_comment')).toBe(Object.keys(inv).indexOf('address') + 1);
    expect(Invoice.parse(inv)).toEqual(inv);
  });

  it('is the comment on a TON invoice, beside the merchant\'s wallet', () => {
    const row = invoiceRow('m-1', { network: 'TON', payer_currency: 'TON', address: 'UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG', payment_comment: 'q7Hk2mZp9T' });
    const inv = presentInvoice(row, opts);
    expect(inv).toMatchObject({ network: 'TON', address: 'UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG', payment_comment: 'q7Hk2mZp9T' });
    expect(Invoice.parse(inv).payment_comment).toBe('q7Hk2mZp9T');
  });

  it('is null on a Solana invoice: its reference rides in the Solana Pay link only, never typed', () => {
    const row = invoiceRow('m-1', { network: 'SOL', payer_currency: 'USDC', address: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', payment_comment: 'CiDwVBFgWV9E5MvXWoLgnEgn2hK7rJikbvfWavzAQz3' });
    const inv = presentInvoice(row, opts);
    expect(inv).toMatchObject({ network: 'SOL', address: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', payment_comment: null });
    expect(Invoice.parse(inv)).toEqual(inv);
  });

  it('is read with the other presented columns (the info and list paths)', () => {
    expect(PRESENTED_COLUMNS).toContain('payment_comment');
  });

  it('is required in both objects\' schemas: a missing one is a contract error', () => {
    const inv = presentInvoice(invoiceRow('m-1'), opts) as Record<string, unknown>;
    delete inv.payment_comment;
    expect(Invoice.safeParse(inv).success).toBe(false);
    const wallet = { wallet_uuid: '4a8bd3b5-0a5c-5f0d-9c4e-0b1c2d3e4f50', uuid: 'b1b1c1a6-cf0f-4a6b-8e4a-5d8f2b3c4d5e', order_id: 'o', address: 'a', network: 'TON', currency: 'TON', url: 'u' };
    expect(StaticWallet.safeParse(wallet).success).toBe(false);
    expect(StaticWallet.safeParse({ ...wallet, payment_comment: null }).success).toBe(true);
  });
});
