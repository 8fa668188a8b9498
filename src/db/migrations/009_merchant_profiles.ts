// The merchant's public profile (display name, logo, accent colour, default theme): what a payer
// sees of who they are paying. Kept apart from `merchants`, whose columns are private (keys).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchant_profiles')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey().references('merchants.id'))
    .addColumn('display_name', 'text')
    .addColumn('accent', 'text')
    .addColumn('theme', 'text', (c) => c.notNull().defaultTo('auto'))
    // The logo's bytes as base64 text (portable across both databases), its exact content type and
    // its SHA-256, which is also its public address (/logos/{sha256}.{ext}).
    .addColumn('logo', 'text')
    .addColumn('logo_type', 'text')
    .addColumn('logo_sha256', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('merchant_profiles_logo').on('merchant_profiles').column('logo_sha256').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('merchant_profiles').execute();
}
