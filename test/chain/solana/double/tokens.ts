// Token balances as the RPC reports them in meta.pre/postTokenBalances: for every account key that
// is an initialized SPL Token or Token-2022 account, its index, mint, owner, program and amount
// with the mint's decimals, all read from the account data LiteSVM holds.
import type { LiteSVM } from 'litesvm';
import { getAddressDecoder, type Address } from '@solana/kit';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

const addr = getAddressDecoder();

function u64le(b: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[at + i]!);
  return v;
}

/** The mint's decimals (byte 44 of a mint account), or null when the account is not a mint. */
export function mintDecimals(svm: LiteSVM, mint: string): number | null {
  const m = svm.getAccount(mint as Address);
  if (!m.exists || m.data.length < 82) return null;
  const owner = String(m.programAddress);
  if (owner !== TOKEN_PROGRAM && owner !== TOKEN_2022_PROGRAM) return null;
  return m.data[44]!;
}

export function readTokenAccount(owner: string, data: Uint8Array): { mint: string; owner: string; amount: bigint } | null {
  if (owner !== TOKEN_PROGRAM && owner !== TOKEN_2022_PROGRAM) return null;
  // 165 bytes for SPL Token; Token-2022 adds an account-type byte and extensions after them.
  if (data.length < 165 || (owner === TOKEN_PROGRAM && data.length !== 165)) return null;
  if (data[108] === 0) return null; // state: uninitialized
  return { mint: addr.decode(data.subarray(0, 32)), owner: addr.decode(data.subarray(32, 64)), amount: u64le(data, 64) };
}

export function readTokenBalance(svm: LiteSVM, accountIndex: number, programId: string, data: Uint8Array): TokenBalance | null {
  const t = readTokenAccount(programId, data);
  if (!t) return null;
  const decimals = mintDecimals(svm, t.mint);
  if (decimals === null) return null;
  return { accountIndex, mint: t.mint, owner: t.owner, programId, amount: t.amount, decimals };
}

/** uiTokenAmount as the RPC renders it. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  const uiAmountString = frac ? `${whole}.${frac}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}
