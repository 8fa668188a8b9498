// A chain family's own tables beside the gateway's: the three scan tables of src/chain/reorg.ts
// under the family's prefix, and the typed view of the storage through which its driver reads them.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Storage } from '../db/storage.ts';
import type { ScanDB } from './reorg.ts';

/** ScanDB's tables under `prefix`: ScanTables<'evm'> is { evm_cursors, evm_blocks, evm_transfers }. */
export type ScanTables<P extends string> = {
  [K in keyof ScanDB as K extends `scan_${infer T}` ? `${P}_${T}` : never]: ScanDB[K];
};

/** The storage's Kysely, seen with a family's tables `T` beside the gateway's. */
export function withFamilyTables<T>(db: Kysely<DB>): Kysely<DB & T> {
  return db as unknown as Kysely<DB & T>;
}

/**
 * `storage.write` (the one way writes go), its transaction seen with the tables of `view`: the
 * family's view of the same storage, as `withFamilyTables` gives it.
 */
export function familyWrite<D, R>(storage: Storage, _view: Kysely<D>, fn: (trx: Transaction<D>) => Promise<R>): Promise<R> {
  return storage.write((trx) => fn(trx as unknown as Transaction<D>));
}

/** The columns every family's `<family>_outgoing` table has: one transaction the driver signed. */
export interface OutgoingColumns {
  id: string;
  network: string;
  /** Idempotency key: the payout id, or the id of the movement the transaction carries out. */
  request_id: string;
  kind: string;
  from_address: string;
  to_address: string;
  currency: string;
  amount: string;
  txid: string;
  /** The signed transaction (hex), exactly as broadcast. */
  raw: string;
  status: string;
  block_number: number | null;
  /** Confirmations last reported to the sink. */
  confirmations: number;
  error: string | null;
  broadcast_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The columns every family's `<family>_movements` table has: funds moved between our own addresses. */
export interface MovementColumns {
  id: string;
  network: string;
  kind: string;
  currency: string;
  from_address: string;
  to_address: string;
  /** Decimal string. */
  amount: string;
  /** The movement this one waits for. */
  depends_on: string | null;
  /** waiting | sent | done | failed */
  status: string;
  txid: string | null;
  created_at: number;
  updated_at: number;
}
