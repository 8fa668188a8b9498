// `satchel db copy --to <DATABASE_URL>`: moves a gateway's whole database (normally the embedded
// SQLite file) into an empty PostgreSQL database, verified, in one transaction. Moving the data
// keeps every handed-out address index and the seed record with it; starting PostgreSQL empty
// beside the same seed would hand the same addresses out again.
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { openStorage } from '../db/dialect.ts';
import { copyDatabase, CopyTargetError, CopyTargetNotEmptyError, CopyVerifyError } from '../db/copy.ts';
import { ledgerMismatches } from '../ledger/sums.ts';
import { databaseLabel, redactUrl, sqlitePath } from './where.ts';

export const DB_USAGE = `  db copy --to <DATABASE_URL>            copy every table into an empty PostgreSQL database, verified (stop the gateway first)`;

type Out = { log: (s: string) => void; error: (s: string) => void };

export async function dbCli(action: string | undefined, args: string[], config: Config, out: Out): Promise<number> {
  if (action !== 'copy') {
    out.error(`Usage:\n${DB_USAGE}`);
    return 2;
  }
  let to: string | undefined;
  try {
    ({ values: { to } } = parseArgs({ args, options: { to: { type: 'string' } } }));
  } catch (e) {
    out.error((e as Error).message);
    return 2;
  }
  if (!to || !/^postgres(ql)?:\/\//.test(to)) {
    out.error('db copy needs --to postgres://USER@HOST:PORT/DATABASE (an empty PostgreSQL database)');
    return 2;
  }
  if (config.databaseUrl && sameDatabase(config.databaseUrl, to)) {
    out.error(`The target is the configured database itself (${redactUrl(to)})`);
    return 2;
  }
  const from = databaseLabel(config);
  const source = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: sqlitePath(config) });
  const target = openStorage({ databaseUrl: to });
  try {
    const copied = await copyDatabase(source, target, {
      verify: async (trx) => (await ledgerMismatches(trx)).map((p) => `ledger: ${p}`),
      progress: (t) => out.log(`${t.table.padEnd(28)} ${t.rows} rows`),
    });
    const rows = copied.reduce((s, t) => s + t.rows, 0);
    out.log(`Copied ${copied.length} tables (${rows} rows) from ${from} to ${redactUrl(to)}.`);
    out.log('Verified: every table\'s row count, and every balance against its ledger entries.');
    out.log(`Next: stop using ${from} and set DATABASE_URL to the new database.`);
    return 0;
  } catch (e) {
    if (e instanceof CopyTargetNotEmptyError) {
      out.error(`Refused: ${redactUrl(to)} already holds Satchel data (${e.tables.join(', ')}). Copy into an empty database; nothing was written.`);
      return 2;
    }
    if (e instanceof CopyVerifyError) {
      out.error(`The copy failed verification; nothing was written to ${redactUrl(to)}:`);
      for (const p of e.problems) out.error(`  ${p}`);
      return 1;
    }
    if (e instanceof CopyTargetError) {
      out.error(e.message);
      return 2;
    }
    throw e;
  } finally {
    await target.close();
    await source.close();
  }
}

function sameDatabase(a: string, b: string): boolean {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    return x.hostname === y.hostname && (x.port || '5432') === (y.port || '5432') && x.pathname === y.pathname;
  } catch {
    return a === b;
  }
}
