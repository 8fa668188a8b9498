// One set of scan tables, keyed by network, for every chain family (types in
// src/db/tables/scan.ts): the cursors, recent blocks, reported transfers and signed transactions
// each family kept under its own prefix (evm_, tron_, btc_; migrations 004, 007 and 008) move
// here, every row kept, and the per-family tables are dropped. A new family then needs no
// migration for them. Bitcoin's fee details of a transaction (fee, rate, size, the coins spent,
// the change) go to the `data` JSON of its row, amounts as the decimal strings they were.
import { sql, type Kysely } from 'kysely';

const FAMILIES = ['evm', 'tron'] as const;

async function createScanTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_cursors')
    .addColumn('network', 'text', (c) => c.primaryKey())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('block_hash', 'text')
    .addColumn('node_height', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('scan_blocks')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('number', 'bigint', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('parent_hash', 'text')
    .addPrimaryKeyConstraint('scan_blocks_pk', ['network', 'number'])
    .execute();

  await db.schema
    .createTable('scan_transfers')
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
    .addPrimaryKeyConstraint('scan_transfers_pk', ['network', 'txid', 'idx'])
    .execute();
  await db.schema.createIndex('scan_transfers_status').on('scan_transfers').columns(['network', 'status', 'block_number']).execute();
  await db.schema.createIndex('scan_transfers_block').on('scan_transfers').columns(['network', 'block_number']).execute();
  await db.schema.createIndex('scan_transfers_sweep').on('scan_transfers').columns(['network', 'swept', 'status']).execute();

  await db.schema
    .createTable('scan_outgoing')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text')
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('currency', 'text')
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('block_number', 'bigint')
    .addColumn('confirmations', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('broadcast_at', 'bigint')
    .addColumn('broadcast_height', 'bigint')
    .addColumn('nonce', 'bigint')
    .addColumn('expiration', 'bigint')
    .addColumn('data', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    // A request is never signed twice at the same attempt, and a nonce never used twice by one
    // sender (rows without a nonce are never equal to each other, on both databases).
    .addUniqueConstraint('scan_outgoing_attempt', ['network', 'request_id', 'attempt'])
    .addUniqueConstraint('scan_outgoing_txid', ['network', 'txid'])
    .addUniqueConstraint('scan_outgoing_nonce', ['network', 'from_address', 'nonce'])
    .execute();
  await db.schema.createIndex('scan_outgoing_status').on('scan_outgoing').columns(['network', 'status']).execute();
}

const TRANSFER_COLUMNS = sql.raw(
  'network, txid, idx, currency, to_address, from_address, amount, block_number, block_hash, confirmations, status, swept, created_at, updated_at',
);
const COMMON_OUTGOING = 'id, network, request_id, kind, from_address, to_address, currency, amount, txid, raw, status, block_number, confirmations, error, broadcast_at, created_at, updated_at';

/** Bitcoin rows in pages: their fee details become JSON, written here rather than in SQL so both databases write the same text. */
const PAGE = 500;

export async function up(db: Kysely<any>): Promise<void> {
  await createScanTables(db);
  for (const f of FAMILIES) {
    await sql`insert into scan_cursors (network, block_number, block_hash, updated_at) select network, block_number, block_hash, updated_at from ${sql.table(`${f}_cursors`)}`.execute(db);
    await sql`insert into scan_blocks (network, number, hash, parent_hash) select network, number, hash, parent_hash from ${sql.table(`${f}_blocks`)}`.execute(db);
    await sql`insert into scan_transfers (${TRANSFER_COLUMNS}) select ${TRANSFER_COLUMNS} from ${sql.table(`${f}_transfers`)}`.execute(db);
  }
  const common = sql.raw(COMMON_OUTGOING);
  await sql`insert into scan_outgoing (${common}, attempt, nonce) select ${common}, 0, nonce from evm_outgoing`.execute(db);
  await sql`insert into scan_outgoing (${common}, attempt, expiration) select ${common}, attempt, expiration from tron_outgoing`.execute(db);
  await sql`insert into scan_cursors (network, block_number, block_hash, node_height, updated_at) select network, height, hash, node_height, updated_at from btc_cursors`.execute(db);
  await sql`insert into scan_blocks (network, number, hash) select network, height, hash from btc_blocks`.execute(db);
  for (let after = ''; ; ) {
    const rows = await db.selectFrom('btc_outgoing').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
    if (rows.length === 0) break;
    await db
      .insertInto('scan_outgoing')
      .values(
        rows.map((r) => ({
          id: r.id,
          network: r.network,
          request_id: r.request_id,
          attempt: r.attempt,
          kind: 'payout',
          from_address: null,
          to_address: r.to_address,
          currency: null,
          amount: r.amount,
          txid: r.txid,
          raw: r.raw,
          status: r.status,
          block_number: r.block_height,
          confirmations: r.confirmations,
          error: r.error,
          broadcast_at: r.broadcast_at,
          broadcast_height: r.broadcast_height,
          data: JSON.stringify({
            fee: r.fee,
            fee_rate: r.fee_rate,
            vsize: Number(r.vsize),
            inputs: JSON.parse(r.inputs),
            change_address: r.change_address,
            change_amount: r.change_amount,
          }),
          created_at: r.created_at,
          updated_at: r.updated_at,
        })),
      )
      .execute();
    after = rows[rows.length - 1]!.id;
  }
  for (const t of ['evm_outgoing', 'evm_transfers', 'evm_blocks', 'evm_cursors', 'tron_outgoing', 'tron_transfers', 'tron_blocks', 'tron_cursors', 'btc_outgoing', 'btc_blocks', 'btc_cursors']) {
    await db.schema.dropTable(t).execute();
  }
}

/**
 * Back to the per-family tables, only while the scan tables are empty: their rows do not say which
 * family a network belongs to, so rows cannot be sent back (restore the backup taken before the
 * upgrade instead).
 */
export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['scan_cursors', 'scan_blocks', 'scan_transfers', 'scan_outgoing']) {
    const row = await db.selectFrom(t).select(sql<number>`1`.as('one')).limit(1).executeTakeFirst();
    if (row) throw new Error(`021_scan_tables cannot be undone while ${t} has rows: restore the backup taken before the upgrade`);
  }
  for (const t of ['scan_outgoing', 'scan_transfers', 'scan_blocks', 'scan_cursors']) await db.schema.dropTable(t).execute();
  await createFamilyTables(db);
}

/** The tables migrations 004, 007 and 008 made, as they made them. */
async function createFamilyTables(db: Kysely<any>): Promise<void> {
  for (const f of FAMILIES) {
    await db.schema
      .createTable(`${f}_cursors`)
      .addColumn('network', 'text', (c) => c.primaryKey())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_hash', 'text')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable(`${f}_blocks`)
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('number', 'bigint', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('parent_hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${f}_blocks_pk`, ['network', 'number'])
      .execute();
    await db.schema
      .createTable(`${f}_transfers`)
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
      .addPrimaryKeyConstraint(`${f}_transfers_pk`, ['network', 'txid', 'idx'])
      .execute();
    await db.schema.createIndex(`${f}_transfers_status`).on(`${f}_transfers`).columns(['network', 'status', 'block_number']).execute();
    await db.schema.createIndex(`${f}_transfers_sweep`).on(`${f}_transfers`).columns(['network', 'swept', 'status']).execute();
  }
  await db.schema.createIndex('evm_transfers_block').on('evm_transfers').columns(['network', 'block_number']).execute();

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
    .addUniqueConstraint('evm_outgoing_request', ['network', 'request_id'])
    .addUniqueConstraint('evm_outgoing_txid', ['network', 'txid'])
    .addUniqueConstraint('evm_outgoing_nonce', ['network', 'from_address', 'nonce'])
    .execute();
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
    .addUniqueConstraint('tron_outgoing_attempt', ['network', 'request_id', 'attempt'])
    .addUniqueConstraint('tron_outgoing_txid', ['network', 'txid'])
    .execute();
  for (const f of FAMILIES) await db.schema.createIndex(`${f}_outgoing_status`).on(`${f}_outgoing`).columns(['network', 'status']).execute();

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
    .addUniqueConstraint('btc_outgoing_attempt', ['network', 'request_id', 'attempt'])
    .addUniqueConstraint('btc_outgoing_txid', ['network', 'txid'])
    .execute();
  await db.schema.createIndex('btc_outgoing_status').on('btc_outgoing').columns(['network', 'status']).execute();
}
