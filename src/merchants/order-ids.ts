// A merchant's order_id names one invoice, one static wallet or one recurrence, never two of them
// (the spec). The claim is
// a row under a primary key, taken in the creating transaction: on PostgreSQL a concurrent claim
// of the same order_id waits for this transaction and then sees its row, so only one kind wins.
import { statement } from '../db/statement.ts';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

export type OrderIdOwner = 'invoice' | 'wallet' | 'recurrence';

// One statement: the insert, or on a conflict a no-op update that returns the row already there
// (and on PostgreSQL waits for a concurrent claimer's transaction, as a plain insert would).
const claim = statement((db, p: { merchantId: string; orderId: string; kind: string }) =>
  db
    .insertInto('order_ids')
    .values({ merchant_id: p.merchantId, order_id: p.orderId, owner_kind: p.kind })
    .onConflict((oc) => oc.columns(['merchant_id', 'order_id']).doUpdateSet({ owner_kind: sql<string>`order_ids.owner_kind` }))
    .returning('owner_kind'),
);

/** Claims `orderId` for `kind` (or finds it claimed); returns the kind that holds it. */
export async function claimOrderId(trx: Transaction<DB>, merchantId: string, orderId: string, kind: OrderIdOwner): Promise<OrderIdOwner> {
  const { rows: [row] } = await claim(trx, { merchantId, orderId, kind });
  if (!row) throw new Error(`order_id ${orderId} was neither claimed nor taken`);
  return row.owner_kind as OrderIdOwner;
}
