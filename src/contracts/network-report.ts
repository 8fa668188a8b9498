// What the gateway says about each network, as the start table, /readyz (`chains`) and the
// dashboard's settings page show it: one shape for the server and the dashboard, free of DOM and
// Node APIs.

/** Why a network is not offered to merchants and payers. */
export type NotOfferedReason = 'disabled' | 'simulated in live mode' | 'node not answering';

export interface NetworkReport {
  network: string;
  /** The `driver` setting's name (`simulated`, `evm`, `bitcoin-core`, `tron`). */
  driver: string;
  /** `test` for a simulated network (its money is not real), `live` for a real driver. */
  mode: 'live' | 'test';
  /**
   * Who holds the keys that receive: `watch-only` (each merchant's own wallet; the default of a
   * real driver), `hot` (the gateway's own seed) or `simulated`.
   */
  custody: 'hot' | 'watch-only' | 'simulated';
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
