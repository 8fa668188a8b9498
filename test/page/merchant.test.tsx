// @vitest-environment jsdom
// Who is paid: the merchant's name and logo at the top, its accent colour (adjusted for contrast)
// and its default theme.
import { afterEach, describe, expect, test } from 'vitest';
import { screen } from '@testing-library/preact';
import { accentPalette } from '../../src/page/accent.ts';
import { invoiceFixture, renderPage, resetPage, serve, walletFixture } from './helpers.tsx';

afterEach(resetPage);

const root = () => document.documentElement;
const profile = { display_name: 'Corner Café', logo_url: '/logos/abc.png', accent: '#ffd84d', theme: null, language: null } as const;

describe('the merchant profile', () => {
  test('shows the name and logo above the order', async () => {
    serve(invoiceFixture({ merchant: profile }));
    renderPage('/pay/inv-1?theme=light');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    const header = screen.getByRole('banner');
    expect(header.textContent).toMatch(/^Corner CaféOrder A-100/);
    const logo = header.querySelector('img.merchant-logo') as HTMLImageElement;
    expect(logo.getAttribute('src')).toBe('/logos/abc.png');
    // Beside the name the logo is decoration.
    expect(logo.alt).toBe('');
  });

  test('a logo without a name is named for what it is', async () => {
    serve(invoiceFixture({ merchant: { ...profile, display_name: null } }));
    renderPage('/pay/inv-1');
    expect(await screen.findByRole('img', { name: 'Merchant’s logo' })).toBeTruthy();
  });

  test('shows nothing of the merchant without a profile', async () => {
    serve(invoiceFixture());
    renderPage('/pay/inv-1');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    expect(document.querySelector('.merchant')).toBeNull();
    expect(root().style.getPropertyValue('--accent')).toBe('');
  });

  test('paints the accent adjusted for the theme in use', async () => {
    serve(invoiceFixture({ merchant: profile }));
    renderPage('/pay/inv-1?theme=light');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    const light = accentPalette('#ffd84d', 'light')!;
    expect(root().style.getPropertyValue('--accent')).toBe(light.accent);
    expect(root().style.getPropertyValue('--link')).toBe(light.link);
    expect(light.accent).not.toBe('#ffd84d'); // pale yellow cannot carry text on a light page as is
  });

  test("uses the merchant's theme when the invoice has none, and the invoice's over it", async () => {
    serve(invoiceFixture({ merchant: { ...profile, theme: 'dark' } }));
    const first = renderPage('/pay/inv-1');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    expect(root().dataset.theme).toBe('dark');
    expect(root().style.getPropertyValue('--accent')).toBe(accentPalette('#ffd84d', 'dark')!.accent);
    first.unmount();
    resetPage();
    serve(invoiceFixture({ theme: 'light', merchant: { ...profile, theme: 'dark' } }));
    renderPage('/pay/inv-1');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    expect(root().dataset.theme).toBe('light');
  });

  test('a static wallet shows its merchant too', async () => {
    serve(walletFixture({ merchant: profile }));
    renderPage('/pay/wallet/wal-1');
    await screen.findByRole('heading', { level: 1 });
    expect(screen.getByRole('banner').textContent).toContain('Corner Café');
  });
});
