// `satchel merchant show`: who a merchant is, and for the first start's demo merchant whose keys
// are still the ones its banner printed, that banner again (keys and a request to paste), since a
// banner scrolled off a terminal is the usual way a new operator loses them. Any other merchant's
// keys were shown once, when made; printing them later would make the CLI a way to read keys.
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { Merchant } from '../merchants/store.ts';
import { DEMO_MERCHANT_NAME } from '../demo/index.ts';
import { merchantKeyLines } from '../demo/banner.ts';
import { CliInputError, merchantArg, openCliStorage, type Out } from './api.ts';

export const MERCHANT_SHOW_USAGE = `  merchant show [--merchant <uuid>]      a merchant's id and name (the demo merchant's first-start keys while unchanged)`;

/** Whether a key of the merchant was ever rotated (the dashboard records each rotation). */
async function keysRotated(db: Kysely<DB>, merchantId: string): Promise<boolean> {
  const row = await db.selectFrom('dashboard_audit').select('id').where('merchant_id', '=', merchantId).where('action', '=', 'key_rotate').limit(1).executeTakeFirst();
  return row !== undefined;
}

export async function describeMerchant(db: Kysely<DB>, m: Merchant, publicUrl: string): Promise<string> {
  const lines = [`merchant: ${m.id}`, `name:     ${m.name}`, `status:   ${m.is_blocked ? 'blocked' : 'active'}`];
  if (m.name === DEMO_MERCHANT_NAME && !(await keysRotated(db, m.id))) {
    lines.push('The demo merchant still has the keys the first start printed:', ...merchantKeyLines(publicUrl, m));
  } else {
    lines.push('API keys are shown only when they are made: by satchel merchant create, and when rotated in the dashboard (Settings).');
  }
  return lines.join('\n');
}

export async function merchantShowCli(args: string[], config: Config, out: Out): Promise<number> {
  let merchantId: string | undefined;
  try {
    const { values, positionals } = parseArgs({ args, options: { merchant: { type: 'string' } }, allowPositionals: true });
    merchantId = values.merchant ?? positionals[0];
  } catch (e) {
    out.error((e as Error).message);
    return 2;
  }
  const s = await openCliStorage(config);
  try {
    out.log(await describeMerchant(s.db, await merchantArg(s.db, merchantId), config.publicUrl));
    return 0;
  } catch (e) {
    if (!(e instanceof CliInputError)) throw e;
    out.error(e.message);
    return 2;
  } finally {
    await s.close();
  }
}
