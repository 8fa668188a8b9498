import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { normalizeZ } from '@noble/curves/abstract/curve.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { AddressFormat, DerivedAddress, Deriver } from './types.ts';
import { edChild, edDerive, secpChangeNode, secpChildPoint } from './hd.ts';
import { BitcoinKeys } from '../bitcoin/keys.ts';
import { isValidPayee } from '../bitcoin/address.ts';
import { chainParams, type BitcoinChain } from '../bitcoin/params.ts';
import { evmAddress, isValidEvm, isValidTron, tronAddress } from './evm.ts';
import { isValidTon, tonAddress } from './ton.ts';
import { isValidSolana, solanaAddress } from './solana.ts';

export type { AddressFormat, DerivedAddress, Deriver, PaymentUriOptions } from './types.ts';
export { paymentUri, qrContent } from './uri.ts';

/**
 * Derives the deposit address at `index` for a BIP-39 seed. See `addressDeriver` for the paths.
 * `chain` picks the Bitcoin family's prefixes (main, test, regtest); other formats ignore it.
 */
export function deriveAddress(format: AddressFormat, seed: Uint8Array, coinType: number, index: number, chain: BitcoinChain = 'main'): DerivedAddress {
  return addressDeriver(format, seed, coinType, chain)(index);
}

const MAX_CACHED = 64;
const derivers = new Map<string, Deriver>();

/**
 * Cached per seed+format+coinType, so only the last path levels are derived per index.
 * Paths:
 *   bitcoin, litecoin  m/84'/coin'/0'/0/i   BIP-84 (P2WPKH bc1q/ltc1q; what wallets import for native segwit)
 *   dogecoin           m/44'/coin'/0'/0/i   BIP-44 P2PKH (src/chain/bitcoin/keys.ts)
 *   evm, tron          m/44'/coin'/0'/0/i   BIP-44
 *   solana             m/44'/501'/i'/0'     SLIP-0010 ed25519 (Phantom, Solflare, solana-keygen)
 *   ton                m/44'/607'/i'        SLIP-0010 ed25519
 */
export function addressDeriver(format: AddressFormat, seed: Uint8Array, coinType: number, chain: BitcoinChain = 'main'): Deriver {
  if (!Number.isSafeInteger(coinType) || coinType < 0 || coinType >= 0x80000000) {
    throw new RangeError(`Invalid coin type: ${coinType}`);
  }
  // Key on a hash so the seed itself is not kept as a string.
  const key = `${format}/${coinType}/${chain}/${bytesToHex(sha256(seed))}`;
  let deriver = derivers.get(key);
  if (!deriver) {
    deriver = createDeriver(format, seed, coinType, chain);
    if (derivers.size >= MAX_CACHED) derivers.delete(derivers.keys().next().value!);
    derivers.set(key, deriver);
  }
  return deriver;
}

function createDeriver(format: AddressFormat, seed: Uint8Array, coin: number, chain: BitcoinChain): Deriver {
  switch (format) {
    case 'bitcoin':
    case 'litecoin':
    case 'dogecoin': {
      const keys = new BitcoinKeys(seed, chainParams(format, chain), coin);
      const one: Deriver = (index) => {
        const { address, path } = keys.deposit(index);
        return { address, path };
      };
      one.many = (start, count) => keys.depositRange(start, count).map(({ address, path }) => ({ address, path }));
      return one;
    }
    case 'evm':
      return secpDeriver(seed, 44, coin, false, evmAddress);
    case 'tron':
      return secpDeriver(seed, 44, coin, false, tronAddress);
    case 'solana': {
      const parent = edDerive(seed, [44, coin]);
      return (index) => ({
        address: solanaAddress(edChild(edChild(parent, index), 0).key),
        path: `m/44'/${coin}'/${index}'/0'`,
      });
    }
    case 'ton': {
      const parent = edDerive(seed, [44, coin]);
      return (index) => ({
        address: tonAddress(ed25519.getPublicKey(edChild(parent, index).key)),
        path: `m/44'/${coin}'/${index}'`,
      });
    }
  }
}

/** `compressed`: Bitcoin-family addresses hash the compressed key; EVM and TRON the uncompressed one. */
function secpDeriver(seed: Uint8Array, purpose: number, coin: number, compressed: boolean, encode: (pub: Uint8Array) => string): Deriver {
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

/** Addresses `start` .. `start + count - 1` of `derive`, in order. */
export function deriveRange(derive: Deriver, start: number, count: number): DerivedAddress[] {
  if (derive.many) return derive.many(start, count);
  return Array.from({ length: count }, (_, i) => derive(start + i));
}

/** `chain`: the Bitcoin family's main, test or regtest; other formats ignore it. */
export function isValidAddress(format: AddressFormat, address: string, chain: BitcoinChain = 'main'): boolean {
  if (typeof address !== 'string' || address.length === 0 || address.length > 100) return false;
  switch (format) {
    case 'bitcoin':
    case 'litecoin':
    case 'dogecoin':
      return isValidPayee(chainParams(format, chain), address);
    case 'evm':
      return isValidEvm(address);
    case 'tron':
      return isValidTron(address);
    case 'ton':
      return isValidTon(address);
    case 'solana':
      return isValidSolana(address);
  }
}
