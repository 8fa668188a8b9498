// What the gateway tells an operator about each network: the table printed at start, the
// `chains` list of /readyz and the dashboard's settings page all show these rows, so they cannot
// disagree. The decisions behind each row (offered or not, and why) are made in ./networks.ts.

/** Why a network is not offered to merchants and payers. */
export type NotOfferedReason = 'disabled' | 'simulated in live mode' | 'node not answering';

export interface NetworkReport {
  network: string;
  /** The `driver` setting's name (`simulated`, `evm`, `bitcoin-core`, `tron`). */
  driver: string;
  /** `test` for a simulated network (its money is not real), `live` for a real driver. */
  mode: 'live' | 'test';
  /**
   * Who holds the keys that receive and pay: `hot` (the gateway's own seed, today every real
   * driver) or `simulated`. A field of its own so that other custody models can be named here.
   */
  custody: 'hot' | 'simulated';
  /** Whether the node answered the last status question; null when there is no node or it was not asked. */
  node_reachable: boolean | null;
  confirmations: number;
  /** The chain the node serves (see NodeStatus.chain); null when unknown or none. */
  chain: string | null;
  /** The node's head height at the last status question; null when unknown. */
  head_height: number | null;
  offered: boolean;
  /** Why not, when not offered. */
  reason: NotOfferedReason | null;
}

/** The rows as a plain-text table, one network a line, for the start log. */
export function formatNetworkTable(rows: readonly NetworkReport[]): string {
  const head = ['network', 'driver', 'mode', 'custody', 'node', 'confirmations', 'head', 'offered'];
  const lines = rows.map((r) => [
    r.network,
    r.driver,
    r.mode,
    r.custody,
    r.node_reachable === null ? '-' : r.node_reachable ? 'answers' : 'no answer',
    String(r.confirmations),
    r.head_height === null ? '-' : String(r.head_height),
    r.offered ? 'yes' : `no (${r.reason})`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [fmt(head), ...lines.map(fmt)];
  if (!rows.some((r) => r.offered)) {
    out.push('No network is offered: payers cannot pay and merchants cannot create payments, wallets or payouts until one is.');
  }
  return out.join('\n');
}
