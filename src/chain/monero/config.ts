// Builds the `monero` driver of a network from the registry and the operator's configuration
// (docs/networks.md, "Monero"):
//   { "driver": "monero", "daemon_url": "http://127.0.0.1:18081", "network": "mainnet",
//     "confirmations": 10, "payout_wallet_rpc_url": "http://127.0.0.1:18083" }
// Receiving is watch-only only (into the merchant's own wallet, with its view key): no seed is read.
// The view-only wallets are the driver's own, under the gateway's data directory
// (`<data dir>/monero/<NETWORK>`, or `wallet_dir`), scanned by a monero-wallet-rpc it starts
// (`wallet_rpc_binary`, default found on PATH).
import { isAbsolute, join, resolve } from 'node:path';
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { DriverDeps } from '../contract.ts';
import { configuredConfirmations, custodyMode, driverArguments, nodeLimits, optInt, type DriverServices } from '../network-settings.ts';
import { MONERO_DRIVER } from './custody.ts';
import { MONERO_NETWORKS } from './address.ts';
import { MONERO_NODE_LIMITS } from './limits.ts';
import { MoneroDriver, type MoneroLog } from './monero-driver.ts';
import type { MoneroNetType } from './wallets.ts';
import { createMoneroPayouts } from './float.ts';


/** The `monero` family's factory, for its ChainFamily's drivers. */
export function moneroDriverFactory(deps: DriverDeps): MoneroDriver {
  return createMoneroDriver(...driverArguments(deps), deps.dataDir);
}

export function createMoneroDriver(
  network: NetworkDef,
  cfg: NetworkConfig,
  deps: DriverServices<MoneroLog>,
  dataDir: string | undefined,
): MoneroDriver {
  const where = `networks.${network.code}`;
  if (network.family !== 'monero') throw new Error(`${where}: driver "monero" only serves Monero networks`);
  const url = cfg.daemon_url;
  if (typeof url !== 'string' || !/^https?:\/\/[^\s/]+\/?$/i.test(url)) {
    throw new Error(`${where}.daemon_url: the http(s) URL of a monerod RPC (scheme, host and port, no path), such as http://127.0.0.1:18081, is required for driver "monero"`);
  }
  try {
    new URL(url);
  } catch {
    throw new Error(`${where}.daemon_url: not a URL`);
  }
  const type = cfg.network ?? 'mainnet';
  if (typeof type !== 'string' || !(MONERO_NETWORKS as readonly string[]).includes(type)) {
    throw new Error(`${where}.network: one of "mainnet", "stagenet" or "testnet" is required for driver "${MONERO_DRIVER}" (a --regtest daemon writes mainnet addresses: "mainnet")`);
  }
  const netType = type as MoneroNetType;
  if (custodyMode(cfg, MONERO_DRIVER, where) !== 'watch-only') throw new Error(`${where}.custody: Monero receives watch-only only (into the merchant's own wallet, seen with its view key)`);
  const confirmations = configuredConfirmations(network, cfg, where);
  if (cfg.payout_wallet_rpc_url !== undefined && (typeof cfg.payout_wallet_rpc_url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(cfg.payout_wallet_rpc_url))) {
    throw new Error(`${where}.payout_wallet_rpc_url: the http(s) URL of the monero-wallet-rpc holding the payout wallet is required when given`);
  }
  const walletDirSetting = cfg.wallet_dir;
  if (walletDirSetting !== undefined && (typeof walletDirSetting !== 'string' || walletDirSetting.trim() === '')) throw new Error(`${where}.wallet_dir: a folder path is required when given`);
  const binary = cfg.wallet_rpc_binary;
  if (binary !== undefined && (typeof binary !== 'string' || binary.trim() === '')) throw new Error(`${where}.wallet_rpc_binary: the path of monero-wallet-rpc is required when given`);
  const base = dataDir ?? resolve('./data');
  const walletDir = typeof walletDirSetting === 'string' ? (isAbsolute(walletDirSetting) ? walletDirSetting : resolve(base, walletDirSetting)) : join(base, 'monero', network.code);
  const payouts = createMoneroPayouts({ network, settings: cfg, storage: deps.storage, confirmations, now: deps.now ?? Date.now, log: deps.log ?? (() => {}) });
  return new MoneroDriver({
    network,
    payouts,
    daemonUrl: url.replace(/\/+$/, ''),
    netType,
    confirmations,
    storage: deps.storage,
    walletDir,
    walletRpcBinary: typeof binary === 'string' ? binary : undefined,
    now: deps.now,
    log: deps.log,
    timeoutMs: optInt(cfg.timeout_ms, `${where}.timeout_ms`),
    ...nodeLimits(cfg, where, MONERO_NODE_LIMITS),
  });
}
