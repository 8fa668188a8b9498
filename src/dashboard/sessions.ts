// Dashboard sessions: a random token in an HttpOnly cookie, only its SHA-256 in the database;
// idle and absolute expiry; a CSRF token per session; sign-out here or everywhere.
import type { Kysely } from 'kysely';
import type { DB, DashboardSessionsTable } from '../db/schema.ts';
import { findUser, newToken, sha256, type DashboardUser } from './users.ts';

/** A session ends after this long without a request... */
export const IDLE_MS = 2 * 3600_000;
/** ...and in any case this long after sign-in. */
export const ABSOLUTE_MS = 12 * 3600_000;
/** `seen_at` is written at most this often, so reading pages does not mean writing rows. */
const TOUCH_EVERY_MS = 60_000;

export interface SignedIn {
  session: DashboardSessionsTable;
  user: DashboardUser;
}

export async function createSession(db: Kysely<DB>, user: DashboardUser, ip: string | null, now: number): Promise<{ token: string; csrf: string }> {
  const token = newToken();
  const csrf = newToken();
  await db
    .insertInto('dashboard_sessions')
    .values({ token_hash: sha256(token), user_id: user.id, csrf, created_at: now, seen_at: now, expires_at: now + ABSOLUTE_MS, ip })
    .execute();
  return { token, csrf };
}

/** The live session for a cookie's token, or null (expired ones are removed on the way). */
export async function findSession(db: Kysely<DB>, token: string, now: number): Promise<SignedIn | null> {
  if (token.length < 20 || token.length > 100) return null;
  const hash = sha256(token);
  const session = await db.selectFrom('dashboard_sessions').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  if (!session) return null;
  if (session.expires_at <= now || session.seen_at + IDLE_MS <= now) {
    await db.deleteFrom('dashboard_sessions').where('token_hash', '=', hash).execute();
    return null;
  }
  const user = await findUser(db, session.user_id);
  if (!user || user.disabled) return null;
  if (now - session.seen_at >= TOUCH_EVERY_MS) {
    await db.updateTable('dashboard_sessions').set({ seen_at: now }).where('token_hash', '=', hash).execute();
    session.seen_at = now;
  }
  return { session, user };
}

export async function endSession(db: Kysely<DB>, token: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('token_hash', '=', sha256(token)).execute();
}

export async function endAllSessions(db: Kysely<DB>, userId: string): Promise<number> {
  const r = await db.deleteFrom('dashboard_sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Removes sessions past their expiry (called now and then; expired ones are refused anyway). */
export async function pruneSessions(db: Kysely<DB>, now: number): Promise<void> {
  await db
    .deleteFrom('dashboard_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('seen_at', '<=', now - IDLE_MS)]))
    .execute();
}
