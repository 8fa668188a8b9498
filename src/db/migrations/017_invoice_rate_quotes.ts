// The quotes an invoice was priced on (JSON: [{source, price, received_at, used}]): a merchant
// who doubts a price can see which exchanges answered, what each said and how fresh it was, and
// which were dropped as too far from the others. Null for invoices priced before this existed.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('rate_quotes', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').dropColumn('rate_quotes').execute();
}
