// The merchant's default language for the payment page (a code of the page's languages, or null):
// "the invoice's language" when the link has no ?lang=, before the payer's browser languages.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchant_profiles').addColumn('language', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchant_profiles').dropColumn('language').execute();
}
