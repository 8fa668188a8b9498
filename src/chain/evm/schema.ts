// Tables of the EVM driver (created by src/db/migrations/004_evm.ts) beside the scan tables every
// family shares (src/db/schema.ts). Kept apart from src/db/schema.ts: only the driver reads them,
// through a `Kysely<EvmDB>` view of the storage. Nonces are integers (bigint columns, parsed to
// number); amounts are text.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { withFamilyTables, type MovementColumns } from '../family-tables.ts';

/** Next nonce per sending address (hot wallet, deposit addresses being swept). */
export interface EvmNoncesTable {
  network: string;
  address: string;
  next_nonce: number;
}

/** Every movement of funds between our own addresses (sweeps and the gas they need). */
export interface EvmMovementsTable extends MovementColumns {
  /** gas (hot wallet -> deposit address) | sweep (deposit address -> hot wallet) */
  kind: string;
  /** For a sweep waiting for gas, the balance seen when it was planned. */
  amount: string;
  /** The scan_outgoing row carrying it (null while waiting for gas). */
  outgoing_id: string | null;
  /** The gas movement this sweep waits for. */
  depends_on: string | null;
}

export interface EvmTables {
  evm_nonces: EvmNoncesTable;
  evm_movements: EvmMovementsTable;
}

/** The gateway's tables plus the driver's own. */
export type EvmDB = DB & EvmTables;

export function evmDb(db: Kysely<DB>): Kysely<EvmDB> {
  return withFamilyTables<EvmTables>(db);
}
