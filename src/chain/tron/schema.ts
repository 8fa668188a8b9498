// Tables of the TRON driver (created by src/db/migrations/008_tron.ts). Kept apart from
// src/db/schema.ts: only the driver reads them, through a `Kysely<TronDB>` view of the storage.
// Addresses are base58 ("T..."); amounts are decimal strings; block numbers are integers.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ScanBlocksTable, ScanCursorsTable, ScanTransfersTable } from '../reorg.ts';

/** The scan cursor, recent block hashes and reported transfers (shapes shared with the other
 * account-model families: src/chain/reorg.ts). */
export type TronCursorsTable = ScanCursorsTable;
export type TronBlocksTable = ScanBlocksTable;
export type TronTransfersTable = ScanTransfersTable;

/**
 * Every transaction the driver signed, stored before it is broadcast. A request (payout id, or a
 * movement's id) has one row per attempt: a new attempt is built only once the previous one has
 * expired without being mined, so at most one of them can ever be on chain.
 */
export interface TronOutgoingTable {
  id: string;
  network: string;
  request_id: string;
  attempt: number;
  /** payout | activate | fund | delegate | undelegate | sweep */
  kind: string;
  from_address: string;
  to_address: string;
  currency: string;
  amount: string;
  txid: string;
  /** The signed Transaction protobuf (hex), exactly as broadcast. */
  raw: string;
  /** raw_data.expiration (ms): after it the transaction can no longer be included in a block. */
  expiration: number;
  /** signed (not yet taken by the node) | sent | mined | confirmed | failed | expired */
  status: string;
  block_number: number | null;
  confirmations: number;
  error: string | null;
  broadcast_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Every movement between our own addresses: activation, TRX or energy for a sweep, the sweep. */
export interface TronMovementsTable {
  id: string;
  network: string;
  /** activate | fund (TRX for the energy, burn mode) | delegate | undelegate | sweep */
  kind: string;
  currency: string;
  from_address: string;
  to_address: string;
  /** Decimal string: TRX moved, the token swept, or for delegate/undelegate the TRX of stake. */
  amount: string;
  /** Energy the sweep needs (fund / delegate), from triggerconstantcontract. */
  energy: number | null;
  /** The movement this one waits for. */
  depends_on: string | null;
  /** waiting | sent | done | failed */
  status: string;
  txid: string | null;
  created_at: number;
  updated_at: number;
}

export interface TronTables {
  tron_cursors: TronCursorsTable;
  tron_blocks: TronBlocksTable;
  tron_transfers: TronTransfersTable;
  tron_outgoing: TronOutgoingTable;
  tron_movements: TronMovementsTable;
}

export type TronDB = DB & TronTables;

export function tronDb(db: Kysely<DB>): Kysely<TronDB> {
  return db as unknown as Kysely<TronDB>;
}
