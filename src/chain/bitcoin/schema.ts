// Tables of the `bitcoin-core` driver (created by src/db/migrations/007_bitcoin.ts). Kept apart
// from src/db/schema.ts: only the driver reads them, through a `Kysely<BtcDB>` view of the
// storage. Heights are integers (bigint columns, parsed to number); amounts are decimal text.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** How far each network has been scanned, and how far the node was at that moment. */
export interface BtcCursorsTable {
  network: string;
  /** Last fully processed block (-1: nothing yet). */
  height: number;
  hash: string | null;
  /** The node's height when the scan last succeeded (lag = node_height - height). */
  node_height: number | null;
  updated_at: number;
}

/** Hashes of recently processed blocks, to notice a reorganisation and find the fork point. */
export interface BtcBlocksTable {
  network: string;
  height: number;
  hash: string;
}

/** Every output paying one of our scripts (deposit or change): what was reported, and the coin. */
export interface BtcOutputsTable {
  network: string;
  txid: string;
  vout: number;
  address: string;
  /** deposit (an address handed out; reported to the gateway) | change (ours, never reported) */
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

/** Every transaction the driver signed, stored before broadcast; fee bumps are new rows of the same request. */
export interface BtcOutgoingTable {
  id: string;
  network: string;
  /** Idempotency key (payout id). */
  request_id: string;
  /** 0 for the first transaction, n for the n-th replacement (fee bump). */
  attempt: number;
  to_address: string;
  amount: string;
  fee: string;
  /** sat/vB, decimal text. */
  fee_rate: string;
  vsize: number;
  /** JSON [{txid, vout, amount, path}] of the coins spent (the same for every attempt). */
  inputs: string;
  change_address: string | null;
  change_amount: string | null;
  txid: string;
  /** The signed transaction, hex, exactly as broadcast. */
  raw: string;
  /** signed (not yet accepted by the node) | sent | mined | confirmed | replaced | failed */
  status: string;
  block_height: number | null;
  confirmations: number;
  error: string | null;
  broadcast_at: number | null;
  /** The node's height when this attempt was first broadcast (fee bumps count blocks from it). */
  broadcast_height: number | null;
  created_at: number;
  updated_at: number;
}

export interface BtcTables {
  btc_cursors: BtcCursorsTable;
  btc_blocks: BtcBlocksTable;
  btc_outputs: BtcOutputsTable;
  btc_change: BtcChangeTable;
  btc_outgoing: BtcOutgoingTable;
}

export type BtcDB = DB & BtcTables;

export function btcDb(db: Kysely<DB>): Kysely<BtcDB> {
  return db as unknown as Kysely<BtcDB>;
}
