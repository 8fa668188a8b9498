// Tables of the EVM JSON-RPC driver (types in src/chain/evm/schema.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Scanners pick up newly allocated addresses on every poll.
  await db.schema.createIndex('addresses_network_created').on('addresses').columns(['network', 'created_at']).execute();
  await db.schema
    .createTable('evm_cursors')
    .addColumn('network', 'text', (c) => c.primaryKey())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('block_hash', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('evm_blocks')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('number', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('parent_hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('evm_blocks_pk', ['network', 'number'])
    .execute();

  await db.schema
    .createTable('evm_transfers')
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
    .addPrimaryKeyConstraint('evm_transfers_pk', ['network', 'txid', 'idx'])
    .execute();
  await db.schema.createIndex('evm_transfers_status').on('evm_transfers').columns(['network', 'status', 'block_number']).execute();
  await db.schema.createIndex('evm_transfers_block').on('evm_transfers').columns(['network', 'block_number']).execute();
  await db.schema.createIndex('evm_transfers_sweep').on('evm_transfers').columns(['network', 'swept', 'status']).execute();

  await db.schema
    .createTable('evm_nonces')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('next_nonce', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('evm_nonces_pk', ['network', 'address'])
    .execute();

  await db.schema
    .createTable('evm_outgoing')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('nonce', 'bigint', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('block_number', 'bigint')
    .addColumn('confirmations', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('broadcast_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // Idempotency: one transaction per request, and never two signed with the same nonce.
    .addUniqueConstraint('evm_outgoing_request', ['network', 'request_id'])
    .addUniqueConstraint('evm_outgoing_txid', ['network', 'txid'])
    .addUniqueConstraint('evm_outgoing_nonce', ['network', 'from_address', 'nonce'])
    .execute();
  await db.schema.createIndex('evm_outgoing_status').on('evm_outgoing').columns(['network', 'status']).execute();

  await db.schema
    .createTable('evm_movements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('outgoing_id', 'text')
    .addColumn('depends_on', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('txid', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('evm_movements_status').on('evm_movements').columns(['network', 'status']).execute();
  await db.schema.createIndex('evm_movements_from').on('evm_movements').columns(['network', 'from_address']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['evm_movements', 'evm_outgoing', 'evm_nonces', 'evm_transfers', 'evm_blocks', 'evm_cursors']) {
    await db.schema.dropTable(t).execute();
  }
  await db.schema.dropIndex('addresses_network_created').execute();
}
