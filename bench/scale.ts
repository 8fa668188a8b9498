// `npm run bench -- scale`: the scale-out fault scenario (test/scale) for a longer run, reported as
// figures. BENCH_SCALE_SECONDS sets the length of the load (default 60 s).
import type { Row } from './api.ts';
import { runScenario } from '../test/scale/scenario.ts';
import { audit } from '../test/scale/audit.ts';

export async function scaleBench(seconds = Number(process.env.BENCH_SCALE_SECONDS ?? 60)): Promise<Row[]> {
  const s = await runScenario({ seconds, log: (l) => process.stdout.write(`  [scale] ${l}\n`) });
  try {
    const a = await audit(s);
    const f = s.figures;
    const lost = a.paymentsMiscounted + a.creditsMiscounted + a.halfWritten + a.topupsMiscounted + a.balancesOff + a.payoutsUnsettled + a.payoutsSentTwice + a.webhooksUndelivered + a.receiptsMissing + a.repeatsChanged + a.eventsQueuedTwice;
    const row = (name: string, value: string, note = ''): Row => ({ name, value, baseline: '-', ratio: '-', note });
    return [
      row(`Load through 2 api processes for ${seconds} s (2 workers)`, `${f.requests} requests: ${f.served} served, ${f.unavailable503} answered 503 (database away), ${f.refused} dropped (api killed or starting)`, `${f.otherErrors.length} other errors`),
      row('Work done', `${a.invoices} invoices, ${f.payments} payments, ${a.topupsMined} wallet top-ups, ${a.payouts} payouts, ${a.webhooks} webhooks`),
      row('Faults injected', `${f.workerKills} worker SIGKILLs (each restarted), ${f.apiKills} api SIGKILL with ${f.inFlightAtApiKill} requests in flight, ${f.dbRestarts} PostgreSQL stop/start`, `/readyz while the database was away: ${f.readyzDuringOutage.join(', ')}`),
      row('Webhook deliveries', `${s.receiver.deliveries.length} receipts for ${a.webhooks} webhooks: ${a.repeats} repeats (retries after a 500 or a hang, and resends after a kill), all under the same delivery id and body`, 'the receiver failed (500) or hung on the first attempt of about 15 %'),
      row('Lost, doubled or left behind', String(lost), `must be 0: payments miscounted ${a.paymentsMiscounted}, credits ${a.creditsMiscounted}, half-written ${a.halfWritten}, top-ups ${a.topupsMiscounted}, balances off ${a.balancesOff}, payouts unsettled ${a.payoutsUnsettled} / sent twice ${a.payoutsSentTwice}, webhooks undelivered ${a.webhooksUndelivered} / missing ${a.receiptsMissing} / queued twice ${a.eventsQueuedTwice}`),
      row('Settled after the last confirmation', `${(f.settleMs / 1000).toFixed(1)} s`, 'every payout sent and confirmed, every webhook delivered (leases of killed workers run out meanwhile)'),
    ];
  } finally {
    await s.close();
  }
}
