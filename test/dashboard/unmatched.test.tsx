// @vitest-environment jsdom
// The dashboard's Unmatched payments list: each payment with its amount, sender, the payer's comment
// shown as text (or why it matched nothing), and for an owner or admin, labelled forms to assign it
// to an invoice or mark it refunded, whose outcome is announced (role=status) or whose refusal is
// shown as an alert; a viewer gets the list without the forms.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { UnmatchedList } from '../../src/dashboard-ui/unmatched.tsx';
import { ApiError } from '../../src/dashboard-ui/api.ts';
import type { UnmatchedPayment } from '../../src/contracts/dashboard/unmatched.ts';

afterEach(cleanup);

const ID = '0b7e4f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b';
const INVOICE = '62f88b36-a9d5-4fa6-aa26-e040c3dbf26d';
const payment = (over: Partial<UnmatchedPayment> = {}): UnmatchedPayment => ({
  id: ID,
  network: 'TRON',
  currency: 'USDT',
  amount: '1250.5',
  from: 'TPayerWallet00000000000000000000001',
  to: 'TMerchantOwnWallet0000000000000001',
  memo: '<img src=x onerror=alert(1)>',
  reason: 'unknown_reference',
  txid: 'ab'.repeat(32),
  status: 'open',
  invoice_id: null,
  resolved_by: null,
  resolved_at: null,
  note: null,
  created_at: Date.UTC(2026, 10, 27, 10),
  ...over,
});

describe('unmatched payments list', () => {
  test('shows each payment; the comment is text, never markup; a payment without one says why', () => {
    const { container } = render(
      <UnmatchedList items={[payment(), payment({ id: 'c'.repeat(8) + '-0000-4000-8000-000000000000', memo: null, reason: 'no_reference' })]} canManage={false} assign={vi.fn()} refunded={vi.fn()} />,
    );
    const list = screen.getByRole('list', { name: 'Unmatched payments' });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(within(first!).getByRole('region', { name: '1,250.5 USDT on TRON' })).toBeTruthy();
    expect(first!.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(container.querySelector('img')).toBeNull();
    expect(first!.textContent).toContain('TPayerWallet00000000000000000000001');
    expect(first!.textContent).toContain('ab'.repeat(32));
    expect(second!.textContent).toContain('Why unmatched');
    expect(second!.textContent).toContain('No comment');
    // A viewer: no forms, no buttons.
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.queryByLabelText('Invoice uuid')).toBeNull();
  });

  test('an owner assigns one: the invoice uuid field is labelled, the outcome announced', async () => {
    const assign = vi.fn(async (id: string, invoice: string) => ({ payment: payment({ id, status: 'assigned', invoice_id: invoice }), invoice: { id: invoice, status: 'paid', is_final: true } }));
    const onChanged = vi.fn();
    render(<UnmatchedList items={[payment()]} canManage assign={assign} refunded={vi.fn()} onChanged={onChanged} />);
    const form = screen.getByRole('form', { name: /^Assign .* to an invoice$/ });
    fireEvent.input(within(form).getByLabelText('Invoice uuid'), { target: { value: ` ${INVOICE} ` } });
    fireEvent.click(within(form).getByRole('button', { name: 'Assign' }));
    const status = await screen.findByRole('status');
    expect(status.textContent).toBe(`Assigned to invoice ${INVOICE}: the invoice is now Paid.`);
    expect(assign).toHaveBeenCalledWith(ID, INVOICE);
    expect(onChanged).toHaveBeenCalledTimes(1);
  });

  test('a refusal is shown as an alert on the payment, and nothing is announced', async () => {
    const assign = vi.fn(async () => {
      throw new ApiError(422, `Invoice ${INVOICE} is final (paid) and takes no more payments: nothing was changed.`);
    });
    render(<UnmatchedList items={[payment()]} canManage assign={assign} refunded={vi.fn()} />);
    fireEvent.input(screen.getByLabelText('Invoice uuid'), { target: { value: INVOICE } });
    fireEvent.click(screen.getByRole('button', { name: 'Assign' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe(`Invoice ${INVOICE} is final (paid) and takes no more payments: nothing was changed.`);
    expect(screen.queryByRole('status')).toBeNull();
  });

  test('an owner marks one refunded with an optional note', async () => {
    const refunded = vi.fn(async (id: string, note: string | undefined) => payment({ id, status: 'refunded', note: note ?? null }));
    render(<UnmatchedList items={[payment()]} canManage assign={vi.fn()} refunded={refunded} />);
    const form = screen.getByRole('form', { name: /^Mark .* refunded$/ });
    fireEvent.input(within(form).getByLabelText('Refund note (optional)'), { target: { value: 'sent back in tx 9f0e' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Mark refunded' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Marked refunded'));
    expect(refunded).toHaveBeenCalledWith(ID, 'sent back in tx 9f0e');
  });

  test('a resolved payment shows its invoice and who resolved it, without forms', () => {
    render(
      <UnmatchedList
        items={[payment({ status: 'assigned', invoice_id: INVOICE, resolved_by: 'owner@shop.example', resolved_at: Date.UTC(2026, 10, 27, 11) })]}
        canManage
        assign={vi.fn()}
        refunded={vi.fn()}
      />,
    );
    expect(screen.getByRole('link', { name: INVOICE }).getAttribute('href')).toBe(`/dashboard/invoices/${INVOICE}`);
    expect(screen.getByRole('listitem').textContent).toContain('by owner@shop.example');
    expect(screen.queryByRole('button')).toBeNull();
  });

  test('no payments: says so', () => {
    render(<UnmatchedList items={[]} canManage assign={vi.fn()} refunded={vi.fn()} />);
    expect(screen.getByText(/^No unmatched payments here\./)).toBeTruthy();
  });
});
