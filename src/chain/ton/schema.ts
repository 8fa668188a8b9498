// Tables of the `ton` driver (created by src/db/migrations/025_account_scans.ts), kept apart from
// src/db/schema.ts: only the driver reads them, through a `Kysely<TonDB>` view of the storage.
// Accounts are raw (`0:<64 hex>`); amounts decimal strings; logical times decimal text.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { withFamilyTables } from '../family-tables.ts';

/** Per merchant wallet: the newest transaction a completed walk read. */
export interface TonCursorsTable {
  network: string;
  account: string;
  lt: string;
  /** As the node wrote it (base64): what getTransactions pages from. */
  hash: string;
  /** A walk longer than a poll: its newest transaction, and the oldest read so far (null: none under way). */
  top_lt: string | null;
  top_hash: string | null;
  walk_lt: string | null;
  walk_hash: string | null;
  updated_at: number;
}

/** A payment found by a walk, reported until the masterchain settles it. */
export interface TonSeenTable {
  network: string;
  txid: string;
  idx: number;
  account: string;
  lt: string;
  /** `transfer` (names a watched deposit) or `unmatched`. */
  kind: string;
  currency: string;
  from_address: string | null;
  /** The deposit key (transfer) or the raw account (unmatched). */
  to_address: string;
  amount: string;
  memo: string | null;
  /** Why an unmatched payment names no deposit (UnmatchedTransfer's reason). */
  reason: string | null;
  /** The masterchain seqno when the scan first saw it. */
  seen_seqno: number;
  settled: number;
  created_at: number;
  updated_at: number;
}

export interface TonTables {
  account_cursors: TonCursorsTable;
  account_seen: TonSeenTable;
}

export type TonDB = DB & TonTables;

export function tonDb(db: Kysely<DB>): Kysely<TonDB> {
  return withFamilyTables<TonTables>(db);
}
