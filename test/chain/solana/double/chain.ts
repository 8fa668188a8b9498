// The chain behind the Solana JSON-RPC double: LiteSVM executes every transaction (the real
// System, SPL Token, Token-2022 and ATA programs) and holds every account; this file keeps only
// what a node adds around the runtime and LiteSVM does not model:
// - slots and block heights: each executed transaction lands in a new slot (one block each);
//   `advance(n)` moves the head without transactions. A transaction is `confirmed` from its slot on
//   (or `confirmDepth` slots later) and `finalized` once the head is `finalityDepth` slots past it
//   (default 31, the depth of a rooted slot on a real cluster);
// - blockhashes: one per block, valid for 150 blocks after it (lastValidBlockHeight), as the
//   runtime's blockhash queue does. LiteSVM only accepts its single latest blockhash, so its own
//   check is off and this file refuses expired or unknown ones instead;
// - the signature index: per account key (writable or read-only, so a Solana Pay reference key
//   that only appears in an instruction's account list is indexed too), newest first, and each
//   executed transaction's metadata (pre/post lamports and token balances read from LiteSVM before
//   and after execution, the error, the fee). A failed transaction that paid its fee is on chain
//   with meta.err, as on a real cluster; one the runtime refused before charging (no fee payer,
//   already processed, bad signature) is not.
import { createHash } from 'node:crypto';
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import {
  getBase58Decoder,
  getBase58Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
} from '@solana/kit';
import { errorJson } from './errors.ts';
import { readTokenBalance, type TokenBalance } from './tokens.ts';

export const FIRST_SLOT = 300_000_000n;
/** Block height runs behind the slot (skipped slots on a real cluster), so a driver that mixes them up is caught. */
export const SLOT_TO_HEIGHT_GAP = 12_345n;
export const BLOCKHASH_VALIDITY = 150n;
export const LAMPORTS_PER_SIGNATURE = 5000n;

export interface CompiledIx {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface DecodedTx {
  signatures: string[];
  /** Wire bytes, as sent. */
  wire: Uint8Array;
  version: 'legacy' | 0;
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  accountKeys: string[];
  recentBlockhash: string;
  instructions: CompiledIx[];
}

export interface ExecutedTx {
  tx: DecodedTx;
  slot: bigint;
  blockTime: number;
  err: unknown | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logs: string[];
  computeUnits: bigint;
  /** Inner instructions per top-level instruction that made any (CPIs, e.g. the ATA program's). */
  inner: { index: number; instructions: (CompiledIx & { stackHeight: number })[] }[];
}

export type Commitment = 'processed' | 'confirmed' | 'finalized';

const b58enc = getBase58Encoder();
const b58dec = getBase58Decoder();

export const toB58 = (bytes: Uint8Array): string => b58dec.decode(bytes);
export const fromB58 = (s: string): Uint8Array => new Uint8Array(b58enc.encode(s));

/** Decodes a wire transaction; throws on anything malformed (the RPC answers -32602). */
export function decodeWire(wire: Uint8Array): DecodedTx {
  const t = getTransactionDecoder().decode(wire);
  const m = getCompiledTransactionMessageDecoder().decode(t.messageBytes) as unknown as {
    version: 'legacy' | number;
    header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
    staticAccounts: string[];
    lifetimeToken: string;
    instructions?: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[];
    addressTableLookups?: unknown[];
  };
  if (m.version !== 'legacy' && m.version !== 0) throw new Error(`unsupported transaction version ${m.version}`);
  if (m.addressTableLookups && m.addressTableLookups.length > 0) throw new Error('address lookup tables are not supported by the double');
  const accountKeys = m.staticAccounts.map(String);
  const signatures = accountKeys.slice(0, m.header.numSignerAccounts).map((k) => {
    const s = t.signatures[k as Address];
    return s ? toB58(s) : toB58(new Uint8Array(64));
  });
  const instructions = (m.instructions ?? []).map((ix) => {
    const accounts = [...(ix.accountIndices ?? [])];
    if (ix.programAddressIndex >= accountKeys.length || accounts.some((a) => a >= accountKeys.length)) throw new Error('invalid account index');
    return { programIdIndex: ix.programAddressIndex, accounts, data: new Uint8Array(ix.data ?? new Uint8Array(0)) };
  });
  return {
    signatures,
    wire,
    version: m.version === 'legacy' ? 'legacy' : 0,
    header: {
      numRequiredSignatures: m.header.numSignerAccounts,
      numReadonlySignedAccounts: m.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: m.header.numReadonlyNonSignerAccounts,
    },
    accountKeys,
    recentBlockhash: String(m.lifetimeToken),
    instructions,
  };
}

export type SendOutcome =
  | { kind: 'executed'; executed: ExecutedTx }
  | { kind: 'rejected'; err: unknown; logs: string[] }
  | { kind: 'dropped' };

export class SolanaChain {
  readonly svm: LiteSVM;
  /** The newest slot (processed). */
  slot = FIRST_SLOT;
  finalityDepth: bigint;
  confirmDepth: bigint;
  /** While > 0, sendTransaction accepts and returns the signature but the transaction never lands (a lost broadcast). */
  dropSends = 0;
  private readonly bySignature = new Map<string, ExecutedTx>();
  private readonly byAccount = new Map<string, ExecutedTx[]>();
  private readonly blockTime0 = Math.floor(Date.now() / 1000);

  constructor(opts?: { finalityDepth?: number; confirmDepth?: number; svm?: LiteSVM }) {
    this.svm = opts?.svm ?? new LiteSVM().withBlockhashCheck(false);
    this.finalityDepth = BigInt(opts?.finalityDepth ?? 31);
    this.confirmDepth = BigInt(opts?.confirmDepth ?? 0);
    this.svm.warpToSlot(this.slot);
  }

  heightOf(slot: bigint): bigint {
    return slot - SLOT_TO_HEIGHT_GAP;
  }

  /** The head slot as seen at a commitment level. */
  slotAt(c: Commitment): bigint {
    if (c === 'finalized') return this.slot - this.finalityDepth;
    if (c === 'confirmed') return this.slot - this.confirmDepth;
    return this.slot;
  }

  /** The blockhash of the block at a slot (derived, since every slot here is one block). */
  blockhashAt(slot: bigint): string {
    return toB58(createHash('sha256').update(`solana-double-block:${slot}`).digest());
  }

  /** The slot whose block produced a blockhash still in the queue (any age), or null if never issued. */
  private blockhashSlot(hash: string): bigint | null {
    for (let s = this.slot; s >= FIRST_SLOT && s > this.slot - BLOCKHASH_VALIDITY - 400n; s--) if (this.blockhashAt(s) === hash) return s;
    return null;
  }

  isBlockhashValid(hash: string): boolean {
    const s = this.blockhashSlot(hash);
    return s !== null && this.heightOf(this.slot) <= this.heightOf(s) + BLOCKHASH_VALIDITY;
  }

  /** Moves the head by n empty slots (the clock sysvar follows). */
  advance(n = 1): void {
    if (n < 0) throw new Error('advance: n must be >= 0');
    this.slot += BigInt(n);
    this.svm.warpToSlot(this.slot);
  }

  /** Moves the head until every recorded transaction is finalized. */
  finalizeAll(): void {
    this.advance(Number(this.finalityDepth));
  }

  /** Moves the head past the last valid block height of the current latest blockhash. */
  expireBlockhashes(): void {
    this.advance(Number(BLOCKHASH_VALIDITY) + 1);
  }

  blockTimeOf(slot: bigint): number {
    return this.blockTime0 + Number(slot - FIRST_SLOT);
  }

  statusOf(e: ExecutedTx): Commitment {
    if (this.slot - e.slot >= this.finalityDepth) return 'finalized';
    if (this.slot - e.slot >= this.confirmDepth) return 'confirmed';
    return 'processed';
  }

  visibleAt(e: ExecutedTx, c: Commitment): boolean {
    const s = this.statusOf(e);
    if (c === 'processed') return true;
    if (c === 'confirmed') return s !== 'processed';
    return s === 'finalized';
  }

  get(signature: string): ExecutedTx | undefined {
    return this.bySignature.get(signature);
  }

  /** Executed transactions that name an account key, newest first. */
  signaturesOf(account: string): readonly ExecutedTx[] {
    return this.byAccount.get(account) ?? [];
  }

  private snapshot(keys: string[]): { lamports: bigint[]; tokens: TokenBalance[] } {
    const lamports: bigint[] = [];
    const tokens: TokenBalance[] = [];
    keys.forEach((k, i) => {
      const a = this.svm.getAccount(k as Address);
      lamports.push(a.exists ? BigInt(a.lamports) : 0n);
      if (a.exists) {
        const tb = readTokenBalance(this.svm, i, String(a.programAddress), a.data);
        if (tb) tokens.push(tb);
      }
    });
    return { lamports, tokens };
  }

  /** Runs the transaction on a copy of the state (preflight); returns the error or null. */
  simulate(tx: DecodedTx): { err: unknown | null; logs: string[] } {
    const r = this.svm.simulateTransaction(getTransactionDecoder().decode(tx.wire) as never);
    if (r instanceof FailedTransactionMetadata) return { err: errorJson(r.err()), logs: r.meta().logs() };
    return { err: null, logs: r.meta().logs() };
  }

  /** Executes on LiteSVM; records the transaction if it landed (succeeded, or failed after paying its fee). */
  execute(tx: DecodedTx): SendOutcome {
    if (this.dropSends > 0) {
      this.dropSends -= 1;
      return { kind: 'dropped' };
    }
    const pre = this.snapshot(tx.accountKeys);
    const r = this.svm.sendTransaction(getTransactionDecoder().decode(tx.wire) as never);
    const post = this.snapshot(tx.accountKeys);
    const failed = r instanceof FailedTransactionMetadata;
    const meta: TransactionMetadata = failed ? r.meta() : r;
    const feePaid = pre.lamports[0]! > post.lamports[0]!;
    if (failed && !feePaid) return { kind: 'rejected', err: errorJson(r.err()), logs: meta.logs() };
    this.slot += 1n;
    this.svm.warpToSlot(this.slot);
    const executed: ExecutedTx = {
      tx,
      slot: this.slot,
      blockTime: this.blockTimeOf(this.slot),
      err: failed ? errorJson(r.err()) : null,
      fee: LAMPORTS_PER_SIGNATURE * BigInt(tx.header.numRequiredSignatures),
      preBalances: pre.lamports,
      postBalances: post.lamports,
      preTokenBalances: pre.tokens,
      postTokenBalances: post.tokens,
      logs: meta.logs(),
      computeUnits: meta.computeUnitsConsumed(),
      inner: meta
        .innerInstructions()
        .map((list, index) => ({
          index,
          instructions: list.map((ii) => {
            const c = ii.instruction();
            return { programIdIndex: c.programIdIndex(), accounts: [...c.accounts()], data: new Uint8Array(c.data()), stackHeight: ii.stackHeight() };
          }),
        }))
        .filter((g) => g.instructions.length > 0),
    };
    this.bySignature.set(tx.signatures[0]!, executed);
    for (const k of new Set(tx.accountKeys)) {
      const list = this.byAccount.get(k) ?? [];
      list.unshift(executed);
      this.byAccount.set(k, list);
    }
    return { kind: 'executed', executed };
  }
}
