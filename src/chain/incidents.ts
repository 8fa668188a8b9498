// Counts, per network, of what the operator must hear about: an alarm a driver raised (a coin of the
// gateway spent by a transaction it did not sign, a node that built a transaction other than asked)
// and polls that ran past their deadline. Kept in the database, not in memory: in a split deployment
// the worker process meets them while an API process serves /metrics, and a restart must not set
// an alarm count back to zero (Prometheus would read that as a counter reset and lose the alarm).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { ChainAlarm } from './contract.ts';

export type ChainIncident = ChainAlarm | 'poll_timeout';

/** Adds one to the network's count of `kind`. */
export async function countIncident(db: Kysely<DB>, network: string, kind: ChainIncident, at: number): Promise<void> {
  await db
    .insertInto('chain_incidents')
    .values({ network, kind, count: 1, last_at: at })
    .onConflict((oc) => oc.columns(['network', 'kind']).doUpdateSet({ count: sql<number>`chain_incidents.count + 1`, last_at: at }))
    .execute();
}

export interface IncidentCount {
  network: string;
  kind: ChainIncident;
  count: number;
}

/** Every count, for /metrics. */
export async function incidentCounts(db: Kysely<DB>): Promise<IncidentCount[]> {
  const rows = await db.selectFrom('chain_incidents').select(['network', 'kind', 'count']).orderBy('network').orderBy('kind').execute();
  return rows.map((r) => ({ network: r.network, kind: r.kind as ChainIncident, count: Number(r.count) }));
}
