// Paying an EVM invoice from a browser wallet (EIP-1193): connect, switch to the invoice's chain
// (adding it when the wallet lacks it), check the balance, send exactly the amount due. Nothing
// else is asked of the wallet to pay an invoice: no approval, no message to sign. Amounts are bigint base units
// from decimal strings, never JS numbers. Loaded only with ./evm-pay.tsx, and with
// ./recurrence-allowance.tsx for the one approval automatic renewals ask (approveWithWallet, or
// permitWithWallet where the token has EIP-2612 permit) and the message signed to prove the
// approving address is the payer's (signWithWallet).
import { PERMIT_TYPES } from '../contracts/permit.ts';
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

export type WalletProblem = 'rejected' | 'wrong_chain' | 'insufficient' | 'gone' | 'failed' | 'timeout';

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

// Automatic renewals (./recurrence-allowance.tsx): approve(collector, total) on the token, mined,
// or a signed EIP-2612 permit the gateway submits.
/** ERC-20 `approve(address,uint256)`. */
export const APPROVE_SELECTOR = '0x095ea7b3';
/** ERC-20 `allowance(address,address)`. */
const ALLOWANCE_SELECTOR = '0xdd62ed3e';
/** EIP-2612 `nonces(address)`. */
const NONCES_SELECTOR = '0x7ecebe00';

/** How long the page waits for an approval (or permit) transaction to be mined before saying so. */
export const MINE_TIMEOUT_MS = 10 * 60_000;

/** Calldata of `approve(spender, units)`. */
export function approveData(spender: string, units: bigint): string {
  if (units < 0n || units >= 1n << 256n) throw new Error('amount out of range');
  return APPROVE_SELECTOR + addressWord(spender) + word(units.toString(16));
}

/** 1500000n with 6 decimals -> "1.5" (the inverse of toBaseUnits). */
export function fromBaseUnits(units: bigint, decimals: number): string {
  const digits = units.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface MineWait {
  /** Receipt polling interval. */
  pollMs?: number;
  /** Gives up (WalletError 'timeout') after this long; the transaction may still be mined later. */
  timeoutMs?: number;
}

/**
 * Waits for the transaction's receipt; a reverted one is a failure. After `timeoutMs` it stops
 * with a 'timeout' WalletError: the transaction is not forgotten by the chain, only by this wait,
 * so the caller keeps its hash to look for it again on a retry.
 */
export async function mined(provider: Eip1193Provider, hash: string, wait: MineWait = {}): Promise<void> {
  const pollMs = wait.pollMs ?? 1500;
  const until = Date.now() + (wait.timeoutMs ?? MINE_TIMEOUT_MS);
  for (;;) {
    const receipt = (await call(provider, 'eth_getTransactionReceipt', [hash])) as { status?: unknown } | null;
    if (receipt && typeof receipt === 'object') {
      if (receipt.status === '0x0') throw new WalletError('failed', 'the approval was reverted');
      return;
    }
    if (Date.now() + pollMs > until) throw new WalletError('timeout', `transaction ${hash} not mined yet`);
    await sleep(pollMs);
  }
}

async function readUint(provider: Eip1193Provider, to: string, data: string): Promise<bigint> {
  const answer = await call(provider, 'eth_call', [{ to, data }, 'latest']);
  if (typeof answer !== 'string' || !/^0x[0-9a-f]{1,64}$/i.test(answer)) throw new WalletError('failed', 'the token gave no answer');
  return BigInt(answer);
}

/** Connects and puts the wallet on the token's chain; resolves to the payer's address. */
async function connect(provider: Eip1193Provider, evm: PayerEvm): Promise<string> {
  if (!evm.contract) throw new WalletError('failed', 'not a token');
  const accounts = await call(provider, 'eth_requestAccounts');
  const from = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : null;
  if (!from) throw new WalletError('gone', 'the wallet gave no account');
  await ensureChain(provider, evm);
  return from;
}

/**
 * What to approve: one ERC-20 allowance (owner -> collector) serves every subscription of this
 * payer in this token, and approve/permit set an absolute value, so this subscription's cap is
 * added to what is already allowed (the payer's other subscriptions) rather than replacing it.
 */
export interface ApprovalPlan {
  address: string;
  /** allowance(address, collector) now, base units. */
  current: bigint;
  /** current + this subscription's cap: what approve or permit is given. */
  total: bigint;
  /** Approve-only tokens with an allowance already: approve(0) first (Ethereum USDT reverts non-zero -> non-zero). */
  reset: boolean;
}

/** Connects, switches chain and reads the current allowance: the plan shown to the payer before the wallet is asked to sign anything. */
export async function planApproval(provider: Eip1193Provider, evm: PayerEvm, collector: string, cap: string, permit: boolean): Promise<ApprovalPlan> {
  try {
    const address = await connect(provider, evm);
    const current = await readUint(provider, evm.contract!, ALLOWANCE_SELECTOR + addressWord(address) + addressWord(collector));
    const total = current + toBaseUnits(cap, evm.decimals);
    return { address, current, total, reset: !permit && current > 0n };
  } catch (error) {
    throw classify(error);
  }
}

async function sendApprove(provider: Eip1193Provider, evm: PayerEvm, from: string, collector: string, units: bigint): Promise<string> {
  if (!sameChain(await call(provider, 'eth_chainId'), evm.chain_id)) throw new WalletError('wrong_chain', 'the wallet left the chain');
  const hash = await call(provider, 'eth_sendTransaction', [{ from, to: evm.contract, value: '0x0', data: approveData(collector, units) }]);
  if (typeof hash !== 'string') throw new WalletError('failed', 'the wallet returned no transaction');
  return hash;
}

export interface ApproveOptions extends MineWait {
  /** Told each step before the wallet is asked: 'reset' (approve 0) then 'approve' (the total). */
  onStep?: (step: 'reset' | 'approve') => void;
  /** Told each transaction hash as soon as the wallet gives it (kept to be found again after a timeout). */
  onSent?: (hash: string, step: 'reset' | 'approve') => void;
}

/** Whether the chain (through the wallet) still knows the transaction: pending or mined, not dropped. */
export async function stillKnown(provider: Eip1193Provider, hash: string): Promise<boolean> {
  const tx = await call(provider, 'eth_getTransactionByHash', [hash]).catch(() => null);
  return !!tx && typeof tx === 'object';
}

/**
 * Approves `plan.total` for `collector` on the token (approve(0) first when `plan.reset`) and
 * waits until each is mined; resolves to the approving address and the approval's hash.
 */
export async function approveWithWallet(provider: Eip1193Provider, evm: PayerEvm, collector: string, plan: ApprovalPlan, opts: ApproveOptions = {}): Promise<{ address: string; tx_hash: string }> {
  try {
    if (plan.reset) {
      opts.onStep?.('reset');
      const zero = await sendApprove(provider, evm, plan.address, collector, 0n);
      opts.onSent?.(zero, 'reset');
      await mined(provider, zero, opts);
    }
    opts.onStep?.('approve');
    const hash = await sendApprove(provider, evm, plan.address, collector, plan.total);
    opts.onSent?.(hash, 'approve');
    await mined(provider, hash, opts);
    return { address: plan.address, tx_hash: hash };
  } catch (error) {
    throw classify(error);
  }
}

/** The token's EIP-712 domain (as the allowance terms give it). */
export interface PermitDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

/** How long a signed permit stays usable: the gateway submits it at once. */
const PERMIT_TTL_S = 60 * 60;

/**
 * Asks the wallet for an EIP-2612 Permit (eth_signTypedData_v4: no transaction, no gas) for
 * `collector` to spend `plan.total`, at the owner's current nonce on the token.
 */
export async function permitWithWallet(
  provider: Eip1193Provider,
  evm: PayerEvm,
  domain: PermitDomain,
  collector: string,
  plan: ApprovalPlan,
  nowMs = Date.now(),
): Promise<{ value: string; deadline: number; signature: string }> {
  try {
    const nonce = await readUint(provider, evm.contract!, NONCES_SELECTOR + addressWord(plan.address));
    const deadline = Math.floor(nowMs / 1000) + PERMIT_TTL_S;
    const typed = {
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        Permit: PERMIT_TYPES.Permit,
      },
      primaryType: 'Permit',
      domain,
      message: { owner: plan.address, spender: collector, value: plan.total.toString(), nonce: nonce.toString(), deadline },
    };
    const signature = await call(provider, 'eth_signTypedData_v4', [plan.address, JSON.stringify(typed)]);
    if (typeof signature !== 'string' || !/^0x[0-9a-f]{130}$/i.test(signature)) throw new WalletError('failed', 'the wallet returned no signature');
    return { value: fromBaseUnits(plan.total, evm.decimals), deadline, signature };
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
    // 65 bytes from an account; longer from a smart-contract wallet (EIP-1271).
    if (typeof signature !== 'string' || !/^0x(?:[0-9a-f]{2}){65,2048}$/i.test(signature)) throw new WalletError('failed', 'the wallet returned no signature');
    return signature;
  } catch (error) {
    throw classify(error);
  }
}
