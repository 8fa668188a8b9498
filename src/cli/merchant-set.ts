// `satchel merchant set --merchant ID --refund-key payout|either`: merchant settings that are not
// the public profile. The change is written to the dashboard's audit log with the actor `cli`, as
// the dashboard writes its own, so an owner sees who widened the refund key and when.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { openStorage } from '../db/dialect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { audit } from '../dashboard/audit.ts';
import { isUuid } from '../contracts/rules.ts';
import { findMerchant, parseRefundKeySetting, refundKeySetting, setRefundKeySetting } from '../merchants/store.ts';

export const MERCHANT_SET_USAGE = `  merchant set --merchant <uuid> --refund-key payout|either
                                         which key may sign refunds (either: the payment key too; see docs/api.md)`;

type Out = { log: (s: string) => void; error: (s: string) => void };

export async function merchantSetCli(args: string[], out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: { merchant?: string; 'refund-key'?: string };
  try {
    ({ values } = parseArgs({ args, options: { merchant: { type: 'string' }, 'refund-key': { type: 'string' } }, allowPositionals: false }));
  } catch (e) {
    out.error(e instanceof Error ? e.message : String(e));
    return 2;
  }
  if (!values.merchant || !isUuid(values.merchant)) {
    out.error('merchant set needs --merchant <uuid>');
    return 2;
  }
  const setting = parseRefundKeySetting(values['refund-key']);
  if (!setting) {
    out.error('merchant set needs --refund-key payout|either');
    return 2;
  }
  const config = loadConfig(env);
  const storage = openStorage({ databaseUrl: config.databaseUrl, sqlitePath: join(config.dataDir, 'satchel.sqlite') });
  try {
    await migrateToLatest(storage);
    const id = values.merchant.toLowerCase();
    const merchant = await findMerchant(storage.db, id);
    if (!merchant) {
      out.error(`No merchant ${values.merchant}`);
      return 2;
    }
    const before = refundKeySetting(merchant);
    await setRefundKeySetting(storage.db, id, setting);
    await audit(storage.db, { userId: null, email: 'cli', ip: null }, { merchantId: id, action: 'refund_key', target: setting, detail: { from: before, to: setting } }, Date.now());
    out.log(
      setting === 'either'
        ? `Refunds of ${id} may now be signed with the payout key or the payment key. Whoever holds the payment key can refund paid invoices (up to the amount paid) to any address.`
        : `Refunds of ${id} must be signed with the payout key.`,
    );
    return 0;
  } finally {
    await storage.close();
  }
}
