// Every answer of a Solana node the `solana` driver reads, checked before use (src/chain/node-values.ts
// is the rule): slots as safe integers, lamports and token amounts as u64 (a JSON number, or a digit
// string ./rpc.ts kept exact), keys and signatures as canonical base58 of 32 and 64 bytes, every
// account index inside the transaction's account list, balance lists as long as that list, and a
// transaction that is the one asked for. Anything else is a FaultyNodeError: the poll fails,
// nothing is credited or saved, and the network shows as faulty until the node answers sanely.
import { base58 } from '@scure/base';
import { FaultyNodeError } from '../errors.ts';
import { intNumber, list, MAX_HEIGHT, MAX_INDEX, record } from '../node-values.ts';

const U64_MAX = 2n ** 64n - 1n;

function shown(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function fault(method: string, what: string, v: unknown): FaultyNodeError {
  return new FaultyNodeError(method, `the node answered ${shown(v)} for ${what}`);
}

/** A slot (or block height): a safe integer. */
export function slotOf(method: string, what: string, v: unknown): number {
  return intNumber(method, what, v, MAX_HEIGHT);
}

/** A u64 (lamports, a fee): a non-negative JSON integer or a digit string, below 2^64. */
export function u64(method: string, what: string, v: unknown): bigint {
  let n: bigint;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
  else if (typeof v === 'string' && /^(0|[1-9][0-9]{0,19})$/.test(v)) n = BigInt(v);
  else throw fault(method, what, v);
  if (n > U64_MAX) throw fault(method, what, v);
  return n;
}

function base58Of(method: string, what: string, v: unknown, bytes: number): string {
  // 32 bytes are at most 44 characters, 64 bytes at most 88: checked before decoding.
  if (typeof v !== 'string' || v.length === 0 || v.length > (bytes === 32 ? 44 : 88)) throw fault(method, what, v);
  let b: Uint8Array;
  try {
    b = base58.decode(v);
  } catch {
    throw fault(method, what, v);
  }
  if (b.length !== bytes || base58.encode(b) !== v) throw fault(method, what, v);
  return v;
}

/** An account key: canonical base58 of 32 bytes. */
export function pubkeyOf(method: string, what: string, v: unknown): string {
  return base58Of(method, what, v, 32);
}

/** A transaction signature: canonical base58 of 64 bytes. */
export function signatureOf(method: string, what: string, v: unknown): string {
  return base58Of(method, what, v, 64);
}

/** A transaction error as the node writes it: null, a variant name, or a small object. */
function txErr(method: string, v: unknown): unknown | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' && v.length > 0 && v.length <= 100) return v;
  if (typeof v === 'object' && JSON.stringify(v).length <= 2000) return v;
  throw fault(method, 'a transaction error', v);
}

export interface SignatureInfo {
  signature: string;
  slot: number;
  /** Null when the transaction succeeded. */
  err: unknown | null;
  blockTime: number | null;
}

/** getSignaturesForAddress: newest first, at most `limit`, each slot no newer than the one before. */
export function checkSignatures(method: string, v: unknown, limit: number): SignatureInfo[] {
  const rows = list(method, 'a list of signatures', v);
  if (rows.length > limit) throw new FaultyNodeError(method, `${rows.length} signatures answered for a limit of ${limit}`);
  let prev = Infinity;
  return rows.map((r, k) => {
    const o = record(method, `signature entry ${k}`, r);
    const slot = slotOf(method, 'a slot', o.slot);
    if (slot > prev) throw new FaultyNodeError(method, `signatures out of order (slot ${slot} after ${prev})`);
    prev = slot;
    const blockTime = o.blockTime === null || o.blockTime === undefined ? null : intNumber(method, 'a block time', o.blockTime, 2 ** 40);
    return { signature: signatureOf(method, 'a signature', o.signature), slot, err: txErr(method, o.err), blockTime };
  });
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string | null;
  amount: bigint;
  decimals: number;
}

export interface SolanaInstruction {
  programId: string;
  /** The instruction's accounts, as keys. */
  accounts: string[];
  data: Uint8Array;
}

export interface SolanaTx {
  signature: string;
  slot: number;
  err: unknown | null;
  /** Static keys, then the lookup tables' writable and read-only ones (what indexes count over). */
  accountKeys: string[];
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  instructions: SolanaInstruction[];
}

function tokenBalances(method: string, v: unknown, keys: number): TokenBalance[] {
  if (v === null || v === undefined) return [];
  const seen = new Set<number>();
  return list(method, 'token balances', v).map((r) => {
    const o = record(method, 'a token balance', r);
    const accountIndex = intNumber(method, 'a token balance account index', o.accountIndex, MAX_INDEX);
    if (accountIndex >= keys || seen.has(accountIndex)) throw fault(method, 'a token balance account index', o.accountIndex);
    seen.add(accountIndex);
    const ui = record(method, 'uiTokenAmount', o.uiTokenAmount);
    if (typeof ui.amount !== 'string') throw fault(method, 'a token amount', ui.amount);
    return {
      accountIndex,
      mint: pubkeyOf(method, 'a mint', o.mint),
      owner: o.owner === undefined || o.owner === null ? null : pubkeyOf(method, 'a token account owner', o.owner),
      amount: u64(method, 'a token amount', ui.amount),
      decimals: intNumber(method, 'token decimals', ui.decimals, 255),
    };
  });
}

function balances(method: string, what: string, v: unknown, keys: number): bigint[] {
  const l = list(method, what, v);
  if (l.length !== keys) throw new FaultyNodeError(method, `${what}: ${l.length} balances for ${keys} accounts`);
  return l.map((b) => u64(method, what, b));
}

/**
 * getTransaction (encoding `json`): null when the node does not have it (yet); the transaction
 * otherwise, which must carry the signature asked for.
 */
export function checkTransaction(method: string, v: unknown, asked: string): SolanaTx | null {
  if (v === null) return null;
  const o = record(method, 'a transaction', v);
  const meta = record(method, 'meta', o.meta);
  const tx = record(method, 'transaction', o.transaction);
  const sigs = list(method, 'signatures', tx.signatures);
  if (sigs.length === 0 || sigs.length > 64) throw fault(method, 'signatures', tx.signatures);
  const signature = signatureOf(method, 'a signature', sigs[0]);
  if (signature !== asked) throw new FaultyNodeError(method, `asked for transaction ${asked}, answered ${signature}`);
  const msg = record(method, 'message', tx.message);
  const keys = list(method, 'accountKeys', msg.accountKeys).map((k) => pubkeyOf(method, 'an account key', k));
  if (meta.loadedAddresses !== undefined && meta.loadedAddresses !== null) {
    const la = record(method, 'loadedAddresses', meta.loadedAddresses);
    for (const part of [la.writable, la.readonly]) {
      if (part === undefined) continue;
      for (const k of list(method, 'loaded addresses', part)) keys.push(pubkeyOf(method, 'a loaded address', k));
    }
  }
  if (keys.length === 0 || keys.length > 256) throw fault(method, 'accountKeys', keys.length);
  const index = (what: string, i: unknown) => {
    const n = intNumber(method, what, i, MAX_INDEX);
    if (n >= keys.length) throw fault(method, what, i);
    return n;
  };
  const instructions = list(method, 'instructions', msg.instructions).map((r) => {
    const ix = record(method, 'an instruction', r);
    const programId = keys[index('a program index', ix.programIdIndex)]!;
    const accounts = list(method, 'instruction accounts', ix.accounts).map((a) => keys[index('an instruction account index', a)]!);
    if (typeof ix.data !== 'string' || ix.data.length > 4096) throw fault(method, 'instruction data', ix.data);
    let data: Uint8Array;
    try {
      data = base58.decode(ix.data);
    } catch {
      throw fault(method, 'instruction data', ix.data);
    }
    return { programId, accounts, data };
  });
  const err = txErr(method, meta.err);
  return {
    signature,
    slot: slotOf(method, 'a slot', o.slot),
    err,
    accountKeys: keys,
    preBalances: balances(method, 'preBalances', meta.preBalances, keys.length),
    postBalances: balances(method, 'postBalances', meta.postBalances, keys.length),
    preTokenBalances: tokenBalances(method, meta.preTokenBalances, keys.length),
    postTokenBalances: tokenBalances(method, meta.postTokenBalances, keys.length),
    instructions,
  };
}

export interface SignatureStatus {
  slot: number;
  /** Null once rooted (finalized). */
  confirmations: number | null;
  err: unknown | null;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

/** getSignatureStatuses: one entry (or null: unknown) per signature asked. */
export function checkStatuses(method: string, v: unknown, asked: number): (SignatureStatus | null)[] {
  const o = record(method, 'a status answer', v);
  const value = list(method, 'statuses', o.value);
  if (value.length !== asked) throw new FaultyNodeError(method, `${value.length} statuses answered for ${asked} signatures`);
  return value.map((s) => {
    if (s === null) return null;
    const r = record(method, 'a signature status', s);
    const cs = r.confirmationStatus;
    if (cs !== undefined && cs !== null && cs !== 'processed' && cs !== 'confirmed' && cs !== 'finalized') throw fault(method, 'a confirmation status', cs);
    return {
      slot: slotOf(method, 'a slot', r.slot),
      confirmations: r.confirmations === null || r.confirmations === undefined ? null : intNumber(method, 'confirmations', r.confirmations, MAX_HEIGHT),
      err: txErr(method, r.err),
      confirmationStatus: (cs ?? null) as SignatureStatus['confirmationStatus'],
    };
  });
}

/** getSlot / getBlockHeight. */
export function checkSlot(method: string, v: unknown): number {
  return slotOf(method, 'a slot', v);
}
