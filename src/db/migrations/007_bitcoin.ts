// Tables of the `bitcoin-core` driver (types in src/chain/bitcoin/schema.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('btc_cursors')
    .addColumn('network', 'text', (c) => c.primaryKey())
    .addColumn('height', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text')
    .addColumn('node_height', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('btc_blocks')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('height', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('btc_blocks_pk', ['network', 'height'])
    .execute();

  await db.schema
    .createTable('btc_outputs')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('vout', 'integer', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('block_height', 'bigint')
    .addColumn('block_hash', 'text')
    .addColumn('confirmations', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('spent_txid', 'text')
    .addColumn('spent_by', 'text')
    .addColumn('spent_height', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('btc_outputs_pk', ['network', 'txid', 'vout'])
    .execute();
  await db.schema.createIndex('btc_outputs_status').on('btc_outputs').columns(['network', 'status', 'block_height']).execute();
  await db.schema.createIndex('btc_outputs_unspent').on('btc_outputs').columns(['network', 'spent_txid', 'status']).execute();

  await db.schema
    .createTable('btc_change')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('btc_change_pk', ['network', 'address'])
    .execute();

  await db.schema
    .createTable('btc_outgoing')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('fee', 'text', (c) => c.notNull())
    .addColumn('fee_rate', 'text', (c) => c.notNull())
    .addColumn('vsize', 'integer', (c) => c.notNull())
    .addColumn('inputs', 'text', (c) => c.notNull())
    .addColumn('change_address', 'text')
    .addColumn('change_amount', 'text')
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('block_height', 'bigint')
    .addColumn('confirmations', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('broadcast_at', 'bigint')
    .addColumn('broadcast_height', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // One transaction per request and attempt: a payout is never signed twice at the same step.
    .addUniqueConstraint('btc_outgoing_attempt', ['network', 'request_id', 'attempt'])
    .addUniqueConstraint('btc_outgoing_txid', ['network', 'txid'])
    .execute();
  await db.schema.createIndex('btc_outgoing_status').on('btc_outgoing').columns(['network', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['btc_outgoing', 'btc_change', 'btc_outputs', 'btc_blocks', 'btc_cursors']) await db.schema.dropTable(t).execute();
}
