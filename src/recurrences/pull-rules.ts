// When a renewal is for the worker's pull step, shared by the step (./pulls.ts), the payer view's
// `auto_pull` (./payer.ts) and the choice of the renewal email (./emails.ts), so the three agree.
import type { Ctx } from '../context.ts';
import type { AllowancePuller } from '../chain/contract.ts';

/** The network's puller when its driver has one and a collector to pull with. */
export function pullerOf(ctx: Ctx, network: string | null): AllowancePuller | null {
  if (!network || !ctx.chains.offered(network)) return null;
  const p = ctx.chains.driver(network).allowances;
  return p && p.collector() !== null ? p : null;
}

/**
 * Whether the network's pulls wait for its node rather than fall back: a real network whose node
 * has not answered yet (it missed the check at the worker's start), with a collector to pull with.
 * A network switched off, or one without a collector, falls back (`no_collector`) instead.
 */
export function waitsForNode(ctx: Ctx, network: string | null): boolean {
  if (!network || !ctx.registry.network(network) || ctx.chains.whyNotOffered(network) !== 'node not answering') return false;
  const p = ctx.chains.driver(network).allowances;
  return !!p && p.collector() !== null;
}

/**
 * Whether an allowance pulls this renewal invoice: it was first recorded no later than the invoice
 * was made. One recorded while the renewal already waited (`wait_payment`) leaves that period to
 * the payer, who already has its "renewal due" email and link: pulling it too could pay the period
 * twice. Recording again (a new approval) keeps the first `created_at`, so a payer told "collected
 * automatically" is still pulled.
 */
export function allowanceCovers(allowance: { created_at: number | string }, invoice: { created_at: number | string }): boolean {
  return Number(allowance.created_at) <= Number(invoice.created_at);
}

/**
 * How long before the grace period ends a renewal whose node still cannot be asked falls back
 * (`node`): 24 hours, or half the grace when the grace is shorter. The payer then gets the reminder
 * and the page shows the invoice in time to pay it by hand, instead of being told "nothing to do"
 * until the subscription lapses.
 */
export function nodeFallbackMargin(ctx: Ctx): number {
  return Math.min(24 * 3_600_000, Math.floor(ctx.config.recurrenceGraceMs / 2));
}
