// Row type of chain_incidents: how often each network met something the operator must hear about
// (see src/chain/incidents.ts for why these counts live in the database).
export interface ChainIncidentsTable {
  network: string;
  /** foreign_spend | node_mismatch | poll_timeout */
  kind: string;
  count: number;
  /** When the last one happened (ms since the epoch). */
  last_at: number;
}
