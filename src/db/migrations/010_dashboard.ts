// Tables of the merchant dashboard (types in src/db/schema.ts): its users, their one-time links,
// sessions, login throttling and the audit log; and the indexes its invoice search needs.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dashboard_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Null for an instance admin, who sees every merchant.
    .addColumn('merchant_id', 'text')
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_users_merchant').on('dashboard_users').columns(['merchant_id']).execute();

  await db.schema
    .createTable('dashboard_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_links_user').on('dashboard_links').columns(['user_id']).execute();

  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('csrf', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'text')
    .execute();
  await db.schema.createIndex('dashboard_sessions_user').on('dashboard_sessions').columns(['user_id']).execute();

  await db.schema
    .createTable('dashboard_login_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('dashboard_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('detail', 'text')
    .addColumn('ip', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_audit_merchant').on('dashboard_audit').columns(['merchant_id', 'created_at', 'id']).execute();

  // What a webhook receiver answered, for the delivery log.
  await db.schema.alterTable('webhook_attempts').addColumn('answer', 'text').execute();

  // Invoice search: a status filter keeps its keyset order; lookups by txid and address.
  await db.schema.createIndex('invoices_merchant_status_created').on('invoices').columns(['merchant_id', 'status', 'created_at', 'id']).execute();
  await db.schema.createIndex('invoices_merchant_address').on('invoices').columns(['merchant_id', 'address']).execute();
  await db.schema.createIndex('invoices_merchant_txid').on('invoices').columns(['merchant_id', 'txid']).execute();
  await db.schema.createIndex('chain_transfers_txid').on('chain_transfers').columns(['txid']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').dropColumn('answer').execute();
  for (const i of ['invoices_merchant_status_created', 'invoices_merchant_address', 'invoices_merchant_txid', 'chain_transfers_txid']) {
    await db.schema.dropIndex(i).execute();
  }
  for (const t of ['dashboard_audit', 'dashboard_login_throttle', 'dashboard_sessions', 'dashboard_links', 'dashboard_users']) {
    await db.schema.dropTable(t).execute();
  }
}
