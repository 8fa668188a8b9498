import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('payment_key', 'text', (c) => c.notNull())
    .addColumn('payout_key', 'text', (c) => c.notNull())
    .addColumn('is_blocked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('hd_counters')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('next_index', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('addresses')
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('owner_kind', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('addresses_pk', ['network', 'address'])
    .execute();

  let t = db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull());
  for (const col of [
    'network', 'payer_currency', 'payer_amount', 'exchange_rate', 'rate_source', 'discount',
    'commission', 'commission_percent', 'merchant_amount', 'payment_amount', 'payment_amount_usd',
    'address', 'address_path', 'from_address', 'txid', 'url_return', 'url_success', 'url_callback',
    'to_currency', 'additional_data', 'currencies', 'except_currencies', 'course_source',
    'from_referral_code', 'payer_email', 'theme', 'comments',
  ]) {
    t = t.addColumn(col, 'text');
  }
  await t
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('discount_percent', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('is_final', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_payment_multiple', 'integer', (c) => c.notNull())
    .addColumn('lifetime', 'integer', (c) => c.notNull())
    .addColumn('subtract', 'integer', (c) => c.notNull())
    .addColumn('accuracy_payment_percent', 'text', (c) => c.notNull())
    .addColumn('expired_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addUniqueConstraint('invoices_merchant_order', ['merchant_id', 'order_id'])
    .execute();
  await db.schema
    .createIndex('invoices_merchant_created')
    .on('invoices')
    .columns(['merchant_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('invoices_open_expiry').on('invoices').columns(['is_final', 'expired_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['invoices', 'addresses', 'hd_counters', 'merchants']) await db.schema.dropTable(t).execute();
}
