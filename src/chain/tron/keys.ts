// Spending keys of the TRON driver, from the gateway's BIP-39 seed (never stored, never logged):
//   deposit address i   m/44'/195'/0'/0/i   (handed out by src/chain/allocate.ts)
//   hot wallet          m/44'/195'/1'/0/0   (account 1: payouts, activation and energy for sweeps)
// A TRON signature is secp256k1 over sha256(raw_data), 65 bytes r || s || v with v = 27 + recovery.
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { tronAddress } from './address-format.ts';

export function tronHotWalletPath(coinType: number): string {
  return `m/44'/${coinType}'/1'/0/0`;
}

/** The index of a deposit path of `coinType` (m/44'/coin'/0'/0/i), or null. */
export function parseTronDepositIndex(path: string, coinType: number): number | null {
  const m = /^m\/44'\/(\d+)'\/0'\/0\/(\d+)$/.exec(path);
  if (!m || Number(m[1]) !== coinType) return null;
  const i = Number(m[2]);
  return Number.isSafeInteger(i) && i < 0x80000000 ? i : null;
}

export interface TronSigner {
  readonly address: string;
  /** 65-byte signature of sha256(rawData), hex. */
  sign(rawData: Uint8Array): string;
}

function signer(node: HDKey): TronSigner {
  const key = node.privateKey;
  if (!key || !node.publicKey) throw new Error('BIP-32 derivation produced no private key');
  const address = tronAddress(secp256k1.Point.fromBytes(node.publicKey).toBytes(false));
  return {
    address,
    sign(rawData) {
      // 'recovered' format: recovery byte first, then r || s.
      const sig = secp256k1.sign(sha256(rawData), key, { prehash: false, format: 'recovered' });
      return bytesToHex(sig.subarray(1)) + (27 + sig[0]!).toString(16);
    },
  };
}

export class TronKeys {
  readonly #depositBranch: HDKey;
  readonly #hot: TronSigner;
  readonly #cache = new Map<number, TronSigner>();

  constructor(seed: Uint8Array, readonly coinType: number) {
    const root = HDKey.fromMasterSeed(seed);
    this.#depositBranch = root.derive(`m/44'/${coinType}'/0'/0`);
    this.#hot = signer(root.derive(tronHotWalletPath(coinType)));
    root.wipePrivateData();
  }

  get hot(): TronSigner {
    return this.#hot;
  }

  deposit(index: number): TronSigner {
    let s = this.#cache.get(index);
    if (!s) {
      s = signer(this.#depositBranch.deriveChild(index));
      if (this.#cache.size >= 1024) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(index, s);
    }
    return s;
  }
}
