// What the payout float asks the Solana node (./payment.ts SolanaPayoutNode), over the driver's
// JSON-RPC client (./rpc.ts), every answer checked before it is used (src/chain/node-values.ts is
// the rule: a malformed answer is a FaultyNodeError and nothing of it is used).
// Commitments: blockhashes, fees, accounts and preflight at `confirmed` (what a wallet uses); the
// block height that proves a blockhash expired at `finalized`: once a finalized block is past the
// transaction's lastValidBlockHeight, no block of the chain that can still be added could hold it.
import { base58, base64 } from '@scure/base';
import { FaultyNodeError } from '../errors.ts';
import { intNumber, list, MAX_HEIGHT, record } from '../node-values.ts';
import type { SignatureStatus, SolanaAccount, SolanaPayoutNode } from './payment.ts';

/** The JSON-RPC client the driver has (./rpc.ts): one call, its result. */
export interface SolanaCaller {
  call(method: string, params: unknown[]): Promise<unknown>;
}

const U64_MAX = 2n ** 64n - 1n;
const fault = (method: string, what: string) => new FaultyNodeError(method, `the node answered something that is not ${what}`);
const checkSlot = (method: string, v: unknown): number => intNumber(method, 'a block height', v, MAX_HEIGHT);

/** A u64: a non-negative JSON integer, or a digit string (the client keeps integers past 2^53 exact that way). */
function u64(method: string, what: string, v: unknown): bigint {
  let n: bigint;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
  else if (typeof v === 'string' && /^(0|[1-9][0-9]{0,19})$/.test(v)) n = BigInt(v);
  else throw fault(method, what);
  if (n > U64_MAX) throw fault(method, what);
  return n;
}

/** Canonical base58 of `bytes` bytes (length checked before decoding). */
function base58Of(method: string, what: string, v: unknown, bytes: 32 | 64): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > (bytes === 32 ? 44 : 88)) throw fault(method, what);
  let b: Uint8Array;
  try {
    b = base58.decode(v);
  } catch {
    throw fault(method, what);
  }
  if (b.length !== bytes || base58.encode(b) !== v) throw fault(method, what);
  return v;
}
const pubkeyOf = (method: string, what: string, v: unknown) => base58Of(method, what, v, 32);
const signatureOf = (method: string, what: string, v: unknown) => base58Of(method, what, v, 64);

function checkStatuses(method: string, v: unknown, asked: number): (SignatureStatus | null)[] {
  const value = list(method, 'statuses', record(method, 'a status answer', v).value);
  if (value.length !== asked) throw new FaultyNodeError(method, `${value.length} statuses answered for ${asked} signatures`);
  return value.map((s) => {
    if (s === null) return null;
    const r = record(method, 'a signature status', s);
    const cs = r.confirmationStatus ?? null;
    if (cs !== null && cs !== 'processed' && cs !== 'confirmed' && cs !== 'finalized') throw fault(method, 'a confirmation status');
    const err = r.err ?? null;
    if (err !== null && typeof err !== 'string' && (typeof err !== 'object' || JSON.stringify(err).length > 1000)) throw fault(method, 'a transaction error');
    return {
      slot: checkSlot(method, r.slot),
      confirmations: r.confirmations === null || r.confirmations === undefined ? null : intNumber(method, 'confirmations', r.confirmations, MAX_HEIGHT),
      err,
      confirmationStatus: cs as SignatureStatus['confirmationStatus'],
    };
  });
}

/** The largest account data the float reads (a mint or a token account with extensions). */
const MAX_ACCOUNT_DATA = 16 * 1024;

function accountOf(method: string, v: unknown): SolanaAccount | null {
  const value = record(method, 'an account answer', v).value;
  if (value === null) return null;
  const a = record(method, 'an account', value);
  const data = list(method, 'account data', a.data);
  if (data.length !== 2 || data[1] !== 'base64' || typeof data[0] !== 'string' || data[0].length > (MAX_ACCOUNT_DATA * 4) / 3 + 4) throw new FaultyNodeError(method, 'the account data is not base64 of a sane size');
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(data[0]);
  } catch {
    throw new FaultyNodeError(method, 'the account data is not base64');
  }
  if (typeof a.executable !== 'boolean') throw new FaultyNodeError(method, 'an account without its executable flag');
  return { lamports: u64(method, 'lamports', a.lamports), owner: pubkeyOf(method, 'an owner', a.owner), executable: a.executable, data: bytes };
}

export function rpcPayoutNode(rpc: SolanaCaller): SolanaPayoutNode {
  return {
    async latestBlockhash() {
      const m = 'getLatestBlockhash';
      const value = record(m, 'a blockhash', record(m, 'an answer', await rpc.call(m, [{ commitment: 'confirmed' }])).value);
      return { blockhash: pubkeyOf(m, 'a blockhash', value.blockhash), lastValidBlockHeight: checkSlot(m, value.lastValidBlockHeight) };
    },
    async blockHeight() {
      return checkSlot('getBlockHeight', await rpc.call('getBlockHeight', [{ commitment: 'finalized' }]));
    },
    async feeForMessage(message) {
      const m = 'getFeeForMessage';
      const value = record(m, 'an answer', await rpc.call(m, [base64.encode(message), { commitment: 'confirmed' }])).value;
      return value === null ? null : u64(m, 'a fee', value);
    },
    async sendTransaction(wire) {
      const m = 'sendTransaction';
      signatureOf(m, 'a signature', await rpc.call(m, [base64.encode(wire), { encoding: 'base64', preflightCommitment: 'confirmed' }]));
    },
    async signatureStatuses(signatures): Promise<(SignatureStatus | null)[]> {
      const m = 'getSignatureStatuses';
      return checkStatuses(m, await rpc.call(m, [signatures, { searchTransactionHistory: true }]), signatures.length);
    },
    async accountInfo(address) {
      const m = 'getAccountInfo';
      return accountOf(m, await rpc.call(m, [address, { encoding: 'base64', commitment: 'confirmed' }]));
    },
    async rentExemption(size) {
      const m = 'getMinimumBalanceForRentExemption';
      return u64(m, 'lamports', await rpc.call(m, [size]));
    },
  };
}
