// Money going out and static wallets: payouts (and every other outgoing payment), static wallets,
// their top-ups, operator overrides of merchant wallets, and what the drivers said about our sends.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('ref_id', 'text')
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('is_subtract', 'integer', (c) => c.notNull())
    .addColumn('payer_currency', 'text', (c) => c.notNull())
    .addColumn('payer_amount', 'text', (c) => c.notNull())
    .addColumn('commission', 'text', (c) => c.notNull())
    .addColumn('merchant_amount', 'text', (c) => c.notNull())
    .addColumn('debit_currency', 'text', (c) => c.notNull())
    .addColumn('convert', 'text')
    .addColumn('course_source', 'text')
    .addColumn('url_callback', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('is_final', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('txid', 'text')
    .addColumn('confirmations', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // Idempotency lives in unique constraints: a race cannot create two payouts with one order_id
    // (other kinds leave it null).
    .addUniqueConstraint('payouts_merchant_order', ['merchant_id', 'order_id'])
    .execute();
  await db.schema.createIndex('payouts_due').on('payouts').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('payouts_txid').on('payouts').columns(['network', 'txid']).execute();
  await db.schema.createIndex('payouts_merchant_created').on('payouts').columns(['merchant_id', 'kind', 'created_at', 'id']).execute();
  await db.schema.createIndex('payouts_ref').on('payouts').columns(['ref_id']).execute();

  await db.schema
    .createTable('static_wallets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('address_path', 'text', (c) => c.notNull())
    .addColumn('url_callback', 'text')
    .addColumn('from_referral_code', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('is_force_refund', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fee_charged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refund_status', 'text')
    .addColumn('refund_id', 'text')
    .addColumn('blocked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('static_wallets_merchant_order', ['merchant_id', 'order_id'])
    .execute();

  await db.schema
    .createTable('wallet_topups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wallet_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('commission', 'text', (c) => c.notNull())
    .addColumn('creation_fee', 'text', (c) => c.notNull())
    .addColumn('merchant_amount', 'text', (c) => c.notNull())
    .addColumn('payment_amount_usd', 'text')
    .addColumn('refund_id', 'text')
    .addColumn('wallet_refund_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // A transfer seen twice is handled once.
    .addUniqueConstraint('wallet_topups_transfer', ['network', 'txid', 'idx'])
    .execute();
  await db.schema.createIndex('wallet_topups_wallet').on('wallet_topups').columns(['wallet_id', 'outcome']).execute();

  await db.schema
    .createTable('merchant_wallets')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('merchant_wallets_pk', ['merchant_id', 'kind', 'currency'])
    .execute();

  await db.schema
    .createTable('outgoing_events')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('confirmations', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('outgoing_events_pk', ['network', 'txid'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['outgoing_events', 'merchant_wallets', 'wallet_topups', 'static_wallets', 'payouts']) {
    await db.schema.dropTable(t).execute();
  }
}
