import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58check, isBase58Payload } from './base58.ts';

const TRON_PREFIX = 0x41;

/** 20-byte account id: last 20 bytes of keccak256 of the uncompressed public key (without the 0x04 tag). */
function accountId(publicKey: Uint8Array): Uint8Array {
  const uncompressed = publicKey.length === 65 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

export function evmAddress(publicKey: Uint8Array): string {
  return toChecksumAddress(bytesToHex(accountId(publicKey)));
}

export function tronAddress(publicKey: Uint8Array): string {
  return base58check.encode(concatBytes(Uint8Array.of(TRON_PREFIX), accountId(publicKey)));
}

/** EIP-55 mixed-case checksum of 40 lowercase hex chars. */
export function toChecksumAddress(lowerHex: string): string {
  const hash = bytesToHex(keccak_256(utf8ToBytes(lowerHex)));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    out += parseInt(hash[i]!, 16) >= 8 ? lowerHex[i]!.toUpperCase() : lowerHex[i]!;
  }
  return out;
}

export function isValidEvm(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const body = address.slice(2);
  const lower = body.toLowerCase();
  // Single-case addresses carry no checksum (EIP-55); mixed case must match it exactly.
  if (body === lower || body === body.toUpperCase()) return true;
  return toChecksumAddress(lower) === address;
}

export function isValidTron(address: string): boolean {
  return address.startsWith('T') && isBase58Payload(address, 21, [TRON_PREFIX]);
}
