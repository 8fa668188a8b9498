// What SQLite and PostgreSQL do differently that code outside this folder must act on, each asked
// by what it means rather than by which database it is.
import type { Storage } from './storage.ts';

/**
 * Whether single-row reads by key that arrive together are worth gathering into one query
 * (./batched-lookup.ts). On PostgreSQL each read costs a round trip; SQLite's reads that arrive
 * together share one read transaction by themselves (./sqlite.ts).
 */
export function gathersLookups(storage: Storage): boolean {
  return storage.kind === 'postgres';
}

/** Whether a WITH clause may hold an insert or delete whose rows the rest of the statement uses (PostgreSQL; SQLite allows only selects there). */
export function writesInWith(storage: Storage): boolean {
  return storage.kind === 'postgres';
}

/**
 * Whether only one process may run the workers on this database, which a lock file in the data
 * folder then settles (SQLite: one process writes); PostgreSQL's workers share out the work.
 */
export function oneWorkerProcess(storage: Storage): boolean {
  return storage.kind === 'sqlite';
}
