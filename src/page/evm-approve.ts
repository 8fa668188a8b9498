// Automatic renewals from a browser wallet (EIP-1193): connect, switch to the token's chain,
// send `approve(collector, cap)` on the token, wait until it is mined. Only that transaction is
// asked of the wallet. Amounts are bigint base units from decimal strings. Loaded only with
// ./recurrence-allowance.tsx.
import type { PayerEvm } from '../contracts/payer.ts';
import type { Eip1193Provider } from './wallets.ts';
import { WalletError, addressWord, call, classify, ensureChain, sameChain, toBaseUnits, word } from './evm-tx.ts';

/** ERC-20 `approve(address,uint256)`. */
export const APPROVE_SELECTOR = '0x095ea7b3';

/** Calldata of `approve(spender, units)`. */
export function approveData(spender: string, units: bigint): string {
  if (units < 0n || units >= 1n << 256n) throw new Error('amount out of range');
  return APPROVE_SELECTOR + addressWord(spender) + word(units.toString(16));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the transaction's receipt; a reverted one is a failure. */
async function mined(provider: Eip1193Provider, hash: string, pollMs: number): Promise<void> {
  for (;;) {
    const receipt = (await call(provider, 'eth_getTransactionReceipt', [hash])) as { status?: unknown } | null;
    if (receipt && typeof receipt === 'object') {
      if (receipt.status === '0x0') throw new WalletError('failed', 'the approval was reverted');
      return;
    }
    await sleep(pollMs);
  }
}

/**
 * Asks the wallet to approve `collector` for `cap` (decimal string) of the token `evm.contract`,
 * and waits until it is mined; resolves to the approving address and the transaction hash.
 */
export async function approveWithWallet(provider: Eip1193Provider, evm: PayerEvm, collector: string, cap: string, pollMs = 1500): Promise<{ address: string; tx_hash: string }> {
  try {
    if (!evm.contract) throw new WalletError('failed', 'not a token');
    const accounts = await call(provider, 'eth_requestAccounts');
    const from = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : null;
    if (!from) throw new WalletError('gone', 'the wallet gave no account');
    await ensureChain(provider, evm);
    const data = approveData(collector, toBaseUnits(cap, evm.decimals));
    if (!sameChain(await call(provider, 'eth_chainId'), evm.chain_id)) throw new WalletError('wrong_chain', 'the wallet left the chain');
    const hash = await call(provider, 'eth_sendTransaction', [{ from, to: evm.contract, value: '0x0', data }]);
    if (typeof hash !== 'string') throw new WalletError('failed', 'the wallet returned no transaction');
    await mined(provider, hash, pollMs);
    return { address: from, tx_hash: hash };
  } catch (error) {
    throw classify(error);
  }
}
