// Builds the `evm` driver of a network from the registry and the operator's configuration
// (docs/networks.md):
//   { "driver": "evm", "rpc_url": "https://...", "chain_id": 1, "confirmations": 12,
//     "tokens": { "USDT": "0x..." },
//     "sweep": { "enabled": true, "min_native": "0.01", "min_token": { "USDT": "10" }, "every_seconds": 60 },
//     "start_block": 19000000, "poll_batch": 100 }
import type { NetworkConfig } from '../../config.ts';
import type { Storage } from '../../db/dialect.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { isAddress } from 'viem';
import type { DriverDeps } from '../contract.ts';
import { EvmDriver, type EvmLog } from './evm-driver.ts';
import type { EvmToken } from './chain.ts';
import type { EvmSweepPolicy } from './sweep.ts';

export { EvmDriver } from './evm-driver.ts';
export type { EvmDriverOptions, EvmLog } from './evm-driver.ts';
export { PRIORITY_PERCENT, TRANSFER_TOPIC, type EvmToken } from './chain.ts';
export type { EvmSweepPolicy } from './sweep.ts';
export { hotWalletPath, depositPath } from './keys.ts';

/** The `evm` family's factory, for the composition root's table of drivers. */
export function evmDriverFactory(deps: DriverDeps): EvmDriver {
  return createEvmDriver(deps.network, { ...deps.settings, confirmations: deps.confirmations }, {
    seed: deps.seed(),
    storage: deps.storage,
    now: deps.now,
    log: deps.log,
  });
}

export function createEvmDriver(
  network: NetworkDef,
  cfg: NetworkConfig,
  deps: { seed: Uint8Array; storage: Storage; now?: () => number; log?: EvmLog; onRpcRequest?: (method: string) => void },
): EvmDriver {
  const where = `networks.${network.code}`;
  if (network.family !== 'evm' || network.address_format !== 'evm') {
    throw new Error(`${where}: driver "evm" only serves EVM networks`);
  }
  if (typeof cfg.rpc_url !== 'string' || !/^(https?):\/\//i.test(cfg.rpc_url)) {
    throw new Error(`${where}.rpc_url: an http(s) JSON-RPC URL is required for driver "evm"`);
  }
  const chainId = cfg.chain_id ?? network.chain_id;
  if (!Number.isSafeInteger(chainId) || chainId! <= 0) throw new Error(`${where}.chain_id: a positive integer is required`);
  const confirmations = cfg.confirmations ?? network.confirmations;
  if (!Number.isSafeInteger(confirmations) || confirmations < 1) {
    throw new Error(`${where}.confirmations: a positive integer is required`);
  }

  const overrides = new Map(Object.entries(cfg.tokens ?? {}).map(([code, contract]) => [code.toUpperCase(), contract]));
  const tokens: EvmToken[] = [];
  for (const c of network.currencies) {
    if (c.native) continue;
    const contract = overrides.get(c.code.toUpperCase()) ?? c.contract;
    overrides.delete(c.code.toUpperCase());
    if (!contract) continue;
    if (!isAddress(contract, { strict: false })) throw new Error(`${where}.tokens.${c.code}: not a contract address: ${contract}`);
    tokens.push({ code: c.code, contract: contract as `0x${string}`, decimals: c.decimals });
  }
  if (overrides.size) {
    throw new Error(`${where}.tokens: ${[...overrides.keys()].join(', ')} not a token of ${network.code} in the registry`);
  }

  return new EvmDriver({
    network,
    rpcUrl: cfg.rpc_url,
    chainId: chainId!,
    confirmations,
    tokens,
    seed: deps.seed,
    storage: deps.storage,
    now: deps.now,
    log: deps.log,
    onRpcRequest: deps.onRpcRequest,
    pollBatch: optInt(cfg.poll_batch, `${where}.poll_batch`),
    startBlock: optInt(cfg.start_block, `${where}.start_block`),
    sweep: sweepPolicy(cfg.sweep, `${where}.sweep`),
  });
}

function optInt(v: unknown, where: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new Error(`${where}: a non-negative integer is required`);
  return v;
}

function sweepPolicy(v: unknown, where: string): EvmSweepPolicy | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object') throw new Error(`${where}: an object is required`);
  const s = v as { enabled?: unknown; min_native?: unknown; min_token?: unknown; every_seconds?: unknown };
  const dec = (x: unknown, w: string) => {
    if (typeof x !== 'string' || !/^\d+(\.\d+)?$/.test(x)) throw new Error(`${w}: a decimal string is required`);
    return x;
  };
  const minToken: Record<string, string> = {};
  if (s.min_token !== undefined) {
    if (typeof s.min_token !== 'object' || s.min_token === null) throw new Error(`${where}.min_token: an object is required`);
    for (const [k, x] of Object.entries(s.min_token)) minToken[k.toUpperCase()] = dec(x, `${where}.min_token.${k}`);
  }
  const every = s.every_seconds === undefined ? 60 : optInt(s.every_seconds, `${where}.every_seconds`)!;
  return {
    enabled: s.enabled === true,
    minNative: s.min_native === undefined ? '0' : dec(s.min_native, `${where}.min_native`),
    minToken,
    // Swept from the scanner's poll at most this often (0: only when sweep() is called).
    everyMs: every * 1000,
  };
}
