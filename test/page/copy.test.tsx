// @vitest-environment jsdom
// Copying the amount and address, with a visible and announced "Copied".
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/preact';
import { invoiceFixture, liveRegion, renderPage, resetPage, serve } from './helpers.tsx';

let writeText: ReturnType<typeof vi.fn>;

beforeEach(() => {
  writeText = vi.fn().mockResolvedValue(undefined);
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
});
afterEach(() => {
  resetPage();
  Reflect.deleteProperty(navigator, 'clipboard');
});

test('copies the address, shows "Copied" on the button and announces it', async () => {
  serve(invoiceFixture());
  renderPage('/pay/inv-1');
  const button = await screen.findByRole('button', { name: 'Copy address' });
  fireEvent.click(button);
  await waitFor(() => expect(within(button).getByText('Copied')).toBeTruthy());
  expect(writeText).toHaveBeenCalledWith('TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA');
  expect(liveRegion().textContent?.trim()).toBe('Copied');
});

test('copies the exact amount, not the localised display', async () => {
  serve(invoiceFixture());
  renderPage('/pay/inv-1?lang=ru');
  const button = await screen.findByRole('button', { name: 'Копировать сумму' });
  expect(screen.getByText(/^1\s250,378412 USDT$/)).toBeTruthy();
  fireEvent.click(button);
  await waitFor(() => expect(writeText).toHaveBeenCalledWith('1250.378412'));
  await waitFor(() => expect(liveRegion().textContent?.trim()).toBe('Скопировано'));
});

test('copying twice announces again', async () => {
  serve(invoiceFixture());
  renderPage('/pay/inv-1');
  const button = await screen.findByRole('button', { name: 'Copy amount' });
  fireEvent.click(button);
  await waitFor(() => expect(liveRegion().textContent).toBe('Copied'));
  fireEvent.click(screen.getByRole('button', { name: 'Copy address' }));
  await waitFor(() => expect(liveRegion().textContent).not.toBe('Copied'));
  expect(liveRegion().textContent?.trim()).toBe('Copied');
});

test('falls back to execCommand when the Clipboard API is refused, and says so if that fails too', async () => {
  writeText.mockRejectedValue(new Error('denied'));
  const exec = vi.fn().mockReturnValue(true);
  Object.defineProperty(document, 'execCommand', { value: exec, configurable: true });
  serve(invoiceFixture());
  renderPage('/pay/inv-1');
  const button = await screen.findByRole('button', { name: 'Copy address' });
  fireEvent.click(button);
  await waitFor(() => expect(within(button).getByText('Copied')).toBeTruthy());
  expect(exec).toHaveBeenCalledWith('copy');

  exec.mockReturnValue(false);
  fireEvent.click(screen.getByRole('button', { name: 'Copy amount' }));
  await waitFor(() => expect(liveRegion().textContent).toMatch(/Could not copy/));
  Reflect.deleteProperty(document, 'execCommand');
});
