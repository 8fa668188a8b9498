// A merchant's order_id names one invoice or one static wallet, never both (the spec). The claim is
// a row under a primary key, taken in the creating transaction: on PostgreSQL a concurrent claim
// of the same order_id waits for this transaction and then sees its row, so only one kind wins.
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

export type OrderIdOwner = 'invoice' | 'wallet';

/** Claims `orderId` for `kind` (or finds it claimed); returns the kind that holds it. */
export async function claimOrderId(trx: Transaction<DB>, merchantId: string, orderId: string, kind: OrderIdOwner): Promise<OrderIdOwner> {
  await trx
    .insertInto('order_ids')
    .values({ merchant_id: merchantId, order_id: orderId, owner_kind: kind })
    .onConflict((oc) => oc.columns(['merchant_id', 'order_id']).doNothing())
    .execute();
  const row = await trx
    .selectFrom('order_ids')
    .select('owner_kind')
    .where('merchant_id', '=', merchantId)
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow();
  return row.owner_kind as OrderIdOwner;
}
