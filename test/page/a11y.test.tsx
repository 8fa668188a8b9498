// @vitest-environment jsdom
// axe-core over each screen (colour contrast is checked numerically in contrast.test.ts instead:
// jsdom does not compute styles).
import { afterEach, expect, test } from 'vitest';
import { screen } from '@testing-library/preact';
import axe from 'axe-core';
import type { PayerInvoice } from '../../src/contracts/payer.ts';
import { chooseOptions, invoiceFixture, renderPage, resetPage, serve, walletFixture } from './helpers.tsx';

afterEach(resetPage);

async function violations() {
  const result = await axe.run(document.body, {
    rules: { 'color-contrast': { enabled: false } },
  });
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const cases: Array<[string, PayerInvoice]> = [
  ['choose', invoiceFixture({ payer_currency: null, network: null, address: null, qr_content: null, options: chooseOptions })],
  ['pay (test mode)', invoiceFixture({ test_mode: true })],
  ['partly paid', invoiceFixture({ payment_amount: '1', remaining: '2' })],
  ['confirming', invoiceFixture({ status: 'check', confirmations: { current: 1, required: 3 } })],
  ['paid', invoiceFixture({ status: 'paid', is_final: true, payment_amount: '1' })],
  ['locked', invoiceFixture({ status: 'locked', is_final: true })],
];

test.each(cases)('%s has no axe violations', async (_, invoice) => {
  serve(invoice);
  renderPage('/pay/inv-1?embed=modal&instance=w1&origin=https://shop.example');
  await screen.findByRole('heading', { level: 1 });
  expect(await violations()).toEqual([]);
});

test('static wallet has no axe violations', async () => {
  serve(walletFixture({ test_mode: true }));
  renderPage('/pay/wallet/wal-1');
  await screen.findByRole('heading', { level: 1 });
  await screen.findByLabelText('Amount');
  expect(await violations()).toEqual([]);
});

test('every control has an accessible name', async () => {
  serve(invoiceFixture({ test_mode: true }));
  renderPage('/pay/inv-1?embed=modal&instance=w1&origin=https://shop.example');
  await screen.findByRole('region', { name: 'Simulate a payment' });
  const controls = [...document.querySelectorAll('button, a, select, input')];
  expect(controls.length).toBeGreaterThan(5);
  for (const control of controls) {
    const name = control.getAttribute('aria-label') ?? control.textContent?.trim() ?? '';
    const labelled = control.closest('label') || (control.id && document.querySelector(`label[for="${control.id}"]`));
    expect(name.length > 0 || Boolean(labelled), control.outerHTML).toBe(true);
  }
});
