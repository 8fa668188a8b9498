// How Solana writes its addresses and payment requests (the registry's `address_format` "solana").
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { edChild, edDerive } from '../address/hd.ts';
import type { AddressFormatRules } from '../address/types.ts';
import { uriQuery } from '../address/uri.ts';
import { isSolanaKey } from './address.ts';

export function solanaAddress(privateKey: Uint8Array): string {
  return base58.encode(ed25519.getPublicKey(privateKey));
}

/** Any 32-byte key, on-curve or not: program-derived addresses (token accounts, PDAs) are valid recipients. */
export function isValidSolana(address: string): boolean {
  return isSolanaKey(address);
}

/**
 * The format's rules: SLIP-0010 ed25519 keys at m/44'/501'/i'/0' (Phantom, Solflare,
 * solana-keygen; the simulated driver's deposits); payment URIs are Solana Pay transfer requests.
 */
export const solanaAddressFormat: AddressFormatRules = {
  module: { url: import.meta.url, name: 'solanaAddressFormat' },
  deriver: (seed, coin) => {
    const parent = edDerive(seed, [44, coin]);
    return (index) => ({ address: solanaAddress(edChild(edChild(parent, index), 0).key), path: `m/44'/${coin}'/${index}'/0'` });
  },
  isValid: isValidSolana,
  // A Solana Pay transfer request: the recipient is the wallet (for a token, the wallet's associated
  // token account for `spl-token` is where it lands); `amount` in whole coins or tokens, as plain
  // decimal text without an exponent or trailing zeros; `reference` a key the wallet adds to the
  // transfer so the payment can be found; `label` who asks to be paid.
  paymentUri: ({ scheme, encodedAddress, coins, contract, reference, label }) =>
    `${scheme}:${encodedAddress}${uriQuery({ amount: coins, 'spl-token': contract, reference, label })}`,
  referenceInLinkOnly: true,
};
