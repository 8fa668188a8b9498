// Paying a TON invoice from its page, end to end: a gateway process whose TON network runs the real
// `ton` driver against the toncenter double over @ton/sandbox; the merchant receives into their own
// TON wallet and each invoice is told apart by its comment. The payer sees the merchant wallet, the
// comment with its own copy button, a wallet link and a QR that both carry the amount and the
// comment; a payment made in the sandbox with that comment turns the page paid.
import { join } from 'node:path';
import { toNano } from '@ton/core';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { checkCustody, writeCustody } from '../src/custody/store.ts';
import { qrSvg } from '../src/qr/svg.ts';
import { capture, expect, heading, test } from './support/page-helpers.ts';
import { MNEMONIC, startGatewayProcess, type E2EGateway } from './support/gateway.ts';
import { startToncenterDouble, type TonDouble } from '../test/chain/ton/double/toncenter.ts';
import { scenario, type Payer, type Scenario } from '../test/chain/ton/double/scenario.ts';

test.use({ viewport: { width: 360, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
test.describe.configure({ mode: 'serial' });

let double: TonDouble;
let sc: Scenario;
let shop: Payer;
let customer: Payer;
let gw: E2EGateway;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  double = await startToncenterDouble();
  sc = scenario(double);
  shop = await sc.payerWallet('shop');
  customer = await sc.payerWallet('customer');
  // The shop's wallet is deployed (it has sent once), as a merchant's wallet in use is.
  await sc.sendTon(shop, customer.address, toNano('0.01'), null);
  const networks = JSON.stringify({ TON: { driver: 'ton', api_url: double.url, confirmations: 1 } });
  const rates = JSON.stringify({ sources: { static: { enabled: true } } });
  gw = await startGatewayProcess({ env: { SATCHEL_NETWORKS: networks, SATCHEL_PAYER_RATE_LIMIT: '100000', SATCHEL_RATES: rates } });
  // The merchant's TON wallet as receiving material, written as the dashboard writes it.
  const ctx = await createContext(loadConfig({ SATCHEL_DATA_DIR: gw.dataDir, SATCHEL_MNEMONIC: MNEMONIC, SATCHEL_NETWORKS: networks, SATCHEL_RATES: rates }));
  try {
    const req = { merchantId: gw.merchant.id, network: 'TON', input: { address: shop.address.toString() }, actor: 'e2e', replace: false };
    const checked = await checkCustody(ctx, req);
    await ctx.storage.write((trx) => writeCustody(trx, req, checked, Date.now()));
  } finally {
    await ctx.storage.close();
  }
});

test.afterAll(async () => {
  await gw?.stop();
  await double?.close();
});

test('a TON invoice shows the wallet and the comment, and turns paid when paid with that comment', async ({ page }) => {
  test.setTimeout(90_000);
  const created = await gw.api('/v1/payment', { amount: '2.5', currency: 'TON', network: 'TON', order_id: 'e2e-ton-1', url_return: 'https://shop.example/cart' });
  expect(created, JSON.stringify(created)).toMatchObject({ state: 0 });
  const inv = created.result as { uuid: string; url: string; address: string; payment_comment: string };
  const wallet = shop.address.toString({ bounceable: false });
  expect(inv.address).toBe(wallet);
  expect(inv.payment_comment).toMatch(/^[1-9A-HJ-NP-Za-km-z]{10}$/);
  const link = `ton://transfer/${wallet}?amount=2500000000&text=${inv.payment_comment}`;

  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  await expect(page.locator('#amount')).toHaveText('2.5 TON');
  await expect(page.locator('#address')).toHaveText(wallet);
  await expect(page.locator('#comment')).toHaveText(inv.payment_comment);
  await expect(page.locator('#comment-label')).toHaveText('Comment');
  await expect(page.locator('#comment-note')).toContainText('A payment without it cannot be matched to this order.');

  await capture(page, 'ton-pay');

  await page.getByRole('button', { name: 'Copy comment' }).click();
  // Once copied, the button's name is what it shows ("Copied"), for two and a half seconds.
  await expect(page.locator('.field-strong').getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(inv.payment_comment);
  await page.locator('.field-strong').screenshot({ path: join('test-results', 'screens', 'ton-comment-copied.png') });

  await expect(page.getByRole('link', { name: 'Open in wallet' })).toHaveAttribute('href', link);
  // The QR is the encoding of that same link (the page's own encoder, run here on the link).
  const qr = page.getByRole('img', { name: `QR code to pay 2.5 TON to ${wallet}` });
  await expect(qr).toBeVisible();
  const svg = decodeURIComponent((await qr.getAttribute('src'))!.replace(/^data:image\/svg\+xml;charset=utf-8,/, ''));
  expect(svg).toBe(await qrSvg(link));

  // The payer pays from their wallet with the comment; the double's masterchain moves on so the
  // payment reaches its confirmation.
  const paid = await sc.sendTon(customer, wallet, toNano('2.5'), inv.payment_comment);
  expect(paid.received).toBeDefined();
  const ticker = setInterval(() => double.tick(), 300);
  try {
    await expect(heading(page)).toHaveText('Payment received', { timeout: 30_000 });
  } finally {
    clearInterval(ticker);
  }
  await expect(page.locator('.summary')).toContainText('Amount received2.5 TON');
  await expect(page.locator('.tx dd')).toHaveText(paid.received!.hash().toString('hex'));
  const info = (await gw.api('/v1/payment/info', { uuid: inv.uuid })).result;
  expect(info).toMatchObject({ payment_status: 'paid', payment_amount: '2.50' });
  await capture(page, 'ton-paid');
});
