// The payout sender (docs/payouts.md): claims due outgoing payments and hands each to its network's
// driver. A claim is a lease (next_attempt_at moved forward in the claiming transaction, rows taken
// with SKIP LOCKED on PostgreSQL), so several workers never send the same payout at once; the send
// itself happens outside any transaction. A worker that dies between the driver's send and the
// record of its txid leaves the payout claimable again once the lease ends, and the driver's send
// is idempotent on the payout's uuid: the retry returns the same transaction, never a second one.
import type { Ctx, Job } from '../context.ts';
import { HotWalletShortError, SendRejectedError } from '../chain/errors.ts';
import type { Priority } from '../registry/index.ts';
import type { PayoutRow } from './payout-record.ts';
import { applyPendingEvents, claimDue, failUnsent, recordBroadcast, recordSendError, releaseClaims } from './lifecycle.ts';

/** How long a claimed payout is left to its worker before another may try it (the default of
 * SATCHEL_PAYOUT_LEASE_MS). */
export const LEASE_MS = 60_000;
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 10 * 60_000;

/** Waits between attempts after `attempts` failed sends: 5 s doubling up to 10 min. */
export function retryDelay(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
}

/**
 * A driver's "this can never be sent as asked; nothing was signed or broadcast": the payout fails
 * and its funds return. Anything else (a node that is down, a hot wallet that is short) is retried,
 * since the payout may yet go out and failing it could pay twice.
 */
export function isRefusal(err: unknown): boolean {
  return err instanceof SendRejectedError;
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 500);
}

/** Sends what is due (at most `limit`); returns how many were tried. Once `signal` aborts (the
 * process is shutting down) the claimed payouts not yet begun are handed back at once. */
export async function sendDuePayouts(ctx: Ctx, limit = 25, signal?: AbortSignal): Promise<number> {
  const claimed = await claimDue(ctx, limit, ctx.now() + (ctx.config.payoutLeaseMs ?? LEASE_MS));
  for (let i = 0; i < claimed.length; i++) {
    if (signal?.aborted) {
      await releaseClaims(ctx, claimed.slice(i).map((r) => r.id));
      return i;
    }
    await sendOne(ctx, { ...claimed[i]!, attempts: claimed[i]!.attempts + 1 });
  }
  return claimed.length;
}

/** Sends one payout now, lease or not (the simulator; the send is idempotent anyway). */
export async function sendPayoutNow(ctx: Ctx, id: string): Promise<void> {
  const row = await ctx.storage.db.selectFrom('payouts').selectAll().where('id', '=', id).where('status', '=', 'process').where('txid', 'is', null).executeTakeFirst();
  if (row) await sendOne(ctx, row);
}

async function sendOne(ctx: Ctx, row: PayoutRow): Promise<void> {
  let txid: string;
  try {
    ({ txid } = await ctx.chains.driver(row.network).send({
      id: row.id,
      network: row.network,
      currency: row.payer_currency,
      to: row.address,
      amount: row.payer_amount,
      priority: row.priority as Priority,
      memo: row.memo,
    }));
  } catch (err) {
    if (isRefusal(err)) {
      await ctx.storage.write((trx) => failUnsent(ctx, trx, row.id, errorText(err)));
      return;
    }
    if (err instanceof HotWalletShortError) {
      // Accepted while the wallet could pay, short now (other payouts went first, a token left it):
      // nothing was signed, so after the configured wait it fails and its funds return.
      const waited = ctx.now() - Number(row.created_at);
      if (waited >= ctx.config.payoutStuckTimeoutMs) {
        const minutes = Math.round(ctx.config.payoutStuckTimeoutMs / 60_000);
        await ctx.storage.write((trx) => failUnsent(ctx, trx, row.id, `The hot wallet could not cover this payout for ${minutes} min: ${errorText(err)}`.slice(0, 500)));
        console.warn(`payout ${row.id} failed, funds returned: the ${row.network} hot wallet lacked ${err.currency} for ${minutes} min`);
        return;
      }
      console.warn(`payout ${row.id} is stuck: the ${row.network} hot wallet lacks ${err.currency} (fails with funds returned after ${Math.round(ctx.config.payoutStuckTimeoutMs / 60_000)} min)`);
    }
    await recordSendError(ctx, row.id, errorText(err), ctx.now() + retryDelay(row.attempts));
    return;
  }
  await ctx.storage.write((trx) => recordBroadcast(ctx, trx, row.id, txid));
}

/** The worker's payout job: applies chain reports that a race left behind, then sends what is due. */
export const payoutJob: Job = async (ctx, signal) => {
  await applyPendingEvents(ctx);
  return sendDuePayouts(ctx, 25, signal);
};
