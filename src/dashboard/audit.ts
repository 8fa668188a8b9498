// The audit log: every dashboard action that moves money, changes settings or changes who may
// sign in, with who did it and from where. Owners read their merchant's entries. Entries are
// written by src/custody/audit.ts, which the CLI and the features below the dashboard use too.
import type { Kysely } from 'kysely';
import type { DB, DashboardAuditTable } from '../db/schema.ts';
import { writeAudit, type AuditActor, type AuditEntry } from '../custody/audit.ts';

export type { AuditActor };

export async function audit(db: Kysely<DB>, actor: AuditActor, entry: AuditEntry, now: number): Promise<void> {
  await writeAudit(db, actor, entry, now);
}

/** Newest first, `limit` at a time; `before` is the last entry's (created_at, id) of the previous page. */
export async function auditLog(db: Kysely<DB>, merchantId: string, limit: number, before?: { t: number; id: string }): Promise<DashboardAuditTable[]> {
  let q = db.selectFrom('dashboard_audit').selectAll().where('merchant_id', '=', merchantId);
  if (before) q = q.where((eb) => eb.or([eb('created_at', '<', before.t), eb.and([eb('created_at', '=', before.t), eb('id', '<', before.id)])]));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
