// Spending keys of the EVM driver (never stored, never logged). In hot custody, from the gateway's
// BIP-39 seed:
//   deposit address i   m/44'/coin'/0'/0/i   (the gateway's allocator hands these out; src/chain/address)
//   hot wallet          m/44'/coin'/1'/0/0   (account 1: payouts, refunds, gas for sweeps)
// coin is the registry's coin_type (60 for every EVM network), so the hot wallet has the same
// address on ETH, BSC, POLYGON, ARBITRUM and AVALANCHE; nonces are kept per network.
// On a watch-only network the seed is never read: there is no deposit key, and the hot wallet is
// the payout float's account (./float.ts), or nothing when no float is configured.
import { HDKey } from '@scure/bip32';
import { bytesToHex } from '@noble/hashes/utils.js';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

export function hotWalletPath(coinType: number): string {
  return `m/44'/${coinType}'/1'/0/0`;
}

export function depositPath(coinType: number, index: number): string {
  return `m/44'/${coinType}'/0'/0/${index}`;
}

/** The index of a deposit path of `coinType` (m/44'/coin'/0'/0/i), or null. */
export function parseDepositIndex(path: string, coinType: number): number | null {
  const m = /^m\/44'\/(\d+)'\/0'\/0\/(\d+)$/.exec(path);
  if (!m || Number(m[1]) !== coinType) return null;
  const i = Number(m[2]);
  return Number.isSafeInteger(i) && i < 0x80000000 ? i : null;
}

/** A watch-only network's keys: the float's account, or null when it has no float. */
export interface WatchOnlyKeys {
  float: PrivateKeyAccount | null;
}

export class EvmKeys {
  readonly #depositBranch: HDKey | null;
  readonly #hot: PrivateKeyAccount | null;
  readonly #cache = new Map<number, PrivateKeyAccount>();

  /** `source`: the gateway's seed (hot custody), or a watch-only network's float. */
  constructor(source: Uint8Array | WatchOnlyKeys, readonly coinType: number) {
    if (!(source instanceof Uint8Array)) {
      this.#depositBranch = null;
      this.#hot = source.float;
      return;
    }
    const root = HDKey.fromMasterSeed(source);
    this.#depositBranch = root.derive(`m/44'/${coinType}'/0'/0`);
    this.#hot = account(root.derive(hotWalletPath(coinType)));
    root.wipePrivateData();
  }

  /** Whether there is an account to pay from (false: watch-only without a float). */
  get canPay(): boolean {
    return this.#hot !== null;
  }

  /** The account payouts, refunds (and, in hot custody, sweeps' gas) come from. */
  get hot(): PrivateKeyAccount {
    if (!this.#hot) throw new Error('This watch-only network has no payout float configured: nothing can be paid from it');
    return this.#hot;
  }

  deposit(index: number): PrivateKeyAccount {
    if (!this.#depositBranch) throw new Error('A watch-only network holds no deposit key: its deposit addresses are forwarders to the merchant\'s cold address');
    let a = this.#cache.get(index);
    if (!a) {
      a = account(this.#depositBranch.deriveChild(index));
      if (this.#cache.size >= 1024) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(index, a);
    }
    return a;
  }
}

function account(node: HDKey): PrivateKeyAccount {
  if (!node.privateKey) throw new Error('BIP-32 derivation produced no private key');
  return privateKeyToAccount(`0x${bytesToHex(node.privateKey)}`);
}
