import { HDKey } from '@scure/bip32';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';

const HARDENED = 0x80000000;

export function assertIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED) {
    throw new RangeError(`Derivation index must be an integer in [0, 2^31): ${index}`);
  }
}

/**
 * secp256k1 BIP-32 node at m/purpose'/coin'/0'/0 with the private key wiped: address indexes are
 * non-hardened, so children derive from the public node and the cache never holds a spending key.
 */
export function secpChangeNode(seed: Uint8Array, purpose: number, coinType: number): HDKey {
  const root = HDKey.fromMasterSeed(seed);
  const node = root.derive(`m/${purpose}'/${coinType}'/0'/0`);
  root.wipePrivateData();
  return node.wipePrivateData();
}

export function secpChildPublicKey(node: HDKey, index: number): Uint8Array {
  const key = node.deriveChild(index).publicKey;
  if (!key) throw new Error('BIP-32 derivation produced no public key');
  return key; // 33-byte compressed
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
