// What a payment on an EVM network goes to, and what a browser wallet (EIP-1193) needs to make it:
// the chain and token the network's driver actually watches. The operator's `chain_id` and
// `tokens` settings override the registry's (a test chain, a bridged token).
import type { NetworkConfig } from '../../config.ts';
import type { PayerEvm } from '../../contracts/payer.ts';
import type { CurrencyDef, NetworkDef } from '../../registry/index.ts';
import type { PaymentTarget } from '../family.ts';

function configured(network: NetworkDef, cfg: NetworkConfig | undefined, currency: CurrencyDef): PaymentTarget & { rpc: string[] } {
  const override = Object.entries(cfg?.tokens ?? {}).find(([code]) => code.toUpperCase() === currency.code.toUpperCase())?.[1];
  const chainId = typeof cfg?.chain_id === 'number' ? cfg.chain_id : network.chain_id;
  // A public endpoint for wallets that lack the chain; the registry's only while it is the registry's chain.
  const own = typeof cfg?.public_rpc_url === 'string' && /^https?:\/\//i.test(cfg.public_rpc_url) ? [cfg.public_rpc_url] : null;
  const rpc = own ?? (chainId === network.chain_id ? (network.public_rpc ?? []) : []);
  return { chainId, contract: currency.native ? undefined : (override ?? currency.contract), rpc };
}

/** The chain id and token contract of a payment (EIP-681 URIs name both). */
export function evmPaymentTarget(network: NetworkDef, cfg: NetworkConfig | undefined, currency: CurrencyDef): PaymentTarget {
  const { chainId, contract } = configured(network, cfg, currency);
  return { chainId, contract };
}

/** What a browser wallet needs to pay on a real EVM network, or null when it cannot. */
export function evmWalletPay(network: NetworkDef, cfg: NetworkConfig | undefined, currency: CurrencyDef, explorerUrl: string | null): PayerEvm | null {
  const { chainId, contract, rpc } = configured(network, cfg, currency);
  if (!chainId || (!currency.native && !contract)) return null;
  const native = network.currencies.find((c) => c.native);
  if (!native) return null;
  return {
    chain_id: chainId,
    chain_name: network.name,
    rpc_urls: rpc,
    explorer_url: explorerUrl,
    native: { name: native.name, symbol: native.code, decimals: native.decimals },
    contract: contract ?? null,
    decimals: currency.decimals,
  };
}
