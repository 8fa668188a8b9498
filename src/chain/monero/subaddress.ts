// A wallet's subaddresses, derived from its primary address and private view key alone (no spend
// key), exactly as a Monero wallet derives them (cryptonote get_subaddress_spend_public_key):
//   m = Hs("SubAddr\0" || a || major (4 bytes LE) || minor (4 bytes LE))
//   D = B + m*G      (the subaddress's public spend key)
//   C = a*D          (its public view key)
// where a is the private view key and B the public spend key. Index (0, 0) is the primary address.
// The wallet finds a payment to (D, C) by the same view key, so any view-only wallet of the
// merchant sees every subaddress the gateway hands out (within its lookahead, docs/custody.md).
import { ed25519 } from '@noble/curves/ed25519.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { encodeMoneroAddress, MoneroAddressError, parseMoneroAddress, type MoneroNetwork } from './address.ts';
import { hashToScalar, parseViewKeyText, scalarToBytes } from './keys.ts';

const PREFIX = new TextEncoder().encode('SubAddr\0');
const MAX_INDEX = 0xffffffff;

function checkIndex(name: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_INDEX) throw new RangeError(`A subaddress ${name} index is a whole number from 0 to ${MAX_INDEX}`);
}

/** m of the formula above, for view key `a` (as its 32 bytes) and the index. */
export function subaddressScalar(viewKey: Uint8Array, major: number, minor: number): bigint {
  checkIndex('major', major);
  checkIndex('minor', minor);
  const data = new Uint8Array(PREFIX.length + 32 + 8);
  data.set(PREFIX);
  data.set(viewKey, PREFIX.length);
  const v = new DataView(data.buffer);
  v.setUint32(PREFIX.length + 32, major, true);
  v.setUint32(PREFIX.length + 36, minor, true);
  return hashToScalar(data);
}

/** A wallet's keys, read once, from which its subaddresses are derived. */
export interface SubaddressKeys {
  network: MoneroNetwork;
  /** The primary address. */
  address: string;
  viewScalar: bigint;
  viewBytes: Uint8Array;
  spendPoint: InstanceType<typeof ed25519.Point>;
}

/** The keys of a primary (standard) address and its private view key; the key is only read here, checking it is the caller's (./keys.ts checkViewKey). */
export function subaddressKeys(address: string, viewKeyHex: string): SubaddressKeys {
  const a = parseMoneroAddress(address);
  if (a.kind !== 'standard') throw new MoneroAddressError(`Subaddresses are derived from a wallet's primary address, not from ${a.kind === 'integrated' ? 'an integrated address' : 'a subaddress'}`);
  const viewScalar = parseViewKeyText(viewKeyHex);
  return { network: a.network, address, viewScalar, viewBytes: scalarToBytes(viewScalar), spendPoint: ed25519.Point.fromBytes(hexToBytes(a.publicSpend)) };
}

/** Subaddress (major, minor) of the wallet's keys; (0, 0) is the primary address itself. */
export function subaddressOf(keys: SubaddressKeys, major: number, minor: number): string {
  const m = subaddressScalar(keys.viewBytes, major, minor);
  if (major === 0 && minor === 0) return keys.address;
  // m is zero with odds 1 in 2^252; the formula then gives D = B, still a valid point.
  const D = m === 0n ? keys.spendPoint : keys.spendPoint.add(ed25519.Point.BASE.multiply(m));
  const C = D.multiply(keys.viewScalar);
  return encodeMoneroAddress(keys.network, 'subaddress', D.toBytes(), C.toBytes());
}

/**
 * Subaddress (major, minor) of the wallet with primary address `address` and private view key
 * `viewKeyHex` (64 hex digits), as its wallet writes it; (0, 0) is `address` itself.
 */
export function moneroSubaddress(address: string, viewKeyHex: string, major: number, minor: number): string {
  return subaddressOf(subaddressKeys(address, viewKeyHex), major, minor);
}
