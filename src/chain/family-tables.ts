// A chain family's own tables beside the gateway's (the scan tables every family shares are in
// src/db/schema.ts), and the typed view of the storage through which its driver reads them.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Storage } from '../db/storage.ts';

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
