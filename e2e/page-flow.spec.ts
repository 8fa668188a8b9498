// The payer's whole flow at the invoice url, against a real gateway: choose, pay, partly paid,
// confirming, paid, paid over, wrong amount. Every screen is checked with axe-core in both themes
// at 320 px and saved to test-results/screens/.
import { capture, expect, heading, simulator, test } from './support/page-helpers.ts';

test.use({ viewport: { width: 320, height: 720 } });

test('fiat invoice: choose USDT on TRON by search, see address, QR and countdown, pay partly then in full', async ({ page, gw }) => {
  const inv = await gw.invoice({ amount: '15', currency: 'USD', url_return: 'https://shop.example/cart', url_success: 'https://shop.example/thanks' });
  expect(inv.address).toBeNull();
  await page.goto(inv.url);

  await expect(heading(page)).toHaveText('Choose how to pay');
  await expect(page.getByText('Order ' + inv.order_id)).toBeVisible();
  await expect(page.getByText('15.00 USD')).toBeVisible();
  await capture(page, 'choose');

  await page.getByRole('searchbox', { name: 'Search coin or network' }).fill('usdt tron');
  await expect(page.locator('.option')).toHaveCount(1);
  await expect(page.locator('.option button')).toHaveText(['TRON (TRC-20) 15 USDT']);
  await capture(page, 'choose-search');
  await page.getByRole('searchbox').fill('no such coin');
  await expect(page.getByText('Nothing matches “no such coin”.')).toBeVisible();
  await page.getByRole('searchbox').fill('tron');
  await expect(page.locator('.option strong')).toHaveText(['USDT', 'TRX']);
  await page.locator('.option', { hasText: 'Tether' }).getByRole('button', { name: 'TRON (TRC-20) 15 USDT' }).click();

  await expect(heading(page)).toHaveText('Send the payment');
  await expect(heading(page)).toBeFocused(); // focus follows the screen change
  await expect(page.getByText('USDT on TRON (TRC-20)', { exact: true })).toBeVisible();
  const address = page.locator('#address');
  await expect(address).toHaveText(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  const addressText = (await address.textContent())!;
  await expect(page.locator('#amount')).toHaveText('15 USDT');
  await expect(page.getByText('≈ 15.00 USD')).toBeVisible();
  const qr = page.getByRole('img', { name: `QR code to pay 15 USDT to ${addressText}` });
  await expect(qr).toBeVisible();
  expect(await qr.evaluate((img: HTMLImageElement) => img.naturalWidth > 0 && img.src.startsWith('data:image/svg+xml'))).toBe(true);
  // The countdown runs from the invoice's hour of lifetime, on the server's clock.
  const timer = page.getByRole('timer');
  await expect(timer).toHaveText(/^(60:00|59:[0-5]\d)$/);
  const first = await timer.textContent();
  await expect(timer).not.toHaveText(first!, { timeout: 3000 });
  await expect(page.getByRole('link', { name: 'Open in wallet' })).toHaveAttribute('href', new RegExp(`^tron:${addressText}`));
  await expect(page.getByRole('link', { name: 'Cancel and return to the store' })).toHaveAttribute('href', 'https://shop.example/cart');
  await expect(page.getByText('TEST MODE')).toBeVisible();
  await capture(page, 'pay');

  // The merchant sees the payer's choice.
  const info = await gw.api('/v1/payment/info', { uuid: inv.uuid });
  expect(info.result).toMatchObject({ payer_currency: 'USDT', network: 'TRON', address: addressText });

  await simulator(page).getByRole('button', { name: 'Part of it' }).click();
  await expect(heading(page)).toHaveText('Partly paid');
  await expect(page.locator('.summary')).toContainText('Paid so far7.5 USDT');
  await expect(page.getByText('Still due')).toBeVisible();
  await expect(page.locator('#amount')).toHaveText('7.5 USDT');
  await expect(page.getByRole('img', { name: `QR code to pay 7.5 USDT to ${addressText}` })).toBeVisible();
  await expect(page.locator('#address')).toHaveText(addressText);
  await capture(page, 'partial');

  await simulator(page).getByRole('button', { name: 'Full amount' }).click();
  await expect(heading(page)).toHaveText('Payment received');
  await expect(page.getByText('Thank you! Your payment is confirmed.')).toBeVisible();
  await expect(page.locator('.summary')).toContainText('Amount received15 USDT');
  await expect(page.getByRole('link', { name: 'Continue to the store' })).toHaveAttribute('href', 'https://shop.example/thanks');
  // The transaction is shown; a simulated chain has no public explorer to link to.
  await expect(page.locator('.tx dd')).toHaveText(/^[0-9a-f]{64}$/);
  await expect(page.getByRole('link', { name: /View transaction/ })).toHaveCount(0);
  await expect(simulator(page)).toHaveCount(0);
  await capture(page, 'paid');
});

test('crypto invoice: seen unconfirmed → confirming with progress → paid', async ({ page, gw }) => {
  const inv = await gw.invoice({ amount: '20', currency: 'USDT', network: 'TRON' });
  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  await expect(page.locator('#address')).toHaveText(inv.address!);
  await expect(page.getByText(/^≈/)).toHaveCount(0); // no fiat line: the order is in USDT

  await gw.simulate('pay', { invoice: inv.uuid, unconfirmed: true });
  await expect(heading(page)).toHaveText('Payment detected');
  await expect(page.getByText('Payment seen, waiting for the first confirmation')).toBeVisible();
  await expect(page.getByRole('progressbar')).toHaveAttribute('max', /\d+/);
  await capture(page, 'confirming');

  await gw.simulate('confirm', { invoice: inv.uuid });
  await expect(heading(page)).toHaveText('Payment received');
  await expect(page.locator('.summary')).toContainText('Amount received20 USDT');
});

test('paying more than due → paid over, with what to do about the difference', async ({ page, gw }) => {
  const inv = await gw.invoice({ amount: '10', currency: 'USDT', network: 'TRON' });
  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  await simulator(page).getByRole('button', { name: 'More than due' }).click();
  await expect(heading(page)).toHaveText('Payment received');
  await expect(page.getByText(`You sent more than the amount due. Contact the merchant about the difference and mention order ${inv.order_id}.`)).toBeVisible();
  await expect(page.locator('.summary')).toContainText('Amount received11 USDT');
  await capture(page, 'paid-over');
});

test('an underpayment when the invoice takes one payment → wrong amount', async ({ page, gw }) => {
  const inv = await gw.invoice({ amount: '10', currency: 'USDT', network: 'TRON', is_payment_multiple: false });
  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  await simulator(page).getByRole('button', { name: 'Part of it' }).click();
  await expect(heading(page)).toHaveText('Wrong amount received');
  await expect(page.locator('.summary')).toContainText('Amount received5 USDT');
  await expect(page.locator('.summary')).toContainText('Amount to pay10 USDT');
  await capture(page, 'wrong-amount');
});
