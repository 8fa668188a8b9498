// @vitest-environment jsdom
// The subscription page while a renewal is collected from the payer's approved wallet (`auto_pull`
// in the payer view): no invoice to pay (paying it too would pay the period twice), "This renewal
// is being collected automatically", the pull's transaction once sent, and cancelling still there;
// when the pull fell back (`auto_pull` null) the invoice shows again. And a subscribe refused with
// `not_waiting` is said in the payer's language, not in the server's English.
import { afterEach, expect, test } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/preact';
import { chooseOptions, fakeServer, ok, renderPage, resetPage, T0 } from './helpers.tsx';
import { PayerRecurrence as PayerRecurrenceSchema, type PayerRecurrence } from '../../src/contracts/payer.ts';

afterEach(resetPage);

const UUID = '3f1c2b7e-1111-4222-8333-444455556677';
const TXID = `0x${'ab'.repeat(32)}`;

function recurrence(overrides: Record<string, unknown> = {}): PayerRecurrence {
  return PayerRecurrenceSchema.parse({
    kind: 'recurrence', uuid: UUID, name: 'Pro plan', status: 'wait_payment', amount: '10.00', currency: 'USDT', currency_is_fiat: false,
    period: 'weekly', discount_amount: null, discount_days: null, end_of_discount: null, payer_currency: 'USDT', network: 'ETH',
    network_name: 'Ethereum (ERC-20)', payer_amount: '10.00', next_payment_at: T0 / 1000, pay_before: T0 / 1000 + 72 * 3600, invoice_uuid: 'inv-2',
    options: null, can_cancel: true, auto_renew: false, merchant: { display_name: 'Shop', logo_url: null, accent: null, theme: null, language: null },
    test_mode: false, server_time: T0, ...overrides,
  });
}

const heading = (name: string | RegExp) => screen.findByRole('heading', { level: 1, name });

test('pending: the renewal is being collected, no invoice frame and no "pay by", cancelling still offered', async () => {
  fakeServer(() => ok(recurrence({ auto_pull: { status: 'pending', txid: null, explorer_url: null } }), '"p"'));
  renderPage(`/pay/recurrence/${UUID}`);
  await heading('Pro plan');
  expect(screen.getByRole('heading', { level: 2, name: 'This renewal is being collected automatically' })).toBeTruthy();
  expect(screen.getByRole('status').textContent).toContain('It is taken from the wallet you approved when it is due: there is nothing to pay here.');
  expect(screen.queryByTitle('Payment of this period')).toBeNull();
  expect(document.querySelector('iframe')).toBeNull();
  expect(screen.queryByText(/Pay this period by/)).toBeNull();
  expect(screen.queryByRole('heading', { name: 'A payment is due' })).toBeNull();
  expect(screen.getByRole('button', { name: 'Cancel subscription' })).toBeTruthy();
});

test('sent: the transaction and its explorer link; in German', async () => {
  fakeServer(() => ok(recurrence({ auto_pull: { status: 'sent', txid: TXID, explorer_url: `https://etherscan.io/tx/${TXID}` } }), '"s"'));
  renderPage(`/pay/recurrence/${UUID}?lang=de`);
  await heading('Pro plan');
  expect(await screen.findByRole('heading', { level: 2, name: 'Diese Verlängerung wird automatisch eingezogen' })).toBeTruthy();
  expect(screen.getByRole('status').textContent).toContain('Die Zahlung wurde von Ihrer freigegebenen Wallet gesendet');
  expect(screen.getByText(TXID)).toBeTruthy();
  const link = screen.getByRole('link', { name: /Transaktion ansehen/ });
  expect(link.getAttribute('href')).toBe(`https://etherscan.io/tx/${TXID}`);
  expect(link.getAttribute('rel')).toBe('noopener noreferrer');
  expect(document.querySelector('iframe')).toBeNull();
});

test('confirmed without an explorer: the transaction, no link', async () => {
  fakeServer(() => ok(recurrence({ auto_pull: { status: 'confirmed', txid: TXID, explorer_url: null } }), '"c"'));
  renderPage(`/pay/recurrence/${UUID}`);
  await heading('Pro plan');
  expect(screen.getByRole('status').textContent).toContain('The payment from your approved wallet is confirmed.');
  expect(screen.getByText(TXID)).toBeTruthy();
  expect(screen.queryByRole('link', { name: /View transaction/ })).toBeNull();
});

test('a pull that fell back (auto_pull null): the invoice to pay is shown again', async () => {
  fakeServer(() => ok(recurrence({ auto_pull: null }), '"n"'));
  renderPage(`/pay/recurrence/${UUID}`);
  await heading('Pro plan');
  expect(screen.getByTitle('Payment of this period').getAttribute('src')).toMatch(/^\/pay\/inv-2\?/);
  expect(screen.queryByRole('heading', { name: 'This renewal is being collected automatically' })).toBeNull();
});

test('a subscribe refused with not_waiting is worded in the payer’s language, and the page reads where it stands', async () => {
  const open = recurrence({ status: 'wait_accept', invoice_uuid: null, payer_currency: null, network: null, network_name: null, payer_amount: null, pay_before: null, next_payment_at: null, options: chooseOptions, can_cancel: false });
  let gets = 0;
  const calls = fakeServer((call) => {
    if (call.method === 'POST') return { status: 422, body: { state: 1, message: 'The subscription is not waiting to be accepted', code: 'not_waiting' } };
    gets++;
    return ok(open, `"g${gets}"`);
  });
  renderPage(`/pay/recurrence/${UUID}?lang=fr`);
  await heading('Pro plan');
  fireEvent.click(await screen.findByRole('button', { name: /TRON \(TRC-20\)/ }));
  await waitFor(() =>
    expect(screen.getByRole('alert').textContent).toBe('Impossible de choisir cette option : Cet abonnement n’attend plus d’être accepté. La page montre maintenant où il en est.'),
  );
  expect(screen.getByRole('alert').textContent).not.toContain('not waiting');
  expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  const before = gets;
  await waitFor(() => expect(gets).toBeGreaterThan(before));
});
