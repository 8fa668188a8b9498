// Tables of the EVM driver (created by src/db/migrations/004_evm.ts). Kept apart from
// src/db/schema.ts: only the driver reads them, through a `Kysely<EvmDB>` view of the storage.
// Block numbers and nonces are integers (bigint columns, parsed to number); amounts are text.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { withFamilyTables, type MovementColumns, type OutgoingColumns, type ScanTables } from '../family-tables.ts';

/** Next nonce per sending address (hot wallet, deposit addresses being swept). */
export interface EvmNoncesTable {
  network: string;
  address: string;
  next_nonce: number;
}

/** Every transaction the driver signed: stored before it is broadcast, so it can be rebroadcast. */
export interface EvmOutgoingTable extends OutgoingColumns {
  /** payout | gas | sweep */
  kind: string;
  nonce: number;
  /** signed (not yet accepted by the node) | sent | mined | confirmed | failed */
  status: string;
}

/** Every movement of funds between our own addresses (sweeps and the gas they need). */
export interface EvmMovementsTable extends MovementColumns {
  /** gas (hot wallet -> deposit address) | sweep (deposit address -> hot wallet) */
  kind: string;
  /** For a sweep waiting for gas, the balance seen when it was planned. */
  amount: string;
  /** The evm_outgoing row carrying it (null while waiting for gas). */
  outgoing_id: string | null;
  /** The gas movement this sweep waits for. */
  depends_on: string | null;
}

export interface EvmTables extends ScanTables<'evm'> {
  evm_nonces: EvmNoncesTable;
  evm_outgoing: EvmOutgoingTable;
  evm_movements: EvmMovementsTable;
}

/** The gateway's tables plus the driver's own. */
export type EvmDB = DB & EvmTables;

export function evmDb(db: Kysely<DB>): Kysely<EvmDB> {
  return withFamilyTables<EvmTables>(db);
}
