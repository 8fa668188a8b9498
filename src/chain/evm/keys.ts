// Spending keys of the EVM driver, derived from the gateway's BIP-39 seed (never stored, never logged).
//   deposit address i   m/44'/coin'/0'/0/i   (the gateway's allocator hands these out; src/chain/address)
//   hot wallet          m/44'/coin'/1'/0/0   (account 1: payouts, refunds, gas for sweeps)
// coin is the registry's coin_type (60 for every EVM network), so the hot wallet has the same
// address on ETH, BSC, POLYGON, ARBITRUM and AVALANCHE; nonces are kept per network.
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

export class EvmKeys {
  readonly #depositBranch: HDKey;
  readonly #hot: PrivateKeyAccount;
  readonly #cache = new Map<number, PrivateKeyAccount>();

  constructor(seed: Uint8Array, readonly coinType: number) {
    const root = HDKey.fromMasterSeed(seed);
    this.#depositBranch = root.derive(`m/44'/${coinType}'/0'/0`);
    this.#hot = account(root.derive(hotWalletPath(coinType)));
    root.wipePrivateData();
  }

  get hot(): PrivateKeyAccount {
    return this.#hot;
  }

  deposit(index: number): PrivateKeyAccount {
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
