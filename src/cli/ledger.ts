// `satchel ledger verify`: runs the ledger's consistency checks (src/ledger/verify.ts) against the
// configured database and prints each mismatch; exits 1 on any (so a script or a crash test can
// stop on it), 0 with a one-line summary otherwise.
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { openStorage } from '../db/dialect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { verifyLedger } from '../ledger/verify.ts';

export const LEDGER_USAGE = `  ledger verify                          check balances against the ledger, payout debits, one chain transaction per payout`;

type Out = { log: (s: string) => void; error: (s: string) => void };

export async function ledgerCli(action: string | undefined, out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (action !== 'verify') {
    out.error(`Usage: satchel <command>\n${LEDGER_USAGE}`);
    return 2;
  }
  const config = loadConfig(env);
  const storage = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: join(config.dataDir, 'satchel.sqlite') });
  try {
    await migrateToLatest(storage);
    const report = await verifyLedger(storage.db);
    for (const line of report.mismatches) out.log(line);
    if (report.mismatches.length > 0) {
      out.error(`ledger verify: ${report.mismatches.length} mismatch(es) in ${report.balances} balances and ${report.payouts} payouts`);
      return 1;
    }
    out.log(`ledger verify: ok (${report.balances} balances, ${report.payouts} payouts checked)`);
    return 0;
  } finally {
    await storage.close();
  }
}
