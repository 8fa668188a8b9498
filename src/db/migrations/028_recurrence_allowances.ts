// Automatic renewals on EVM networks (docs/recurring.md): the allowance a payer granted the
// network's collector for a recurrence, and the pulls made with it. A period is pulled at most
// once: (recurrence, period) is unique, and a pull is recorded (`planned`, with the hash of the
// transaction signed and stored by the driver) before it is broadcast, so a crash between pulling
// and recording finds the stored transaction on restart instead of signing a second one.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('recurrence_allowances')
    // One allowance per recurrence: recording a new one replaces it.
    .addColumn('recurrence_id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // The token's contract and the spender, as they were when the payer approved.
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('collector', 'text', (c) => c.notNull())
    .addColumn('payer_address', 'text', (c) => c.notNull())
    // Decimal text in `currency`: what the chain said the allowance was when it was recorded.
    .addColumn('cap', 'text', (c) => c.notNull())
    .addColumn('approve_txid', 'text')
    // active | revoked (seen revoked or short when a period was due: that period was invoiced)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('recurrence_pulls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('recurrence_id', 'text', (c) => c.notNull())
    .addColumn('period', 'integer', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    // The renewal invoice's deposit address.
    .addColumn('to_address', 'text', (c) => c.notNull())
    // Decimal text: exactly the period invoice's amount.
    .addColumn('amount', 'text', (c) => c.notNull())
    // Null until the driver has signed and stored the transaction.
    .addColumn('txid', 'text')
    // planned | sent | confirmed | failed | skipped (allowance or balance short: invoiced instead)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('recurrence_pulls_period', ['recurrence_id', 'period'])
    .execute();
  await db.schema.createIndex('recurrence_pulls_status').on('recurrence_pulls').columns(['status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('recurrence_pulls').execute();
  await db.schema.dropTable('recurrence_allowances').execute();
}
