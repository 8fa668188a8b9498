// Browser tests that pay from a browser wallet: a gateway process whose ETH network runs the real
// `evm` driver, in hot custody, against a local anvil (started here, with USDT and USDC deployed);
// and "Test Wallet", an injected EIP-1193 provider (test code only) announced by EIP-6963 that
// forwards to that anvil with an unlocked account (anvil also signs eth_signTypedData_v4 and
// personal_sign for it). Used by page-wallet.spec.ts, page-recurrence-allowance.spec.ts and
// page-recurrence-permit.spec.ts.
import type { Page } from '@playwright/test';
import { startGatewayProcess, type E2EGateway } from './gateway.ts';
import { startChain, PAYER, type TestChain } from '../../test/chain/gateway-setup.ts';
import { CHAIN_ID } from '../../test/chain/evm/anvil.ts';

export interface WalletRig {
  chain: TestChain;
  gw: E2EGateway;
  /** Stops the gateway, then anvil. */
  stop(): Promise<void>;
}

/**
 * Starts anvil (by `start`: the default chain, or another, e.g. with permit tokens) and a gateway
 * whose ETH network pays and receives on it. Takes a while: give beforeAll 120 s.
 */
export async function startWalletRig(start: () => Promise<TestChain> = startChain): Promise<WalletRig> {
  const chain = await start();
  try {
    const eth = {
      driver: 'evm',
      custody: 'hot',
      rpc_url: chain.anvil.url,
      chain_id: CHAIN_ID,
      confirmations: 1,
      tokens: { USDT: chain.usdt.address, USDC: chain.usdc.address },
      start_block: (await chain.anvil.head()) + 1,
      // What a wallet lacking the chain is offered to add it.
      public_rpc_url: chain.anvil.url,
    };
    // Live mode: the static table prices only when named, and these tests run offline.
    const rates = JSON.stringify({ sources: { static: { enabled: true } } });
    const gw = await startGatewayProcess({ env: { SATCHEL_NETWORKS: JSON.stringify({ ETH: eth }), SATCHEL_PAYER_RATE_LIMIT: '100000', SATCHEL_RATES: rates } });
    return {
      chain,
      gw,
      async stop() {
        await gw.stop();
        await chain.anvil.stop();
      },
    };
  } catch (e) {
    await chain.anvil.stop();
    throw e;
  }
}

export interface WalletScript {
  /** Answer eth_sendTransaction with 4001, as when the payer clicks "Reject". */
  reject: boolean;
  calls: Array<{ method: string; params: unknown }>;
}

/**
 * Injects "Test Wallet" into `page` (before its scripts run): starts on chain 1, lacks the anvil
 * chain until it is added; its account is anvil's unlocked PAYER, and what it does not answer itself
 * is forwarded to `chain`'s anvil (which signs for its dev accounts).
 */
export async function injectWallet(page: Page, chain: TestChain): Promise<WalletScript> {
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
