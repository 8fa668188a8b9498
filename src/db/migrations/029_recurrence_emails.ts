// Payer emails of subscriptions (docs/recurring.md, "Emails"): the merchant's switch (off by
// default), the address and language a payer gave when subscribing, and the outbox of those
// emails. A row is written in the transaction of the recurrence's status change (as its webhook
// is), at most one per transition (the unique pair), and a worker step sends it and marks it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // 0/1: whether payers who gave an email get the subscription emails.
  await db.schema.alterTable('merchants').addColumn('payer_emails', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('recurrences').addColumn('payer_email', 'text').execute();
  // One of the payment page's language codes.
  await db.schema.alterTable('recurrences').addColumn('payer_lang', 'text').execute();
  await db.schema
    .createTable('recurrence_emails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('recurrence_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    // The recurrence's version after the transition: one email per transition.
    .addColumn('transition', 'integer', (c) => c.notNull())
    // subscribed | renewal_due | paid | failed | cancelled
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('lang', 'text', (c) => c.notNull())
    // The period's invoice concerned (renewal_due: the invoice to pay), or null.
    .addColumn('invoice_id', 'text')
    // pending | sending | sent | failed
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('sent_at', 'bigint')
    .addUniqueConstraint('recurrence_emails_transition', ['recurrence_id', 'transition'])
    .execute();
  await db.schema.createIndex('recurrence_emails_due').on('recurrence_emails').columns(['status', 'next_attempt_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recurrence_emails').execute();
  await db.schema.alterTable('recurrences').dropColumn('payer_lang').execute();
  await db.schema.alterTable('recurrences').dropColumn('payer_email').execute();
  await db.schema.alterTable('merchants').dropColumn('payer_emails').execute();
}
