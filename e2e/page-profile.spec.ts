// The new views of issue 13 in a real browser against a real gateway: the merchant's name, logo
// and accent at the top; "payment seen, n of N confirmations"; the receipt. Each axe-clean, no
// sideways scrolling at 320 px, screenshots in both themes (test-results/screens/).
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { createMerchant, type Merchant } from '../src/merchants/store.ts';
import { updateProfile } from '../src/merchants/profile.ts';
import { signBody } from '../src/webhooks/signature.ts';
import { solidPng } from '../test/merchants/png.ts';
import { MNEMONIC } from './support/gateway.ts';
import { capture, expect, heading, test, type PageGateway } from './support/page-helpers.ts';

test.use({ viewport: { width: 320, height: 720 } });

/** A second merchant of the worker's gateway with a full profile (the shared one stays plain). */
async function profiledMerchant(gw: PageGateway): Promise<Merchant> {
  const ctx = await createContext(loadConfig({ SATCHEL_DATA_DIR: gw.dataDir, SATCHEL_MNEMONIC: MNEMONIC, LOG_LEVEL: 'silent' }));
  try {
    const m = await createMerchant(ctx.storage.db, 'internal name, never shown');
    await updateProfile(ctx.storage.db, m.id, { display_name: 'Corner Café & Bakery', logo: solidPng(64, [176, 64, 32]), accent: '#ffd84d', theme: 'auto' });
    return m;
  } finally {
    await ctx.storage.close();
  }
}

let orders = 0;
async function invoiceOf(gw: PageGateway, m: Merchant, body: Record<string, unknown>) {
  const raw = JSON.stringify({ order_id: `profile-${process.pid}-${++orders}`, ...body });
  const res = await fetch(`${gw.url}/v1/payment`, { method: 'POST', headers: { 'content-type': 'application/json', merchant: m.id, sign: signBody(raw, m.payment_key) }, body: raw });
  const json = (await res.json()) as { state: number; result: { uuid: string; url: string } };
  expect(json.state).toBe(0);
  return json.result;
}

test('the merchant profile, confirmations and the receipt', async ({ page, gw }) => {
  const m = await profiledMerchant(gw);
  const inv = await invoiceOf(gw, m, { amount: '20', currency: 'USDT', network: 'TRON', url_success: 'https://shop.example/thanks' });
  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  const header = page.locator('.card-head');
  await expect(header).toContainText('Corner Café & Bakery');
  const logo = header.locator('img.merchant-logo');
  await expect(logo).toHaveJSProperty('naturalWidth', 64); // loaded from the gateway under the CSP
  expect(await logo.getAttribute('src')).toMatch(/^\/logos\/[0-9a-f]{64}\.png$/);
  // The pale yellow was darkened for the light theme: the button's text still reads at AA.
  const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
  expect(accent).not.toBe('#ffd84d');
  await capture(page, 'profile-pay');

  await gw.simulate('pay', { invoice: inv.uuid, unconfirmed: true });
  await expect(heading(page)).toHaveText('Payment detected');
  await expect(page.getByText('Payment seen, waiting for the first confirmation')).toBeVisible();
  await capture(page, 'profile-confirming');

  await gw.simulate('confirm', { invoice: inv.uuid });
  await expect(heading(page)).toHaveText('Payment received');
  await page.getByRole('button', { name: 'View receipt' }).click();
  await expect(heading(page)).toHaveText('Receipt');
  await expect(page.locator('.receipt-list')).toContainText('Paid toCorner Café & Bakery');
  await expect(page.getByRole('link', { name: 'Back to the shop' })).toHaveAttribute('href', 'https://shop.example/thanks');
  await capture(page, 'profile-receipt');
  // As printed: only the receipt, no buttons.
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('button', { name: 'Print' })).toBeHidden();
  await expect(page.locator('.receipt-list')).toBeVisible();
  await page.pdf?.({ path: 'test-results/screens/profile-receipt-print.pdf' }).catch(() => undefined);
  await page.emulateMedia({ media: 'screen' });
});
