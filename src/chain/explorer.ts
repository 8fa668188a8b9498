// Where a transaction can be looked at: the one rule for the payer page's link, the browser
// wallet's chain data and the dashboard's transfer links. No public explorer knows a simulated
// transaction or a local chain (a development chain, by the network's family), and a link to a mainnet
// explorer for one would show a payer someone else's transaction, or nothing. An operator who runs
// an explorer names it per network (`networks.CODE.explorer_url`, a template with `{txid}`).
import type { Ctx } from '../context.ts';
import { explorerSettingProblem, type NetworkConfig } from '../config.ts';
import type { NetworkDef } from '../registry/index.ts';
import type { Families } from './family.ts';

/** The network's transaction page template, or null when no explorer shows its transactions. */
export function explorerTemplate(families: Families, network: NetworkDef, settings: NetworkConfig | undefined, simulated: boolean): string | null {
  if (simulated) return null;
  const own = settings?.explorer_url;
  if (typeof own === 'string' && explorerSettingProblem(own) === null) return own;
  if (families.isLocalChain(network, settings)) return null;
  return explorerSettingProblem(network.explorer_tx) === null ? network.explorer_tx : null;
}

type Reach = Pick<Ctx, 'registry' | 'config' | 'chains'>;

function templateOf(ctx: Reach, code: string): string | null {
  const network = ctx.registry.network(code);
  return network ? explorerTemplate(ctx.chains.families, network, ctx.config.networks[network.code], ctx.chains.isSimulated(network.code)) : null;
}

/** The explorer page of transaction `txid` on network `code`, or null. */
export function explorerTxUrl(ctx: Reach, code: string | null, txid: string | null): string | null {
  const template = code ? templateOf(ctx, code) : null;
  return template && txid ? template.replace('{txid}', encodeURIComponent(txid)) : null;
}

/** The explorer's own address (what a browser wallet is given for a chain it adds), or null. */
export function explorerOrigin(ctx: Reach, code: string): string | null {
  const template = templateOf(ctx, code);
  return template ? new URL(template.replace('{txid}', 'txid')).origin : null;
}
