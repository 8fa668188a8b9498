// Builds the `tron` driver of a network from the registry and the operator's configuration
// (docs/networks.md):
//   { "driver": "tron", "api_url": "https://tron-node.internal:8090", "api_key": "...",
//     "confirmations": 19, "tokens": { "USDT": "T..." }, "fee_limit": "50",
//     "sweep": { "enabled": true, "resources": "burn", "min_native": "1", "min_token": { "USDT": "10" }, "every_seconds": 60 },
//     "start_block": 70000000, "poll_batch": 100 }
// In watch-only custody (the default) `sweep` gives way to the forwarder contracts and flushing:
//   { "custody": "watch-only", "factory_address": "T...", "implementation_address": "T...",
//     "relayer_key_file": "/etc/satchel/tron-relayer.key",
//     "flush": { "every_seconds": 60, "min_native": "1", "min_token": { "USDT": "10" } } }
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { Decimal } from '../../money/decimal.ts';
import { isTronAddress } from './address.ts';
import type { DriverDeps } from '../contract.ts';
import type { ChainFamily } from '../family.ts';
import { TRON_NODE_LIMITS } from './limits.ts';
import { configuredTronNetwork, tronWatchOnly } from './custody.ts';
import { tronAddressFormat } from './address-format.ts';
import { configuredConfirmations, configuredTokens, custodyMode, nodeLimits, driverArguments, type DriverServices, optInt, sweepThresholds } from '../network-settings.ts';
import { forwarderSettings } from './custody.ts';
import { flushPolicy, loadRelayerKey } from './flush.ts';
import { floatAccount, payoutSource } from '../payout-float.ts';
import { tronFloatSigner, tronPayoutFloat } from './float.ts';
import { TronDriver, type TronDriverOptions, type TronLog } from './tron-driver.ts';
import type { TronToken } from './scan.ts';
import type { TronSweepPolicy } from './sweep.ts';

export { TronDriver } from './tron-driver.ts';
export { TronSendError } from './outgoing.ts';
export { tronHotWalletPath } from './keys.ts';

/** Default most TRX a TRC-20 payout or sweep may burn for energy. */
export const DEFAULT_FEE_LIMIT = '50';

/** The `tron` family's factory, for the composition root's table of drivers. */
export function tronDriverFactory(deps: DriverDeps): TronDriver {
  return createTronDriver(...driverArguments(deps));
}

/** The TRON family as the composition root lists it. */
export const tronFamily: ChainFamily = {
  name: 'tron',
  drivers: { tron: tronDriverFactory },
  addressFormats: { tron: tronAddressFormat },
  custody: ['seed', 'watch-only'],
  watchOnly: tronWatchOnly,
  configuredNetwork: configuredTronNetwork,
  payoutFloat: tronPayoutFloat,
  nodeLimits: TRON_NODE_LIMITS,
};

export function createTronDriver(
  network: NetworkDef,
  cfg: NetworkConfig,
  deps: DriverServices<TronLog> & { onRequest?: (path: string) => void },
): TronDriver {
  const where = `networks.${network.code}`;
  if (network.family !== 'tron' || network.address_format !== 'tron') throw new Error(`${where}: driver "tron" only serves TRON networks`);
  if (typeof cfg.api_url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(cfg.api_url)) {
    throw new Error(`${where}.api_url: the http(s) URL of a java-tron node's HTTP API is required for driver "tron"`);
  }
  if (cfg.api_key !== undefined && (typeof cfg.api_key !== 'string' || cfg.api_key === '' || /[\r\n]/.test(cfg.api_key))) {
    throw new Error(`${where}.api_key: a non-empty string is required`);
  }
  const confirmations = configuredConfirmations(network, cfg, where);
  const tokens: TronToken[] = configuredTokens(network, cfg, where, isTronContract, 'TRON contract address');

  // Watch-only: the seed is never read; payouts come from the float's own key, when configured.
  const custody = custodyMode(cfg, 'tron', where);
  const source = custody === 'watch-only' ? payoutSource(network, cfg, tronPayoutFloat) : null;
  const float = source?.kind === 'float' ? tronFloatSigner(floatAccount(network, source).secret) : null;

  const feeLimit = trx(cfg.fee_limit ?? DEFAULT_FEE_LIMIT, `${where}.fee_limit`);
  if (feeLimit <= 0n) throw new Error(`${where}.fee_limit: must be more than 0`);
  const pollBatch = optInt(cfg.poll_batch, `${where}.poll_batch`);
  if (pollBatch !== undefined && (pollBatch < 1 || pollBatch > 100)) throw new Error(`${where}.poll_batch: between 1 and 100 (the node's range limit)`);

  const forwarder = forwarderSettings(cfg, where);
  let watchOnly: Partial<TronDriverOptions> = {};
  if (custody === 'watch-only') {
    if (!forwarder) {
      throw new Error(`${where}.factory_address: the forwarder factory (and implementation_address) is required in watch-only custody (docs/networks.md); or set "custody": "hot"`);
    }
    if (cfg.sweep !== undefined) throw new Error(`${where}.sweep: watch-only custody never sweeps (the gateway holds no key of its deposit addresses); use "flush"`);
    watchOnly = {
      custody,
      forwarder,
      flush: flushPolicy(cfg.flush, `${where}.flush`),
      relayer: cfg.relayer_key_file === undefined ? null : loadRelayerKey(cfg.relayer_key_file, `${where}.relayer_key_file`),
    };
  } else {
    for (const key of ['flush', 'relayer_key_file'] as const) {
      if (cfg[key] !== undefined) throw new Error(`${where}.${key}: only in watch-only custody (hot custody sweeps: "sweep")`);
    }
  }

  return new TronDriver({
    ...watchOnly,
    network,
    apiUrl: cfg.api_url,
    apiKey: cfg.api_key as string | undefined,
    confirmations,
    tokens,
    custody,
    float,
    ...(custody === 'hot' ? { seed: deps.seed } : {}),
    storage: deps.storage,
    now: deps.now,
    log: deps.log,
    onRequest: deps.onRequest,
    feeLimit,
    pollBatch,
    startBlock: optInt(cfg.start_block, `${where}.start_block`),
    sweep: sweepPolicy(cfg.sweep, `${where}.sweep`),
    ...nodeLimits(cfg, where, TRON_NODE_LIMITS),
  });
}

function trx(v: unknown, where: string): bigint {
  const d = typeof v === 'string' ? Decimal.tryParse(v) : null;
  if (!d || d.isNegative()) throw new Error(`${where}: a decimal string of TRX is required`);
  try {
    return d.toBaseUnits(6);
  } catch {
    throw new Error(`${where}: at most 6 decimal places`);
  }
}

function isTronContract(contract: unknown): contract is string {
  return typeof contract === 'string' && isTronAddress(contract);
}

function sweepPolicy(v: unknown, where: string): TronSweepPolicy | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where}: an object is required`);
  const s = v as { resources?: unknown };
  if (s.resources !== undefined && s.resources !== 'burn' && s.resources !== 'delegate') throw new Error(`${where}.resources: "burn" or "delegate"`);
  return { ...sweepThresholds(v, where), mode: s.resources === 'delegate' ? 'delegate' : 'burn' };
}
