// Builds the `solana` driver of a network from the registry and the operator's configuration
// (docs/networks.md):
//   { "driver": "solana", "rpc_url": "https://api.mainnet-beta.solana.com", "cluster": "mainnet-beta",
//     "tokens": { "USDC": "<mint>", "USDT": "<mint>" } }
// Receiving is watch-only only (into the merchant's own wallet): no seed is read.
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { DriverDeps } from '../contract.ts';
import { configuredConfirmations, configuredTokens, custodyMode, driverArguments, nodeLimits, optInt, type DriverServices } from '../network-settings.ts';
import { isSolanaKey } from './address.ts';
import { SOLANA_NODE_LIMITS } from './limits.ts';
import { floatAccount, payoutSource } from '../payout-float.ts';
import { solanaFloat, solanaPayoutFloat, type SolanaFloat } from './float.ts';
import { SolanaDriver, type SolanaLog } from './solana-driver.ts';
import { solanaCluster } from './custody.ts';

/** The `solana` family's factory, for its ChainFamily's drivers. */
export function solanaDriverFactory(deps: DriverDeps): SolanaDriver {
  return createSolanaDriver(...driverArguments(deps));
}

export function createSolanaDriver(
  network: NetworkDef,
  cfg: NetworkConfig,
  deps: DriverServices<SolanaLog> & { onRequest?: (method: string) => void; onHttp?: () => void },
): SolanaDriver {
  const where = `networks.${network.code}`;
  if (network.family !== 'solana') throw new Error(`${where}: driver "solana" only serves Solana networks`);
  if (typeof cfg.rpc_url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(cfg.rpc_url)) {
    throw new Error(`${where}.rpc_url: the http(s) URL of a Solana JSON-RPC node (an RPC provider, or your own validator's RPC) is required for driver "solana"`);
  }
  const cluster = solanaCluster(network, cfg);
  if (custodyMode(cfg, 'solana', where) !== 'watch-only') throw new Error(`${where}.custody: Solana receives watch-only only (into the merchant's own wallet, with a Solana Pay reference)`);
  const confirmations = configuredConfirmations(network, cfg, where);
  const tokens = configuredTokens(network, cfg, where, isMint, 'Solana mint address (base58)');
  return new SolanaDriver({
    network,
    rpcUrl: cfg.rpc_url,
    cluster,
    confirmations,
    tokens: tokens.map((t) => ({ code: t.code, mint: t.contract, decimals: t.decimals })),
    storage: deps.storage,
    now: deps.now,
    log: deps.log,
    onRequest: deps.onRequest,
    onHttp: deps.onHttp,
    lookbackSeconds: optInt(cfg.lookback_seconds, `${where}.lookback_seconds`),
    ...nodeLimits(cfg, where, SOLANA_NODE_LIMITS),
    float: floatOf(network, cfg),
  });
}

/** The payout float, when one is configured (the seed is never read): its key file read and checked. */
function floatOf(network: NetworkDef, cfg: NetworkConfig): SolanaFloat | null {
  const source = payoutSource(network, cfg, solanaPayoutFloat);
  return source.kind === 'float' ? solanaFloat(floatAccount(network, source).secret) : null;
}

function isMint(v: unknown): v is string {
  return typeof v === 'string' && isSolanaKey(v);
}
