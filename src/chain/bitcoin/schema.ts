// Tables of the `bitcoin-core` driver (created by src/db/migrations/007_bitcoin.ts) beside the scan
// tables every family shares (src/db/schema.ts). Kept apart from src/db/schema.ts: only the driver
// reads them, through a `Kysely<BtcDB>` view of the storage. Heights are integers (bigint
// columns, parsed to number); amounts are decimal text.
import type { Kysely } from 'kysely';
import type { DB, ScanOutgoingTable } from '../../db/schema.ts';
import { withFamilyTables } from '../family-tables.ts';

/** Every output paying one of our scripts (deposit or change): what was reported, and the coin. */
export interface BtcOutputsTable {
  network: string;
  txid: string;
  vout: number;
  address: string;
  /** deposit (an address of the gateway's seed handed out; reported, and our coin) | watch (a
   * watch-only deposit address; reported, but the merchant's coin: never spent nor followed once
   * spent) | change (ours, never reported) */
  kind: string;
  amount: string;
  block_height: number | null;
  block_hash: string | null;
  /** Confirmations last reported (0 in the mempool). */
  confirmations: number;
  /** mempool | pending (in a block, below the target) | confirmed | orphaned (its block left the chain) | dropped */
  status: string;
  /** The transaction spending this coin, once seen (ours, or someone else's holding the seed). */
  spent_txid: string | null;
  /** own (a transaction we signed) | foreign */
  spent_by: string | null;
  spent_height: number | null;
  created_at: number;
  updated_at: number;
}

/** Change addresses handed out (internal chain, m/.../1/i). */
export interface BtcChangeTable {
  network: string;
  address: string;
  path: string;
  created_at: number;
}

/** What a payout transaction's row keeps beside the shared columns, as its `data` JSON. */
export interface BtcSpend {
  fee: string;
  /** sat/vB, decimal text. */
  fee_rate: string;
  vsize: number;
  /** The coins spent (the same for every attempt). */
  inputs: Array<{ txid: string; vout: number; amount: string; path: string }>;
  change_address: string | null;
  change_amount: string | null;
}

/** A transaction the driver signed (fee bumps are new attempts of the same request), with its spend. */
export type BtcOutgoingRow = ScanOutgoingTable & { spend: BtcSpend };

/** The row as read from scan_outgoing, with its spend decoded. */
export function withSpend(row: ScanOutgoingTable): BtcOutgoingRow {
  return { ...row, spend: JSON.parse(row.data ?? 'null') as BtcSpend };
}

export interface BtcTables {
  btc_outputs: BtcOutputsTable;
  btc_change: BtcChangeTable;
}

export type BtcDB = DB & BtcTables;

export function btcDb(db: Kysely<DB>): Kysely<BtcDB> {
  return withFamilyTables<BtcTables>(db);
}
