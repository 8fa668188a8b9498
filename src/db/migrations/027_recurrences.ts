// Recurring payments (docs/recurring.md): a merchant's subscription plan that a payer accepts once,
// after which each period is paid by an ordinary invoice linked to it. The invoice of a period is
// unique per (recurrence, period): a worker that crashed after creating a renewal, or two workers
// racing for one, can never make a second invoice for the same period.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('recurrences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    // Optional: a recurrence created without one is known by its uuid only (NULLs never collide).
    .addColumn('order_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    // Decimal text in `currency`.
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('to_currency', 'text')
    // What the payer pays in: set at creation from to_currency, or when the payer subscribes.
    .addColumn('payer_currency', 'text')
    .addColumn('network', 'text')
    .addColumn('payer_amount', 'text')
    .addColumn('payer_amount_usd', 'text')
    .addColumn('url_callback', 'text')
    .addColumn('discount_days', 'integer')
    .addColumn('discount_amount', 'text')
    .addColumn('end_of_discount', 'bigint')
    // weekly | monthly | three_month
    .addColumn('period', 'text', (c) => c.notNull())
    // wait_accept | active | wait_payment | inactive | cancel_by_merchant | cancel_by_user
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('additional_data', 'text')
    // The period whose invoice is the latest one made (0: the first, paid when subscribing).
    .addColumn('period_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('invoice_id', 'text')
    // Renewal dates are counted from an anchor, so that month ends keep their day (Jan 31, Feb 28,
    // Mar 31): period `anchor_period` starts at `anchor_at`, each later one a period further.
    .addColumn('anchor_at', 'bigint')
    .addColumn('anchor_period', 'integer', (c) => c.notNull().defaultTo(0))
    // When the next period starts (its renewal invoice is due); null while none is scheduled.
    .addColumn('next_due_at', 'bigint')
    // When an unpaid renewal makes the subscription inactive.
    .addColumn('grace_until', 'bigint')
    .addColumn('last_pay_off', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addUniqueConstraint('recurrences_order', ['merchant_id', 'order_id'])
    .execute();
  await db.schema.createIndex('recurrences_history').on('recurrences').columns(['merchant_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('recurrences_due').on('recurrences').columns(['status', 'next_due_at']).execute();

  await db.schema.alterTable('invoices').addColumn('recurrence_id', 'text').execute();
  await db.schema.alterTable('invoices').addColumn('recurrence_period', 'integer').execute();
  // NULLs are distinct on both databases: every other invoice passes.
  await db.schema.createIndex('invoices_recurrence_period').unique().on('invoices').columns(['recurrence_id', 'recurrence_period']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('invoices_recurrence_period').execute();
  await db.schema.alterTable('invoices').dropColumn('recurrence_period').execute();
  await db.schema.alterTable('invoices').dropColumn('recurrence_id').execute();
  await db.schema.dropTable('recurrences').execute();
}
