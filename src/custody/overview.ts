// What a merchant receives into, network by network, as `satchel merchant custody show` and the
// dashboard's settings page show it: the network's custody mode, the current material, when and by
// whom it was set, how many deposit addresses came from it, and whether payers are offered the
// network at all (a watch-only network without material is not).
import type { Ctx } from '../context.ts';
import type { CustodyMode } from '../chain/network-settings.ts';
import type { CustodyInput } from '../chain/family.ts';
import { merchantCustody } from './store.ts';
import { derivedCounts } from './change.ts';

export interface ReceivingNetwork {
  network: string;
  mode: CustodyMode;
  /** What the network takes, in words; null when its family cannot receive watch-only. */
  accepts: string | null;
  inputs: readonly (keyof CustodyInput)[];
  current: {
    kind: string;
    summary: string;
    set_at: number;
    /** `cli`, or the email of the dashboard user who set it. */
    set_by: string;
    /** Deposit addresses derived from it so far. */
    derived: number;
  } | null;
  /** Whether payers can be offered the network for this merchant (watch-only needs material). */
  offered: boolean;
}

/**
 * The real networks the gateway runs (a simulated one has no real money and always receives into
 * the seed) and any network the merchant has material for, in registry order.
 */
export async function receivingOverview(ctx: Ctx, merchantId: string): Promise<ReceivingNetwork[]> {
  const rows = await merchantCustody(ctx.storage.db, merchantId);
  const byNetwork = new Map(rows.map((r) => [r.network, r]));
  const counts = await derivedCounts(ctx, rows);
  const userIds = rows.map((r) => r.actor.startsWith('dashboard:') ? r.actor.slice('dashboard:'.length) : null).filter((x): x is string => x !== null);
  const emails = new Map(
    userIds.length ? (await ctx.storage.db.selectFrom('dashboard_users').select(['id', 'email']).where('id', 'in', userIds).execute()).map((u) => [u.id, u.email]) : [],
  );
  const out: ReceivingNetwork[] = [];
  for (const n of ctx.registry.networks) {
    const real = !ctx.chains.isSimulated(n.code) && !ctx.chains.isDisabled(n.code);
    const row = byNetwork.get(n.code);
    if (!real && !row) continue;
    const mode = ctx.chains.custodyMode(n.code);
    const watchOnly = ctx.chains.family(n.code)?.watchOnly;
    out.push({
      network: n.code,
      mode,
      accepts: watchOnly?.accepts ?? null,
      inputs: watchOnly?.inputs ?? [],
      current: row
        ? {
            kind: row.kind,
            summary: row.summary,
            set_at: Number(row.created_at),
            set_by: row.actor.startsWith('dashboard:') ? (emails.get(row.actor.slice('dashboard:'.length)) ?? row.actor) : row.actor,
            derived: counts.get(row.id) ?? 0,
          }
        : null,
      offered: ctx.chains.offered(n.code) && (mode === 'hot' || row !== undefined),
    });
  }
  return out;
}
