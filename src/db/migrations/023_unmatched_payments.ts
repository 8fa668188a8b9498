// Payments to a merchant's receiving account that name no deposit of the gateway (a payment without
// the comment that identifies an invoice, say). They are credited to nothing on their own: kept here
// for the merchant to resolve (assign to an invoice, or say they returned it), and counted in no
// balance until then (src/unmatched/).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('unmatched_payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Null: no merchant's receiving material names the account it arrived at.
    .addColumn('merchant_id', 'text')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('from_address', 'text')
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('block_height', 'bigint')
    // What the chain showed when it was reported: an assignment credits with it.
    .addColumn('confirmations', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('invoice_id', 'text')
    .addColumn('resolved_by', 'text')
    .addColumn('resolved_at', 'bigint')
    .addColumn('resolution_note', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('unmatched_payments_transfer', ['network', 'txid', 'idx'])
    .execute();
  await db.schema.createIndex('unmatched_payments_merchant').on('unmatched_payments').columns(['merchant_id', 'status', 'created_at']).execute();
  await db.schema.createIndex('unmatched_payments_open').on('unmatched_payments').columns(['status', 'created_at']).where(sql.ref('status'), '=', 'open').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('unmatched_payments').execute();
}
