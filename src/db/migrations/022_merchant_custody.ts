// Each merchant's receiving material per watch-only network (src/custody/): an extended public key
// or descriptor (Bitcoin family), a cold address (EVM, TRON). A change adds a row and marks the one
// it replaces; addresses handed out before keep theirs (their path names the row they came from).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('merchant_custody')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('material', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('replaced_at', 'bigint')
    .execute();
  // At most one current row per merchant and network.
  await db.schema
    .createIndex('merchant_custody_current')
    .on('merchant_custody')
    .columns(['merchant_id', 'network'])
    .unique()
    .where(sql.ref('replaced_at'), 'is', null)
    .execute();
  await db.schema.createIndex('merchant_custody_history').on('merchant_custody').columns(['merchant_id', 'network', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('merchant_custody').execute();
}
