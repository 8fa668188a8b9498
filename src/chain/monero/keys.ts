// Monero's private keys, as far as a watch-only gateway touches them: the merchant's private VIEW
// key, which finds the payments to every address of their wallet and cannot spend any. The spend
// key (which can) and the mnemonic seed (which holds the spend key) are refused whatever the
// merchant means by them, and no error repeats what was typed.
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { MoneroAddress } from './address.ts';

/** A key that cannot be accepted; the message says why and never repeats the input. */
export class MoneroKeyError extends Error {
  constructor(
    /** `missing`, `not_key`, `seed`, `spend_key` or `mismatch`. */
    readonly problem: 'missing' | 'not_key' | 'seed' | 'spend_key' | 'mismatch',
    message: string,
  ) {
    super(message);
    this.name = 'MoneroKeyError';
  }
}

/** The order of ed25519's prime subgroup: every Monero private key is a scalar below it. */
export const L = ed25519.Point.Fn.ORDER;

/** A 32-byte little-endian number. */
export function leBytesToBigInt(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

/** A scalar as Monero writes it: 32 bytes, little-endian. */
export function scalarToBytes(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = n;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Monero's hash to a scalar, Hs: Keccak-256 read as a little-endian number, reduced mod L (`sc_reduce32`). */
export function hashToScalar(data: Uint8Array): bigint {
  return leBytesToBigInt(keccak_256(data)) % L;
}

/** The public key of a private scalar: scalar * G, 64 hex digits. */
export function publicKeyOf(scalar: bigint): string {
  return bytesToHex(ed25519.Point.BASE.multiply(scalar).toBytes());
}

/**
 * The private view key a wallet derives from its private spend key: Hs(spend key). For tests and
 * tools that make a wallet; the gateway itself never holds a spend key.
 */
export function viewKeyFromSpendKey(spendKey: Uint8Array): Uint8Array {
  return scalarToBytes(hashToScalar(spendKey));
}

const HEX64 = /^[0-9a-fA-F]{64}$/;
const WORDS = /^[\p{L}'-]+(\s+[\p{L}'-]+)*$/u;
const SEED_WORD_COUNTS = [12, 13, 16, 24, 25];
const WHAT = 'Give your wallet\'s private view key: 64 hex digits (monero-wallet-cli: `viewkey`; the GUI: Account → Keys, "Secret view key")';

/**
 * The private view key as a scalar, checked as text only: 64 hex digits of a reduced, non-zero
 * scalar. A mnemonic seed or anything else is refused, and the message never repeats the input.
 */
export function parseViewKeyText(text: unknown): bigint {
  if (typeof text !== 'string' || text.trim() === '') throw new MoneroKeyError('missing', `The private view key is required. ${WHAT}`);
  const t = text.trim();
  const words = t.split(/\s+/);
  if (words.length > 1 && WORDS.test(t)) {
    const seedish = SEED_WORD_COUNTS.includes(words.length);
    throw new MoneroKeyError('seed', `${seedish ? `This looks like a ${words.length}-word mnemonic seed` : 'These are words'}, not a view key: a seed holds your spend key, so it was not stored. ${WHAT}`);
  }
  if (!HEX64.test(t)) throw new MoneroKeyError('not_key', `This is not a private view key (${t.length > 200 ? 'far too long' : `${t.length} characters`}, not 64 hex digits): nothing was stored. ${WHAT}`);
  const n = leBytesToBigInt(hexToBytes(t));
  if (n >= L) throw new MoneroKeyError('not_key', `This is not a private view key: it is not a reduced scalar (no Monero wallet makes such a key): nothing was stored. ${WHAT}`);
  if (n === 0n) throw new MoneroKeyError('not_key', `This is not a private view key (it is zero): nothing was stored. ${WHAT}`);
  return n;
}

/**
 * The private view key of the wallet whose primary address is `address`, checked against it:
 * viewKey * G must be the address's public view key. A key that gives the public SPEND key is the
 * spend key, refused. Returns the key as 64 lower-case hex digits.
 */
export function checkViewKey(address: MoneroAddress, text: unknown): string {
  const n = parseViewKeyText(text);
  const pub = publicKeyOf(n);
  if (pub === address.publicSpend) {
    throw new MoneroKeyError('spend_key', 'This is the private SPEND key of the wallet, which can spend its funds; give the view key: it was not stored. ' + WHAT);
  }
  if (pub !== address.publicView) {
    throw new MoneroKeyError('mismatch', 'This private view key does not belong to this address (its public key is not the address\'s view key): nothing was stored. Check that the key and the address are of the same wallet');
  }
  return bytesToHex(scalarToBytes(n));
}
