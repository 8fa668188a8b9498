import { base64, base64url } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { edChild, edDerive } from './hd.ts';
import type { AddressFormatRules } from './types.ts';
import { uriQuery } from './uri.ts';

const BOUNCEABLE = 0x11;
const NON_BOUNCEABLE = 0x51;

/**
 * User-friendly address (TEP-2): tag, workchain 0, 32-byte account hash, CRC16-XMODEM.
 *
 * The account hash here is sha256(publicKey). A real TON wallet's address is the hash of its
 * contract StateInit (wallet code + data containing the key); building that cell tree is out of
 * scope, so these addresses are well-formed but NOT the address of any standard wallet contract
 * (funds sent there could not be moved by this key).
 */
export function tonAddress(publicKey: Uint8Array, bounceable = false): string {
  return tonFriendly(sha256(publicKey), 0, bounceable);
}

export function tonFriendly(hash: Uint8Array, workchain: 0 | -1, bounceable: boolean): string {
  const body = new Uint8Array(36);
  body[0] = bounceable ? BOUNCEABLE : NON_BOUNCEABLE;
  body[1] = workchain & 0xff;
  body.set(hash, 2);
  const crc = crc16(body.subarray(0, 34));
  body[34] = crc >> 8;
  body[35] = crc & 0xff;
  return base64url.encode(body);
}

export function isValidTon(address: string): boolean {
  if (/^(0|-1):[0-9a-fA-F]{64}$/.test(address)) return true;
  let body: Uint8Array;
  if (/^[A-Za-z0-9_-]{48}$/.test(address)) body = base64url.decode(address);
  else if (/^[A-Za-z0-9+/]{48}$/.test(address)) body = base64.decode(address);
  else return false;
  const tag = body[0];
  const workchain = body[1];
  // Tags with the 0x80 testnet flag are rejected by this check too.
  if (tag !== BOUNCEABLE && tag !== NON_BOUNCEABLE) return false;
  if (workchain !== 0x00 && workchain !== 0xff) return false;
  return crc16(body.subarray(0, 34)) === ((body[34]! << 8) | body[35]!);
}

/** CRC-16/XMODEM (poly 0x1021, init 0). */
export function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The format's rules: SLIP-0010 ed25519 keys at m/44'/607'/i'; ton://transfer URIs with amounts in
 * nanotons / jetton base units. No family of this repository runs these networks yet (only the
 * simulated driver does), so the format is kept here, shared, until one does.
 */
export const tonAddressFormat: AddressFormatRules = {
  module: { url: import.meta.url, name: 'tonAddressFormat' },
  deriver: (seed, coin) => {
    const parent = edDerive(seed, [44, coin]);
    return (index) => ({ address: tonAddress(ed25519.getPublicKey(edChild(parent, index).key)), path: `m/44'/${coin}'/${index}'` });
  },
  isValid: isValidTon,
  // The comment goes in `text` (what TON wallets put in the message body); for a jetton, `jetton`
  // names the master and `amount` is in the jetton's base units.
  paymentUri: ({ scheme, encodedAddress, units, contract, reference }) => `${scheme}://transfer/${encodedAddress}${uriQuery({ jetton: contract, amount: units, text: reference })}`,
};
