// What the payout float asks the Solana node (./payment.ts SolanaPayoutNode), over the driver's
// JSON-RPC client (./rpc.ts), every answer checked by ./answers.ts before it is used (a malformed
// answer is a FaultyNodeError and nothing of it is used).
// Commitments: blockhashes, fees, accounts and preflight at `confirmed` (what a wallet uses); the
// block height that proves a blockhash expired at `finalized`: once a finalized block is past the
// transaction's lastValidBlockHeight, no block of the chain that can still be added could hold it.
import { base64 } from '@scure/base';
import { FaultyNodeError } from '../errors.ts';
import { list, record } from '../node-values.ts';
import { checkSlot, checkStatuses, pubkeyOf, signatureOf, u64 } from './answers.ts';
import type { SignatureStatus, SolanaAccount, SolanaPayoutNode } from './payment.ts';

/** The JSON-RPC client the driver has (./rpc.ts): one call, its result. */
export interface SolanaCaller {
  call(method: string, params: unknown[]): Promise<unknown>;
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
