// The `satchel` command line: operator tasks against the same database as the gateway.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openStorage, type Storage } from '../db/dialect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { join } from 'node:path';
import { createMerchant, listMerchants, setMerchantBlocked } from '../merchants/store.ts';
import { isUuid } from '../http/validation.ts';

const USAGE = `Usage: satchel <command>
  merchant create --name NAME [--json]   create a merchant and print its id and API keys
  merchant list [--json]                 list merchants
  merchant block <uuid>                  block payments and payouts of a merchant
  merchant unblock <uuid>                lift the block
  migrate                                apply database migrations
Reads the same environment as the gateway (DATABASE_URL, SATCHEL_DATA_DIR, ...).`;

export type Out = { log: (s: string) => void; error: (s: string) => void };

export async function runCli(argv: string[], out: Out = console): Promise<number> {
  const [group, action, ...rest] = argv;
  const config = loadConfig();
  const open = async (): Promise<Storage> => {
    const s = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: join(config.dataDir, 'satchel.sqlite') });
    await migrateToLatest(s);
    return s;
  };
  if (group === 'migrate') {
    const s = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: join(config.dataDir, 'satchel.sqlite') });
    try {
      const applied = await migrateToLatest(s);
      out.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date');
    } finally {
      await s.close();
    }
    return 0;
  }
  if (group === 'merchant') {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { name: { type: 'string' }, json: { type: 'boolean', default: false } },
      allowPositionals: true,
    });
    if (action === 'create') {
      if (!values.name) return fail(out, 'merchant create needs --name NAME');
      const s = await open();
      try {
        const m = await createMerchant(s.db, values.name);
        if (values.json) out.log(JSON.stringify({ merchant: m.id, payment_key: m.payment_key, payout_key: m.payout_key }));
        else out.log(`merchant:    ${m.id}\npayment_key: ${m.payment_key}\npayout_key:  ${m.payout_key}`);
      } finally {
        await s.close();
      }
      return 0;
    }
    if (action === 'list') {
      const s = await open();
      try {
        const ms = await listMerchants(s.db);
        if (values.json) out.log(JSON.stringify(ms.map((m) => ({ merchant: m.id, name: m.name, blocked: m.is_blocked === 1 }))));
        else for (const m of ms) out.log(`${m.id}  ${m.is_blocked ? 'blocked' : 'active '}  ${m.name}`);
      } finally {
        await s.close();
      }
      return 0;
    }
    if (action === 'block' || action === 'unblock') {
      const id = positionals[0];
      if (!id || !isUuid(id)) return fail(out, `merchant ${action} needs a merchant uuid`);
      const s = await open();
      try {
        if (!(await setMerchantBlocked(s.db, id.toLowerCase(), action === 'block'))) return fail(out, `No merchant ${id}`);
        out.log(`${id} ${action === 'block' ? 'blocked' : 'unblocked'}`);
      } finally {
        await s.close();
      }
      return 0;
    }
  }
  out.error(USAGE);
  return group === undefined || group === 'help' || group === '--help' ? 0 : 2;
}

function fail(out: Out, msg: string): number {
  out.error(msg);
  return 2;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/cli/main.ts')) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
