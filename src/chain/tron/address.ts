// TRON addresses in the two spellings the node's HTTP API uses: base58check ("T...", what payers
// and merchants see) and hex with the 0x41 prefix ("41" + 20 bytes, what the node answers unless
// asked for `visible`). The driver keeps base58 everywhere and converts at the API's edge.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { base58check } from '../address/base58.ts';
import { isValidTron } from './address-format.ts';

export const TRON_PREFIX = 0x41;

export class TronAddressError extends Error {}

export function isTronAddress(address: string): boolean {
  return typeof address === 'string' && address.length === 34 && isValidTron(address);
}

/** 21 bytes: 0x41 + account id. */
export function addressBytes(base58: string): Uint8Array {
  if (!isTronAddress(base58)) throw new TronAddressError(`Not a TRON address: ${base58}`);
  return base58check.decode(base58);
}

/** "41..." (42 hex characters, lower case). */
export function toHexAddress(base58: string): string {
  return bytesToHex(addressBytes(base58));
}

/** From "41..." hex (or the 20-byte account id of an EVM-style log topic / ABI word). */
export function fromHexAddress(hex: string): string {
  let h = hex.toLowerCase().replace(/^0x/, '');
  if (h.length === 40) h = `41${h}`;
  if (!/^41[0-9a-f]{40}$/.test(h)) throw new TronAddressError(`Not a TRON hex address: ${hex}`);
  return base58check.encode(hexToBytes(h));
}

/** The 20-byte account id as 40 hex characters (how contracts and logs see an address). */
export function accountIdHex(base58: string): string {
  return toHexAddress(base58).slice(2);
}
