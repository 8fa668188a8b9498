// The dashboard as a merchant uses it, in Chromium against a real gateway: overview, finding a
// paid invoice by order_id, its webhook attempts, resend; the quotes a price was made from; the
// payment page's logo and language
// set in Settings; every view in both themes, axe-clean,
// and usable at 360 px.
import { startReceiver, type Receiver } from '../test/helpers/receiver.ts';
import { solidPng } from '../test/merchants/png.ts';
import { acceptLink, expect, heading, shoot, signIn, test } from './support/dashboard.ts';

let rx: Receiver;
test.beforeAll(async () => {
  rx = await startReceiver();
});
test.afterAll(async () => {
  await rx?.close();
});

test.use({ viewport: { width: 1280, height: 900 } });

test('an owner finds a paid invoice by order_id, reads its webhook attempts and resends', async ({ page, gw }) => {
  for (let i = 1; i <= 3; i++) {
    const r = await gw.api('/v1/payment', { amount: `${10 * i}`, currency: 'USDT', network: 'TRON', order_id: `shop-order-${i}`, url_callback: rx.url, additional_data: '<img src=x onerror=alert(1)>' });
    expect(r.state, JSON.stringify(r)).toBe(0);
  }
  await acceptLink(page, await gw.user('merchant@e2e.example', 'owner'), 'merchant password 1');
  await expect(heading(page)).toHaveText('Overview');
  await expect(page.getByRole('link', { name: 'shop-order-3' })).toBeVisible();

  await page.getByRole('link', { name: 'Invoices', exact: true }).click();
  await expect(heading(page)).toHaveText('Invoices');
  await page.getByRole('searchbox', { name: 'Search' }).fill('shop-order-2');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/\/dashboard\/invoices\?q=shop-order-2$/);
  await expect(page.getByRole('row')).toHaveCount(2);
  await page.getByRole('link', { name: 'shop-order-2' }).click();
  await expect(heading(page)).toHaveText('Invoice shop-order-2');
  // What the merchant's shop typed is text, never markup.
  await expect(page.getByText('<img src=x onerror=alert(1)>')).toBeVisible();

  // Test mode: pay it from the dashboard; the worker delivers the webhook.
  await page.getByRole('button', { name: 'Pay in full' }).click();
  await expect(page.getByText('Simulated a full payment.')).toBeVisible();
  await expect(page.getByText('Paid', { exact: true }).first()).toBeVisible();
  await expect.poll(() => rx.deliveries.filter((d) => d.json.order_id === 'shop-order-2').length, { timeout: 15_000 }).toBe(1);
  await page.reload();
  const hooks = page.getByRole('region', { name: 'Webhooks' });
  await expect(hooks.getByText('Delivered', { exact: true })).toBeVisible();
  await hooks.getByText(/1 attempt/).click();
  await expect(hooks.getByRole('cell', { name: '200' })).toBeVisible();
  await expect(hooks.getByRole('cell', { name: 'ok', exact: true })).toBeVisible();
  await expect(hooks.locator('pre')).toContainText('"order_id": "shop-order-2"');
  const transfers = page.getByRole('region', { name: 'Transfers' });
  // A simulated transfer: shown, with no link to a public explorer that cannot know it.
  await expect(transfers.getByRole('listitem')).toHaveCount(1);
  await expect(transfers.getByRole('link', { name: /opens the explorer/ })).toHaveCount(0);
  await shoot(page, 'invoice');

  await page.getByRole('button', { name: 'Resend webhook' }).click();
  await expect(page.getByText('The webhook was queued again.')).toBeVisible();
  await expect.poll(() => rx.deliveries.filter((d) => d.json.order_id === 'shop-order-2').length, { timeout: 15_000 }).toBe(2);

  await page.getByRole('link', { name: 'Overview' }).click();
  await expect(page.getByText('USDT in total')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Balance' })).toContainText('19.60 USDT');
  await expect(page.locator('.chart canvas')).toBeVisible(); // uPlot loaded on demand
  await shoot(page, 'overview');
  await page.getByRole('link', { name: 'Invoices', exact: true }).click();
  await expect(page.getByRole('link', { name: 'shop-order-1' })).toBeVisible();
  await shoot(page, 'invoices');

  // A payout: the calculation first, then the confirmation.
  await page.getByRole('link', { name: 'Payouts' }).click();
  await expect(heading(page)).toHaveText('Payouts');
  await shoot(page, 'payouts-empty');
  await page.getByRole('link', { name: 'New payout' }).click();
  await expect(heading(page)).toHaveText('New payout');
  await page.getByLabel('Order ID').fill('withdraw-1');
  await page.getByLabel('Amount').fill('5');
  await page.getByLabel('Address').fill('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8');
  await page.getByRole('button', { name: 'Calculate' }).click();
  const check = page.getByRole('region', { name: 'Check before sending' });
  await expect(check).toContainText('The address receives');
  await expect(check).toContainText('Taken from your balance5.00 USDT');
  await shoot(page, 'payout-calc');
  await check.getByRole('button', { name: 'Confirm payout' }).click();
  await expect(heading(page)).toHaveText('Payout withdraw-1');
  await expect(page.getByText('The payout was created.')).toBeVisible();
  await shoot(page, 'payout');
  await page.getByRole('link', { name: 'Back to payouts' }).click();
  await expect(page.getByRole('link', { name: 'withdraw-1' })).toBeVisible();
  await shoot(page, 'payouts');

  // Rotating a key: confirmed in a dialog, the new key shown once, the old one refused.
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  await expect(page.getByRole('cell', { name: /sent the webhook of invoice .* again/ })).toBeVisible();
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Rotate the payment key' }).click();
  const key = (await page.getByTestId('new-key').textContent())!.trim();
  expect(key).toMatch(/^[\w-]{64}$/);
  await expect(page.getByText(`${key.slice(0, 6)}…`)).toBeVisible();
  expect((await gw.api('/v1/payment/list', {})).state).toBe(1); // the old key no longer signs
  await shoot(page, 'settings-owner');

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(heading(page)).toHaveText('Sign in');
  expect((await page.request.get(gw.url + '/api/dashboard/me')).status()).toBe(401);
});

test('an owner reads static wallets and blocks one, retries a failing webhook, saves default URLs; the chart follows the theme', async ({ page, gw }) => {
  // The test before rotated the payment key: sign with the current one.
  gw.merchant.payment_key = (await gw.storage.db.selectFrom('merchants').select('payment_key').where('id', '=', gw.merchant.id).executeTakeFirstOrThrow()).payment_key;
  const simulate = (body: Record<string, unknown>) => fetch(gw.url + '/simulator/pay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  for (let i = 1; i <= 2; i++) {
    const r = await gw.api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: `customer-${i}`, url_callback: rx.url });
    expect(r.state, JSON.stringify(r)).toBe(0);
  }
  const w = (await gw.api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: 'customer-1' })).result;
  expect((await simulate({ wallet: w.uuid, amount: '25' })).state).toBe(0);
  const failing = await startReceiver(500);
  try {
    const inv = (await gw.api('/v1/payment', { amount: '7', currency: 'USDT', network: 'TRON', order_id: 'flaky-order', url_callback: failing.url })).result;
    expect((await simulate({ invoice: inv.uuid })).state).toBe(0);
    await expect.poll(() => failing.deliveries.length, { timeout: 15_000 }).toBeGreaterThan(0);

    await signIn(page, gw.url, 'merchant@e2e.example', 'merchant password 1');
    // The chart is drawn again in the other theme's colours when the theme is chosen.
    const chart = page.locator('.chart');
    await expect(chart.locator('canvas')).toBeVisible();
    const before = await chart.getAttribute('data-drawn');
    const pixels = () => chart.locator('canvas').evaluate((c: HTMLCanvasElement) => c.toDataURL());
    const lightOrDark = await pixels();
    await page.getByLabel('Theme').selectOption(before === 'dark' ? 'light' : 'dark');
    await expect(chart).not.toHaveAttribute('data-drawn', before ?? '');
    expect(await pixels()).not.toBe(lightOrDark);
    await page.getByLabel('Theme').selectOption(before === 'dark' ? 'dark' : 'light');
    await expect(chart).toHaveAttribute('data-drawn', before ?? '');

    // Static wallets: the list, one wallet with its top-up and webhook, then block it.
    await page.getByRole('link', { name: 'Wallets', exact: true }).click();
    await expect(heading(page)).toHaveText('Static wallets');
    await expect(page.getByRole('link', { name: 'customer-2' })).toBeVisible();
    await shoot(page, 'wallets');
    await page.getByRole('searchbox', { name: 'Search' }).fill('customer-1');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByRole('row')).toHaveCount(2);
    await page.getByRole('link', { name: 'customer-1' }).click();
    await expect(heading(page)).toHaveText('Wallet customer-1');
    const topups = page.getByRole('region', { name: 'Top-ups' });
    await expect(topups.getByRole('cell', { name: 'credited' })).toBeVisible();
    await expect(topups.getByRole('cell', { name: '25 USDT' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Webhooks' }).getByText('Delivered', { exact: true })).toBeVisible();
    await shoot(page, 'wallet');
    await page.getByRole('button', { name: 'Block…' }).click();
    await page.getByLabel('Send every payment back to its sender').check();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Block wallet' }).click();
    await expect(page.getByText('The wallet is blocked.')).toBeVisible();
    await expect(page.getByRole('region', { name: 'Wallet' }).locator('[data-code="blocked"]')).toContainText('Blocked');
    await expect(page.getByText('(payments sent back)')).toBeVisible();
    await shoot(page, 'wallet-blocked');

    // Webhooks: the failing delivery comes first; retry now once the receiver is back.
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await expect(heading(page)).toHaveText('Webhooks');
    const failingCard = page.getByRole('region', { name: 'Failing' });
    await expect(failingCard.getByRole('link', { name: 'flaky-order' })).toBeVisible();
    await failingCard.getByText('Attempts and body').first().click();
    await expect(failingCard.getByRole('cell', { name: '500' }).first()).toBeVisible();
    await shoot(page, 'webhooks');
    failing.status = 200;
    const sent = failing.deliveries.length;
    await failingCard.getByRole('button', { name: /^Retry now/ }).first().click();
    await expect(page.getByText(/is due now|Due now/)).toBeVisible();
    await expect.poll(() => failing.deliveries.length, { timeout: 15_000 }).toBeGreaterThan(sent);
    await expect
      .poll(async () => {
        await page.reload();
        return page.getByRole('region', { name: 'Failing' }).getByRole('link', { name: 'flaky-order' }).count();
      }, { timeout: 15_000 })
      .toBe(0);
    await expect(page.getByRole('region', { name: 'Recent' }).getByRole('link', { name: 'flaky-order' })).toBeVisible();

    // Settings: default URLs, refused with the API's rules, then saved.
    await page.getByRole('link', { name: 'Settings' }).click();
    const defaults = page.getByRole('region', { name: 'Default URLs' });
    await defaults.getByLabel('Callback URL').fill('javascript:alert(1)');
    await defaults.getByRole('button', { name: 'Save default URLs' }).click();
    await expect(defaults.getByText('Enter an http:// or https:// address.')).toBeVisible();
    await expect(defaults.getByLabel('Callback URL')).toHaveAttribute('aria-invalid', 'true');
    await defaults.getByLabel('Callback URL').fill(rx.url);
    await defaults.getByLabel('Return URL').fill('https://shop.example/back');
    await defaults.getByRole('button', { name: 'Save default URLs' }).click();
    await expect(page.getByText('The default URLs were saved.')).toBeVisible();
    await page.reload();
    await expect(page.getByRole('region', { name: 'Default URLs' }).getByLabel('Return URL')).toHaveValue('https://shop.example/back');
    await shoot(page, 'settings-defaults');
    await expect(page.getByRole('cell', { name: /changed the default settings/ })).toBeVisible();
    await expect(page.getByRole('cell', { name: /blocked static wallet/ })).toBeVisible();
    await expect(page.getByRole('cell', { name: /retried webhook/ })).toBeVisible();
  } finally {
    await failing.close();
  }
});

test('an owner reads the quotes a dollar invoice was priced on', async ({ page, gw }) => {
  const r = await gw.api('/v1/payment', { amount: '130', currency: 'USD', to_currency: 'BTC', order_id: 'fiat-order-1' });
  expect(r.state, JSON.stringify(r)).toBe(0);
  await acceptLink(page, await gw.user('rates@e2e.example', 'viewer'), 'rates password 1');
  await page.goto(`${gw.url}/dashboard/invoices/${String(r.result.uuid)}`);
  await expect(heading(page)).toHaveText('Invoice fiat-order-1');
  // Test mode: the static table priced it, and the page says so.
  const rate = page.getByRole('region', { name: 'Exchange rate' });
  await expect(rate.getByText(/1 USD = 0\.000015384615384615 BTC/)).toBeVisible();
  await expect(rate.getByRole('row', { name: /static 0\.000015384615384615 .* yes/ })).toBeVisible();
  await shoot(page, 'invoice-rates');
});

test('an owner uploads a PNG logo, sees it previewed, and sets the page language; the payer page shows both', async ({ page, gw }) => {
  gw.merchant.payment_key = (await gw.storage.db.selectFrom('merchants').select('payment_key').where('id', '=', gw.merchant.id).executeTakeFirstOrThrow()).payment_key;
  await signIn(page, gw.url, 'merchant@e2e.example', 'merchant password 1');
  await page.getByRole('link', { name: 'Settings' }).click();
  const profile = page.getByRole('region', { name: 'Public profile' });
  await expect(profile.getByText('No logo')).toBeVisible();
  const input = profile.getByLabel('Logo');

  // An SVG named as a PNG passes the browser's own check; the gateway reads the bytes and refuses it.
  await input.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>') });
  await profile.getByRole('button', { name: 'Upload logo' }).click();
  await expect(profile.getByText('SVG logos are not accepted (they can carry script): use PNG, JPEG or WebP')).toBeVisible();
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  await input.setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(256 * 1024 + 1) });
  await profile.getByRole('button', { name: 'Upload logo' }).click();
  await expect(profile.getByText('The logo must be at most 256 KB')).toBeVisible();

  await input.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: solidPng(48, [20, 110, 70]) });
  await profile.getByRole('button', { name: 'Upload logo' }).click();
  await expect(page.getByText('The logo was saved.')).toBeVisible();
  const preview = profile.getByRole('img', { name: 'Current logo' });
  await expect(preview).toHaveJSProperty('naturalWidth', 48); // served by the gateway, under the dashboard's CSP
  const logoUrl = (await preview.getAttribute('src'))!;
  expect(logoUrl).toMatch(/^\/logos\/[0-9a-f]{64}\.png$/);
  await expect(input).not.toHaveAttribute('aria-invalid', 'true');

  await profile.getByLabel('Page language').selectOption({ label: 'Deutsch' });
  await profile.getByRole('button', { name: 'Save profile' }).click();
  await expect(page.getByText('The public profile was saved.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('region', { name: 'Public profile' }).getByLabel('Page language')).toHaveValue('de');
  await expect(page.getByRole('cell', { name: /uploaded a new logo/ }).first()).toBeVisible();
  await shoot(page, 'settings-profile');

  const inv = await gw.api('/v1/payment', { amount: '3', currency: 'USDT', network: 'TRON', order_id: 'logo-order' });
  expect(inv.state, JSON.stringify(inv)).toBe(0);
  const view = await (await fetch(`${gw.url}/api/pay/${inv.result.uuid}`)).json();
  expect(view.result.merchant).toMatchObject({ logo_url: logoUrl, language: 'de' });
  await page.goto(inv.result.url);
  await expect(page.locator('html')).toHaveAttribute('lang', /^de/);
  const shown = page.locator('img.merchant-logo');
  await expect(shown).toHaveAttribute('src', logoUrl);
  await expect(shown).toHaveJSProperty('naturalWidth', 48);
});

test('a viewer reads everything but finds none of the owner actions, and the endpoints refuse them', async ({ page, gw }) => {
  await acceptLink(page, await gw.user('reader@e2e.example', 'viewer'), 'reader password 1');
  await page.getByRole('link', { name: 'Invoices', exact: true }).click();
  await page.getByRole('link', { name: 'shop-order-2' }).click();
  await expect(heading(page)).toHaveText('Invoice shop-order-2');
  await expect(page.getByRole('region', { name: 'Webhooks' }).getByText('Delivered', { exact: true }).first()).toBeVisible();
  for (const name of ['Resend webhook', 'Refund…', 'Pay in full']) await expect(page.getByRole('button', { name })).toHaveCount(0);
  await page.getByRole('link', { name: 'Payouts' }).click();
  await expect(page.getByRole('link', { name: 'withdraw-1' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'New payout' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Wallets', exact: true }).click();
  await page.getByRole('link', { name: 'customer-1' }).click();
  await expect(heading(page)).toHaveText('Wallet customer-1');
  await expect(page.getByRole('region', { name: 'Top-ups' }).getByRole('cell', { name: '25 USDT' })).toBeVisible();
  for (const name of ['Block…', 'Block settings…', 'Refund blocked funds…']) await expect(page.getByRole('button', { name })).toHaveCount(0);
  await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Recent' }).getByRole('link', { name: 'flaky-order' })).toBeVisible();
  await expect(page.getByRole('button', { name: /Retry now/ })).toHaveCount(0);
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('region', { name: 'Default URLs' })).toContainText('https://shop.example/back');
  await expect(page.getByRole('button', { name: 'Save default URLs' })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'API keys' })).toHaveCount(0);
  await expect(page.getByLabel('Logo')).toHaveCount(0);
  await expect(page.getByLabel('Page language')).toHaveCount(0);
  const statuses = await page.evaluate(async () => {
    const me = await (await fetch('/api/dashboard/me')).json();
    const id = location.pathname; // any invoice id will do for the refusal
    void id;
    const post = (path: string, body: unknown) =>
      fetch('/api/dashboard' + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': me.result.csrf }, body: JSON.stringify(body) }).then((r) => r.status);
    return [
      await post('/payouts/calc', { amount: '1', currency: 'USDT', network: 'TRON', address: 'x', is_subtract: false }),
      await post('/keys/rotate', { kind: 'payment', confirm: true }),
      await post('/profile', { theme: 'dark' }),
      await post('/wallets/00000000-0000-4000-8000-000000000000/block', {}),
      await post('/wallets/00000000-0000-4000-8000-000000000000/refund', { address: 'x' }),
      await post('/webhooks/00000000-0000-4000-8000-000000000000/retry', {}),
      await post('/settings', { url_callback: 'https://evil.example/cb' }),
      await post('/profile', { language: 'fr' }),
      await post('/profile/logo', { image: 'iVBORw0KGgo=' }),
      await post('/profile/logo/remove', {}),
    ];
  });
  expect(statuses).toEqual([403, 403, 403, 403, 403, 403, 403, 403, 403, 403]);
});

test.describe('at 360 px', () => {
  test.use({ viewport: { width: 360, height: 780 } });
  test('every view fits and works with the keyboard', async ({ page, gw }) => {
    await acceptLink(page, await gw.user('phone@e2e.example', 'owner'), 'phone password 1');
    for (const [path, title] of [
      ['/dashboard', 'Overview'],
      ['/dashboard/invoices', 'Invoices'],
      ['/dashboard/wallets', 'Static wallets'],
      ['/dashboard/webhooks', 'Webhooks'],
      ['/dashboard/settings', 'Settings'],
    ] as const) {
      await page.goto(gw.url + path);
      await expect(heading(page)).toHaveText(title);
      await shoot(page, `${title.toLowerCase().replace(/ /g, '-')}-360`);
    }
    await page.goto(gw.url + '/dashboard/wallets');
    await page.getByRole('link', { name: 'customer-1' }).click();
    await expect(heading(page)).toHaveText('Wallet customer-1');
    await page.getByRole('button', { name: 'Block settings…' }).click();
    await shoot(page, 'wallet-360');
    await page.goto(gw.url + '/dashboard/webhooks');
    await page.getByRole('region', { name: 'Recent' }).getByText('Attempts and body').first().click();
    await shoot(page, 'webhooks-open-360');
    // Keyboard: skip link, then the navigation.
    await page.goto(gw.url + '/dashboard/invoices');
    await expect(heading(page)).toHaveText('Invoices');
    await expect(heading(page)).not.toBeFocused(); // a fresh load does not move focus
    await page.keyboard.press('Tab');
    await expect(page.locator(':focus')).toHaveText('Skip to content');
    await page.keyboard.press('Tab');
    await expect(page.locator(':focus')).toHaveText('Overview');
    await page.keyboard.press('Enter');
    await expect(heading(page)).toHaveText('Overview');
    await expect(heading(page)).toBeFocused();
  });
});
