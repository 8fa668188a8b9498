// How Monero writes its addresses and payment requests: three address formats of the registry, one
// per network type (`monero` for mainnet and a `--regtest` daemon, `monero-stagenet`,
// `monero-testnet`): the network's configured `network` setting picks one (./index.ts), so a
// stagenet address is never taken for a mainnet one. A payout may go to any of a network type's
// three kinds (standard, subaddress, integrated); a merchant's receiving address must be standard
// (./custody.ts).
import { bytesToHex } from '@noble/hashes/utils.js';
import { edDerive } from '../address/hd.ts';
import type { AddressFormatRules, Deriver } from '../address/types.ts';
import { isMoneroAddress, type MoneroNetwork } from './address.ts';
import { encodeMoneroAddress } from './address.ts';
import { L, leBytesToBigInt, publicKeyOf, scalarToBytes, viewKeyFromSpendKey } from './keys.ts';
import { subaddressKeys, subaddressOf } from './subaddress.ts';
import { moneroUri } from './uri.ts';

/**
 * A Monero wallet made from the gateway's BIP-39 seed, for the simulated driver (which receives
 * with the gateway's seed; a real Monero network is watch-only): the SLIP-0010 ed25519 key at
 * m/44'/128'/0' reduced mod L is the private spend key (as Monero reduces its own 32-byte seed),
 * its view key is Hs(spend key) as every Monero wallet makes it, and deposit `i` is subaddress
 * (0, i + 1) of that wallet: index 0 is never the primary address.
 */
export function moneroSeedWallet(seed: Uint8Array, coin: number, network: MoneroNetwork): { address: string; viewKey: string } {
  const spend = scalarToBytes(leBytesToBigInt(edDerive(seed, [44, coin, 0]).key) % L);
  const view = viewKeyFromSpendKey(spend);
  const address = encodeMoneroAddress(network, 'standard', publicKeyOf(leBytesToBigInt(spend)), publicKeyOf(leBytesToBigInt(view)));
  return { address, viewKey: bytesToHex(view) };
}

function rulesFor(network: MoneroNetwork, name: string): AddressFormatRules {
  return {
    module: { url: import.meta.url, name },
    deriver: (seed, coin): Deriver => {
      const wallet = moneroSeedWallet(seed, coin, network);
      const keys = subaddressKeys(wallet.address, wallet.viewKey);
      return (index) => {
        if (!Number.isSafeInteger(index) || index < 0 || index >= 0x80000000) throw new RangeError(`Invalid index: ${index}`);
        return { address: subaddressOf(keys, 0, index + 1), path: `m/44'/${coin}'/0'/subaddress/0/${index + 1}` };
      };
    },
    // Every kind a wallet pays: standard, subaddress, integrated; of this network type only.
    isValid: (address) => isMoneroAddress(address, network),
    // The `monero:` URI with the exact amount; a payment is told apart by its subaddress, so no
    // reference rides in it.
    paymentUri: ({ address, coins, native }) => (native ? moneroUri(address, coins === undefined ? {} : { amount: coins }) : null),
    qrCarriesUri: true,
  };
}

export const moneroAddressFormat: AddressFormatRules = rulesFor('mainnet', 'moneroAddressFormat');
export const moneroStagenetAddressFormat: AddressFormatRules = rulesFor('stagenet', 'moneroStagenetAddressFormat');
export const moneroTestnetAddressFormat: AddressFormatRules = rulesFor('testnet', 'moneroTestnetAddressFormat');

/** The registry's address format of each network type. */
export const MONERO_FORMATS = { mainnet: 'monero', stagenet: 'monero-stagenet', testnet: 'monero-testnet' } as const;
