// @vitest-environment jsdom
// A payment that must be made with the wallet link or the QR code (Solana Pay: the link carries a
// reference key no payer can type): the page says so, in every language, describes the address's
// copy button by that note, and shows no comment field; other networks show no such note.
import { afterEach, expect, test } from 'vitest';
import { screen } from '@testing-library/preact';
import axe from 'axe-core';
import { invoiceFixture, renderPage, resetPage, serve, walletFixture } from './helpers.tsx';
import { LANGUAGES } from '../../src/page/i18n/index.ts';
import { en } from '../../src/page/i18n/en.ts';

const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const REFERENCE = 'CiDwVBFgWV9E5MvXWoLgnEgn2hK7rJikbvfWavzAQz3';
const MINT = 'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs';
const LINK = `solana:${WALLET}?amount=25.5&spl-token=${MINT}&reference=${REFERENCE}`;

const solanaInvoice = () =>
  invoiceFixture({
    payer_currency: 'USDC',
    network: 'SOL',
    network_name: 'USDC on Solana',
    payer_amount: '25.5',
    address: WALLET,
    payment_comment: null,
    link_required: true,
    qr_content: LINK,
    wallet_uri: LINK,
  });

afterEach(() => resetPage());

test('says the link or QR code must be used, after the address, whose copy button it describes', async () => {
  serve(solanaInvoice());
  renderPage('/pay/inv-1');
  const copy = await screen.findByRole('button', { name: 'Copy address' });
  const note = document.getElementById('link-note')!;
  expect(note.textContent).toBe(en.link_required);
  expect(note.textContent).toMatch(/typed in by hand .* cannot be matched to this order/);
  expect(copy.getAttribute('aria-describedby')).toBe('link-note');
  expect(screen.getByText(WALLET).compareDocumentPosition(note) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  // The reference is in the link only: no comment to copy.
  expect(screen.queryByRole('button', { name: 'Copy comment' })).toBeNull();
  expect(screen.queryByText(REFERENCE)).toBeNull();
  expect(screen.getByRole('link', { name: /Open in wallet/ }).getAttribute('href')).toBe(LINK);
});

test('is translated into every language of the page, each its own text', async () => {
  const seen = new Set<string>();
  for (const { code } of LANGUAGES) {
    serve(solanaInvoice());
    renderPage(`/pay/inv-1?lang=${code}`);
    await screen.findByText(WALLET);
    const note = await screen.findByText((_, el) => el?.id === 'link-note' && (code === 'en' || el.textContent !== en.link_required));
    const text = note.textContent ?? '';
    expect(text.length, code).toBeGreaterThan(20);
    seen.add(text);
    resetPage();
  }
  expect(seen.size).toBe(LANGUAGES.length);
});

test('no such note where a payment typed by hand is matched', async () => {
  serve(invoiceFixture());
  renderPage('/pay/inv-1');
  const copy = await screen.findByRole('button', { name: 'Copy address' });
  expect(document.getElementById('link-note')).toBeNull();
  expect(copy.getAttribute('aria-describedby')).toBeNull();
});

test('a static wallet paid by link says it the same way', async () => {
  serve(walletFixture({ currency: 'SOL', network: 'SOL', network_name: 'Solana', address: WALLET, payment_comment: null, link_required: true, qr_content: `solana:${WALLET}?reference=${REFERENCE}` }));
  renderPage('/pay/wallet/wal-1');
  const copy = await screen.findByRole('button', { name: 'Copy address' });
  expect(document.getElementById('link-note')?.textContent).toBe(en.link_required);
  expect(copy.getAttribute('aria-describedby')).toBe('link-note');
});

test('has no axe violations', async () => {
  serve(solanaInvoice());
  renderPage('/pay/inv-1');
  await screen.findByRole('button', { name: 'Copy address' });
  const result = await axe.run(document.body, { rules: { 'color-contrast': { enabled: false } } });
  expect(result.violations.map((v) => v.id)).toEqual([]);
});
