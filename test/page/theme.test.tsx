// @vitest-environment jsdom
// Theme: ?theme= over the embedding page's wish over the invoice's theme over the system preference.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/preact';
import { resolveTheme } from '../../src/page/theme.ts';
import { invoiceFixture, renderPage, resetPage, serve } from './helpers.tsx';

function systemPrefers(dark: boolean) {
  const listeners: Array<(e: { matches: boolean }) => void> = [];
  const media = {
    matches: dark,
    addEventListener: (_: string, fn: (e: { matches: boolean }) => void) => listeners.push(fn),
    removeEventListener: vi.fn(),
  };
  Object.defineProperty(window, 'matchMedia', {
    value: vi.fn((query: string) => (query === '(prefers-color-scheme: dark)' ? media : { matches: false })),
    configurable: true,
  });
  return (next: boolean) => listeners.forEach((fn) => fn({ matches: next }));
}

afterEach(() => {
  resetPage();
  Reflect.deleteProperty(window, 'matchMedia');
});

const theme = () => document.documentElement.dataset.theme;

describe('resolveTheme', () => {
  test('precedence', () => {
    expect(resolveTheme({ query: 'light', embed: 'dark', invoice: 'dark', systemDark: true })).toBe('light');
    expect(resolveTheme({ query: null, embed: 'dark', invoice: 'light', systemDark: false })).toBe('dark');
    expect(resolveTheme({ query: 'bogus', embed: null, invoice: 'dark', systemDark: false })).toBe('dark');
    expect(resolveTheme({ query: null, embed: null, invoice: null, systemDark: true })).toBe('dark');
    expect(resolveTheme({ query: null, embed: null, invoice: null, systemDark: false })).toBe('light');
  });
});

describe('the page', () => {
  test("uses the invoice's theme", async () => {
    systemPrefers(false);
    serve(invoiceFixture({ theme: 'dark' }));
    renderPage('/pay/inv-1');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    expect(theme()).toBe('dark');
  });

  test('?theme= overrides the invoice', async () => {
    serve(invoiceFixture({ theme: 'dark' }));
    renderPage('/pay/inv-1?theme=light');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    expect(theme()).toBe('light');
  });

  test('otherwise follows the system preference, live', async () => {
    const change = systemPrefers(true);
    serve(invoiceFixture({ theme: null }));
    renderPage('/pay/inv-1');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    expect(theme()).toBe('dark');
    change(false);
    await waitFor(() => expect(theme()).toBe('light'));
  });

  test('the QR stays dark-on-white in the dark theme', async () => {
    serve(invoiceFixture({ theme: 'dark' }));
    renderPage('/pay/inv-1');
    const qr = await screen.findByRole('img', { name: /QR code to pay/ });
    const svg = decodeURIComponent(qr.getAttribute('src')!.split(',')[1]!);
    expect(svg).toMatch(/<path fill="#ffffff"/);
    expect(svg).toMatch(/stroke="#000000"/);
  });
});
