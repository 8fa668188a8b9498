// Sign-in throttling, kept in the database so that every API process counts the same failures:
// an account locks after a few failures, an address after more (it may be shared by many people).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Storage } from '../db/dialect.ts';

export const WINDOW_MS = 15 * 60_000;
export const ACCOUNT_LIMIT = 5;
export const ADDRESS_LIMIT = 20;

export function throttleKeys(email: unknown, ip: string): Array<{ key: string; limit: number }> {
  const keys = [{ key: `ip:${ip}`, limit: ADDRESS_LIMIT }];
  if (typeof email === 'string' && email.length <= 254) keys.push({ key: `account:${email.trim().toLowerCase()}`, limit: ACCOUNT_LIMIT });
  return keys;
}

/** Seconds until another attempt is allowed (0: allowed now). */
export async function throttledFor(db: Kysely<DB>, keys: Array<{ key: string; limit: number }>, now: number): Promise<number> {
  const rows = await db.selectFrom('dashboard_login_throttle').selectAll().where('key', 'in', keys.map((k) => k.key)).execute();
  let wait = 0;
  for (const row of rows) {
    const limit = keys.find((k) => k.key === row.key)!.limit;
    const ends = row.window_start + WINDOW_MS;
    if (row.failures >= limit && ends > now) wait = Math.max(wait, Math.ceil((ends - now) / 1000));
  }
  return wait;
}

export async function recordFailure(storage: Storage, keys: Array<{ key: string; limit: number }>, now: number): Promise<void> {
  await storage.write(async (trx) => {
    for (const { key } of keys) {
      const row = await storage.forUpdate(trx.selectFrom('dashboard_login_throttle').selectAll().where('key', '=', key)).executeTakeFirst();
      if (!row) await trx.insertInto('dashboard_login_throttle').values({ key, failures: 1, window_start: now }).execute();
      else if (row.window_start + WINDOW_MS <= now) await trx.updateTable('dashboard_login_throttle').set({ failures: 1, window_start: now }).where('key', '=', key).execute();
      else await trx.updateTable('dashboard_login_throttle').set({ failures: row.failures + 1 }).where('key', '=', key).execute();
    }
  });
}

/** A successful sign-in clears the account's count (not the address's: others may share it). */
export async function clearAccount(db: Kysely<DB>, email: string): Promise<void> {
  await db.deleteFrom('dashboard_login_throttle').where('key', '=', `account:${email.trim().toLowerCase()}`).execute();
}
