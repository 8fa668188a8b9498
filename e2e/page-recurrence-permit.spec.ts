// "Approve automatic renewals" end to end beyond a first plain approve (docs/recurring.md): the
// same injected EIP-1193 "Test Wallet" forwarding to anvil (which signs eth_signTypedData_v4 and
// personal_sign for its dev accounts) and a gateway process on the real `evm` driver. USDC here has
// EIP-2612 permit: the payer only signs (no transaction), the gateway's collector submits permit().
// USDT behaves as Ethereum's (approve from non-zero to non-zero reverts): a second subscription is
// approved as the sum, with approve(0) first, and the page says so.
import type { Page } from '@playwright/test';
import { parseUnits } from 'viem';
import { expect, heading, test } from './support/page-helpers.ts';
import type { E2EGateway } from './support/gateway.ts';
import { injectWallet as injectTestWallet, startWalletRig, type WalletRig, type WalletScript } from './support/test-wallet.ts';
import { PAYER, type TestChain } from '../test/chain/gateway-setup.ts';
import { CHAIN_ID } from '../test/chain/evm/anvil.ts';
import { startPermitChain } from '../test/recurrences/anvil-wallet.ts';

test.use({ viewport: { width: 390, height: 844 } });
test.describe.configure({ mode: 'serial' });

let rig: WalletRig;
let chain: TestChain;
let gw: E2EGateway;
let n = 0;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  rig = await startWalletRig(startPermitChain);
  ({ chain, gw } = rig);
});

test.afterAll(async () => {
  await rig?.stop();
});

const injectWallet = (page: Page): Promise<WalletScript> => injectTestWallet(page, chain);

async function allowanceOnChain(token: string, owner: string, spender: string): Promise<bigint> {
  const pad = (a: string) => a.slice(2).toLowerCase().padStart(64, '0');
  const res = await fetch(chain.anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: token, data: `0xdd62ed3e${pad(owner)}${pad(spender)}` }, 'latest'] }),
  });
  return BigInt(((await res.json()) as { result: string }).result);
}

/** A weekly 10 `currency` recurrence, opened and chosen on the page: its allowance section shown. */
async function subscribe(page: Page, currency: 'USDT' | 'USDC', option: string) {
  const created = await gw.api('/v1/recurrence/create', { amount: '10', currency, name: 'Pro plan', period: 'weekly', order_id: `e2e-permit-${process.pid}-${++n}` });
  expect(created, JSON.stringify(created)).toMatchObject({ state: 0 });
  const rec = created.result as { uuid: string; url: string };
  await page.goto(rec.url);
  await expect(heading(page)).toHaveText('Pro plan');
  await page.locator('.option', { hasText: option }).getByRole('button').first().click();
  await expect(page.getByRole('heading', { name: 'Pay the first period' })).toBeVisible();
  const terms = (await (await fetch(`${gw.url}/api/pay/recurrence/${rec.uuid}/allowance`)).json()) as { result: { collector: string; cap: string; permit: unknown } };
  const section = page.getByRole('region', { name: 'Approve automatic renewals' });
  await expect(section).toBeVisible();
  return { rec, terms: terms.result, section };
}

/** Presses "Approve with Test Wallet" and mines now and then until the section says it is on. */
async function approve(section: ReturnType<Page['getByRole']>) {
  await section.getByRole('button', { name: 'Approve with Test Wallet' }).click();
  await expect(async () => {
    await chain.anvil.mine();
    await expect(section.getByRole('status')).toHaveText('Automatic renewals on', { timeout: 2500 });
  }).toPass({ timeout: 30_000 });
}

test('USDC with permit: the wallet only signs (no transaction), the gateway submits the permit, renewals are on', async ({ page }) => {
  const wallet = await injectWallet(page);
  const { terms, section } = await subscribe(page, 'USDC', 'USD Coin');
  expect(terms.permit).toMatchObject({ name: 'Test USDC', version: '1', chainId: CHAIN_ID });
  // The collector pays the permit's gas.
  await chain.anvil.rpc('anvil_setBalance', [terms.collector, '0x56BC75E2D63100000']);
  await approve(section);
  const methods = wallet.calls.map((c) => c.method);
  expect(methods).toContain('eth_signTypedData_v4');
  expect(methods).toContain('personal_sign');
  expect(methods).not.toContain('eth_sendTransaction');
  const payer = chain.anvil.account(PAYER).address;
  expect(await allowanceOnChain(chain.usdc.address, payer, terms.collector)).toBe(parseUnits(terms.cap, 6));
});

test('USDT, a second subscription: the total is said, approve(0) then approve(first cap + this cap)', async ({ page }) => {
  const payer = chain.anvil.account(PAYER).address;
  let wallet = await injectWallet(page);
  const first = await subscribe(page, 'USDT', 'Tether');
  expect(first.terms.permit).toBeNull();
  await approve(first.section);
  expect(wallet.calls.filter((c) => c.method === 'eth_sendTransaction')).toHaveLength(1);
  expect(await allowanceOnChain(chain.usdt.address, payer, first.terms.collector)).toBe(parseUnits(first.terms.cap, 6));

  await page.close();
  const next = await page.context().newPage();
  wallet = await injectWallet(next);
  const second = await subscribe(next, 'USDT', 'Tether');
  await second.section.getByRole('button', { name: 'Approve with Test Wallet' }).click();
  await expect(second.section).toContainText('you approve 240 USDT in total, 120 USDT more for this subscription');
  await expect(second.section).toContainText('two transactions');
  await expect(async () => {
    await chain.anvil.mine();
    await expect(second.section.getByRole('status')).toHaveText('Automatic renewals on', { timeout: 2500 });
  }).toPass({ timeout: 30_000 });
  const sent = wallet.calls.filter((c) => c.method === 'eth_sendTransaction').map((c) => (c.params as { data: string }[])[0]!.data);
  expect(sent).toHaveLength(2);
  expect(BigInt('0x' + sent[0]!.slice(74))).toBe(0n);
  expect(BigInt('0x' + sent[1]!.slice(74))).toBe(parseUnits('240', 6));
  expect(await allowanceOnChain(chain.usdt.address, payer, first.terms.collector)).toBe(parseUnits('240', 6));
});
