import { HDKey } from '@scure/bip32';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { normalizeZ } from '@noble/curves/abstract/curve.js';
import type { Deriver } from './types.ts';

const HARDENED = 0x80000000;

export function assertIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED) {
    throw new RangeError(`Derivation index must be an integer in [0, 2^31): ${index}`);
  }
}

/** A public BIP-32 node kept ready for deriving many children: its point stays decompressed. */
export interface SecpNode {
  chainCode: Uint8Array;
  publicKey: Uint8Array;
  point: InstanceType<typeof secp256k1.Point>;
}

/**
 * secp256k1 BIP-32 node at m/purpose'/coin'/0'/change (0: receiving, 1: change) with the private
 * key wiped: address indexes are non-hardened, so children derive from the public node and the
 * cache never holds a spending key.
 */
export function secpChangeNode(seed: Uint8Array, purpose: number, coinType: number, change: 0 | 1 = 0): SecpNode {
  const root = HDKey.fromMasterSeed(seed);
  const node = root.derive(`m/${purpose}'/${coinType}'/0'/${change}`);
  root.wipePrivateData();
  node.wipePrivateData();
  if (!node.publicKey || !node.chainCode) throw new Error('BIP-32 derivation produced no public key');
  return { chainCode: node.chainCode, publicKey: node.publicKey, point: secp256k1.Point.fromBytes(node.publicKey) };
}

/**
 * BIP-32 public child derivation (CKDpub): child = parent + IL·G. Done here rather than through
 * HDKey.deriveChild because that decompresses the parent's key (a modular square root) on every
 * call, and an EVM address then needs the child decompressed again: this keeps points whole and
 * is several times faster per invoice.
 */
export function secpChildPoint(node: SecpNode, index: number): InstanceType<typeof secp256k1.Point> {
  assertIndex(index);
  const data = new Uint8Array(37);
  data.set(node.publicKey, 0);
  new DataView(data.buffer).setUint32(33, index);
  const I = hmac(sha512, node.chainCode, data);
  const il = BigInt(`0x${bytesToHex(I.subarray(0, 32))}`);
  if (il === 0n || il >= secp256k1.Point.Fn.ORDER) throw new Error(`BIP-32: index ${index} gives an invalid key; use the next one`);
  // Variable-time multiplication: IL is computed from the public node (anyone holding the xpub
  // can), so there is no secret for its timing to leak, and it is markedly faster.
  const child = node.point.add(secp256k1.Point.BASE.multiplyUnsafe(il));
  if (child.equals(secp256k1.Point.ZERO)) throw new Error(`BIP-32: index ${index} gives an invalid key; use the next one`);
  return child;
}

/** SLIP-0010 ed25519 node. ed25519 supports hardened derivation only, so caching must keep the private key. */
export interface EdNode {
  key: Uint8Array;
  chainCode: Uint8Array;
}

export function edMaster(seed: Uint8Array): EdNode {
  return split(hmac(sha512, utf8ToBytes('ed25519 seed'), seed));
}

export function edChild(parent: EdNode, index: number): EdNode {
  assertIndex(index);
  const ser = new Uint8Array(4);
  new DataView(ser.buffer).setUint32(0, index + HARDENED);
  return split(hmac(sha512, parent.chainCode, concatBytes(Uint8Array.of(0), parent.key, ser)));
}

/** Hardened path given as plain indexes, e.g. [44, 501] for m/44'/501'. */
export function edDerive(seed: Uint8Array, path: number[]): EdNode {
  return path.reduce(edChild, edMaster(seed));
}

function split(i: Uint8Array): EdNode {
  return { key: i.slice(0, 32), chainCode: i.slice(32) };
}

/**
 * BIP-44 deposit addresses on secp256k1, m/purpose'/coin'/0'/0/i, written by `encode` from the
 * public key (compressed when `compressed`; account-based chains hash the uncompressed one).
 */
export function secpDeriver(seed: Uint8Array, purpose: number, coin: number, compressed: boolean, encode: (pub: Uint8Array) => string): Deriver {
  const node = secpChangeNode(seed, purpose, coin);
  const path = (index: number) => `m/${purpose}'/${coin}'/0'/0/${index}`;
  const one: Deriver = (index) => ({ address: encode(secpChildPoint(node, index).toBytes(compressed)), path: path(index) });
  // A key's bytes need the point's affine coordinates, one field inversion each; a batch shares
  // one inversion among all its points (Montgomery's trick, noble's normalizeZ).
  one.many = (start, count) => {
    const points = Array.from({ length: count }, (_, i) => secpChildPoint(node, start + i));
    return normalizeZ(secp256k1.Point, points).map((p, i) => ({ address: encode(p.toBytes(compressed)), path: path(start + i) }));
  };
  return one;
}
