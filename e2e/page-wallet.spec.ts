// Paying from a browser wallet, end to end: an injected EIP-1193 provider (test code only) that
// announces itself by EIP-6963 and forwards to a local anvil with an unlocked account; a gateway
// process whose ETH network runs the real `evm` driver against that anvil. The payer clicks
// "Pay with Test Wallet" and the invoice reaches paid through the driver. Also: the payer rejects
// in the wallet, and the message shows with the address and QR still there.
import type { Page } from '@playwright/test';
import { parseUnits } from 'viem';
import { capture, expect, heading, test } from './support/page-helpers.ts';
import type { E2EGateway } from './support/gateway.ts';
import { injectWallet as injectTestWallet, startWalletRig, type WalletRig, type WalletScript } from './support/test-wallet.ts';
import type { TestChain } from '../test/chain/gateway-setup.ts';
import { CHAIN_ID } from '../test/chain/evm/anvil.ts';

test.use({ viewport: { width: 320, height: 800 } });
test.describe.configure({ mode: 'serial' });

let rig: WalletRig;
let chain: TestChain;
let gw: E2EGateway;
let orders = 0;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  rig = await startWalletRig();
  ({ chain, gw } = rig);
});

test.afterAll(async () => {
  await rig?.stop();
});

/** "Test Wallet" in this page, forwarding to this file's anvil (support/test-wallet.ts). */
const injectWallet = (page: Page): Promise<WalletScript> => injectTestWallet(page, chain);

async function invoice(body: Record<string, unknown>) {
  const created = await gw.api('/v1/payment', { order_id: `wallet-${process.pid}-${++orders}`, ...body });
  expect(created, JSON.stringify(created)).toMatchObject({ state: 0 });
  return created.result as { uuid: string; url: string; address: string; payer_amount: string };
}

/** Mines a block now and then until the page shows `text` (the driver needs the block to see the transfer). */
async function mineUntil(page: Page, text: string) {
  await expect(async () => {
    await chain.anvil.mine();
    await expect(heading(page)).toHaveText(text, { timeout: 1500 });
  }).toPass({ timeout: 30_000 });
}

test('USDT on ETH: Pay with Test Wallet switches chain (adding it), sends the exact transfer, the invoice is paid', async ({ page }) => {
  const wallet = await injectWallet(page);
  const inv = await invoice({ amount: '15.5', currency: 'USDT', network: 'ETH' });
  const before = await chain.usdt.balanceOf(inv.address);
  await page.goto(inv.url);
  await expect(heading(page)).toHaveText('Send the payment');
  const button = page.getByRole('button', { name: 'Pay with Test Wallet' });
  await expect(button).toBeVisible();
  await capture(page, 'wallet-button');

  await button.click();
  await expect(page.getByRole('status').filter({ hasText: 'Payment sent from your wallet' })).toBeVisible();
  await expect(button).toBeHidden(); // no second payment by a second click
  const methods = wallet.calls.map((c) => c.method);
  expect(methods).toContain('wallet_addEthereumChain');
  expect(methods).not.toContain('eth_sign');
  expect(methods.filter((m) => m === 'eth_sendTransaction')).toHaveLength(1);
  expect(wallet.calls.find((c) => c.method === 'wallet_addEthereumChain')!.params).toEqual([
    expect.objectContaining({ chainId: `0x${CHAIN_ID.toString(16)}`, rpcUrls: [chain.anvil.url], nativeCurrency: { name: 'Ethereum', symbol: 'ETH', decimals: 18 } }),
  ]);

  await mineUntil(page, 'Payment received');
  expect(await chain.usdt.balanceOf(inv.address)).toBe(before + parseUnits(inv.payer_amount, 6));
  const info = await gw.api('/v1/payment/info', { uuid: inv.uuid });
  expect(info.result).toMatchObject({ status: 'paid', payment_amount: inv.payer_amount });
});

test('native ETH: the value in wei, exactly the amount due', async ({ page }) => {
  await injectWallet(page);
  const inv = await invoice({ amount: '0.123456789012345678', currency: 'ETH', network: 'ETH' });
  await page.goto(inv.url);
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Payment sent from your wallet' })).toBeVisible();
  await mineUntil(page, 'Payment received');
  expect(await chain.anvil.pub.getBalance({ address: inv.address as `0x${string}` })).toBe(parseUnits(inv.payer_amount, 18));
  const info = await gw.api('/v1/payment/info', { uuid: inv.uuid });
  expect(info.result).toMatchObject({ status: 'paid' });
});

test('rejected in the wallet: said plainly, address and QR still there, in English and Arabic', async ({ page }) => {
  const wallet = await injectWallet(page);
  wallet.reject = true;
  const inv = await invoice({ amount: '20', currency: 'USDT', network: 'ETH' });
  await page.goto(inv.url);
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
  const status = page.getByRole('status').filter({ hasText: 'The payment was cancelled in your wallet. Nothing was sent.' });
  await expect(status).toBeVisible();
  await expect(status).toHaveAttribute('aria-live', 'polite');
  await expect(page.locator('#address')).toHaveText(inv.address);
  await expect(page.getByRole('img', { name: new RegExp(`^QR code to pay 20 USDT to ${inv.address}`) })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Pay with Test Wallet' })).toBeEnabled(); // may try again
  await capture(page, 'wallet-rejected');

  await page.goto(`${inv.url}?lang=ar`);
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByRole('button', { name: /Test Wallet/ }).click();
  await expect(page.getByRole('status').filter({ hasText: 'أُلغي الدفع في محفظتك' })).toBeVisible();
  await capture(page, 'wallet-rejected-ar');
  const info = await gw.api('/v1/payment/info', { uuid: inv.uuid });
  expect(info.result).toMatchObject({ status: 'process', payment_amount: null });
});
