// TRON addresses (the registry's `address_format` "tron"): derived at m/44'/195'/0'/0/i, written
// in base58check with the 0x41 prefix over the account id (the keccak256 hash of the public key).
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { base58check, isBase58Payload } from '../address/base58.ts';
import { secpDeriver } from '../address/hd.ts';
import type { AddressFormatRules } from '../address/types.ts';
import { uriQuery } from '../address/uri.ts';

const TRON_PREFIX = 0x41;

export function tronAddress(publicKey: Uint8Array): string {
  const uncompressed = publicKey.length === 65 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(false);
  const accountId = keccak_256(uncompressed.subarray(1)).subarray(12);
  return base58check.encode(concatBytes(Uint8Array.of(TRON_PREFIX), accountId));
}

export function isValidTron(address: string): boolean {
  return address.startsWith('T') && isBase58Payload(address, 21, [TRON_PREFIX]);
}

export const tronAddressFormat: AddressFormatRules = {
  module: { url: import.meta.url, name: 'tronAddressFormat' },
  deriver: (seed, coin) => secpDeriver(seed, 44, coin, false, tronAddress),
  isValid: isValidTron,
  paymentUri: ({ scheme, encodedAddress, coins, contract }) => `${scheme}:${encodedAddress}${uriQuery({ amount: coins, token: contract })}`,
};
