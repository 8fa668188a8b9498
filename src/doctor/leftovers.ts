// What a network switched from hot to watch-only custody left behind: deposit addresses derived
// from the gateway's seed, which still received payments. A watch-only network never sweeps them
// (sweeping needs the seed's keys, and pays into the hot wallet) and pays no payout from them, so
// what they hold stays there until the operator moves it. The doctor says so, since nothing else
// will (docs/custody.md, "Gateways set up in hot custody before").
import type { Ctx } from '../context.ts';
import { WATCH_ONLY_PATH_PREFIXES, isSeedPath } from '../chain/watch-paths.ts';
import { sum } from '../money/decimal.ts';
import { finding, type Finding } from './finding.ts';

export async function seedLeftoverChecks(ctx: Ctx, live: string[]): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const code of live) {
    if (ctx.chains.custodyMode(code) !== 'watch-only') continue;
    const f = await leftoverOf(ctx, code);
    if (f) out.push(f);
  }
  return out;
}

async function leftoverOf(ctx: Ctx, code: string): Promise<Finding | null> {
  const db = ctx.storage.db;
  let q = db
    .selectFrom('chain_transfers')
    .innerJoin('addresses', (j) => j.onRef('addresses.network', '=', 'chain_transfers.network').onRef('addresses.address', '=', 'chain_transfers.address'))
    .select(['addresses.address', 'addresses.path'])
    .distinct()
    .where('chain_transfers.network', '=', code)
    .where('chain_transfers.status', '=', 'confirmed');
  for (const p of WATCH_ONLY_PATH_PREFIXES) q = q.where('addresses.path', 'not like', `${p}%`);
  const paid = (await q.execute()).filter((r) => isSeedPath(r.path));
  if (paid.length === 0) return null;
  const at = { network: code };

  // Account-model families record, per transfer, whether a sweep has moved it on.
  const recordsSweeps = await db.selectFrom('scan_transfers').select('txid').where('network', '=', code).limit(1).executeTakeFirst();
  if (!recordsSweeps) {
    return finding('WARN', 'seed_deposits', 'seed_deposits.unknown', { ...at, count: paid.length });
  }
  // Payments not yet swept are few (a sweep marks what it moved), so they are read whole and
  // matched against the seed's addresses here, whatever case the family writes addresses in.
  const seed = new Set(paid.map((r) => r.address.toLowerCase()));
  const unswept = await db
    .selectFrom('scan_transfers')
    .select(['to_address', 'currency', 'amount'])
    .where('network', '=', code)
    .where('status', '=', 'confirmed')
    .where('swept', '=', 0)
    .execute();
  const left = unswept.map((r) => ({ address: r.to_address.toLowerCase(), currency: r.currency, amount: r.amount })).filter((r) => seed.has(r.address));
  if (left.length === 0) {
    return finding('OK', 'seed_deposits', 'seed_deposits.swept', { ...at, count: seed.size });
  }
  const byCurrency = new Map<string, string[]>();
  for (const r of left) byCurrency.set(r.currency, [...(byCurrency.get(r.currency) ?? []), r.amount]);
  const totals = [...byCurrency].map(([c, amounts]) => `${sum(amounts).toString()} ${c}`).join(', ');
  return finding('WARN', 'seed_deposits', 'seed_deposits.unswept', { ...at, count: new Set(left.map((r) => r.address)).size, totals });
}
