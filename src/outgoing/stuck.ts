// Payouts that are waiting and should not be: accepted, not broadcast, and their last attempt
// failed (a hot wallet that cannot cover them, a node that is down). The operator sees them with
// `satchel payouts list --stuck` and the `satchel_payouts_stuck` gauge; the worker fails the ones
// the hot wallet cannot cover after `payout_stuck_timeout_seconds`.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export interface StuckPayout {
  uuid: string;
  kind: string;
  network: string;
  currency: string;
  amount: string;
  attempts: number;
  created_at: string;
  last_error: string;
}

function stuck(db: Kysely<DB>) {
  return db
    .selectFrom('payouts')
    .where('status', '=', 'process')
    .where('is_final', '=', 0)
    .where('txid', 'is', null)
    .where('attempts', '>', 0)
    .where('last_error', 'is not', null);
}

export async function countStuckPayouts(db: Kysely<DB>): Promise<number> {
  const row = await stuck(db).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function listStuckPayouts(db: Kysely<DB>, limit = 200): Promise<StuckPayout[]> {
  const rows = await stuck(db).selectAll().orderBy('created_at').orderBy('id').limit(limit).execute();
  return rows.map((r) => ({
    uuid: r.id,
    kind: r.kind,
    network: r.network,
    currency: r.payer_currency,
    amount: r.payer_amount,
    attempts: Number(r.attempts),
    created_at: new Date(Number(r.created_at)).toISOString(),
    last_error: r.last_error ?? '',
  }));
}
