// Which HD seed this database's addresses derive from (a fingerprint, src/chain/seed-record.ts).
// A database records the indexes it handed out (hd_counters) but not, until now, the seed they
// count from: an operator who swapped the mnemonic would have mixed two wallets without a word.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('seed_record')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('seed_record').execute();
}
