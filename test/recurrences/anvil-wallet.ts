// An EIP-1193 provider over anvil for the payer's browser wallet: the page's own wallet code
// (src/page/evm-tx.ts) talks to it as to an injected wallet, and anvil signs with its unlocked dev
// account (eth_sendTransaction, personal_sign, eth_signTypedData_v4). anvil runs without
// automining in these tests, so a receipt asked for and not there yet mines a block first, as a
// real chain would eventually.
import { parseUnits } from 'viem';
import type { Anvil, TestToken } from '../chain/evm/anvil.ts';
import { deployToken, startAnvil } from '../chain/evm/anvil.ts';
import { PAYER, type TestChain } from '../chain/gateway-setup.ts';
import type { Eip1193Provider } from '../../src/page/wallets.ts';

export interface AnvilWallet extends Eip1193Provider {
  /** Every method asked, in order. */
  asked: string[];
}

export function anvilWallet(anvil: Anvil, account = anvil.account(PAYER).address, opts: { mineOnReceipt?: boolean } = {}): AnvilWallet {
  const asked: string[] = [];
  return {
    asked,
    async request({ method, params }: { method: string; params?: unknown }) {
      asked.push(method);
      if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account];
      if (method === 'eth_getTransactionReceipt' && opts.mineOnReceipt !== false) {
        const r = await anvil.rpc('eth_getTransactionReceipt', params as unknown[]);
        if (r) return r;
        await anvil.mine();
      }
      return anvil.rpc(method, (params as unknown[] | undefined) ?? []);
    },
  } as AnvilWallet;
}

/** anvil with USDT behaving as Ethereum USDT (approve non-zero -> non-zero reverts) and USDC with EIP-2612 permit; plenty of both for the payer. */
export async function startPermitChain(): Promise<TestChain & { usdt: TestToken; usdc: TestToken }> {
  const anvil = await startAnvil();
  try {
    const usdt = await deployToken(anvil, 'USDT', 6, 'StrictApproveToken');
    const usdc = await deployToken(anvil, 'USDC', 6, 'PermitToken');
    await usdt.mint(anvil.account(PAYER).address, parseUnits('10000000', 6));
    await usdc.mint(anvil.account(PAYER).address, parseUnits('10000000', 6));
    await anvil.mine();
    return { anvil, usdt, usdc };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
