// The payout float's key for TON, from the operator's key file: a 32-byte ed25519 seed in hex, or
// the 24-word mnemonic TON wallet apps show. TON mnemonics are not BIP-39: the words (same English
// list) are hashed with TON's own scheme, so the key here is the one Tonkeeper or Wallet restore
// from the phrase. Errors say what is wrong and never repeat the file's text.
import { ed25519 } from '@noble/curves/ed25519.js';
import { hmac } from '@noble/hashes/hmac.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { wordlist } from '@scure/bip39/wordlists/english.js';

export class TonKeyFileError extends Error {
  override name = 'TonKeyFileError';
}

const ITERATIONS = 100_000;
const words = new Set(wordlist);

export interface TonKey {
  /** The 32-byte ed25519 seed (what signs). */
  seed: Uint8Array;
  publicKey: Uint8Array;
}

export function tonKeyFromFile(text: string): TonKey {
  const trimmed = text.trim();
  const hex = /^(0x)?([0-9a-fA-F]{64})$/.exec(trimmed);
  if (hex) {
    const seed = hexToBytes(hex[2]!);
    return { seed, publicKey: ed25519.getPublicKey(seed) };
  }
  const phrase = trimmed.toLowerCase().split(/\s+/);
  if (phrase.length !== 24) throw new TonKeyFileError(`the TON key file must hold 64 hex digits (an ed25519 seed) or a 24-word TON mnemonic; it holds ${phrase.length === 1 ? 'neither' : `${phrase.length} words`}`);
  const unknown = phrase.findIndex((w) => !words.has(w));
  if (unknown >= 0) throw new TonKeyFileError(`word ${unknown + 1} of the TON mnemonic is not in the word list`);
  const entropy = hmac(sha512, new TextEncoder().encode(phrase.join(' ')), new Uint8Array(0));
  // TON's checksum: a phrase is a (password-less) TON mnemonic when this hash starts with a zero
  // byte; a BIP-39 phrase almost never passes, and would give a key no TON wallet app uses.
  const check = pbkdf2(sha512, entropy, 'TON seed version', { c: Math.max(1, Math.floor(ITERATIONS / 256)), dkLen: 64 });
  if (check[0] !== 0) throw new TonKeyFileError('the 24 words are not a TON mnemonic (a BIP-39 phrase, a typo, or one protected by a password, which is not supported)');
  const seed = pbkdf2(sha512, entropy, 'TON default seed', { c: ITERATIONS, dkLen: 64 }).slice(0, 32);
  return { seed, publicKey: ed25519.getPublicKey(seed) };
}
