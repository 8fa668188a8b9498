// The `solana` driver's view of the per-account scan tables (src/db/migrations/025_account_scans.ts,
// shared with the other account-based families), kept apart from src/db/schema.ts: only the driver
// reads them. For Solana an account is a base58 key (the merchant wallet or one of its token
// accounts); `lt` is a slot and `hash` a transaction signature; seen_seqno is the slot of the
// transaction the payment is in.
export interface CursorRow {
  network: string;
  account: string;
  /** The slot of the newest signature a completed walk read. */
  lt: string;
  /** That signature (what getSignaturesForAddress is asked `until`). */
  hash: string;
  /** A walk longer than a poll: its newest signature, and the oldest read so far (null: none under way). */
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
  /** `transfer` (names a watched deposit) or `unmatched`. */
  kind: string;
  currency: string;
  from_address: string | null;
  /** The deposit key (transfer) or the merchant wallet (unmatched). */
  to_address: string;
  amount: string;
  memo: string | null;
  reason: string | null;
  seen_seqno: number;
  settled: number;
  created_at: number;
  updated_at: number;
}

export interface AccountScanTables {
  account_cursors: CursorRow;
  account_seen: SeenRow;
}
