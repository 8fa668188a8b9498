// Solana account addresses: 32-byte keys written in base58. Two kinds share that form:
// - a wallet's ed25519 public key, a point on the curve: someone holds its private key and can sign;
// - a program-derived address (PDA: associated token accounts, program state), which is made to be
//   OFF the curve, so that no private key exists for it: only its program can move what it holds.
// A merchant receiving into "their wallet" must give the first kind; a token account is found from
// the wallet (associatedTokenAddress), never typed.
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';

/** An address that cannot be accepted; the message says why and never repeats the input. */
export class SolanaAddressError extends Error {
  override name = 'SolanaAddressError';
}

/** Bytes of a public key, a PDA, a mint, a reference. */
export const KEY_BYTES = 32;
/** The longest base58 text of 32 bytes (32 0xff bytes give 44 characters). */
const MAX_KEY_TEXT = 44;
/** The shortest: 32 zero bytes are 32 '1's. */
const MIN_KEY_TEXT = 32;

/** The System Program: creates accounts and moves lamports (the native SOL transfer). */
export const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';
/** The SPL Token program (USDC and USDT on mainnet are its mints). */
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** Token-2022, the SPL Token program with extensions (its own mints and token accounts). */
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** The Associated Token Account program: creates the one token account of a wallet for a mint. */
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
/** The Memo program (v2): a transaction's free-text note. */
export const MEMO_PROGRAM_ID = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

const MAX_SEEDS = 16;
const MAX_SEED_BYTES = 32;
const PDA_MARKER = new TextEncoder().encode('ProgramDerivedAddress');

/**
 * The 32 bytes `text` names, written exactly (callers trim what a person typed). The length is checked before decoding (base58's decode is quadratic in
 * the text's length, so an unbounded input would be a cheap way to burn CPU).
 */
export function parseSolanaKey(text: string): Uint8Array {
  if (typeof text !== 'string') throw new SolanaAddressError('A Solana address is required');
  const a = text;
  if (a.trim() === '') throw new SolanaAddressError('A Solana address is required');
  if (a.length < MIN_KEY_TEXT || a.length > MAX_KEY_TEXT) {
    throw new SolanaAddressError(`A Solana address is 32 to 44 base58 characters; this is ${a.length > 200 ? 'far more' : a.length}`);
  }
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(a);
  } catch {
    throw new SolanaAddressError('A Solana address is written in base58 (no 0, O, I or l, nothing but letters and digits)');
  }
  if (bytes.length !== KEY_BYTES) throw new SolanaAddressError(`A Solana address is 32 bytes; this decodes to ${bytes.length}`);
  return bytes;
}

/** Whether `text` is a well-formed Solana address (any 32-byte key, on the curve or not). */
export function isSolanaKey(text: string): boolean {
  try {
    parseSolanaKey(text);
    return true;
  } catch (e) {
    if (e instanceof SolanaAddressError) return false;
    throw e;
  }
}

/** The base58 text of 32 bytes. */
export function solanaKeyText(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array) || bytes.length !== KEY_BYTES) throw new SolanaAddressError('A Solana address is 32 bytes');
  return base58.encode(bytes);
}

/**
 * Whether the 32 bytes decompress to a point of ed25519: a wallet's public key does, a PDA must not.
 * Decoded as the Solana runtime does (curve25519-dalek's decompression, which like ZIP-215 takes a y
 * coordinate at or above the field's prime and a zero x with its sign bit set), so an address the
 * runtime would refuse as a PDA is never taken for one here, nor the other way round.
 */
export function isOnCurve(bytes: Uint8Array): boolean {
  if (!(bytes instanceof Uint8Array) || bytes.length !== KEY_BYTES) return false;
  try {
    ed25519.Point.fromBytes(bytes, true);
    return true;
  } catch {
    return false;
  }
}

function keyBytes(key: Uint8Array | string): Uint8Array {
  if (typeof key === 'string') return parseSolanaKey(key);
  if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) throw new SolanaAddressError('A Solana address is 32 bytes');
  return key;
}

/**
 * The program-derived address of `seeds` under `programId`, with its bump: sha256 of the seeds, the
 * bump byte, the program id and "ProgramDerivedAddress", the bump counting down from 255 until the
 * hash is off the curve (what `find_program_address` does on chain).
 */
export function findProgramAddress(seeds: readonly Uint8Array[], programId: Uint8Array | string): { address: string; bytes: Uint8Array; bump: number } {
  const program = keyBytes(programId);
  if (seeds.length > MAX_SEEDS - 1) throw new SolanaAddressError(`A program address takes at most ${MAX_SEEDS - 1} seeds besides the bump`);
  for (const s of seeds) {
    if (!(s instanceof Uint8Array) || s.length > MAX_SEED_BYTES) throw new SolanaAddressError(`A seed of a program address is at most ${MAX_SEED_BYTES} bytes`);
  }
  const total = seeds.reduce((n, s) => n + s.length, 0) + 1 + KEY_BYTES + PDA_MARKER.length;
  const buf = new Uint8Array(total);
  let at = 0;
  for (const s of seeds) {
    buf.set(s, at);
    at += s.length;
  }
  const bumpAt = at;
  buf.set(program, bumpAt + 1);
  buf.set(PDA_MARKER, bumpAt + 1 + KEY_BYTES);
  for (let bump = 255; bump >= 0; bump--) {
    buf[bumpAt] = bump;
    const hash = sha256(buf);
    if (!isOnCurve(hash)) return { address: base58.encode(hash), bytes: hash, bump };
  }
  // Each bump has about even odds; 256 misses in a row do not happen for any real seeds.
  throw new SolanaAddressError('No program address exists for these seeds');
}

/** The associated token account of `owner` for `mint` under the token program `tokenProgramId` (SPL Token or Token-2022). */
export function associatedTokenAddress(owner: Uint8Array | string, mint: Uint8Array | string, tokenProgramId: Uint8Array | string = TOKEN_PROGRAM_ID): string {
  return findProgramAddress([keyBytes(owner), keyBytes(tokenProgramId), keyBytes(mint)], ASSOCIATED_TOKEN_PROGRAM_ID).address;
}
