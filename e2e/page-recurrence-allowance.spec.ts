// "Approve automatic renewals" end to end (docs/recurring.md): an injected EIP-1193 provider (test
// code only, as in page-wallet.spec.ts) announced by EIP-6963 and forwarding to a local anvil; a
// gateway process whose ETH network runs the real `evm` driver in hot custody (its hot wallet is
// the collector). The payer subscribes with USDT on ETH, sees the terms before anything is asked of
// the wallet, approves through the wallet, signs the subscription's allowance message (personal_sign,
// forwarded to anvil, which signs for its unlocked dev accounts), sees "Automatic renewals on", and
// the chain shows allowance(payer, collector) equal to the cap.
import type { Page } from '@playwright/test';
import { parseUnits } from 'viem';
import { capture, expect, heading, test } from './support/page-helpers.ts';
import { startGatewayProcess, type E2EGateway } from './support/gateway.ts';
import { startChain, PAYER, type TestChain } from '../test/chain/gateway-setup.ts';
import { CHAIN_ID } from '../test/chain/evm/anvil.ts';

test.use({ viewport: { width: 390, height: 844 } });
test.describe.configure({ mode: 'serial' });

let chain: TestChain;
let gw: E2EGateway;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  chain = await startChain();
  const eth = {
    driver: 'evm',
    custody: 'hot',
    rpc_url: chain.anvil.url,
    chain_id: CHAIN_ID,
    confirmations: 1,
    tokens: { USDT: chain.usdt.address, USDC: chain.usdc.address },
    start_block: (await chain.anvil.head()) + 1,
    public_rpc_url: chain.anvil.url,
  };
  const rates = JSON.stringify({ sources: { static: { enabled: true } } });
  gw = await startGatewayProcess({ env: { SATCHEL_NETWORKS: JSON.stringify({ ETH: eth }), SATCHEL_PAYER_RATE_LIMIT: '100000', SATCHEL_RATES: rates } });
});

test.afterAll(async () => {
  await gw?.stop();
  await chain?.anvil.stop();
});

interface WalletScript {
  /** Answer eth_sendTransaction with 4001, as when the payer clicks "Reject". */
  reject: boolean;
  calls: Array<{ method: string; params: unknown }>;
}

/** Injects "Test Wallet": starts on chain 1, lacks the anvil chain until it is added. */
async function injectWallet(page: Page): Promise<WalletScript> {
  const script: WalletScript = { reject: false, calls: [] };
  const payer = chain.anvil.account(PAYER).address;
  let chainId = 1;
  let added = false;
  await page.exposeFunction('__testWalletRpc', async (method: string, params: unknown[]) => {
    script.calls.push({ method, params });
    const fail = (code: number, message: string) => ({ error: { code, message } });
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [payer] };
      case 'eth_chainId':
        return { result: `0x${chainId.toString(16)}` };
      case 'wallet_switchEthereumChain': {
        const wanted = Number((params[0] as { chainId: string }).chainId);
        if (wanted !== 1 && !added) return fail(4902, 'Unrecognized chain ID');
        chainId = wanted;
        return { result: null };
      }
      case 'wallet_addEthereumChain':
        added = Number((params[0] as { chainId: string }).chainId) === CHAIN_ID;
        return { result: null };
      case 'eth_sendTransaction':
        if (script.reject) return fail(4001, 'User rejected the request.');
        break;
    }
    if (chainId !== CHAIN_ID) return fail(-32603, 'the test wallet only reaches anvil');
    const res = await fetch(chain.anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as { result?: unknown; error?: unknown };
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __testWalletRpc(method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }> };
    const provider = {
      async request({ method, params }: { method: string; params?: unknown }) {
        const answer = await w.__testWalletRpc(method, params ?? []);
        if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
        return answer.result;
      },
    };
    const info = {
      uuid: '5a0c1c3e-0000-4000-8000-000000000001',
      name: 'Test Wallet',
      rdns: 'test.satchel.wallet',
      icon: 'data:image/svg+xml,' + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="6" fill="#6c4cf5"/><path d="M6 9h12v8H6z" fill="#fff"/></svg>'),
    };
    const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
    window.addEventListener('eip6963:requestProvider', announce);
    announce();
  });
  return script;
}


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
