// The outbox claim (webhooks/deliver.ts) takes pending webhooks oldest first, a batch at a time.
// With only (status, next_attempt_at) the database read every pending row and sorted them all
// before taking the batch, so a large backlog made every claim slow; in this order it reads the
// batch and stops.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhooks_pending_order').on('webhooks').columns(['status', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhooks_pending_order').execute();
}
