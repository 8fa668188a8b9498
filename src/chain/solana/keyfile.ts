// The payout float's key for Solana, from the operator's key file, in one of the forms Solana tools
// write:
// - a Solana CLI keypair file (what `solana-keygen new` writes): a JSON array of 64 numbers 0..255,
//   the 32-byte ed25519 seed followed by the 32-byte public key;
// - the same 64 bytes in base58 (what Phantom and Solflare export as a "private key");
// - the 32-byte seed alone in base58.
// Where the file carries the public key, it must be the seed's own: a file whose halves disagree is
// damaged or edited, and signing with it would pay from an account nobody expects. Errors say what
// is wrong and never repeat the file's text (JSON.parse's own messages quote it, so they are replaced).
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';

export class SolanaKeyFileError extends Error {
  override name = 'SolanaKeyFileError';
}

export interface SolanaKey {
  /** The 32-byte ed25519 seed (what signs). */
  seed: Uint8Array;
  /** The 32-byte public key: the float's address, in base58. */
  publicKey: Uint8Array;
}

/** What the key file may hold, in words for messages. */
export const SOLANA_KEY_FORMS = 'a Solana CLI keypair file (a JSON array of 64 numbers), a base58 64-byte secret key, or a base58 32-byte seed';

/** The longest base58 text of 64 bytes (88 characters); checked before decoding, which is quadratic. */
const MAX_BASE58 = 88;
/** A keypair file is 64 numbers of at most 3 digits with separators and whitespace: anything much longer is not one. */
const MAX_JSON = 4096;

export function solanaKeyFromFile(text: string): SolanaKey {
  if (typeof text !== 'string') throw new SolanaKeyFileError(`the Solana key file must hold ${SOLANA_KEY_FORMS}`);
  const trimmed = text.trim();
  if (trimmed === '') throw new SolanaKeyFileError(`the Solana key file is empty; it must hold ${SOLANA_KEY_FORMS}`);
  if (trimmed.startsWith('[')) return fromBytes(jsonBytes(trimmed), 'keypair file');
  if (trimmed.length > MAX_BASE58 || !/^[1-9A-HJ-NP-Za-km-z]+$/.test(trimmed)) {
    throw new SolanaKeyFileError(`the Solana key file must hold ${SOLANA_KEY_FORMS}; it holds none of them`);
  }
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(trimmed);
  } catch {
    throw new SolanaKeyFileError(`the Solana key file must hold ${SOLANA_KEY_FORMS}; its base58 does not decode`);
  }
  if (bytes.length === 32) return { seed: bytes, publicKey: ed25519.getPublicKey(bytes) };
  if (bytes.length === 64) return fromBytes(bytes, 'base58 secret key');
  throw new SolanaKeyFileError(`the Solana key file's base58 decodes to ${bytes.length} bytes; a secret key is 64 bytes and a seed 32`);
}

function jsonBytes(text: string): Uint8Array {
  if (text.length > MAX_JSON) throw new SolanaKeyFileError('the Solana keypair file is too long for a JSON array of 64 numbers');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SolanaKeyFileError('the Solana keypair file is not valid JSON (a JSON array of 64 numbers is expected)');
  }
  if (!Array.isArray(value)) throw new SolanaKeyFileError('the Solana keypair file must be a JSON array of 64 numbers');
  if (value.length !== 64) throw new SolanaKeyFileError(`the Solana keypair file must be a JSON array of 64 numbers; it has ${value.length} elements`);
  const bad = value.findIndex((v) => !Number.isInteger(v) || (v as number) < 0 || (v as number) > 255);
  if (bad >= 0) throw new SolanaKeyFileError(`element ${bad + 1} of the Solana keypair file is not a whole number from 0 to 255`);
  return Uint8Array.from(value as number[]);
}

/** The seed of 64 secret-key bytes, after checking their second half is the seed's public key. */
function fromBytes(bytes: Uint8Array, form: string): SolanaKey {
  const seed = bytes.slice(0, 32);
  const publicKey = ed25519.getPublicKey(seed);
  const stated = bytes.subarray(32, 64);
  if (!publicKey.every((b, i) => b === stated[i])) {
    throw new SolanaKeyFileError(`the Solana ${form}'s last 32 bytes are not the public key of its first 32: the file is damaged or not a Solana keypair`);
  }
  return { seed, publicKey };
}
