// @vitest-environment jsdom
// The first view embedded in the HTML: the page renders it with no request, and its first poll
// waits the normal interval and carries the embedded ETag.
import { afterEach, expect, test } from 'vitest';
import { screen, waitFor } from '@testing-library/preact';
import { fakeServer, invoiceFixture, ok, renderPage, resetPage } from './helpers.tsx';

function embed(data: unknown) {
  const script = document.createElement('script');
  script.type = 'application/json';
  script.id = 'satchel-initial';
  script.textContent = typeof data === 'string' ? data : JSON.stringify(data);
  document.body.append(script);
}

afterEach(() => {
  document.getElementById('satchel-initial')?.remove();
  resetPage();
});

test('renders the embedded invoice on the first render, before any request', async () => {
  const inv = invoiceFixture({ uuid: '7c1e4a52-1111-4222-8333-944455556666', order_id: 'A-7' });
  embed({ etag: '"v1"', result: inv });
  const calls = fakeServer(() => ok(inv, '"v1"'));
  renderPage(`/pay/${inv.uuid}`);
  // Synchronously there: the heading and the address, with no fetch made.
  expect(screen.getByRole('heading', { level: 1, name: 'Send the payment' })).toBeTruthy();
  expect(document.getElementById('address')?.textContent).toBe(inv.address);
  expect(calls).toHaveLength(0);
  // The first poll comes after the usual 3 s and asks "changed since v1?".
  await waitFor(() => expect(calls).toHaveLength(1), { timeout: 5000 });
  expect(calls[0]!.headers.get('if-none-match')).toBe('"v1"');
});

test('the merchant\'s default language is the invoice\'s: before the browser\'s, after ?lang=', async () => {
  const inv = invoiceFixture({ uuid: '7c1e4a52-1111-4222-8333-944455556666', merchant: { display_name: null, logo_url: null, accent: null, theme: null, language: 'de' } });
  embed({ etag: '"v1"', result: inv });
  fakeServer(() => ok(inv, '"v1"'));
  renderPage(`/pay/${inv.uuid}`);
  expect(await screen.findByRole('heading', { level: 1, name: 'Zahlung senden' })).toBeTruthy();
  expect(document.documentElement.lang).toBe('de-DE');
  resetPage();
  document.getElementById('satchel-initial')?.remove();
  embed({ etag: '"v1"', result: inv });
  renderPage(`/pay/${inv.uuid}?lang=fr`);
  expect(await screen.findByRole('heading', { level: 1, name: /paiement/i })).toBeTruthy();
});

test('without a first view, the language follows the merchant\'s default once the invoice arrives', async () => {
  const inv = invoiceFixture({ uuid: '7c1e4a52-1111-4222-8333-944455556666', merchant: { display_name: null, logo_url: null, accent: null, theme: null, language: 'ru' } });
  fakeServer(() => ok(inv, '"v1"'));
  renderPage(`/pay/${inv.uuid}`);
  expect(await screen.findByRole('heading', { level: 1, name: 'Отправьте платёж' })).toBeTruthy();
});

test('an embedded 404 shows "Payment not found" without asking', async () => {
  embed({ status: 404 });
  const calls = fakeServer(() => ({ status: 500 }));
  renderPage('/pay/7c1e4a52-1111-4222-8333-944455556666');
  expect(await screen.findByRole('heading', { level: 1, name: 'Payment not found' })).toBeTruthy();
  expect(calls).toHaveLength(0);
});

test('a malformed or foreign embedded view is ignored: the page asks the API', async () => {
  const inv = invoiceFixture({ uuid: '7c1e4a52-1111-4222-8333-944455556666' });
  embed({ etag: null, result: { ...inv, uuid: 'someone-else' } });
  const calls = fakeServer(() => ok(inv, '"v2"'));
  renderPage(`/pay/${inv.uuid}`);
  expect(await screen.findByRole('heading', { level: 1, name: 'Send the payment' })).toBeTruthy();
  expect(calls).toHaveLength(1);
});
