// The `monero` driver's view of the per-account scan tables (src/db/migrations/025_account_scans.ts,
// shared with the other account-based families), kept apart from src/db/schema.ts: only the driver
// reads them. For Monero an account is a merchant's custody row (one view-only wallet):
// - account_cursors: `lt` is the lowest block height that may still hold a payment not yet reported
//   final (every block below it is deeper than the confirmations); `hash` is unused ('').
// - account_seen: every payment to a watched subaddress reported and not yet final. `idx` is the
//   subaddress index (one transaction pays a subaddress once, however many outputs it has), `lt`
//   the block height as text ('' while in the pool), seen_seqno the height (-1 in the pool).
export interface CursorRow {
  network: string;
  account: string;
  lt: string;
  hash: string;
  top_lt: string | null;
  top_hash: string | null;
  walk_lt: string | null;
  walk_hash: string | null;
  updated_at: number;
}

export interface SeenRow {
  network: string;
  txid: string;
  idx: number;
  account: string;
  lt: string;
  kind: string;
  currency: string;
  from_address: string | null;
  /** The subaddress paid. */
  to_address: string;
  amount: string;
  memo: string | null;
  reason: string | null;
  seen_seqno: number;
  settled: number;
  created_at: number;
  updated_at: number;
}

export interface MoneroScanTables {
  account_cursors: CursorRow;
  account_seen: SeenRow;
}
