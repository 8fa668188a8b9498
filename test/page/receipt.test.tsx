// @vitest-environment jsdom
// "Payment seen, n of N confirmations" (updated by polling, plural by language) and the printable
// receipt of a paid invoice.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/preact';
import { fakeServer, invoiceFixture, ok, renderPage, resetPage, T0 } from './helpers.tsx';
import { format } from '../../src/page/i18n/index.ts';

afterEach(resetPage);

describe('confirmations', () => {
  test('a seen payment shows n of N, and the count follows the polls', async () => {
    let current = 1;
    fakeServer(() => ok(invoiceFixture({ status: 'check', payment_amount: '1250.378412', confirmations: { current, required: 6 } }), `"c${current}"`));
    renderPage('/pay/inv-1');
    expect(await screen.findByText('Payment seen, 1 of 6 confirmations')).toBeTruthy();
    expect(screen.getByRole('progressbar').getAttribute('value')).toBe('1');
    current = 4;
    expect(await screen.findByText('Payment seen, 4 of 6 confirmations', {}, { timeout: 5000 })).toBeTruthy();
  });

  test('a part seen while more is still due shows on the pay screen too', async () => {
    fakeServer(() => ok(invoiceFixture({ payment_amount: '250', remaining: '1000.378412', confirmations: { current: 0, required: 1 } }), '"p"'));
    renderPage('/pay/inv-1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Partly paid' })).toBeTruthy();
    expect(await screen.findByText('Payment seen, waiting for the first confirmation')).toBeTruthy();
  });

  test('plurals follow the language (Intl.PluralRules)', () => {
    const en = 'Payment seen, {current} of {required} {required, plural, one {confirmation} other {confirmations}}';
    expect(format(en, { current: 1, required: 1 }, 'en-US')).toBe('Payment seen, 1 of 1 confirmation');
    expect(format(en, { current: 0, required: 19 }, 'en-US')).toBe('Payment seen, 0 of 19 confirmations');
    const ru = '{current} из {required} {required, plural, one {подтверждения} few {подтверждений} many {подтверждений} other {подтверждения}}';
    expect(format(ru, { current: 1, required: 21 }, 'ru-RU')).toBe('1 из 21 подтверждения');
    expect(format(ru, { current: 1, required: 3 }, 'ru-RU')).toBe('1 из 3 подтверждений');
    expect(format('{n, plural, =0 {none} one {one} other {#}}', { n: 0 }, 'en-US')).toBe('none');
  });
});

describe('the receipt', () => {
  const paid = invoiceFixture({
    status: 'paid',
    is_final: true,
    payment_amount: '1250.378412',
    txid: 'a1b2c3d4e5f6',
    explorer_url: 'https://tronscan.org/#/transaction/a1b2c3d4e5f6',
    paid_at: T0 / 1000,
    merchant: { display_name: 'Corner Café', logo_url: null, accent: null, theme: null, language: null },
  });

  test('shows who was paid, for what, how much, where, the transaction and when; prints', async () => {
    fakeServer(() => ok(paid, '"paid"'));
    renderPage('/pay/inv-1');
    fireEvent.click(await screen.findByRole('button', { name: 'View receipt' }));
    const title = await screen.findByRole('heading', { level: 1, name: 'Receipt' });
    await waitFor(() => expect(document.activeElement).toBe(title));
    const list = document.querySelector('.receipt-list') as HTMLElement;
    const rows = [...list.querySelectorAll('div')].map((d) => `${d.querySelector('dt')!.textContent}: ${d.querySelector('dd')!.textContent}`);
    expect(rows).toEqual([
      'Paid to: Corner Café',
      'Order number: A-100',
      'Amount paid: 1,250.378412 USDT',
      'Order total: 1,250.00 USD',
      'Network: TRON (TRC-20)',
      'Transaction: a1b2c3d4e5f6 (opens in a new tab)',
      `Date: ${new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeStyle: 'short' }).format(T0)}`,
    ]);
    expect(screen.getByRole('link', { name: /a1b2c3d4e5f6/ }).getAttribute('href')).toBe(paid.explorer_url);
    expect(screen.getByRole('link', { name: 'Back to the shop' }).getAttribute('href')).toBe('https://shop.example/thanks');
    const print = vi.fn();
    vi.stubGlobal('print', print);
    fireEvent.click(screen.getByRole('button', { name: 'Print' }));
    expect(print).toHaveBeenCalledOnce();
    fireEvent.click(screen.getByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Payment received' })).toBeTruthy();
  });

  test('no back-to-shop link without url_success, and the txid without a link on a test network', async () => {
    fakeServer(() => ok({ ...paid, url_success: null, explorer_url: null, test_mode: true }, '"paid"'));
    renderPage('/pay/inv-1');
    fireEvent.click(await screen.findByRole('button', { name: 'View receipt' }));
    await screen.findByRole('heading', { level: 1, name: 'Receipt' });
    expect(screen.queryByRole('link', { name: 'Back to the shop' })).toBeNull();
    expect(screen.queryByRole('link', { name: /a1b2c3d4e5f6/ })).toBeNull();
    expect(screen.getByText('a1b2c3d4e5f6')).toBeTruthy();
  });
});
