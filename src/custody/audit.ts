// The audit log's one writer (table `dashboard_audit`): who did what to a merchant, from where.
// It sits below the entry points so that a change made by a feature (a custody change from the CLI
// as well as from the dashboard) is recorded in the same transaction as the change itself; the
// dashboard's reading of the log is src/dashboard/audit.ts.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { timeOrderedId } from '../webhooks/outbox.ts';

export interface AuditActor {
  userId: string | null;
  /** The user's email, or `cli` for a command run on the server. */
  email: string;
  ip: string | null;
}

/** The actor of a change made with the `satchel` command. */
export const CLI_ACTOR: AuditActor = { userId: null, email: 'cli', ip: null };

export interface AuditEntry {
  merchantId: string | null;
  action: string;
  target?: string | null;
  detail?: Record<string, unknown>;
}

export async function writeAudit(db: Kysely<DB> | Transaction<DB>, actor: AuditActor, entry: AuditEntry, now: number): Promise<void> {
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
