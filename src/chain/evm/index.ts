// Builds the `evm` driver of a network from the registry and the operator's configuration
// (docs/networks.md):
//   { "driver": "evm", "rpc_url": "https://...", "chain_id": 1, "confirmations": 12,
//     "tokens": { "USDT": "0x..." },
//     "sweep": { "enabled": true, "min_native": "0.01", "min_token": { "USDT": "10" }, "every_seconds": 60 },
//     "start_block": 19000000, "poll_batch": 100, "max_head_jump": 50000, "max_response_bytes": 67108864 }
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { getAddress, isAddress } from 'viem';
import type { DriverDeps } from '../contract.ts';
import type { ChainFamily } from '../family.ts';
import { evmWatchOnly } from './custody.ts';
import { evmFloatAccount, evmPayoutFloat } from './float.ts';
import { floatAccount, payoutSource } from '../payout-float.ts';
import { EVM_NODE_LIMITS } from './limits.ts';
import { evmPaymentTarget, evmWalletPay } from './wallet-pay.ts';
import { evmAddressFormat } from './address-format.ts';
import { configuredConfirmations, configuredTokens, custodyMode, driverArguments, nodeLimits, type DriverServices, optInt, sweepThresholds } from '../network-settings.ts';
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
  return createEvmDriver(...driverArguments(deps));
}

/** Chain ids of local development chains (Anvil and Hardhat; Ganache): they mine on demand. */
const DEV_CHAIN_IDS = new Set(['31337', '1337']);

/** The EVM family as the composition root lists it. */
export const evmFamily: ChainFamily = {
  name: 'evm',
  drivers: { evm: evmDriverFactory },
  addressFormats: { evm: evmAddressFormat },
  custody: ['seed', 'watch-only'],
  watchOnly: evmWatchOnly,
  payoutFloat: evmPayoutFloat,
  txid: (hex) => `0x${hex}`,
  // EIP-55: one account, written in mixed case by its checksum.
  canonicalAddress: (address) => {
    try {
      return getAddress(address);
    } catch {
      return address;
    }
  },
  expectedChain: (network, cfg) => {
    const id = typeof cfg?.chain_id === 'number' ? cfg.chain_id : network.chain_id;
    return id === undefined ? null : String(id);
  },
  isDevChain: (chain) => DEV_CHAIN_IDS.has(chain),
  nodeLimits: EVM_NODE_LIMITS,
  paymentTarget: evmPaymentTarget,
  walletPay: evmWalletPay,
};

export function createEvmDriver(
  network: NetworkDef,
  cfg: NetworkConfig,
  deps: DriverServices<EvmLog> & { onRpcRequest?: (method: string) => void },
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
  const confirmations = configuredConfirmations(network, cfg, where);
  const tokens: EvmToken[] = configuredTokens(network, cfg, where, isEvmContract, 'contract address');
  // Watch-only: the seed is never read; payouts come from the float's own key, when configured.
  const custody = custodyMode(cfg, 'evm', where);
  const source = custody === 'watch-only' ? payoutSource(network, cfg, evmPayoutFloat) : null;
  const float = source?.kind === 'float' ? evmFloatAccount(floatAccount(network, source).secret) : null;

  return new EvmDriver({
    network,
    rpcUrl: cfg.rpc_url,
    chainId: chainId!,
    confirmations,
    tokens,
    custody,
    float,
    ...(custody === 'hot' ? { seed: deps.seed } : {}),
    storage: deps.storage,
    now: deps.now,
    log: deps.log,
    onRpcRequest: deps.onRpcRequest,
    pollBatch: optInt(cfg.poll_batch, `${where}.poll_batch`),
    startBlock: optInt(cfg.start_block, `${where}.start_block`),
    sweep: sweepPolicy(cfg.sweep, `${where}.sweep`),
    ...nodeLimits(cfg, where, EVM_NODE_LIMITS),
  });
}

function isEvmContract(contract: unknown): contract is `0x${string}` {
  return typeof contract === 'string' && isAddress(contract, { strict: false });
}

function sweepPolicy(v: unknown, where: string): EvmSweepPolicy | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object') throw new Error(`${where}: an object is required`);
  return sweepThresholds(v, where);
}
