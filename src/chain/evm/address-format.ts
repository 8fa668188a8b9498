// EVM addresses (the registry's `address_format` "evm"): derived at m/44'/coin'/0'/0/i, written
// as EIP-55 checksummed hex, paid through EIP-681 URIs.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { secpDeriver } from '../address/hd.ts';
import type { AddressFormatRules } from '../address/types.ts';
import { uriQuery } from '../address/uri.ts';

/** 20-byte account id: last 20 bytes of keccak256 of the uncompressed public key (without the 0x04 tag). */
export function accountId(publicKey: Uint8Array): Uint8Array {
  const uncompressed = publicKey.length === 65 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

export function evmAddress(publicKey: Uint8Array): string {
  return toChecksumAddress(bytesToHex(accountId(publicKey)));
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

export const evmAddressFormat: AddressFormatRules = {
  module: { url: import.meta.url, name: 'evmAddressFormat' },
  deriver: (seed, coin) => secpDeriver(seed, 44, coin, false, evmAddress),
  isValid: isValidEvm,
  // EIP-681; amounts are integers in base units.
  paymentUri: ({ scheme, address, encodedAddress, units, contract, native, chainId }) => {
    const chain = chainId === undefined ? '' : `@${chainId}`;
    if (native) return `${scheme}:${encodedAddress}${chain}${uriQuery({ value: units })}`;
    return `${scheme}:${encodeURIComponent(contract!)}${chain}/transfer${uriQuery({ address, uint256: units })}`;
  },
};
