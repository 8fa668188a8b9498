// "Approve automatic renewals" end to end (docs/recurring.md): an injected EIP-1193 provider (test
// code only, support/test-wallet.ts, shared with page-wallet.spec.ts) announced by EIP-6963 and
// forwarding to a local anvil; a gateway process whose ETH network runs the real `evm` driver in
// hot custody (its hot wallet is the collector). The payer subscribes with USDT on ETH, sees the terms before anything is asked of
// the wallet, approves through the wallet, signs the subscription's allowance message (personal_sign,
// forwarded to anvil, which signs for its unlocked dev accounts), sees "Automatic renewals on", and
// the chain shows allowance(payer, collector) equal to the cap.
import type { Page } from '@playwright/test';
import { parseUnits } from 'viem';
import { capture, expect, heading, test } from './support/page-helpers.ts';
import type { E2EGateway } from './support/gateway.ts';
import { injectWallet as injectTestWallet, startWalletRig, type WalletRig, type WalletScript } from './support/test-wallet.ts';
import { PAYER, type TestChain } from '../test/chain/gateway-setup.ts';

test.use({ viewport: { width: 390, height: 844 } });
test.describe.configure({ mode: 'serial' });

let rig: WalletRig;
let chain: TestChain;
let gw: E2EGateway;

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


/** ERC-20 allowance(owner, spender), read from anvil. */
async function allowanceOnChain(owner: string, spender: string): Promise<bigint> {
  const pad = (a: string) => a.slice(2).toLowerCase().padStart(64, '0');
  const res = await fetch(chain.anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: chain.usdt.address, data: `0xdd62ed3e${pad(owner)}${pad(spender)}` }, 'latest'] }),
  });
  return BigInt(((await res.json()) as { result: string }).result);
}

test('subscribe with USDT on ETH, see the terms, approve from the wallet, see it on; the chain holds the cap', async ({ page }) => {
  const wallet = await injectWallet(page);
  const created = await gw.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Pro plan', period: 'weekly', order_id: `e2e-allow-${process.pid}` });
  expect(created, JSON.stringify(created)).toMatchObject({ state: 0 });
  const rec = created.result as { uuid: string; url: string };
  await page.goto(rec.url);
  await expect(heading(page)).toHaveText('Pro plan');
  await page.locator('.option', { hasText: 'Tether' }).getByRole('button').first().click();
  await expect(page.getByRole('heading', { name: 'Pay the first period' })).toBeVisible();

  const terms = (await (await fetch(`${gw.url}/api/pay/recurrence/${rec.uuid}/allowance`)).json()) as { result: { collector: string; cap: string; token: string } };
  const section = page.getByRole('region', { name: 'Approve automatic renewals' });
  await expect(section).toBeVisible();
  await expect(section).toContainText('12 periods');
  await expect(section).toContainText('USDT every week');
  await expect(section).toContainText(terms.result.collector);
  await expect(section).toContainText(`approve ${terms.result.collector} for 0`);
  const button = section.getByRole('button', { name: 'Approve with Test Wallet' });
  await expect(button).toBeVisible();
  expect(wallet.calls.filter((c) => c.method === 'eth_sendTransaction')).toHaveLength(0);
  await capture(page, 'recurrence-allowance-terms');

  await button.focus();
  await page.keyboard.press('Enter');
  // The test chain mines on demand: a block now and then until the approval is mined and recorded.
  await expect(async () => {
    await chain.anvil.mine();
    await expect(section.getByRole('status')).toHaveText('Automatic renewals on', { timeout: 2500 });
  }).toPass({ timeout: 30_000 });
  await expect(button).toBeHidden();
  const sent = wallet.calls.filter((c) => c.method === 'eth_sendTransaction');
  expect(sent).toHaveLength(1);
  expect((sent[0]!.params as { to: string }[])[0]!.to.toLowerCase()).toBe(chain.usdt.address.toLowerCase());
  const payer = chain.anvil.account(PAYER).address;
  // The proof of ownership: one personal_sign from the approving address, after the approval.
  const signed = wallet.calls.filter((c) => c.method === 'personal_sign');
  expect(signed).toHaveLength(1);
  expect(String((signed[0]!.params as string[])[1]).toLowerCase()).toBe(payer.toLowerCase());
  expect(Buffer.from(String((signed[0]!.params as string[])[0]).slice(2), 'hex').toString('utf8')).toContain(`Subscription: ${rec.uuid}`);
  expect(wallet.calls.indexOf(signed[0]!)).toBeGreaterThan(wallet.calls.indexOf(sent[0]!));
  expect(await allowanceOnChain(payer, terms.result.collector)).toBe(parseUnits(terms.result.cap, 6));
  const after = (await (await fetch(`${gw.url}/api/pay/recurrence/${rec.uuid}/allowance`)).json()) as { result: { recorded: { address: string; status: string } | null } };
  expect(after.result.recorded).toMatchObject({ address: payer.toLowerCase(), status: 'active' });
});
