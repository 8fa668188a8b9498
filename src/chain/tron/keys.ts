// Spending keys of the TRON driver (never stored, never logged). In hot custody, from the gateway's
// BIP-39 seed:
//   deposit address i   m/44'/195'/0'/0/i   (handed out by src/chain/allocate.ts)
//   hot wallet          m/44'/195'/1'/0/0   (account 1: payouts, activation and energy for sweeps)
// On a watch-only network the seed is never read: there is no deposit key, and the hot wallet is
// the payout float (./float.ts), or nothing when no float is configured.
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
  return keySigner(key);
}

/** The signer of a secp256k1 secret key (32 bytes). */
export function keySigner(privateKey: Uint8Array): TronSigner {
  if (!secp256k1.utils.isValidSecretKey(privateKey)) throw new Error('not a valid secp256k1 private key');
  const key = Uint8Array.from(privateKey);
  const address = tronAddress(secp256k1.getPublicKey(key, false));
  return {
    address,
    sign(rawData) {
      // 'recovered' format: recovery byte first, then r || s.
      const sig = secp256k1.sign(sha256(rawData), key, { prehash: false, format: 'recovered' });
      return bytesToHex(sig.subarray(1)) + (27 + sig[0]!).toString(16);
    },
  };
}

/** A watch-only network's keys: the float's signer, or null when it has no float. */
export interface TronWatchOnlyKeys {
  float: TronSigner | null;
}

export class TronKeys {
  readonly #depositBranch: HDKey | null;
  readonly #hot: TronSigner | null;
  readonly #cache = new Map<number, TronSigner>();

  /** `source`: the gateway's seed (hot custody), or a watch-only network's float. */
  constructor(source: Uint8Array | TronWatchOnlyKeys, readonly coinType: number) {
    if (!(source instanceof Uint8Array)) {
      this.#depositBranch = null;
      this.#hot = source.float;
      return;
    }
    const root = HDKey.fromMasterSeed(source);
    this.#depositBranch = root.derive(`m/44'/${coinType}'/0'/0`);
    this.#hot = signer(root.derive(tronHotWalletPath(coinType)));
    root.wipePrivateData();
  }

  /** Whether there is an account to pay from (false: watch-only without a float). */
  get canPay(): boolean {
    return this.#hot !== null;
  }

  get hot(): TronSigner {
    if (!this.#hot) throw new Error('This watch-only network has no payout float configured: nothing can be paid from it');
    return this.#hot;
  }

  deposit(index: number): TronSigner {
    if (!this.#depositBranch) throw new Error('A watch-only network holds no deposit key: its deposit addresses are forwarders to the merchant\'s cold address');
    let s = this.#cache.get(index);
    if (!s) {
      s = signer(this.#depositBranch.deriveChild(index));
      if (this.#cache.size >= 1024) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(index, s);
    }
    return s;
  }
}
