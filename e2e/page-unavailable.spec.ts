// A payment whose network the gateway no longer offers (here BTC switched off with `enabled:
// false`; the same screen follows a test-mode invoice once the gateway runs live): the payer sees
// why and no address, in their language, and the page passes axe in both schemes. Its own gateway
// (not the shared one): BTC is switched off in its configuration.
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { createInvoice } from '../src/invoices/create.ts';
import { createStaticWallet } from '../src/wallets/create.ts';
import { paramsFor } from '../src/http/signed-api.ts';
import { createInvoiceOp } from '../src/contracts/merchant-api/invoices.ts';
import { createWalletOp } from '../src/contracts/merchant-api/wallets.ts';
import { capture, expect, heading, test } from './support/page-helpers.ts';
import { MNEMONIC, startGatewayProcess } from './support/gateway.ts';

test.use({ viewport: { width: 320, height: 720 } });

test('an invoice and a static wallet on a network no longer offered: no address, and why', async ({ page }) => {
  const gw = await startGatewayProcess({ env: { SATCHEL_NETWORKS: JSON.stringify({ BTC: { enabled: false } }) } });
  try {
    // Made as they were made before BTC was switched off: by a gateway on the same data folder that still offers it.
    const before = await createContext(loadConfig({ SATCHEL_DATA_DIR: gw.dataDir, SATCHEL_MNEMONIC: MNEMONIC, SATCHEL_PUBLIC_URL: gw.url, LOG_LEVEL: 'silent' }));
    const { invoice } = await createInvoice(before, gw.merchant, paramsFor(before, createInvoiceOp, { amount: '0.01', currency: 'BTC', network: 'BTC', order_id: 'off-1' }));
    const wallet = await createStaticWallet(before, gw.merchant, paramsFor(before, createWalletOp, { currency: 'BTC', network: 'BTC', order_id: 'off-w1' }));
    await before.storage.close();

    await page.goto(`${gw.url}/pay/${invoice.uuid}`);
    await expect(heading(page)).toHaveText('This payment is no longer available');
    await expect(page.getByText('The network this payment was set up on is not accepted any more. Do not send anything to its address. Ask the merchant for a new payment for order off-1.')).toBeVisible();
    await expect(page.getByText(invoice.address!)).toHaveCount(0);
    await expect(page.getByRole('img', { name: /QR code/ })).toHaveCount(0);
    await capture(page, 'unavailable');

    await page.goto(`${gw.url}/pay/${invoice.uuid}?lang=fr`);
    await expect(heading(page)).toHaveText('Ce paiement n’est plus disponible');

    await page.goto(`${gw.url}/pay/wallet/${wallet.uuid}`);
    await expect(heading(page)).toHaveText('This payment is no longer available');
    await expect(page.getByText('Bitcoin is not accepted any more. Do not send anything to this address; ask the merchant for a new one.')).toBeVisible();
    await expect(page.getByText(wallet.address)).toHaveCount(0);
    // Nothing can be paid there: no test banner and no simulator, though the gateway is in test mode.
    await expect(page.getByText('TEST MODE')).toHaveCount(0);
    await expect(page.getByRole('region', { name: 'Simulate a payment' })).toHaveCount(0);
    await capture(page, 'wallet-unavailable');
  } finally {
    await gw.stop();
  }
});
