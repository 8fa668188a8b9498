// Networks whose node answered what no sane node says (src/chain/node-faults.ts): kept in the
// database so that /readyz and /metrics of an api process that never scans show them too.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('node_faults')
    .addColumn('network', 'text', (c) => c.primaryKey())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('since', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('node_faults').execute();
}
