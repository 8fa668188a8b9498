// The per-period amount a payer approved for automatic renewals (docs/recurring.md), kept on the
// allowance: a renewal invoice of a fiat-priced plan is re-quoted every period and may ask more
// than the payer agreed to, and a pull never takes more than was agreed. Allowances recorded
// before this column get the recurrence's per-period payer amount, the figure their terms showed.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Decimal text in the allowance's currency. Null only for a row whose recurrence is gone: such an
  // allowance is never pulled with.
  await db.schema.alterTable('recurrence_allowances').addColumn('amount_per_period', 'text').execute();
  await sql`update recurrence_allowances set amount_per_period = (select r.payer_amount from recurrences r where r.id = recurrence_allowances.recurrence_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('recurrence_allowances').dropColumn('amount_per_period').execute();
}
