// The language each dashboard user reads the dashboard in: one of the payment page's languages, or
// null while the user has not chosen (the browser's language is used then). Per user, not per
// merchant: two people of one shop may read it in different languages.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dashboard_users').addColumn('language', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dashboard_users').dropColumn('language').execute();
}
