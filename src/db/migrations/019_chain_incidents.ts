// Counts of chain alarms and late polls per network (src/chain/incidents.ts): in a split deployment
// the worker that meets them is not the process that serves /metrics, so they are kept here, where
// every process can read them, and a restart does not set them back to zero.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('chain_incidents')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chain_incidents_pk', ['network', 'kind'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('chain_incidents').execute();
}
