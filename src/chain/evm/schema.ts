// Tables of the EVM driver (created by src/db/migrations/004_evm.ts). Kept apart from
// src/db/schema.ts: only the driver reads them, through a `Kysely<EvmDB>` view of the storage.
// Block numbers and nonces are integers (bigint columns, parsed to number); amounts are text.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ScanBlocksTable, ScanCursorsTable, ScanTransfersTable } from '../reorg.ts';

/** The scan cursor, recent block hashes and reported transfers (shapes shared with the other
 * account-model families: src/chain/reorg.ts). */
export type EvmCursorsTable = ScanCursorsTable;
export type EvmBlocksTable = ScanBlocksTable;
export type EvmTransfersTable = ScanTransfersTable;

/** Next nonce per sending address (hot wallet, deposit addresses being swept). */
export interface EvmNoncesTable {
  network: string;
  address: string;
  next_nonce: number;
}

/** Every transaction the driver signed: stored before it is broadcast, so it can be rebroadcast. */
export interface EvmOutgoingTable {
  id: string;
  network: string;
  /** Idempotency key (payout id for payouts; generated for gas top-ups and sweeps). */
  request_id: string;
  /** payout | gas | sweep */
  kind: string;
  from_address: string;
  to_address: string;
  currency: string;
  amount: string;
  nonce: number;
  txid: string;
  /** The signed transaction (0x hex), exactly as broadcast. */
  raw: string;
  /** signed (not yet accepted by the node) | sent | mined | confirmed | failed */
  status: string;
  block_number: number | null;
  /** Confirmations last reported to the sink. */
  confirmations: number;
  error: string | null;
  broadcast_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Every movement of funds between our own addresses (sweeps and the gas they need). */
export interface EvmMovementsTable {
  id: string;
  network: string;
  /** gas (hot wallet -> deposit address) | sweep (deposit address -> hot wallet) */
  kind: string;
  currency: string;
  from_address: string;
  to_address: string;
  /** Decimal string; for a sweep waiting for gas, the balance seen when it was planned. */
  amount: string;
  /** The evm_outgoing row carrying it (null while waiting for gas). */
  outgoing_id: string | null;
  /** The gas movement this sweep waits for. */
  depends_on: string | null;
  /** waiting | sent | done | failed */
  status: string;
  txid: string | null;
  created_at: number;
  updated_at: number;
}

export interface EvmTables {
  evm_cursors: EvmCursorsTable;
  evm_blocks: EvmBlocksTable;
  evm_transfers: EvmTransfersTable;
  evm_nonces: EvmNoncesTable;
  evm_outgoing: EvmOutgoingTable;
  evm_movements: EvmMovementsTable;
}

/** The gateway's tables plus the driver's own. */
export type EvmDB = DB & EvmTables;

export function evmDb(db: Kysely<DB>): Kysely<EvmDB> {
  return db as unknown as Kysely<EvmDB>;
}
