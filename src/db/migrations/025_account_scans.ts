// Scan state of a driver that walks accounts' histories instead of blocks (TON's, src/chain/ton/schema.ts):
// each receiving account's transactions are read newest first back to where the last poll stopped, so the
// cursor is per account (the logical time and hash of the newest transaction read). What a poll
// found waits in account_seen until the masterchain has moved on far enough to settle it, so a crash
// after the cursor moved loses nothing, and the sink, idempotent on (network, txid, index), credits
// nothing twice.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_cursors')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    // Logical times fill 64 bits: kept as decimal text, beyond what a signed bigint column holds.
    .addColumn('lt', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    // A walk longer than a poll's budget: its newest transaction (where the cursor goes once it is
    // done) and the oldest read so far (where the next poll resumes).
    .addColumn('top_lt', 'text')
    .addColumn('top_hash', 'text')
    .addColumn('walk_lt', 'text')
    .addColumn('walk_hash', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_cursors_pk', ['network', 'account'])
    .execute();
  await db.schema
    .createTable('account_seen')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('lt', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text')
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('reason', 'text')
    .addColumn('seen_seqno', 'bigint', (c) => c.notNull())
    .addColumn('settled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_seen_pk', ['network', 'txid', 'idx'])
    .execute();
  await db.schema.createIndex('account_seen_open').on('account_seen').columns(['network', 'settled']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('account_seen').execute();
  await db.schema.dropTable('account_cursors').execute();
}
