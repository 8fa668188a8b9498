// Deposit addresses derived ahead of need (src/chain/allocate.ts): a request takes one in the same
// transaction that records its owner, so derivation and the QR image stay out of the request.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('address_pool')
    .addColumn('network', 'text', (c) => c.notNull())
    // Seed fingerprint, address format, coin type and chain: a row made for another seed or
    // format is never handed out.
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('idx', 'bigint', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    // data:image/png;base64 QR code of the address.
    .addColumn('qr', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('address_pool_pk', ['network', 'source', 'idx'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('address_pool').execute();
}
