// Sign-in throttling, kept in the database so that every API process counts the same attempts:
// an account locks after a few failures, an address after more (it may be shared by many people).
//
// An attempt is *reserved* (counted) before its password is checked, by one atomic upsert per key
// that counts only while the key is under its limit. Checking first and counting after the hash
// let a burst of parallel attempts all pass the check before any was counted; with the upsert,
// PostgreSQL's row lock (and SQLite's single writer) serialise the attempts of one key across
// every process, so at most `limit` attempts per window ever reach the password hash.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Storage } from '../db/dialect.ts';
import { emailKey } from './users.ts';

export const WINDOW_MS = 15 * 60_000;
export const ACCOUNT_LIMIT = 5;
export const ADDRESS_LIMIT = 20;

export interface ThrottleKey {
  key: string;
  limit: number;
}

/**
 * The keys an attempt counts on. The account's key is the very string the sign-in looks the user
 * up by (`emailKey`: trimmed, lower-cased), so every spelling that can reach an account's password
 * hash counts on that account's key; a spelling that maps elsewhere reaches no account's hash.
 */
export function throttleKeys(email: unknown, ip: string): ThrottleKey[] {
  const keys: ThrottleKey[] = [{ key: `ip:${ip}`, limit: ADDRESS_LIMIT }];
  if (typeof email === 'string' && email.length <= 254) keys.push({ key: `account:${emailKey(email)}`, limit: ACCOUNT_LIMIT });
  return keys;
}

/** Thrown inside the reservation's transaction so that the keys counted before it roll back. */
class KeyFull extends Error {
  constructor(readonly waitSeconds: number) {
    super('sign-in key at its limit');
  }
}

/**
 * Counts one attempt on every key, all or none. Returns 0 when the attempt may go on to the
 * password check, else the seconds until the fullest key's window ends (nothing is counted then).
 */
export async function reserveAttempt(storage: Storage, keys: ThrottleKey[], now: number): Promise<number> {
  // Keys are locked in one order everywhere, so two attempts never wait on each other's rows.
  const ordered = [...keys].sort((a, b) => (a.key < b.key ? -1 : 1));
  try {
    await storage.write(async (trx) => {
      for (const { key, limit } of ordered) {
        const expired = sql<boolean>`dashboard_login_throttle.window_start + ${WINDOW_MS} <= ${now}`;
        const counted = await trx
          .insertInto('dashboard_login_throttle')
          .values({ key, failures: 1, window_start: now })
          .onConflict((oc) =>
            oc
              .column('key')
              .doUpdateSet({
                failures: sql<number>`case when ${expired} then 1 else dashboard_login_throttle.failures + 1 end`,
                window_start: sql<number>`case when ${expired} then ${now} else dashboard_login_throttle.window_start end`,
              })
              .where((eb) => eb.or([expired, eb('dashboard_login_throttle.failures', '<', limit)])),
          )
          .returning('failures')
          .executeTakeFirst();
        if (counted) continue;
        const row = await trx.selectFrom('dashboard_login_throttle').select('window_start').where('key', '=', key).executeTakeFirstOrThrow();
        throw new KeyFull(Math.max(1, Math.ceil((row.window_start + WINDOW_MS - now) / 1000)));
      }
    });
    return 0;
  } catch (e) {
    if (e instanceof KeyFull) return e.waitSeconds;
    throw e;
  }
}

/**
 * A successful sign-in clears the account's count and gives the address back the attempt it
 * reserved (the address keeps its failures: others may share it).
 */
export async function releaseOnSuccess(db: Kysely<DB>, email: string, ip: string): Promise<void> {
  await db.deleteFrom('dashboard_login_throttle').where('key', '=', `account:${emailKey(email)}`).execute();
  await db
    .updateTable('dashboard_login_throttle')
    .set({ failures: sql<number>`failures - 1` })
    .where('key', '=', `ip:${ip}`)
    .where('failures', '>', 0)
    .execute();
}
