// What is waiting, read from the database so that any api process can report it for the whole
// deployment (workers serve no HTTP): how stale each network's scan is, the webhook outbox, the
// payouts not yet sent. /metrics renders it.
import type { Sample } from '../ops/metrics.ts';
import type { Storage } from './storage.ts';

export interface Backlog {
  /** Seconds since the start of the last completed scan, per network that has been scanned. */
  scanLag: Array<{ network: string; seconds: number }>;
  outboxDepth: number;
  /** Age of the oldest webhook still to be delivered; 0 when none. */
  outboxOldestSeconds: number;
  payoutsWaiting: number;
  payoutsOldestSeconds: number;
}

const age = (now: number, since: number | null | undefined) => (since == null ? 0 : Math.max(0, (now - Number(since)) / 1000));

export async function readBacklog(storage: Storage, now: number): Promise<Backlog> {
  const db = storage.db;
  const [scans, outbox, payouts] = await Promise.all([
    db.selectFrom('chain_scans').select(['network', 'scanned_at']).orderBy('network').execute(),
    db
      .selectFrom('webhooks')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('payouts')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('status', '=', 'process')
      .where('txid', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    scanLag: scans.map((s) => ({ network: s.network, seconds: age(now, s.scanned_at) })),
    outboxDepth: Number(outbox.n),
    outboxOldestSeconds: age(now, outbox.oldest as number | null),
    payoutsWaiting: Number(payouts.n),
    payoutsOldestSeconds: age(now, payouts.oldest as number | null),
  };
}

/** The backlog and this process's database pool as Prometheus gauges. */
export async function backlogSamples(storage: Storage, now: () => number): Promise<Sample[]> {
  const pool = storage.poolUsage();
  const samples: Sample[] = [
    { name: 'satchel_db_pool_connections', help: 'Database connections of this process by state', labels: { state: 'busy' }, value: pool.total - pool.idle },
    { name: 'satchel_db_pool_connections', help: '', labels: { state: 'idle' }, value: pool.idle },
    { name: 'satchel_db_pool_waiting', help: 'Queries of this process waiting for a database connection', value: pool.waiting },
    { name: 'satchel_db_pool_max', help: 'Largest number of database connections this process opens', value: pool.max },
  ];
  let b: Backlog;
  try {
    b = await readBacklog(storage, now());
  } catch {
    // Database out of reach: the pool figures above still say something useful.
    return [...samples, { name: 'satchel_db_up', help: 'Whether the database answered this scrape', value: 0 }];
  }
  samples.push({ name: 'satchel_db_up', help: 'Whether the database answered this scrape', value: 1 });
  for (const s of b.scanLag) {
    samples.push({ name: 'satchel_chain_scan_lag_seconds', help: 'Seconds since the start of the last completed scan of the network', labels: { network: s.network }, value: s.seconds });
  }
  samples.push(
    { name: 'satchel_webhooks_pending', help: 'Webhooks waiting to be delivered (the outbox depth)', value: b.outboxDepth },
    { name: 'satchel_webhooks_oldest_pending_seconds', help: 'Age of the oldest webhook waiting to be delivered', value: b.outboxOldestSeconds },
    { name: 'satchel_payouts_waiting', help: 'Payouts and refunds accepted but not yet broadcast', value: b.payoutsWaiting },
    { name: 'satchel_payouts_oldest_waiting_seconds', help: 'Age of the oldest payout not yet broadcast', value: b.payoutsOldestSeconds },
  );
  return samples;
}
