import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('credited', 'text', (c) => c.notNull().defaultTo('0')).execute();
  await db.schema.alterTable('invoices').addColumn('resend_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  // What the chain shows for each transfer into one of our addresses.
  await db.schema
    .createTable('chain_transfers')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text')
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('block_height', 'bigint')
    .addColumn('block_hash', 'text')
    .addColumn('confirmations', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('owner_kind', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('seen_at', 'bigint', (c) => c.notNull())
    .addColumn('confirmed_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chain_transfers_pk', ['network', 'txid', 'idx'])
    .execute();
  await db.schema.createIndex('chain_transfers_owner').on('chain_transfers').columns(['owner_kind', 'owner_id']).execute();

  await db.schema
    .createTable('chain_cursors')
    .addColumn('network', 'text', (c) => c.primaryKey())
    .addColumn('cursor', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // The simulated chains: one table, a row per transfer; `rev` orders every change.
  await db.schema
    .createTable('sim_transactions')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('from_address', 'text')
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('block_height', 'bigint')
    .addColumn('confirmations', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('rev', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('sim_transactions_pk', ['network', 'txid', 'idx'])
    .execute();
  await db.schema.createIndex('sim_transactions_rev').on('sim_transactions').columns(['network', 'rev']).execute();

  // Ledger (docs/money.md): balances and their append-only entries.
  await db.schema
    .createTable('balances')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('balances_pk', ['merchant_id', 'kind', 'currency'])
    .execute();
  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('balance_after', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('ref_kind', 'text', (c) => c.notNull())
    .addColumn('ref_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ledger_entries_balance').on('ledger_entries').columns(['merchant_id', 'kind', 'currency']).execute();

  // Webhook outbox (docs/webhooks.md) and every delivery attempt.
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('allow_private', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('webhooks_due').on('webhooks').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhooks_ref').on('webhooks').columns(['ref_id']).execute();
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_webhook').on('webhook_attempts').columns(['webhook_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['webhook_attempts', 'webhooks', 'ledger_entries', 'balances', 'sim_transactions', 'chain_cursors', 'chain_transfers']) {
    await db.schema.dropTable(t).execute();
  }
}
