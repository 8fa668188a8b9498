// The Solana family: SOL and SPL tokens (USDC, USDT). Receiving is watch-only only: every invoice is
// a Solana Pay transfer request to the merchant's own wallet with a reference key naming the invoice
// (./custody.ts), so the gateway never needs a Solana key to receive. The `solana` driver reads a
// Solana JSON-RPC node.
import { base58 } from '@scure/base';
import { sha512 } from '@noble/hashes/sha2.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { NetworkConfig } from '../../config.ts';
import type { CurrencyDef, NetworkDef } from '../../registry/index.ts';
import type { ChainFamily, PaymentTarget } from '../family.ts';
import { depositKey, parseDepositKey } from '../watch-paths.ts';
import { solanaAddressFormat } from './address-format.ts';
import { parseSolanaKey, SolanaAddressError, solanaKeyText } from './address.ts';
import { configuredSolanaNetwork, SOLANA_DRIVER, solanaWatchOnly } from './custody.ts';
import { solanaDriverFactory } from './config.ts';
import { SOLANA_NODE_LIMITS } from './limits.ts';
import { solanaPayoutFloat } from './float.ts';

export { SOLANA_DRIVER } from './custody.ts';

/** The Solana family as the composition root lists it. */
export const solanaFamily: ChainFamily = {
  name: 'solana',
  drivers: { [SOLANA_DRIVER]: solanaDriverFactory },
  addressFormats: { solana: solanaAddressFormat },
  custody: ['watch-only'],
  watchOnly: solanaWatchOnly,
  payoutFloat: solanaPayoutFloat,
  configuredNetwork: configuredSolanaNetwork,
  canonicalAddress: canonicalSolanaAddress,
  txid: solanaTxid,
  paymentTarget: solanaPaymentTarget,
  nodeLimits: SOLANA_NODE_LIMITS,
};

/**
 * The mint a payment is asked in (the Solana Pay link's `spl-token`): the operator's `tokens`
 * override of the registry's, the one the driver watches. Solana has no chain id.
 */
export function solanaPaymentTarget(_network: NetworkDef, cfg: NetworkConfig | undefined, currency: CurrencyDef): PaymentTarget {
  if (currency.native) return { chainId: undefined, contract: undefined };
  const override = Object.entries(cfg?.tokens ?? {}).find(([code]) => code.toUpperCase() === currency.code.toUpperCase())?.[1];
  return { chainId: undefined, contract: typeof override === 'string' ? override : currency.contract };
}

/**
 * A transaction id in Solana's shape, a 64-byte ed25519 signature in base58, from 32 bytes written
 * as hex (what the simulator and test webhooks make up): the bytes and the SHA-512 of them, so the
 * same hex always gives the same signature.
 */
export function solanaTxid(hex: string): string {
  const bytes = /^(?:[0-9a-fA-F]{2})+$/.test(hex) ? hexToBytes(hex) : new TextEncoder().encode(hex);
  return base58.encode(sha512(bytes));
}

/**
 * The one written form of an address: base58 has a single spelling of each key, so this only
 * checks it; a deposit key's account likewise. Text that is neither is returned as it is, and
 * matches nothing.
 */
export function canonicalSolanaAddress(address: string): string {
  const key = parseDepositKey(address);
  try {
    const account = solanaKeyText(parseSolanaKey(key ? key.account : address));
    return key ? depositKey(account, key.reference) : account;
  } catch (e) {
    if (e instanceof SolanaAddressError) return address;
    throw e;
  }
}
