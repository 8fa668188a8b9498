// Shared fixtures and a fake payer API for the page's component tests.
import { cleanup, render } from '@testing-library/preact';
import { vi } from 'vitest';
import { App } from '../../src/page/app.tsx';
import type { PayerInvoice, PayerWallet } from '../../src/contracts/payer.ts';

export const T0 = Date.UTC(2030, 0, 15, 12, 0, 0); // the server's clock in fixtures

export function invoiceFixture(overrides: Partial<PayerInvoice> = {}): PayerInvoice {
  return {
    kind: 'invoice',
    uuid: 'inv-1',
    order_id: 'A-100',
    status: 'process',
    is_final: false,
    amount: '1250.00',
    currency: 'USD',
    currency_is_fiat: true,
    payer_currency: 'USDT',
    network: 'TRON',
    network_name: 'TRON (TRC-20)',
    payer_amount: '1250.378412',
    payment_amount: null,
    remaining: null,
    address: 'TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA',
    payment_comment: null,
    link_required: false,
    qr_content: 'tron:TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA?amount=1250.378412',
    wallet_uri: 'tron:TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA?amount=1250.378412',
    confirmations: null,
    is_payment_multiple: true,
    txid: null,
    explorer_url: null,
    expired_at: T0 / 1000 + 1800,
    paid_at: null,
    server_time: T0,
    url_return: 'https://shop.example/cart',
    url_success: 'https://shop.example/thanks',
    theme: null,
    merchant: { display_name: null, logo_url: null, accent: null, theme: null, language: null },
    test_mode: false,
    evm: null,
    options: null,
    unavailable: null,
    ...overrides,
  };
}

export function walletFixture(overrides: Partial<PayerWallet> = {}): PayerWallet {
  return {
    kind: 'wallet',
    uuid: 'wal-1',
    status: 'active',
    currency: 'USDT',
    network: 'TRON',
    network_name: 'TRON (TRC-20)',
    address: 'TWalletAddressxxxxxxxxxxxxxxxxxxxx',
    payment_comment: null,
    link_required: false,
    qr_content: 'tron:TWalletAddressxxxxxxxxxxxxxxxxxxxx',
    wallet_uri: null,
    merchant: { display_name: null, logo_url: null, accent: null, theme: null, language: null },
    test_mode: false,
    server_time: T0,
    unavailable: null,
    ...overrides,
  };
}

export const chooseOptions: NonNullable<PayerInvoice['options']> = [
  {
    currency: 'USDT',
    name: 'Tether',
    networks: [
      { network: 'TRON', network_name: 'TRON (TRC-20)', amount: '1250.378412' },
      { network: 'ETH', network_name: 'Ethereum (ERC-20)', amount: '1250.378412' },
    ],
  },
  { currency: 'BTC', name: 'Bitcoin', networks: [{ network: 'BTC', network_name: 'Bitcoin', amount: '0.01284711' }] },
  { currency: 'ETH', name: 'Ether', networks: [{ network: 'ARBITRUM', network_name: 'Arbitrum One', amount: '0.371200000000000000' }] },
  { currency: 'TRX', name: 'TRON', networks: [{ network: 'TRON', network_name: 'TRON', amount: '4121.2' }] },
  { currency: 'XMR', name: 'Monero', networks: [{ network: 'XMR', network_name: 'Monero', amount: '7.1' }] },
];

export interface Call {
  method: string;
  path: string;
  headers: Headers;
  body: unknown;
}

export type Reply = { status: number; body?: unknown; etag?: string } | Error;
export type Route = (call: Call) => Reply | Promise<Reply>;

/** Replaces fetch with a fake server; returns the list of calls it received. */
export function fakeServer(route: Route): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const text = request.method === 'GET' ? '' : await request.text();
    const call: Call = {
      method: request.method,
      path: new URL(request.url).pathname,
      headers: request.headers,
      body: text ? JSON.parse(text) : null,
    };
    calls.push(call);
    const reply = await route(call);
    if (reply instanceof Error) throw reply;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (reply.etag) headers.etag = reply.etag;
    const nullBody = reply.status === 304 || reply.body === undefined;
    return new Response(nullBody ? null : JSON.stringify(reply.body), { status: reply.status, headers });
  });
  return calls;
}

export const ok = (result: unknown, etag?: string): Reply => ({ status: 200, body: { state: 0, result }, etag });

/** A server that always answers the given invoice or wallet, with 304 for a matching ETag. */
export function serve(payable: PayerInvoice | PayerWallet): Call[] {
  const etag = `"${payable.kind}-1"`;
  return fakeServer((call) => (call.headers.get('if-none-match') === etag ? { status: 304 } : ok(payable, etag)));
}

export function visit(path: string) {
  window.history.replaceState(null, '', path);
}

export function renderPage(path: string) {
  visit(path);
  return render(<App win={window} />);
}

export function liveRegion(): HTMLElement {
  const region = document.querySelector<HTMLElement>('[aria-live="polite"]');
  if (!region) throw new Error('no live region');
  return region;
}

export function resetPage() {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  vi.restoreAllMocks();
  document.documentElement.removeAttribute('data-theme');
  document.documentElement.removeAttribute('style');
  document.documentElement.removeAttribute('dir');
  document.documentElement.className = '';
  document.documentElement.lang = '';
}
