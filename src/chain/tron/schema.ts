// Tables of the TRON driver (created by src/db/migrations/008_tron.ts) beside the scan tables every
// family shares (src/db/schema.ts). Kept apart from src/db/schema.ts: only the driver reads them,
// through a `Kysely<TronDB>` view of the storage. Addresses are base58 ("T..."); amounts are
// decimal strings.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { withFamilyTables, type MovementColumns } from '../family-tables.ts';

/** Every movement between our own addresses: activation, TRX or energy for a sweep, the sweep. */
export interface TronMovementsTable extends MovementColumns {
  /** activate | fund (TRX for the energy, burn mode) | delegate | undelegate | sweep */
  kind: string;
  /** TRX moved, the token swept, or for delegate/undelegate the TRX of stake. */
  amount: string;
  /** Energy the sweep needs (fund / delegate), from triggerconstantcontract. */
  energy: number | null;
}

export interface TronTables {
  tron_movements: TronMovementsTable;
}

export type TronDB = DB & TronTables;

export function tronDb(db: Kysely<DB>): Kysely<TronDB> {
  return withFamilyTables<TronTables>(db);
}
