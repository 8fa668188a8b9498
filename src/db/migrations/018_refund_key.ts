// Which key may sign a merchant's refunds (`/v1/payment/refund`): 'payout' (the spec's rule, the
// default) or 'either' (the payment key too, as the common SDKs sign refunds).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('refund_key', 'text', (c) => c.notNull().defaultTo('payout')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').dropColumn('refund_key').execute();
}
