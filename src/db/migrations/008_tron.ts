// Tables of the TRON HTTP API driver (types in src/chain/tron/schema.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tron_cursors')
    .addColumn('network', 'text', (c) => c.primaryKey())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('block_hash', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tron_blocks')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('number', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('parent_hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tron_blocks_pk', ['network', 'number'])
    .execute();

  await db.schema
    .createTable('tron_transfers')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text')
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addColumn('confirmations', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('swept', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('tron_transfers_pk', ['network', 'txid', 'idx'])
    .execute();
  await db.schema.createIndex('tron_transfers_status').on('tron_transfers').columns(['network', 'status', 'block_number']).execute();
  await db.schema.createIndex('tron_transfers_sweep').on('tron_transfers').columns(['network', 'swept', 'status']).execute();

  await db.schema
    .createTable('tron_outgoing')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('expiration', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('block_number', 'bigint')
    .addColumn('confirmations', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('broadcast_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // One transaction per attempt of a request: two processes cannot both sign attempt n.
    .addUniqueConstraint('tron_outgoing_attempt', ['network', 'request_id', 'attempt'])
    .addUniqueConstraint('tron_outgoing_txid', ['network', 'txid'])
    .execute();
  await db.schema.createIndex('tron_outgoing_status').on('tron_outgoing').columns(['network', 'status']).execute();

  await db.schema
    .createTable('tron_movements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('energy', 'bigint')
    .addColumn('depends_on', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('txid', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tron_movements_status').on('tron_movements').columns(['network', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['tron_movements', 'tron_outgoing', 'tron_transfers', 'tron_blocks', 'tron_cursors']) {
    await db.schema.dropTable(t).execute();
  }
}
