// The audit log: every dashboard action that moves money, changes settings or changes who may
// sign in, with who did it and from where. Owners read their merchant's entries.
import type { Kysely } from 'kysely';
import type { DB, DashboardAuditTable } from '../db/schema.ts';
import { timeOrderedId } from '../webhooks/outbox.ts';

export interface AuditActor {
  userId: string | null;
  email: string;
  ip: string | null;
}

export async function audit(
  db: Kysely<DB>,
  actor: AuditActor,
  entry: { merchantId: string | null; action: string; target?: string | null; detail?: Record<string, unknown> },
  now: number,
): Promise<void> {
  await db
    .insertInto('dashboard_audit')
    .values({
      // Time-ordered, so entries written within one tick of the clock still read newest first.
      id: timeOrderedId(),
      merchant_id: entry.merchantId,
      user_id: actor.userId,
      email: actor.email,
      action: entry.action,
      target: entry.target ?? null,
      detail: entry.detail ? JSON.stringify(entry.detail) : null,
      ip: actor.ip,
      created_at: now,
    })
    .execute();
}

/** Newest first, `limit` at a time; `before` is the last entry's (created_at, id) of the previous page. */
export async function auditLog(db: Kysely<DB>, merchantId: string, limit: number, before?: { t: number; id: string }): Promise<DashboardAuditTable[]> {
  let q = db.selectFrom('dashboard_audit').selectAll().where('merchant_id', '=', merchantId);
  if (before) q = q.where((eb) => eb.or([eb('created_at', '<', before.t), eb.and([eb('created_at', '=', before.t), eb('id', '<', before.id)])]));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
