// The spec's Payout object has no order_id; the dashboard shows the merchant's own reference, so
// it adds it to what the payout queries present.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export async function withOrderIds<T extends Record<string, unknown>>(db: Kysely<DB>, merchantId: string, items: T[]): Promise<Array<T & { order_id: string | null }>> {
  const ids = items.map((i) => String(i.uuid));
  const rows = ids.length ? await db.selectFrom('payouts').select(['id', 'order_id']).where('merchant_id', '=', merchantId).where('id', 'in', ids).execute() : [];
  const byId = new Map(rows.map((r) => [r.id, r.order_id]));
  return items.map((i) => ({ ...i, order_id: byId.get(String(i.uuid)) ?? null }));
}
