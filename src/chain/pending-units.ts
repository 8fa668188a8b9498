// What reached an address but is not confirmed yet, in base units: a sweep or a flush moves only
// what a reorganisation can no longer take back, so it leaves this much where it is. Read from the
// shared scan tables (every family records its transfers there).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { Decimal } from '../money/decimal.ts';

export async function pendingUnits<D extends DB>(db: Kysely<D>, network: string, address: string, currency: string, decimals: number): Promise<bigint> {
  const rows = await (db as unknown as Kysely<DB>)
    .selectFrom('scan_transfers')
    .select('amount')
    .where('network', '=', network)
    .where('to_address', '=', address)
    .where('currency', '=', currency)
    .where('status', '=', 'pending')
    .execute();
  return rows.reduce((sum, r) => sum + Decimal.parse(r.amount).toBaseUnits(decimals), 0n);
}
