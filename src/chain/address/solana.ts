import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';

export function solanaAddress(privateKey: Uint8Array): string {
  return base58.encode(ed25519.getPublicKey(privateKey));
}

/** Any 32-byte key, on-curve or not: program-derived addresses (token accounts, PDAs) are valid recipients. */
export function isValidSolana(address: string): boolean {
  if (address.length < 32 || address.length > 44) return false;
  try {
    return base58.decode(address).length === 32;
  } catch {
    return false;
  }
}
