// The Monero family: XMR. Receiving is watch-only only: the merchant gives their wallet's primary
// address and private view key, and every invoice gets a fresh subaddress of that wallet, derived
// by the gateway (./custody.ts, ./subaddress.ts). Payment links are `monero:` URIs with the exact
// amount (./uri.ts). Addresses are checked against the configured network type: mainnet (also a
// `--regtest` daemon, which writes mainnet addresses), stagenet or testnet, each its own address
// format (./address-format.ts).
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { ChainFamily } from '../family.ts';
import { MONERO_NETWORKS, type MoneroNetwork } from './address.ts';
import { MONERO_FORMATS, moneroAddressFormat, moneroStagenetAddressFormat, moneroTestnetAddressFormat } from './address-format.ts';
import { MONERO_DRIVER, moneroWatchOnly } from './custody.ts';
import { moneroDriverFactory } from './config.ts';
import { MONERO_NODE_LIMITS } from './limits.ts';
import { moneroPayoutFloat } from './float.ts';

export { MONERO_DRIVER } from './custody.ts';

/** The configured network type (`networks.XMR.network`, mainnet when left out); throws a start error naming the setting on anything else. */
export function moneroNetworkSetting(network: Pick<NetworkDef, 'code'>, cfg: NetworkConfig | undefined): MoneroNetwork {
  const v = cfg?.network;
  if (v === undefined) return 'mainnet';
  if (typeof v === 'string' && (MONERO_NETWORKS as readonly string[]).includes(v)) return v as MoneroNetwork;
  throw new Error(`networks.${network.code}.network: one of "mainnet", "stagenet" or "testnet" is required for driver "${MONERO_DRIVER}" (a --regtest daemon writes mainnet addresses: "mainnet")`);
}

/**
 * A Monero network as its settings make it: the network type's address format (so a stagenet
 * address is refused on a mainnet network, for a merchant's address and a payout's destination
 * alike) and, off mainnet, the test chain. Only for the `monero` driver: the simulated one writes mainnet addresses.
 */
export function configuredMoneroNetwork(network: NetworkDef, cfg: NetworkConfig | undefined): NetworkDef {
  if (cfg?.driver !== MONERO_DRIVER) return network;
  const type = moneroNetworkSetting(network, cfg);
  if (type === 'mainnet') return { ...network, address_format: MONERO_FORMATS.mainnet };
  return { ...network, address_format: MONERO_FORMATS[type], chain: 'test' };
}

/** The Monero family as the composition root lists it. */
export const moneroFamily: ChainFamily = {
  name: 'monero',
  drivers: { [MONERO_DRIVER]: moneroDriverFactory },
  addressFormats: {
    [MONERO_FORMATS.mainnet]: moneroAddressFormat,
    [MONERO_FORMATS.stagenet]: moneroStagenetAddressFormat,
    [MONERO_FORMATS.testnet]: moneroTestnetAddressFormat,
  },
  custody: ['watch-only'],
  watchOnly: moneroWatchOnly,
  payoutFloat: moneroPayoutFloat,
  nodeLimits: MONERO_NODE_LIMITS,
  configuredNetwork: configuredMoneroNetwork,
  // Monero's transaction ids are 32 bytes in hex: the simulator's hex is one already.
  txid: (hex) => hex.toLowerCase(),
};
