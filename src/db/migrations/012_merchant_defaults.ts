// The merchant's default callback and return URLs (set in the dashboard's Settings), used when an
// invoice or static wallet is created without its own; and the indexes of the dashboard's static
// wallets list and cross-object webhooks view.
import type { Kysely } from 'kysely';

const DEFAULTS = ['default_url_callback', 'default_url_return', 'default_url_success'];

export async function up(db: Kysely<any>): Promise<void> {
  for (const c of DEFAULTS) await db.schema.alterTable('merchants').addColumn(c, 'text').execute();
  await db.schema.createIndex('static_wallets_merchant_created').on('static_wallets').columns(['merchant_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('static_wallets_merchant_status_created').on('static_wallets').columns(['merchant_id', 'status', 'created_at', 'id']).execute();
  await db.schema.createIndex('webhooks_merchant_created').on('webhooks').columns(['merchant_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('webhooks_merchant_status_created').on('webhooks').columns(['merchant_id', 'status', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const i of ['static_wallets_merchant_created', 'static_wallets_merchant_status_created', 'webhooks_merchant_created', 'webhooks_merchant_status_created']) {
    await db.schema.dropIndex(i).execute();
  }
  for (const c of DEFAULTS) await db.schema.alterTable('merchants').dropColumn(c).execute();
}
