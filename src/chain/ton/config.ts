// Builds the `ton` driver of a network from the registry and the operator's configuration
// (docs/networks.md):
//   { "driver": "ton", "api_url": "https://toncenter.com", "api_key_file": "/etc/satchel/toncenter.key",
//     "network": "mainnet", "confirmations": 1, "tokens": { "USDT": "EQ..." },
//     "payout_float": { "wallet_version": "v4r2", "key_file": "/etc/satchel/ton-float.key" } }
// Receiving is watch-only only (into the merchant's own wallet): no seed is read. Payouts come
// from the payout float, when one is configured (./float.ts).
import { readSecretFile } from '../secret-file.ts';
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { DriverDeps } from '../contract.ts';
import { configuredConfirmations, configuredTokens, custodyMode, driverArguments, nodeLimits, optInt, type DriverServices } from '../network-settings.ts';
import { nodeAddress } from './answers.ts';
import { TON_NODE_LIMITS } from './limits.ts';
import { TonDriver, type TonLog } from './ton-driver.ts';
import { floatAccount, payoutSource } from '../payout-float.ts';
import { tonFloat, tonPayoutFloat } from './float.ts';
import { configuredTonNetwork } from './custody.ts';

/** The `ton` family's factory, for its ChainFamily's drivers. */
export function tonDriverFactory(deps: DriverDeps): TonDriver {
  return createTonDriver(...driverArguments(deps));
}

export function createTonDriver(network: NetworkDef, cfg: NetworkConfig, deps: DriverServices<TonLog> & { onRequest?: (path: string) => void }): TonDriver {
  const where = `networks.${network.code}`;
  if (network.family !== 'ton') throw new Error(`${where}: driver "ton" only serves TON networks`);
  if (cfg.api_key !== undefined) throw new Error(`${where}.api_key: not a setting of driver "ton": put the key in a file named by api_key_file (kept out of the configuration)`);
  if (typeof cfg.api_url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(cfg.api_url)) {
    throw new Error(`${where}.api_url: the http(s) URL of a toncenter-compatible API v2 (toncenter, or your own ton-http-api) is required for driver "ton"`);
  }
  const chain = cfg.network ?? 'mainnet';
  if (chain !== 'mainnet' && chain !== 'testnet') throw new Error(`${where}.network: "mainnet" or "testnet" is required`);
  if (custodyMode(cfg, 'ton', where) !== 'watch-only') throw new Error(`${where}.custody: TON receives watch-only only (into the merchant's own wallet with a comment)`);
  const confirmations = configuredConfirmations(network, cfg, where);
  const tokens = configuredTokens(network, cfg, where, isJettonMaster, 'TON jetton master address (workchain 0)');
  const lookback = optInt(cfg.lookback_seconds, `${where}.lookback_seconds`);
  // Payouts come from the float's own key, when one is configured; the seed is never read.
  const source = payoutSource(network, cfg, tonPayoutFloat);
  const float = source.kind === 'float' ? tonFloat(configuredTonNetwork(network, cfg), floatAccount(network, source).secret, source.settings.extra) : null;
  return new TonDriver({
    network,
    apiUrl: cfg.api_url,
    apiKey: cfg.api_key_file === undefined ? undefined : readApiKey(cfg.api_key_file, `${where}.api_key_file`),
    chain,
    confirmations,
    jettons: tokens.map((t) => ({ code: t.code, master: t.contract, decimals: t.decimals })),
    storage: deps.storage,
    now: deps.now,
    log: deps.log,
    onRequest: deps.onRequest,
    lookbackSeconds: lookback,
    float,
    ...nodeLimits(cfg, where, TON_NODE_LIMITS),
  });
}

function isJettonMaster(v: unknown): v is string {
  try {
    return typeof v === 'string' && nodeAddress('config', 'address', v)?.startsWith('0:') === true;
  } catch {
    return false;
  }
}

/**
 * The API key from `api_key_file` (its first line, trimmed). Like the gateway's other secret files,
 * a file other accounts on the host can read is refused; the key never appears in a message.
 */
export function readApiKey(file: unknown, where: string): string {
  const text = readSecretFile(file, where, 'the API key');
  if (text === '' || /[\r\n\s]/.test(text) || text.length > 512) throw new Error(`${where}: ${file} must hold the API key alone, on one line`);
  return text;
}
