// A merchant's order_id names one invoice or one static wallet, never both (the spec). The claim is
// a row under a primary key, taken in the creating transaction: on PostgreSQL a concurrent claim
// of the same order_id waits for this transaction and then sees its row, so only one kind wins.
import { statement } from '../db/statement.ts';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

export type OrderIdOwner = 'invoice' | 'wallet';

const claim = statement((db, p: { merchantId: string; orderId: string; kind: string }) =>
  db.insertInto('order_ids').values({ merchant_id: p.merchantId, order_id: p.orderId, owner_kind: p.kind }).onConflict((oc) => oc.columns(['merchant_id', 'order_id']).doNothing()),
);
const ownerOf = statement((db, p: { merchantId: string; orderId: string }) =>
  db.selectFrom('order_ids').select('owner_kind').where('merchant_id', '=', p.merchantId).where('order_id', '=', p.orderId),
);

/** Claims `orderId` for `kind` (or finds it claimed); returns the kind that holds it. */
export async function claimOrderId(trx: Transaction<DB>, merchantId: string, orderId: string, kind: OrderIdOwner): Promise<OrderIdOwner> {
  await claim(trx, { merchantId, orderId, kind });
  const { rows: [row] } = await ownerOf(trx, { merchantId, orderId });
  if (!row) throw new Error(`order_id ${orderId} was neither claimed nor taken`);
  return row.owner_kind as OrderIdOwner;
}
