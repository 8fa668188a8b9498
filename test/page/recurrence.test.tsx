// @vitest-environment jsdom
// The subscription page (/pay/recurrence/{uuid}) driven by what the payer API answers: what is
// subscribed to, subscribing (email and language in the body, a wrong email refused on the page),
// the first period's invoice in its frame, "Active" with the next date, and cancelling only after
// confirming in the dialog.
import { afterEach, expect, test } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/preact';
import { chooseOptions, fakeServer, invoiceFixture, ok, renderPage, resetPage, T0 } from './helpers.tsx';
import type { PayerRecurrence } from '../../src/contracts/payer.ts';
import { PayerRecurrence as PayerRecurrenceSchema } from '../../src/contracts/payer.ts';

afterEach(resetPage);

const UUID = '3f1c2b7e-1111-4222-8333-444455556666';
const NEXT = Date.UTC(2030, 1, 22, 12) / 1000;

function recurrence(overrides: Partial<PayerRecurrence> = {}): PayerRecurrence {
  return PayerRecurrenceSchema.parse({
    kind: 'recurrence', uuid: UUID, name: 'Pro plan', status: 'wait_accept', amount: '10.00', currency: 'USD', currency_is_fiat: true,
    period: 'monthly', discount_amount: '2.00', discount_days: 7, end_of_discount: null, payer_currency: null, network: null,
    network_name: null, payer_amount: null, next_payment_at: null, pay_before: null, invoice_uuid: null, options: chooseOptions,
    can_cancel: false, auto_renew: false, merchant: { display_name: 'Shop', logo_url: null, accent: null, theme: null, language: null }, test_mode: false,
    server_time: T0, ...overrides,
  });
}

const heading = (name: string | RegExp) => screen.findByRole('heading', { level: 1, name });

test('shows the plan, refuses a wrong email on the page, subscribes with email and language, then shows the first invoice', async () => {
  let current = recurrence();
  let tag = 1;
  const calls = fakeServer((call) => {
    if (call.method === 'POST' && call.path === `/api/pay/recurrence/${UUID}/subscribe`) {
      current = recurrence({ payer_currency: 'USDT', network: 'TRON', network_name: 'TRON (TRC-20)', payer_amount: '10.00', invoice_uuid: 'inv-1', options: null });
      tag++;
      return ok({ recurrence: { uuid: UUID, status: 'wait_accept' }, invoice: invoiceFixture() });
    }
    const etag = `"r${tag}"`;
    return call.headers.get('if-none-match') === etag ? { status: 304 } : ok(current, etag);
  });
  renderPage(`/pay/recurrence/${UUID}`);
  await heading('Pro plan');
  expect(screen.getByText('10.00 USD every month')).toBeTruthy();
  expect(screen.getByText('2.00 USD for the first 7 days')).toBeTruthy();
  expect(screen.queryByRole('button', { name: 'Cancel subscription' })).toBeNull();

  const email = screen.getByRole('textbox', { name: 'Email for reminders (optional)' });
  fireEvent.input(email, { target: { value: 'nope' } });
  fireEvent.click(screen.getByRole('button', { name: /TRON \(TRC-20\)/ }));
  expect((await screen.findByRole('alert')).textContent).toBe('Enter a valid email address, or leave it empty.');
  expect(email.getAttribute('aria-invalid')).toBe('true');
  expect(calls.some((c) => c.method === 'POST')).toBe(false);

  fireEvent.input(email, { target: { value: 'payer@example.com' } });
  fireEvent.click(screen.getByRole('button', { name: /TRON \(TRC-20\)/ }));
  const frame = await screen.findByTitle('Payment of this period');
  expect(frame.getAttribute('src')).toMatch(/^\/pay\/inv-1\?embed=inline&instance=recurrence&origin=/);
  expect(screen.getByRole('heading', { name: 'Pay the first period' })).toBeTruthy();
  expect(screen.getByText('USDT on TRON (TRC-20)')).toBeTruthy();
  const post = calls.find((c) => c.method === 'POST')!;
  expect(post.body).toEqual({ currency: 'USDT', network: 'TRON', email: 'payer@example.com', lang: 'en' });
});

test('active: the next date in the payer’s language; cancel asks first, and "Keep it" changes nothing', async () => {
  let current = recurrence({ status: 'active', can_cancel: true, next_payment_at: NEXT, options: null, payer_currency: 'USDT', network: 'TRON', network_name: 'TRON (TRC-20)', invoice_uuid: 'inv-1' });
  const calls = fakeServer((call) => {
    if (call.method === 'POST' && call.path === `/api/pay/recurrence/${UUID}/cancel`) {
      current = { ...current, status: 'cancel_by_user', can_cancel: false, next_payment_at: null };
      return ok(current);
    }
    return ok(current, `"${current.status}"`);
  });
  renderPage(`/pay/recurrence/${UUID}`);
  await heading('Pro plan');
  const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'long' }).format(NEXT * 1000);
  expect(screen.getByRole('status').textContent).toBe(`Active, next payment on ${day}`);

  fireEvent.click(screen.getByRole('button', { name: 'Cancel subscription' }));
  const dialog = screen.getByRole('dialog', { name: 'Cancel this subscription?' });
  expect(dialog.getAttribute('aria-describedby')).toBe('rec-confirm-body');
  expect(within(dialog).getByText(/This cannot be undone\./)).toBeTruthy();
  fireEvent.click(within(dialog).getByRole('button', { name: 'Keep it' }));
  expect(calls.some((c) => c.method === 'POST')).toBe(false);

  fireEvent.click(screen.getByRole('button', { name: 'Cancel subscription' }));
  fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Yes, cancel it' }));
  await heading('Subscription cancelled');
  expect(screen.getByText('You will not be asked for any further payment.')).toBeTruthy();
  expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([`/api/pay/recurrence/${UUID}/cancel`]);
  expect(screen.queryByRole('button', { name: 'Cancel subscription' })).toBeNull();
});

test('a refused cancel is said in the payer’s words, in the dialog', async () => {
  const current = recurrence({ status: 'active', can_cancel: true, next_payment_at: NEXT, options: null });
  fakeServer((call) =>
    call.method === 'POST'
      ? { status: 422, body: { state: 1, message: 'The recurrence is already cancelled', code: 'already_cancelled' } }
      : ok(current, '"a"'),
  );
  renderPage(`/pay/recurrence/${UUID}`);
  await heading('Pro plan');
  fireEvent.click(screen.getByRole('button', { name: 'Cancel subscription' }));
  fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Yes, cancel it' }));
  await waitFor(() => expect(within(screen.getByRole('dialog')).getByRole('alert').textContent).toBe('Could not cancel: This subscription is already cancelled.'));
});

test('Arabic: right to left, the words of the page in Arabic', async () => {
  fakeServer(() => ok(recurrence({ status: 'active', can_cancel: true, next_payment_at: NEXT, options: null }), '"a"'));
  renderPage(`/pay/recurrence/${UUID}?lang=ar`);
  await heading('Pro plan');
  await waitFor(() => expect(document.documentElement.getAttribute('dir')).toBe('rtl'));
  expect(await screen.findByRole('button', { name: 'إلغاء الاشتراك' })).toBeTruthy();
  expect(screen.getByRole('status').textContent).toMatch(/^نشط، الدفعة التالية في /);
});

test('a renewal due: the date to pay by, its invoice in the frame, and cancelling still offered', async () => {
  const payBefore = Date.UTC(2030, 1, 25, 12) / 1000;
  fakeServer(() =>
    ok(recurrence({ status: 'wait_payment', can_cancel: true, next_payment_at: NEXT, pay_before: payBefore, invoice_uuid: 'inv-2', options: null, payer_currency: 'USDT', network: 'TRON', network_name: 'TRON (TRC-20)' }), '"w"'),
  );
  renderPage(`/pay/recurrence/${UUID}`);
  await heading('Pro plan');
  const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'long' }).format(payBefore * 1000);
  expect(screen.getByRole('status').textContent).toContain(`Pay this period by ${day} to keep your subscription.`);
  expect(screen.getByRole('heading', { level: 2, name: 'A payment is due' })).toBeTruthy();
  expect(screen.getByTitle('Payment of this period').getAttribute('src')).toMatch(/^\/pay\/inv-2\?/);
  expect(screen.getByRole('button', { name: 'Cancel subscription' })).toBeTruthy();
  expect(screen.queryByRole('textbox')).toBeNull();
});
