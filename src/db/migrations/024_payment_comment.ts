// The payment reference of an invoice or static wallet on a network whose payments are told apart by
// a comment rather than by address: every deposit there goes to the merchant's one account, and the
// comment the payer sends says which invoice it pays. `address` keeps the account (what the payer
// sends to); the `addresses` row keeps the deposit key (account and reference) that the scan matches.
// Null on every other network.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('payment_comment', 'text').execute();
  await db.schema.alterTable('static_wallets').addColumn('payment_comment', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('static_wallets').dropColumn('payment_comment').execute();
  await db.schema.alterTable('invoices').dropColumn('payment_comment').execute();
}
