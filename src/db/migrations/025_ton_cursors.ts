// The `ton` driver's scan state (src/chain/ton/schema.ts). TON has no block walk to follow: each
// merchant wallet's transactions are read newest first back to where the last poll stopped, so the
// cursor is per wallet (the logical time and hash of the newest transaction read). What a poll
// found waits in ton_seen until the masterchain has moved on far enough to settle it, so a crash
// after the cursor moved loses nothing, and the sink, idempotent on (network, txid, index), credits
// nothing twice.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ton_cursors')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    // Logical times fill 64 bits: kept as decimal text, beyond what a signed bigint column holds.
    .addColumn('lt', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('ton_cursors_pk', ['network', 'account'])
    .execute();
  await db.schema
    .createTable('ton_seen')
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
    .addPrimaryKeyConstraint('ton_seen_pk', ['network', 'txid', 'idx'])
    .execute();
  await db.schema.createIndex('ton_seen_open').on('ton_seen').columns(['network', 'settled']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ton_seen').execute();
  await db.schema.dropTable('ton_cursors').execute();
}
