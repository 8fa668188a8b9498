// Builds the `evm` driver of a network from the registry and the operator's configuration
// (docs/networks.md):
//   { "driver": "evm", "rpc_url": "https://...", "chain_id": 1, "confirmations": 12,
//     "tokens": { "USDT": "0x..." },
//     "sweep": { "enabled": true, "min_native": "0.01", "min_token": { "USDT": "10" }, "every_seconds": 60 },
//     "start_block": 19000000, "poll_batch": 100, "max_head_jump": 50000, "max_response_bytes": 67108864 }
// A watch-only network (the default, "custody": "watch-only") flushes instead of sweeping:
//     "flush": { "every_seconds": 60, "min_native": "0.01", "min_token": { "USDT": "10" } },
//     "relayer_key_file": "secrets/eth-relayer.key"
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
import { readSecretFile } from '../secret-file.ts';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { HDKey } from '@scure/bip32';
import { bytesToHex } from '@noble/hashes/utils.js';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { EvmFlushPolicy } from './flush.ts';
import { EvmDriver, type EvmLog } from './evm-driver.ts';
import type { EvmToken } from './chain.ts';
import type { EvmSweepPolicy } from './sweep.ts';

export { EvmDriver } from './evm-driver.ts';
export type { EvmDriverOptions, EvmLog } from './evm-driver.ts';
export { PRIORITY_PERCENT, TRANSFER_TOPIC, type EvmToken } from './chain.ts';
export type { EvmSweepPolicy } from './sweep.ts';
export type { EvmFlushPolicy, FlushReport, FlushRequest, FlushSent } from './flush.ts';
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
  const custody = custodyMode(cfg, 'evm', where);
  let flush: EvmFlushPolicy | undefined;
  let relayer: PrivateKeyAccount | null = null;
  if (custody === 'watch-only') {
    flush = flushPolicy(cfg.flush, `${where}.flush`);
    if (cfg.relayer_key_file !== undefined && cfg.relayer_key_file !== null) relayer = readRelayerKey(cfg.relayer_key_file, `${where}.relayer_key_file`);
    if (cfg.sweep !== undefined && cfg.sweep !== null) {
      deps.log?.('warn', `${where}.sweep is ignored: the network is watch-only, its deposit addresses are forwarders flushed to the merchant's cold address (see "flush")`, { network: network.code });
    }
  } else {
    for (const key of ['flush', 'relayer_key_file'] as const) {
      if (cfg[key] !== undefined) throw new Error(`${where}.${key}: only a watch-only network flushes; this one has "custody": "hot" (its deposit addresses are swept, see "sweep")`);
    }
  }
  // Watch-only: the seed is never read; payouts come from the float's own key, when configured.
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
    flush,
    relayer,
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

/** The relayer's account of a mnemonic: the first account of the standard Ethereum path. */
export const RELAYER_PATH = "m/44'/60'/0'/0/0";

const FLUSH_KEYS = new Set(['every_seconds', 'min_native', 'min_token']);

/** The `flush` object of a watch-only network; absent: every 60 s, any confirmed amount. */
export function flushPolicy(v: unknown, where: string): EvmFlushPolicy {
  if (v === undefined || v === null) return { everyMs: 60_000, minNative: '0', minToken: {} };
  if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where}: an object is required, e.g. {"every_seconds": 60, "min_native": "0.01", "min_token": {"USDT": "10"}}`);
  const unknown = Object.keys(v).filter((k) => !FLUSH_KEYS.has(k));
  if (unknown.length) throw new Error(`${where}: unknown setting ${unknown.join(', ')} (every_seconds, min_native and min_token are)`);
  const t = sweepThresholds(v, where);
  return { everyMs: t.everyMs, minNative: t.minNative, minToken: t.minToken };
}

/**
 * The relayer's key from `relayer_key_file`: a hex private key (0x optional) or a BIP-39 mnemonic
 * (its account m/44'/60'/0'/0/0, what wallets show first). The key only pays gas, but whoever holds
 * it can waste that gas: like the gateway's other secret files, a file other accounts on the host
 * can read is refused. The file's content never appears in a message.
 */
export function readRelayerKey(file: unknown, where: string): PrivateKeyAccount {
  const text = readSecretFile(file, where, 'the relayer key');
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(text)) {
    try {
      return privateKeyToAccount(`0x${text.replace(/^0x/, '')}`);
    } catch {
      throw new Error(`${where}: ${file} holds 64 hex digits that are not a valid secp256k1 private key`);
    }
  }
  const phrase = text.split(/\s+/).join(' ').toLowerCase();
  if (phrase.includes(' ') && validateMnemonic(phrase, wordlist)) {
    const node = HDKey.fromMasterSeed(mnemonicToSeedSync(phrase)).derive(RELAYER_PATH);
    return privateKeyToAccount(`0x${bytesToHex(node.privateKey!)}`);
  }
  throw new Error(`${where}: ${file} holds neither a hex private key (64 hex digits, 0x optional) nor a valid BIP-39 mnemonic`);
}
