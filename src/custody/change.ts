// Changing a merchant's receiving material: the most dangerous action of the product, since every
// payment to an address handed out afterwards goes wherever the new material says. The callers (the
// CLI, the dashboard) have established who asks; this writes the change, its audit row and the
// merchant's signed `custody_changed` webhook in one transaction, so a crash leaves all of them or
// none: a change nobody was told about, or an announcement of a change that did not happen, cannot
// exist. Addresses handed out before keep the material they were derived from.
import type { Ctx } from '../context.ts';
import { isoMsk } from '../money/format.ts';
import { enqueueWebhook } from '../webhooks/outbox.ts';
import { signedBody } from '../webhooks/payload.ts';
import { writeAudit, type AuditActor } from './audit.ts';
import { checkCustody, currentCustody, CustodyError, writeCustody, type CustodyRequest, type CustodyRow } from './store.ts';
import type { WatchOnlyWarning } from '../chain/family.ts';

export interface ChangeRequest extends CustodyRequest {
  /** Who asks, as the audit log records it (`cli`, or the dashboard user). */
  by: AuditActor;
}

/** The `custody_changed` webhook's fields, in their order, without `sign`. */
export type CustodyChangedWebhook = {
  type: 'custody_changed';
  merchant: string;
  network: string;
  /** The summary of the material replaced; null for the first set. */
  old: string | null;
  new: string;
  /** ISO 8601 at UTC+3, as the API writes its times. */
  changed_at: string;
};

export interface ChangeResult {
  /** `unchanged`: the material given is the current one; nothing was written or sent. */
  outcome: 'set' | 'replaced' | 'unchanged';
  network: string;
  /** The current material after the call. */
  current: CustodyRow;
  old: CustodyRow | null;
  /** Valid input worth a second look (a cold address that is a contract), in English, joined. */
  warning: string | null;
  /** The same, each as its code and values. */
  warnings: WatchOnlyWarning[];
  /** Where the webhook was queued; null when the merchant has no default callback URL (or nothing changed). */
  webhookUrl: string | null;
}

export const CUSTODY_AUDIT_ACTION = 'custody_change';

export function custodyChangedFields(merchantId: string, network: string, old: string | null, next: string, now: number): CustodyChangedWebhook {
  return { type: 'custody_changed', merchant: merchantId, network, old, new: next, changed_at: isoMsk(now) };
}

/**
 * Checks the request (src/custody/store.ts: the input, its network, replacing confirmed) and, when
 * it changes anything, writes it with its audit row and its webhook. Throws CustodyError naming the
 * problem; nothing is written then.
 */
export async function changeCustody(ctx: Ctx, req: ChangeRequest): Promise<ChangeResult> {
  const merchant = await ctx.storage.db.selectFrom('merchants').select(['id', 'payment_key', 'default_url_callback']).where('id', '=', req.merchantId).executeTakeFirst();
  if (!merchant) throw new CustodyError('unknown_merchant', `No merchant ${req.merchantId}`);
  const checked = await checkCustody(ctx, req);
  const network = checked.network.code;
  if (ctx.chains.custodyMode(network) === 'hot') {
    // Kept for when the operator turns watch-only on; until then the gateway's seed receives there.
    checked.warnings.push({
      code: 'hot_custody',
      params: { network },
      message: `${network} runs in hot custody on this gateway: payments go to addresses of the gateway's own seed, and this material is used only once the operator sets the network to watch-only`,
    });
  }
  const warnings = checked.warnings;
  const warning = warnings.length ? warnings.map((w) => w.message).join('. ') : null;
  const now = ctx.now();
  return ctx.storage.write(async (trx) => {
    const row = await writeCustody(trx, req, checked, now);
    if (!row) {
      // The current material is the one given (set by this request's twin meanwhile, or before).
      const current = (await currentCustody(trx, req.merchantId, network))!;
      return { outcome: 'unchanged', network, current, old: null, warning, warnings, webhookUrl: null };
    }
    const old = checked.old;
    await writeAudit(
      trx,
      req.by,
      {
        merchantId: merchant.id,
        action: CUSTODY_AUDIT_ACTION,
        target: network,
        detail: { network, kind: row.kind, from: old?.summary ?? null, to: row.summary, ...(warning ? { warning } : {}) },
      },
      now,
    );
    const url = merchant.default_url_callback ?? null;
    if (url) {
      await enqueueWebhook(trx, {
        merchantId: merchant.id,
        kind: 'custody',
        refId: row.id,
        url,
        body: signedBody(custodyChangedFields(merchant.id, network, old?.summary ?? null, row.summary, now), merchant.payment_key),
        allowPrivate: ctx.chains.isTestNetwork(network),
        now,
      });
    }
    return { outcome: old ? 'replaced' : 'set', network, current: row, old, warning, warnings, webhookUrl: url };
  });
}

/**
 * How many deposit addresses each material has handed out: its counter (src/chain/material-pool.ts)
 * less what waits in its pool, drawn ahead, read in one statement. A refill moves the counter and
 * stores what it drew in one transaction, so this is exact while one is under way. What the
 * merchant's wallet must look past (the gap limit).
 */
export async function derivedCounts(ctx: Ctx, rows: ReadonlyArray<Pick<CustodyRow, 'id'>>): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const sources = rows.map((r) => `custody:${r.id}`);
  const counted = await ctx.storage.db
    .selectFrom('hd_counters as c')
    .select((eb) => [
      'c.key',
      'c.next_index',
      eb.selectFrom('address_pool as p').select((p) => p.fn.countAll<number | string>().as('n')).whereRef('p.source', '=', 'c.key').as('pooled'),
    ])
    .where('c.key', 'in', sources)
    .execute();
  return new Map(counted.map((c) => [c.key.slice('custody:'.length), Math.max(0, Number(c.next_index) - Number(c.pooled ?? 0))]));
}
