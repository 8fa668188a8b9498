// The gateway's keys on a Bitcoin-family chain, all from the one HD seed: deposit addresses on the
// external chain m/purpose'/coin'/0'/0/i, change on the internal chain m/purpose'/coin'/0'/1/i
// (BIP-84 P2WPKH for BTC and LTC, BIP-44 P2PKH for DOGE; coin 1 off the main chain). Public
// derivation keeps no spending key in memory; a private key is derived only to sign. The seed is
// asked for on first derivation only: a network that receives watch-only (no key of the gateway
// behind its deposit addresses) and pays nothing never needs it.
import { HDKey } from '@scure/bip32';
import { secpChangeNode, secpChildPoint, type SecpNode } from '../address/hd.ts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { normalizeZ } from '@noble/curves/abstract/curve.js';
import { keyAddress, scriptHex } from './address.ts';
import type { ChainParams } from './params.ts';
import { isWatchOnlyPath } from '../watch-paths.ts';

export interface OwnAddress {
  address: string;
  /** scriptPubKey, hex. */
  script: string;
  path: string;
}

export class BitcoinKeys {
  private readonly nodes: [SecpNode | null, SecpNode | null] = [null, null];
  private readonly seedOf: () => Uint8Array;

  constructor(
    seed: Uint8Array | (() => Uint8Array),
    readonly params: ChainParams,
    readonly coinType: number,
  ) {
    this.seedOf = typeof seed === 'function' ? seed : () => seed;
  }

  private get seed(): Uint8Array {
    return this.seedOf();
  }

  /** m/purpose'/coin'/0' */
  get accountPath(): string {
    return `m/${this.params.purpose}'/${this.coinType}'/0'`;
  }

  deposit(index: number): OwnAddress {
    return this.derive(0, index);
  }

  /** Deposit addresses `start` .. `start + count - 1`, their points made affine together (one
   * field inversion for the batch instead of one each). */
  depositRange(start: number, count: number): OwnAddress[] {
    const node = (this.nodes[0] ??= secpChangeNode(this.seed, this.params.purpose, this.coinType, 0));
    const points = normalizeZ(secp256k1.Point, Array.from({ length: count }, (_, i) => secpChildPoint(node, start + i)));
    return points.map((p, i) => {
      const { address, script } = keyAddress(this.params, p.toBytes(true));
      return { address, script: scriptHex(script), path: `${this.accountPath}/0/${start + i}` };
    });
  }

  change(index: number): OwnAddress {
    return this.derive(1, index);
  }

  derive(chain: 0 | 1, index: number): OwnAddress {
    const node = (this.nodes[chain] ??= secpChangeNode(this.seed, this.params.purpose, this.coinType, chain));
    const { address, script } = keyAddress(this.params, secpChildPoint(node, index).toBytes(true));
    return { address, script: scriptHex(script), path: `${this.accountPath}/${chain}/${index}` };
  }

  /** The private key at `path` (one this class handed out), for signing. */
  privateKey(path: string): Uint8Array {
    if (isWatchOnlyPath(path)) throw new Error(`${path} is a watch-only deposit address: the gateway holds no key for it`);
    const m = /^m\/(\d+)'\/(\d+)'\/0'\/([01])\/(\d+)$/.exec(path);
    if (!m || Number(m[1]) !== this.params.purpose || Number(m[2]) !== this.coinType) {
      throw new Error(`Not a key path of this chain: ${path}`);
    }
    const key = HDKey.fromMasterSeed(this.seed).derive(path);
    if (!key.privateKey) throw new Error(`No private key at ${path}`);
    return key.privateKey;
  }
}
