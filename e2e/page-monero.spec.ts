// Paying an XMR invoice from its page, end to end: a gateway process whose XMR network runs the real
// `monero` driver against a regtest monerod (test/helpers/monero-rig.ts); the merchant receives
// watch-only into their own wallet (its primary address and view key set as receiving material) and
// each invoice gets a fresh subaddress of it. The payer sees that subaddress, the amount, a
// `monero:` link and a QR that both carry the subaddress and `tx_amount`; a payment from the rig's
// payer shows on the page as seen, then n of N confirmations as blocks are mined, then paid.
// Settling takes 3 confirmations here (the network's `confirmations`; Monero's default is 10).
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { checkCustody, writeCustody } from '../src/custody/store.ts';
import { capture, expect, heading, test } from './support/page-helpers.ts';
import { MNEMONIC, startGatewayProcess, type E2EGateway } from './support/gateway.ts';
import { startMoneroRig, type MoneroRig } from '../test/helpers/monero-rig.ts';
import { mineIn, pico, shopWallet, XMR_POLL_DEADLINE_MS, type ShopWallet } from '../test/chain/monero/gateway-setup.ts';
import { readQrPng } from '../test/helpers/qr-reader.ts';

test.use({ viewport: { width: 360, height: 900 } });
test.describe.configure({ mode: 'serial' });

let rig: MoneroRig;
let shop: ShopWallet;
let gw: E2EGateway;

test.beforeAll(async () => {
  test.setTimeout(360_000);
  rig = await startMoneroRig();
  shop = await shopWallet(rig, 'shop');
  const networks = JSON.stringify({ XMR: { driver: 'monero', daemon_url: rig.daemonUrl, network: 'mainnet', confirmations: 3 } });
  const rates = JSON.stringify({ sources: { static: { enabled: true } } });
  gw = await startGatewayProcess({ env: { SATCHEL_NETWORKS: networks, SATCHEL_PAYER_RATE_LIMIT: '100000', SATCHEL_RATES: rates, SATCHEL_CHAIN_POLL_TIMEOUT_MS: String(XMR_POLL_DEADLINE_MS) } });
  // The merchant's address and view key as receiving material, written as the dashboard writes it.
  const ctx = await createContext(loadConfig({ SATCHEL_DATA_DIR: gw.dataDir, SATCHEL_MNEMONIC: MNEMONIC, SATCHEL_NETWORKS: networks, SATCHEL_RATES: rates }));
  try {
    const req = { merchantId: gw.merchant.id, network: 'XMR', input: { address: shop.address, viewKey: shop.viewKey }, actor: 'e2e', replace: false };
    const checked = await checkCustody(ctx, req);
    await ctx.storage.write((trx) => writeCustody(trx, req, checked, Date.now()));
  } finally {
    await ctx.storage.close();
  }
});

test.afterAll(async () => {
  test.setTimeout(180_000);
  await gw?.stop();
  await rig?.close();
});

test('an XMR invoice shows its subaddress, the amount and the monero: link, then n of 3 confirmations, then paid', async ({ page }) => {
  test.setTimeout(180_000);
  const created = await gw.api('/v1/payment', { amount: '1.25', currency: 'XMR', network: 'XMR', order_id: 'e2e-xmr-1' });
  expect(created, JSON.stringify(created)).toMatchObject({ state: 0 });
  const inv = created.result as { uuid: string; url: string; address: string };
  // The first subaddress of the merchant's own wallet, as that wallet makes it.
  expect(inv.address).toBe(await shop.subaddress(1));
  const link = `monero:${inv.address}?tx_amount=1.25`;

  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  await expect(page.locator('#amount')).toHaveText('1.25 XMR');
  await expect(page.locator('#address')).toHaveText(inv.address);
  await expect(page.locator('#comment')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Open in wallet' })).toHaveAttribute('href', link);
  // The QR, read from the screen, is that same link.
  const qr = page.locator('.qr img');
  await expect(qr).toBeVisible();
  expect(readQrPng(await qr.screenshot())).toBe(link);
  await capture(page, 'monero-pay');

  // The payer pays what the link asks; the pool's payment shows at once.
  const txid = await rig.pay(inv.address, pico('1.25'));
  await expect(heading(page)).toHaveText('Payment detected', { timeout: 60_000 });
  await expect(page.locator('#conf-label')).toHaveText('Payment seen, waiting for the first confirmation');
  await mineIn(rig, [txid]);
  await expect(page.locator('#conf-label')).toHaveText('Payment seen, 1 of 3 confirmations', { timeout: 60_000 });
  await capture(page, 'monero-confirming');
  await rig.mine(1);
  await expect(page.locator('#conf-label')).toHaveText('Payment seen, 2 of 3 confirmations', { timeout: 60_000 });
  await rig.mine(1);
  await expect(heading(page)).toHaveText('Payment received', { timeout: 60_000 });
  await expect(page.locator('.summary')).toContainText('Amount received1.25 XMR');
  await expect(page.locator('.tx dd')).toHaveText(txid);
  const info = (await gw.api('/v1/payment/info', { uuid: inv.uuid })).result;
  expect(info).toMatchObject({ payment_status: 'paid', payment_amount: '1.25', txid });
  await capture(page, 'monero-paid');
});
