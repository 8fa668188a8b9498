// The Bitcoin-like address formats (the registry's `address_format` "bitcoin", "litecoin",
// "dogecoin"): deposit keys from ./keys.ts (BIP-84 native segwit where the coin has it, else
// BIP-44 P2PKH), each chain's prefixes from ./params.ts, BIP-21 payment URIs.
import type { AddressFormatRules, Deriver } from '../address/types.ts';
import { uriQuery } from '../address/uri.ts';
import { isValidPayee } from './address.ts';
import { BitcoinKeys } from './keys.ts';
import { chainParams, type BitcoinCoin } from './params.ts';

function rules(coin: BitcoinCoin, name: string): AddressFormatRules {
  return {
    module: { url: import.meta.url, name },
    deriver: (seed, coinType, chain) => {
      const keys = new BitcoinKeys(seed, chainParams(coin, chain), coinType);
      const one: Deriver = (index) => {
        const { address, path } = keys.deposit(index);
        return { address, path };
      };
      one.many = (start, count) => keys.depositRange(start, count).map(({ address, path }) => ({ address, path }));
      return one;
    },
    isValid: (address, chain) => isValidPayee(chainParams(coin, chain), address),
    // BIP-21; wallets read its amount from the QR too.
    paymentUri: ({ scheme, encodedAddress, coins, native }) => (native ? `${scheme}:${encodedAddress}${uriQuery({ amount: coins })}` : null),
    qrCarriesUri: true,
  };
}

export const bitcoinAddressFormat = rules('bitcoin', 'bitcoinAddressFormat');
export const litecoinAddressFormat = rules('litecoin', 'litecoinAddressFormat');
export const dogecoinAddressFormat = rules('dogecoin', 'dogecoinAddressFormat');
