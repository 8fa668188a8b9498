// Solana transactions as the float signs them: a legacy message (no address lookup tables, which
// a payout of one or three instructions never needs) and its ed25519 signatures. The wire format:
//   message  = header [signatures required, read-only signed, read-only unsigned] (3 bytes)
//              compact-u16 n, n account keys (32 bytes each), recent blockhash (32 bytes),
//              compact-u16 m, m instructions [program index, compact-u16 k, k account indices,
//              compact-u16 len, data]
//   tx       = compact-u16 s, s signatures (64 bytes each), message
// Accounts are ordered as the runtime requires (the fee payer first, then signers before
// non-signers, writable before read-only within each) and, within a group, as @solana/kit orders
// them, so the bytes can be checked against that independent client. The transaction's id is its
// first signature (base58): known before anything is broadcast.
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';

export interface AccountMeta {
  /** 32 bytes. */
  key: Uint8Array;
  signer: boolean;
  writable: boolean;
}

export interface Instruction {
  programId: Uint8Array;
  accounts: AccountMeta[];
  data: Uint8Array;
}

/** Solana's packet limit: a transaction larger than this is never accepted by a node. */
export const PACKET_DATA_SIZE = 1232;

/** compact-u16 ("shortvec"): 7 bits a byte, low first, high bit set while more follow. */
export function compactU16(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff) throw new RangeError(`compact-u16 out of range: ${n}`);
  const out: number[] = [];
  let v = n;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if (v === 0) {
      out.push(b);
      return Uint8Array.from(out);
    }
    out.push(b | 0x80);
  }
}

/** Reads a compact-u16 at `at`: its value and the offset after it. */
export function readCompactU16(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const b = bytes[at + i];
    if (b === undefined) throw new RangeError('compact-u16 runs past the end');
    value |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) {
      if (i > 0 && b === 0) throw new RangeError('compact-u16 not in its shortest form');
      if (value > 0xffff) throw new RangeError('compact-u16 out of range');
      return { value, next: at + i + 1 };
    }
  }
  throw new RangeError('compact-u16 longer than 3 bytes');
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function key32(k: Uint8Array, what: string): Uint8Array {
  if (k.length !== 32) throw new RangeError(`${what}: a 32-byte key is required, got ${k.length} bytes`);
  return k;
}

// The order @solana/kit gives accounts of one group (its address comparator): any fixed order is
// valid for the runtime; this one makes the bytes comparable with kit's.
const collator = new Intl.Collator('en', { caseFirst: 'lower', ignorePunctuation: false, localeMatcher: 'best fit', numeric: false, sensitivity: 'variant', usage: 'sort' });

interface Entry {
  key: Uint8Array;
  text: string;
  signer: boolean;
  writable: boolean;
  feePayer: boolean;
}

/** The accounts of a message in their order, each merged over every instruction that names it. */
export function orderedAccounts(feePayer: Uint8Array, instructions: readonly Instruction[]): Entry[] {
  const map = new Map<string, Entry>();
  const add = (key: Uint8Array, signer: boolean, writable: boolean, payer = false) => {
    const text = base58.encode(key32(key, 'account'));
    const e = map.get(text);
    if (e) {
      e.signer ||= signer;
      e.writable ||= writable;
    } else map.set(text, { key, text, signer, writable, feePayer: payer });
  };
  add(feePayer, true, true, true);
  for (const ix of instructions) {
    add(ix.programId, false, false);
    for (const a of ix.accounts) add(a.key, a.signer, a.writable);
  }
  // A program invoked by an instruction cannot also be written by it; none of ours are.
  for (const ix of instructions) {
    if (map.get(base58.encode(ix.programId))!.writable) throw new RangeError('a program id is also a writable account');
  }
  return [...map.values()].sort((a, b) => {
    if (a.feePayer !== b.feePayer) return a.feePayer ? -1 : 1;
    if (a.signer !== b.signer) return a.signer ? -1 : 1;
    if (a.writable !== b.writable) return a.writable ? -1 : 1;
    return collator.compare(a.text, b.text);
  });
}

/** The legacy message bytes (what is signed) of `instructions` paid by `feePayer` at `recentBlockhash`. */
export function compileMessage(feePayer: Uint8Array, instructions: readonly Instruction[], recentBlockhash: Uint8Array): Uint8Array {
  const accounts = orderedAccounts(feePayer, instructions);
  if (accounts.length > 255) throw new RangeError('more than 255 accounts in one message');
  const index = new Map(accounts.map((a, i) => [a.text, i]));
  const signers = accounts.filter((a) => a.signer);
  const header = Uint8Array.from([signers.length, signers.filter((a) => !a.writable).length, accounts.filter((a) => !a.signer && !a.writable).length]);
  const parts: Uint8Array[] = [header, compactU16(accounts.length), ...accounts.map((a) => a.key), key32(recentBlockhash, 'recent blockhash'), compactU16(instructions.length)];
  for (const ix of instructions) {
    parts.push(Uint8Array.of(index.get(base58.encode(ix.programId))!), compactU16(ix.accounts.length), Uint8Array.from(ix.accounts.map((a) => index.get(base58.encode(a.key))!)));
    parts.push(compactU16(ix.data.length), ix.data);
  }
  return concat(parts);
}

/** The number of signatures a message requires (its header's first byte). */
export function requiredSignatures(message: Uint8Array): number {
  const n = message[0];
  if (n === undefined) throw new RangeError('an empty message');
  return n;
}

export interface SignedTransaction {
  /** The wire bytes, as sendTransaction takes them (base64 of these). */
  wire: Uint8Array;
  /** The transaction id: the fee payer's signature in base58. */
  signature: string;
}

/**
 * Signs `message` with the one key it requires (the float pays the fee and owns what it sends):
 * `seed` is the 32-byte ed25519 secret. A message requiring other signers is refused.
 */
export function signMessage(message: Uint8Array, seed: Uint8Array): SignedTransaction {
  if (requiredSignatures(message) !== 1) throw new RangeError('the float signs messages that require its signature only');
  const signature = ed25519.sign(message, key32(seed, 'secret key'));
  const wire = concat([compactU16(1), signature, message]);
  if (wire.length > PACKET_DATA_SIZE) throw new RangeError(`the transaction has ${wire.length} bytes; at most ${PACKET_DATA_SIZE} are accepted`);
  return { wire, signature: base58.encode(signature) };
}

/** The message inside wire bytes (what getFeeForMessage is asked about) and the first signature. */
export function splitTransaction(wire: Uint8Array): { message: Uint8Array; signature: string } {
  const { value, next } = readCompactU16(wire, 0);
  if (value < 1 || wire.length < next + 64 * value + 3) throw new RangeError('not a signed transaction');
  return { message: wire.subarray(next + 64 * value), signature: base58.encode(wire.subarray(next, next + 64)) };
}
