// @vitest-environment jsdom
// A payment that must carry a comment (TON: paid to the merchant's wallet, told apart by the
// comment): the page shows the comment beside the address with its own copy button and warns that
// a payment without it cannot be matched; other networks show no such field.
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/preact';
import axe from 'axe-core';
import { invoiceFixture, liveRegion, renderPage, resetPage, serve, walletFixture } from './helpers.tsx';

const WALLET = 'UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG';
const COMMENT = 'q7Hk2mZp9T';
const LINK = `ton://transfer/${WALLET}?amount=2500000000&text=${COMMENT}`;

const tonInvoice = () =>
  invoiceFixture({
    payer_currency: 'TON',
    network: 'TON',
    network_name: 'TON',
    payer_amount: '2.5',
    address: WALLET,
    payment_comment: COMMENT,
    qr_content: LINK,
    wallet_uri: LINK,
  });

let writeText: ReturnType<typeof vi.fn>;

beforeEach(() => {
  writeText = vi.fn().mockResolvedValue(undefined);
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
});
afterEach(() => {
  resetPage();
  Reflect.deleteProperty(navigator, 'clipboard');
});

test('shows the comment after the address, with the warning that it must be sent', async () => {
  serve(tonInvoice());
  renderPage('/pay/inv-1');
  const comment = await screen.findByText(COMMENT);
  expect(comment.id).toBe('comment');
  expect(screen.getByText('Comment').id).toBe('comment-label');
  expect(screen.getByText(WALLET).id).toBe('address');
  // The comment follows the address in reading order.
  expect(screen.getByText(WALLET).compareDocumentPosition(comment) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  expect(screen.getByText(/A payment without it cannot be matched to this order/)).toBeTruthy();
  // The wallet link carries the comment.
  expect(screen.getByRole('link', { name: /Open in wallet/ }).getAttribute('href')).toBe(LINK);
});

test('"Copy comment" copies the comment alone and announces it; a screen reader hears the warning on the button', async () => {
  serve(tonInvoice());
  renderPage('/pay/inv-1');
  const button = await screen.findByRole('button', { name: 'Copy comment' });
  expect(button.getAttribute('aria-describedby')).toBe('comment-note');
  expect(document.getElementById('comment-note')?.textContent).toMatch(/cannot be matched/);
  // Keyboard: a native button, reached by Tab, pressed with Enter or Space.
  expect(button.tagName).toBe('BUTTON');
  expect(button.getAttribute('tabindex')).toBeNull();
  button.focus();
  expect(document.activeElement).toBe(button);
  fireEvent.click(button);
  await waitFor(() => expect(within(button).getByText('Copied')).toBeTruthy());
  expect(writeText).toHaveBeenCalledWith(COMMENT);
  expect(liveRegion().textContent?.trim()).toBe('Copied');
  // The address's own button still copies the address only.
  fireEvent.click(screen.getByRole('button', { name: 'Copy address' }));
  await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(WALLET));
});

test('is translated', async () => {
  serve(tonInvoice());
  renderPage('/pay/inv-1?lang=ru');
  expect(await screen.findByRole('button', { name: 'Копировать комментарий' })).toBeTruthy();
  expect(screen.getByText('Комментарий')).toBeTruthy();
  expect(screen.getByText(/нельзя сопоставить/)).toBeTruthy();
});

test('no comment field on a network without comments', async () => {
  serve(invoiceFixture());
  renderPage('/pay/inv-1');
  await screen.findByRole('button', { name: 'Copy address' });
  expect(screen.queryByRole('button', { name: 'Copy comment' })).toBeNull();
  expect(screen.queryByText(/cannot be matched/)).toBeNull();
});

test('a static wallet with a comment shows it the same way', async () => {
  serve(walletFixture({ currency: 'TON', network: 'TON', network_name: 'TON', address: WALLET, payment_comment: COMMENT, qr_content: `ton://transfer/${WALLET}?text=${COMMENT}` }));
  renderPage('/pay/wallet/wal-1');
  const button = await screen.findByRole('button', { name: 'Copy comment' });
  expect(screen.getByText(COMMENT)).toBeTruthy();
  fireEvent.click(button);
  await waitFor(() => expect(writeText).toHaveBeenCalledWith(COMMENT));
});

test('has no axe violations', async () => {
  serve(tonInvoice());
  renderPage('/pay/inv-1');
  await screen.findByRole('button', { name: 'Copy comment' });
  const result = await axe.run(document.body, { rules: { 'color-contrast': { enabled: false } } });
  expect(result.violations.map((v) => v.id)).toEqual([]);
});
