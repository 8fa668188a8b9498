// base58check as the Bitcoin family defines it (double SHA-256 checksum), shared by the formats
// that borrowed it (TRON). The Bitcoin family's own addresses live in src/chain/bitcoin/address.ts.
import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';

export const base58check = createBase58check(sha256);

/** base58check with `length` payload bytes whose first byte is one of `versions`. */
export function isBase58Payload(address: string, length: number, versions: number[]): boolean {
  if (address.length < 25 || address.length > 40) return false; // also bounds base58's quadratic decode
  try {
    const payload = base58check.decode(address);
    return payload.length === length && versions.includes(payload[0]!);
  } catch {
    return false;
  }
}
