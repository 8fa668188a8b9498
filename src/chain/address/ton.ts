import { base64, base64url } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { edChild, edDerive } from './hd.ts';
import type { AddressFormatRules, NetworkChain } from './types.ts';
import { uriQuery } from './uri.ts';

export const BOUNCEABLE = 0x11;
export const NON_BOUNCEABLE = 0x51;

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

/** The 0x80 bit of the tag: the address is meant for the test network. */
export const TESTNET_FLAG = 0x80;

export function tonFriendly(hash: Uint8Array, workchain: 0 | -1, bounceable: boolean, testnet = false): string {
  const body = new Uint8Array(36);
  body[0] = (bounceable ? BOUNCEABLE : NON_BOUNCEABLE) | (testnet ? TESTNET_FLAG : 0);
  body[1] = workchain & 0xff;
  body.set(hash, 2);
  const crc = crc16(body.subarray(0, 34));
  body[34] = crc >> 8;
  body[35] = crc & 0xff;
  return base64url.encode(body);
}

/** The 36 bytes of a user-friendly address (either base64 alphabet, not mixed), or null when it is not written as one. */
export function friendlyBytes(address: string): Uint8Array | null {
  if (/^[A-Za-z0-9_-]{48}$/.test(address)) return base64url.decode(address);
  if (/^[A-Za-z0-9+/]{48}$/.test(address)) return base64.decode(address);
  return null;
}

/** Whether the body's last two bytes are the CRC16 of the rest. */
export function friendlyCrcOk(body: Uint8Array): boolean {
  return crc16(body.subarray(0, 34)) === ((body[34]! << 8) | body[35]!);
}

/**
 * Raw (`0:` or `-1:` and 64 hex) or user-friendly with a good CRC. A user-friendly address carries
 * a test-network flag: on a network configured for the test chain (`chain` 'test') only flagged
 * ones are accepted, elsewhere only unflagged ones; the raw form has no flag.
 */
export function isValidTon(address: string, chain: NetworkChain = 'main'): boolean {
  if (/^(0|-1):[0-9a-fA-F]{64}$/.test(address)) return true;
  const body = friendlyBytes(address);
  if (!body) return false;
  const tag = body[0]!;
  const workchain = body[1];
  if ((tag & TESTNET_FLAG) !== (chain === 'test' ? TESTNET_FLAG : 0)) return false;
  const kind = tag & ~TESTNET_FLAG;
  if (kind !== BOUNCEABLE && kind !== NON_BOUNCEABLE) return false;
  if (workchain !== 0x00 && workchain !== 0xff) return false;
  return friendlyCrcOk(body);
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
 * The format's rules: SLIP-0010 ed25519 keys at m/44'/607'/i' (the simulated driver's deposits: a
 * real network of the format receives watch-only, paid to the merchant's wallet with a comment);
 * ton://transfer URIs with amounts in nanotons / jetton base units and the comment as `text`.
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
