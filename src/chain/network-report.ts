// The start log's table of networks: the rows /readyz (`chains`) and the dashboard's settings page
// show too (src/contracts/network-report.ts), so they cannot disagree. The decisions behind each
// row (offered or not, and why) are made in ./networks.ts.
import type { NetworkReport } from '../contracts/network-report.ts';

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
