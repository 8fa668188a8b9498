// Tables of the EVM driver (created by src/db/migrations/004_evm.ts). Kept apart from
// src/db/schema.ts: only the driver reads them, through a `Kysely<EvmDB>` view of the storage.
// Block numbers and nonces are integers (bigint columns, parsed to number); amounts are text.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** How far each network has been scanned. */
export interface EvmCursorsTable {
  network: string;
  /** Last fully processed block (-1: nothing yet). */
  block_number: number;
  block_hash: string | null;
  updated_at: number;
}

/** Hashes of recently processed blocks, to notice a reorganisation and find the fork point. */
export interface EvmBlocksTable {
  network: string;
  number: number;
  hash: string;
  parent_hash: string;
}

/** Transfers into watched addresses, as last reported to the sink. */
export interface EvmTransfersTable {
  network: string;
  txid: string;
  /** 0 for a native transfer, the block log index for a token transfer. */
  idx: number;
  currency: string;
  to_address: string;
  from_address: string | null;
  amount: string;
  block_number: number;
  block_hash: string;
  /** Confirmations last reported to the sink (0: not reported yet). */
  confirmations: number;
  /** pending (confirmations still rising) | confirmed | orphaned (its block left the chain) | dropped */
  status: string;
  /** 1 once a sweep found nothing left to move from `to_address` after this transfer. */
  swept: number;
  created_at: number;
  updated_at: number;
}

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
