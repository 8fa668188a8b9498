// When each network was last scanned through (any process, any driver): the scan lag /metrics
// shows, readable by api processes that never scan themselves.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('chain_scans')
    .addColumn('network', 'text', (c) => c.primaryKey())
    // Start of the last scan that completed: everything the chain held then has been read.
    .addColumn('scanned_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('chain_scans').execute();
}
