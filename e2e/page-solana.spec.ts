// A Solana USDC invoice's page, end to end: a gateway process whose SOL network runs the real
// `solana` driver against the JSON-RPC double over LiteSVM, the merchant receiving into their own
// wallet. The page shows the Solana Pay QR code; a screenshot of it, read by the repository's QR
// reader, is a link @solana/pay's own parser accepts with the merchant's wallet, the amount, the
// mint and the invoice's reference; and the page says that the link or QR must be used.
import { parseURL } from '@solana/pay';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/compose.ts';
import { checkCustody, writeCustody } from '../src/custody/store.ts';
import { capture, expect, heading, test } from './support/page-helpers.ts';
import { MNEMONIC, startGatewayProcess, type E2EGateway } from './support/gateway.ts';
import { startSolanaDouble, type SolanaDouble } from '../test/chain/solana/double/server.ts';
import { LAMPORTS_PER_SOL, scenario, type Mint } from '../test/chain/solana/double/scenario.ts';
import { readQrPng } from '../test/helpers/qr-reader.ts';

test.use({ viewport: { width: 360, height: 900 } });
test.describe.configure({ mode: 'serial' });

let double: SolanaDouble;
let gw: E2EGateway;
let shop: string;
let usdc: Mint;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  double = await startSolanaDouble();
  const sc = scenario(double);
  shop = (await sc.payer(LAMPORTS_PER_SOL)).address;
  usdc = await sc.mint(6);
  const usdt = await sc.mint(6);
  const networks = JSON.stringify({ SOL: { driver: 'solana', rpc_url: double.url, cluster: 'localnet', tokens: { USDC: usdc.address, USDT: usdt.address } } });
  const rates = JSON.stringify({ sources: { static: { enabled: true } } });
  gw = await startGatewayProcess({ env: { SATCHEL_NETWORKS: networks, SATCHEL_PAYER_RATE_LIMIT: '100000', SATCHEL_RATES: rates } });
  // The merchant's Solana wallet as receiving material, written as the dashboard writes it.
  const ctx = await createContext(loadConfig({ SATCHEL_DATA_DIR: gw.dataDir, SATCHEL_MNEMONIC: MNEMONIC, SATCHEL_NETWORKS: networks, SATCHEL_RATES: rates }));
  try {
    const req = { merchantId: gw.merchant.id, network: 'SOL', input: { address: shop }, actor: 'e2e', replace: false };
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

test('a SOL/USDC invoice shows the Solana Pay QR: read from the screen, it is the transfer request for this invoice', async ({ page }) => {
  test.setTimeout(90_000);
  const created = await gw.api('/v1/payment', { amount: '12.5', currency: 'USDC', network: 'SOL', order_id: 'e2e-sol-1' });
  expect(created, JSON.stringify(created)).toMatchObject({ state: 0 });
  const inv = created.result as { uuid: string; url: string; address: string; payment_comment: string | null };
  expect(inv.address).toBe(shop);
  expect(inv.payment_comment).toBeNull();
  const view = (await (await fetch(`${gw.url}/api/pay/${inv.uuid}`)).json()) as { result: { wallet_uri: string; link_required: boolean } };
  expect(view.result.link_required).toBe(true);
  const reference = new URL(view.result.wallet_uri).searchParams.get('reference')!;
  expect(reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  await expect(page.locator('#address')).toHaveText(shop);
  await expect(page.locator('#link-note')).toContainText('cannot be matched to this order');
  await expect(page.locator('#comment')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Open in wallet' })).toHaveAttribute('href', view.result.wallet_uri);

  const qr = page.locator('.qr img');
  await expect(qr).toBeVisible();
  const text = readQrPng(await qr.screenshot());
  expect(text).toBe(view.result.wallet_uri);
  const request = parseURL(text!);
  if (!('recipient' in request)) throw new Error(`not a transfer request: ${text}`);
  expect(request.recipient).toBe(shop);
  expect(request.amount).toBe(12.5);
  expect(new URL(text!).searchParams.get('amount')).toBe('12.5');
  expect(request.splToken).toBe(usdc.address);
  expect(request.reference).toEqual([reference]);
  await capture(page, 'solana-pay');
});
