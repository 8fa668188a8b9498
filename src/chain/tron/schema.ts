// Tables of the TRON driver (created by src/db/migrations/008_tron.ts). Kept apart from
// src/db/schema.ts: only the driver reads them, through a `Kysely<TronDB>` view of the storage.
// Addresses are base58 ("T..."); amounts are decimal strings; block numbers are integers.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { withFamilyTables, type MovementColumns, type OutgoingColumns, type ScanTables } from '../family-tables.ts';

/**
 * Every transaction the driver signed, stored before it is broadcast. A request (payout id, or a
 * movement's id) has one row per attempt: a new attempt is built only once the previous one has
 * expired without being mined, so at most one of them can ever be on chain.
 */
export interface TronOutgoingTable extends OutgoingColumns {
  attempt: number;
  /** payout | activate | fund | delegate | undelegate | sweep */
  kind: string;
  /** The signed Transaction protobuf (hex), exactly as broadcast. */
  raw: string;
  /** raw_data.expiration (ms): after it the transaction can no longer be included in a block. */
  expiration: number;
  /** signed (not yet taken by the node) | sent | mined | confirmed | failed | expired */
  status: string;
}

/** Every movement between our own addresses: activation, TRX or energy for a sweep, the sweep. */
export interface TronMovementsTable extends MovementColumns {
  /** activate | fund (TRX for the energy, burn mode) | delegate | undelegate | sweep */
  kind: string;
  /** TRX moved, the token swept, or for delegate/undelegate the TRX of stake. */
  amount: string;
  /** Energy the sweep needs (fund / delegate), from triggerconstantcontract. */
  energy: number | null;
}

export interface TronTables extends ScanTables<'tron'> {
  tron_outgoing: TronOutgoingTable;
  tron_movements: TronMovementsTable;
}

export type TronDB = DB & TronTables;

export function tronDb(db: Kysely<DB>): Kysely<TronDB> {
  return withFamilyTables<TronTables>(db);
}
