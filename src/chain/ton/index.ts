// The TON family: Toncoin and jettons (USDT) on workchain 0. Receiving is watch-only only: every
// payment goes to the merchant's own wallet with a comment naming the invoice (./custody.ts), so
// the gateway never needs a TON key to receive. Its driver (`ton`) reads a toncenter-compatible
// HTTP API v2. No `expectedChain`: those API methods do not say which chain they serve, so the
// driver can only echo the configured `network`, and comparing that with itself would prove nothing.
import type { ChainFamily } from '../family.ts';
import { tonAddressFormat } from '../address/ton.ts';
import { configuredTonNetwork, tonWatchOnly } from './custody.ts';
import { parseTonAddress, tonFriendly, TonAddressError, type TonAddress } from './address.ts';
import { depositKey, parseDepositKey } from '../watch-paths.ts';
import { tonDriverFactory } from './config.ts';
import { TON_DRIVER } from './custody.ts';
import { TON_NODE_LIMITS } from './limits.ts';
import { tonPayoutFloat } from './float.ts';

export { TON_DRIVER } from './custody.ts';

/** The TON family as the composition root lists it. */
export const tonFamily: ChainFamily = {
  name: 'ton',
  drivers: { [TON_DRIVER]: tonDriverFactory },
  addressFormats: { ton: tonAddressFormat },
  custody: ['watch-only'],
  watchOnly: tonWatchOnly,
  payoutFloat: tonPayoutFloat,
  configuredNetwork: configuredTonNetwork,
  canonicalAddress: canonicalTonAddress,
  nodeLimits: TON_NODE_LIMITS,
  // The hash of the merchant wallet's receiving transaction, 64 lower-case hex digits as given.
  txid: (hex) => hex.toLowerCase(),
};

/** An account written in any form, with the test-network flag it was written with (raw has none: mainnet, as nodes print it). */
function anyFlag(text: string): { account: TonAddress; testnet: boolean } | null {
  for (const testnet of [false, true]) {
    try {
      return { account: parseTonAddress(text, { testnet }), testnet };
    } catch (e) {
      if (!(e instanceof TonAddressError)) throw e;
    }
  }
  return null;
}

/**
 * The one written form the gateway matches a reported address on: user-friendly non-bounceable,
 * keeping the test-network flag it was written with, the form deposits are stored in (a deposit
 * key's account, ./custody.ts; the simulated driver's deposit addresses). For a deposit key, its
 * account is rewritten so. Text that is neither is returned as it is, and matches nothing.
 */
export function canonicalTonAddress(address: string): string {
  const key = parseDepositKey(address);
  const parsed = anyFlag(key ? key.account : address);
  if (!parsed) return address;
  const account = tonFriendly(parsed.account, { bounceable: false, testnet: parsed.testnet });
  return key ? depositKey(account, key.reference) : account;
}
