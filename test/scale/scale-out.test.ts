// The scale-out fault test (issue 15; the scenario is in scenario.ts, the checks in audit.ts).
// Short in `npm test` (SATCHEL_SOAK_SECONDS, default 20 s of load), long in `npm run soak`. Needs
// the PostgreSQL server binaries to create its own cluster; skipped without them unless
// SATCHEL_TEST_PG=required.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPgBin } from '../helpers/pg-cluster.ts';
import { runScenario, type Scenario } from './scenario.ts';
import { audit, type Audit } from './audit.ts';

const SECONDS = Number(process.env.SATCHEL_SOAK_SECONDS ?? 20);
const available = findPgBin() !== null;
if (!available && process.env.SATCHEL_TEST_PG === 'required') throw new Error('PostgreSQL server binaries are required for the scale-out test');

describe.skipIf(!available)(`2 api + 2 worker processes under faults (${SECONDS} s)`, () => {
  let s: Scenario;
  let a: Audit;
  beforeAll(async () => {
    s = await runScenario({ seconds: SECONDS, log: (l) => console.log(`[scale] ${l}`) });
    a = await audit(s);
    console.log(`[scale] figures ${JSON.stringify(s.figures)}`);
    console.log(`[scale] audit ${JSON.stringify(a)}`);
  }, (SECONDS + 150) * 1000);
  afterAll(async () => {
    await s?.close();
  });

  it('injected every fault and kept serving', () => {
    const f = s.figures;
    // One every 2.5-3.5 s while a worker is up; a restart can take 10 s on a busy machine.
    expect(f.workerKills).toBeGreaterThanOrEqual(Math.max(2, Math.floor(SECONDS / 12)));
    expect(f.apiKills).toBe(1);
    expect(f.dbRestarts).toBe(1);
    // While PostgreSQL was down every api process that was up said "not ready".
    expect(f.readyzDuringOutage.length).toBeGreaterThan(0);
    expect(f.readyzDuringOutage.every((status) => status === 503)).toBe(true);
    expect(f.otherErrors).toEqual([]); // only 503 (database away) or a dropped connection (killed api)
    expect(f.invoices).toBeGreaterThan(10);
    expect(f.payments).toBeGreaterThan(5);
  });

  it('credits every payment and top-up exactly once, and the ledger adds up', () => {
    expect(a.invoices).toBeGreaterThan(10);
    expect(a.balances).toBeGreaterThan(0);
    expect({ paymentsMiscounted: a.paymentsMiscounted, creditsMiscounted: a.creditsMiscounted, halfWritten: a.halfWritten, topupsMiscounted: a.topupsMiscounted, balancesOff: a.balancesOff })
      .toEqual({ paymentsMiscounted: 0, creditsMiscounted: 0, halfWritten: 0, topupsMiscounted: 0, balancesOff: 0 });
  });

  it('sends no payout twice and leaves none behind', () => {
    expect(a.payouts).toBeGreaterThan(0);
    expect({ payoutsUnsettled: a.payoutsUnsettled, payoutsSentTwice: a.payoutsSentTwice }).toEqual({ payoutsUnsettled: 0, payoutsSentTwice: 0 });
  });

  it('delivers every webhook, repeats only under the same delivery id, and leaves no lease behind', () => {
    expect(a.webhooks).toBeGreaterThan(0);
    expect({ undelivered: a.webhooksUndelivered, missing: a.receiptsMissing, changed: a.repeatsChanged, twice: a.eventsQueuedTwice })
      .toEqual({ undelivered: 0, missing: 0, changed: 0, twice: 0 });
    // Once the last payments were confirmed, everything settled within the leases' bound: nothing
    // stayed leased to a dead process (webhook leases here are 9-20 s, payouts 4 s, plus the 10 s
    // retry after a 500).
    expect(s.figures.settleMs).toBeLessThan(45_000);
  });
});
