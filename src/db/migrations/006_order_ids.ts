// One order_id per merchant across invoices and static wallets (the spec), held by a constraint:
// each creation claims its order_id here in its own transaction, so two requests racing for one
// order_id (an invoice and a wallet, on PostgreSQL) cannot both win.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('order_ids')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    // 'invoice' or 'wallet': which kind of record the order_id belongs to.
    .addColumn('owner_kind', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_ids_pk', ['merchant_id', 'order_id'])
    .execute();
  // What exists already; should a race have left both kinds behind, the invoice keeps the claim.
  await sql`INSERT INTO order_ids (merchant_id, order_id, owner_kind)
    SELECT merchant_id, order_id, 'invoice' FROM invoices WHERE 1 = 1 ON CONFLICT DO NOTHING`.execute(db);
  await sql`INSERT INTO order_ids (merchant_id, order_id, owner_kind)
    SELECT merchant_id, order_id, 'wallet' FROM static_wallets WHERE 1 = 1 ON CONFLICT DO NOTHING`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('order_ids').execute();
}
