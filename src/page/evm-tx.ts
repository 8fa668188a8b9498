// Paying an EVM invoice from a browser wallet (EIP-1193): connect, switch to the invoice's chain
// (adding it when the wallet lacks it), check the balance, send exactly the amount due. Nothing
// else is asked of the wallet to pay an invoice: no approval, no message to sign. Amounts are bigint base units
// from decimal strings, never JS numbers. Loaded only with ./evm-pay.tsx, and with
// ./recurrence-allowance.tsx for the one approval automatic renewals ask (approveWithWallet) and
// the message signed to prove the approving address is the payer's (signWithWallet).
import type { PayerEvm } from '../contracts/payer.ts';
import type { Eip1193Provider } from './wallets.ts';

/** ERC-20 `transfer(address,uint256)`. */
export const TRANSFER_SELECTOR = '0xa9059cbb';
/** ERC-20 `balanceOf(address)`. */
const BALANCE_OF_SELECTOR = '0x70a08231';

/** "1.5" with 6 decimals -> 1500000n. Refuses what would lose a digit. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!m || !Number.isSafeInteger(decimals) || decimals < 0) throw new Error(`not an amount: ${amount}`);
  const fraction = m[2] ?? '';
  if (/[1-9]/.test(fraction.slice(decimals))) throw new Error(`${amount} has more than ${decimals} decimals`);
  return BigInt(m[1]! + fraction.slice(0, decimals).padEnd(decimals, '0'));
}

export const toHex = (value: bigint | number): string => `0x${value.toString(16)}`;

const word = (hex: string) => hex.padStart(64, '0');

function addressWord(address: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`not an EVM address: ${address}`);
  return word(address.slice(2).toLowerCase());
}

/** Calldata of `transfer(to, units)`. */
export function transferData(to: string, units: bigint): string {
  if (units < 0n || units >= 1n << 256n) throw new Error('amount out of range');
  return TRANSFER_SELECTOR + addressWord(to) + word(units.toString(16));
}

/** The transaction that pays `amount` (decimal string) to the invoice's address. */
export function paymentTransaction(evm: PayerEvm, from: string, to: string, amount: string): { from: string; to: string; value: string; data?: string } {
  const units = toBaseUnits(amount, evm.decimals);
  if (evm.contract) return { from, to: evm.contract, value: '0x0', data: transferData(to, units) };
  addressWord(to);
  return { from, to, value: toHex(units) };
}

export type WalletProblem = 'rejected' | 'wrong_chain' | 'insufficient' | 'gone' | 'failed';

export class WalletError extends Error {
  constructor(
    readonly problem: WalletProblem,
    message: string,
  ) {
    super(message);
    this.name = 'WalletError';
  }
}

function codeOf(error: unknown): number | undefined {
  const e = error as { code?: unknown; data?: { originalError?: { code?: unknown } } } | null;
  const code = e?.data?.originalError?.code ?? e?.code;
  return typeof code === 'number' ? code : undefined;
}

function messageOf(error: unknown): string {
  const m = (error as { message?: unknown } | null)?.message;
  return typeof m === 'string' && m ? m.slice(0, 200) : String(error).slice(0, 200);
}

/** What went wrong, in the payer's terms (EIP-1193 and EIP-1474 codes, and node messages). */
export function classify(error: unknown): WalletError {
  if (error instanceof WalletError) return error;
  const code = codeOf(error);
  const message = messageOf(error);
  if (code === 4001) return new WalletError('rejected', message);
  if (code === 4900 || code === 4901) return new WalletError('gone', message);
  if (/insufficient funds|exceeds balance|not enough/i.test(message)) return new WalletError('insufficient', message);
  return new WalletError('failed', message);
}

async function call(provider: Eip1193Provider | undefined, method: string, params?: unknown[]): Promise<unknown> {
  if (!provider || typeof provider.request !== 'function') throw new WalletError('gone', 'no provider');
  return params ? provider.request({ method, params }) : provider.request({ method });
}

const sameChain = (answer: unknown, chainId: number) => typeof answer === 'string' && /^0x[0-9a-f]+$/i.test(answer) && BigInt(answer) === BigInt(chainId);

/** Puts the wallet on the invoice's chain, adding the chain when the wallet answers 4902. */
async function ensureChain(provider: Eip1193Provider, evm: PayerEvm): Promise<void> {
  if (sameChain(await call(provider, 'eth_chainId'), evm.chain_id)) return;
  const chainId = toHex(evm.chain_id);
  try {
    await call(provider, 'wallet_switchEthereumChain', [{ chainId }]);
  } catch (error) {
    if (codeOf(error) === 4001) throw new WalletError('rejected', messageOf(error));
    if (codeOf(error) !== 4902 || evm.rpc_urls.length === 0) throw new WalletError(codeOf(error) === 4900 ? 'gone' : 'wrong_chain', messageOf(error));
    try {
      await call(provider, 'wallet_addEthereumChain', [
        {
          chainId,
          chainName: evm.chain_name,
          nativeCurrency: evm.native,
          rpcUrls: evm.rpc_urls,
          ...(evm.explorer_url ? { blockExplorerUrls: [evm.explorer_url] } : {}),
        },
      ]);
    } catch (addError) {
      throw codeOf(addError) === 4001 ? new WalletError('rejected', messageOf(addError)) : new WalletError('wrong_chain', messageOf(addError));
    }
    // Some wallets switch when adding, others need asking again.
    if (!sameChain(await call(provider, 'eth_chainId'), evm.chain_id)) await call(provider, 'wallet_switchEthereumChain', [{ chainId }]);
  }
  if (!sameChain(await call(provider, 'eth_chainId'), evm.chain_id)) throw new WalletError('wrong_chain', 'the wallet is on another chain');
}

async function balance(provider: Eip1193Provider, evm: PayerEvm, owner: string): Promise<bigint | null> {
  const answer = evm.contract
    ? await call(provider, 'eth_call', [{ to: evm.contract, data: BALANCE_OF_SELECTOR + addressWord(owner) }, 'latest'])
    : await call(provider, 'eth_getBalance', [owner, 'latest']);
  return typeof answer === 'string' && /^0x[0-9a-f]+$/i.test(answer) ? BigInt(answer) : null;
}

/**
 * Asks the wallet to pay `amount` of the invoice's currency to `to`; resolves to the transaction
 * hash. Throws a WalletError saying what stopped it.
 */
export async function payWithWallet(provider: Eip1193Provider, evm: PayerEvm, to: string, amount: string): Promise<string> {
  try {
    const accounts = await call(provider, 'eth_requestAccounts');
    const from = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : null;
    if (!from) throw new WalletError('gone', 'the wallet gave no account');
    await ensureChain(provider, evm);
    const tx = paymentTransaction(evm, from, to, amount);
    const have = await balance(provider, evm, from).catch(() => null);
    if (have !== null && have < toBaseUnits(amount, evm.decimals)) throw new WalletError('insufficient', 'balance below the amount due');
    // The payer may have switched chains in the wallet meanwhile.
    if (!sameChain(await call(provider, 'eth_chainId'), evm.chain_id)) throw new WalletError('wrong_chain', 'the wallet left the chain');
    const hash = await call(provider, 'eth_sendTransaction', [tx]);
    if (typeof hash !== 'string') throw new WalletError('failed', 'the wallet returned no transaction');
    return hash;
  } catch (error) {
    throw classify(error);
  }
}

// Automatic renewals (./recurrence-allowance.tsx): approve(collector, cap) on the token, mined.
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

/** The UTF-8 bytes of `text` as 0x-hex (what personal_sign is given). */
export function utf8Hex(text: string): string {
  let hex = '0x';
  for (const b of new TextEncoder().encode(text)) hex += b.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Asks the wallet to sign `message` (EIP-191 personal_sign) with `address`: the proof that the
 * approving address is the payer's (../contracts/allowance-message.ts). Resolves to the signature.
 */
export async function signWithWallet(provider: Eip1193Provider, address: string, message: string): Promise<string> {
  try {
    const signature = await call(provider, 'personal_sign', [utf8Hex(message), address]);
    if (typeof signature !== 'string' || !/^0x[0-9a-f]{130}$/i.test(signature)) throw new WalletError('failed', 'the wallet returned no signature');
    return signature;
  } catch (error) {
    throw classify(error);
  }
}
