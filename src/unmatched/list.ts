// Reading unmatched payments (./record.ts) for the CLI and the dashboard, newest first.
import type { Kysely } from 'kysely';
import type { DB, UnmatchedPaymentsTable } from '../db/schema.ts';

export const UNMATCHED_STATUSES = ['open', 'assigned', 'refunded'] as const;
export type UnmatchedStatus = (typeof UNMATCHED_STATUSES)[number];

export interface UnmatchedFilter {
  merchantId?: string;
  network?: string;
  /** Default `open`. */
  status?: UnmatchedStatus | 'all';
  limit?: number;
}

export function isUnmatchedStatus(v: unknown): v is UnmatchedStatus | 'all' {
  return v === 'all' || (UNMATCHED_STATUSES as readonly unknown[]).includes(v);
}

export async function listUnmatched(db: Kysely<DB>, f: UnmatchedFilter = {}): Promise<UnmatchedPaymentsTable[]> {
  let q = db.selectFrom('unmatched_payments').selectAll();
  if (f.merchantId) q = q.where('merchant_id', '=', f.merchantId);
  if (f.network) q = q.where('network', '=', f.network.toUpperCase());
  const status = f.status ?? 'open';
  if (status !== 'all') q = q.where('status', '=', status);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(Math.min(Math.max(f.limit ?? 200, 1), 1000)).execute();
}

export async function unmatchedById(db: Kysely<DB>, id: string): Promise<UnmatchedPaymentsTable | undefined> {
  return db.selectFrom('unmatched_payments').selectAll().where('id', '=', id).executeTakeFirst();
}
