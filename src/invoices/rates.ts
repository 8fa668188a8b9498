// The rate an invoice or payout is priced at, as the spec words its failure, and the commission
// percent that applies to a currency on a network.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';
import { RateUnavailableError } from '../rates/types.ts';
import type { Quote } from '../rates/service.ts';

export async function quoteRate(
  ctx: Ctx,
  from: string,
  to: string,
  source: string | null,
): Promise<Quote> {
  if (from.toUpperCase() === to.toUpperCase()) return { rate: '1', source: source ?? 'static', quotes: [] };
  try {
    return await ctx.rates.quote(from, to, source);
  } catch (e) {
    // No fresh, agreeing price: refused rather than priced on old data (the engine's rule).
    if (e instanceof RateUnavailableError) throw new BusinessError(Msg.convertFailed);
    throw e;
  }
}

/** Commission percent for a currency on a network: operator override, else the registry's. */
export function commissionPercent(ctx: Ctx, currency: string, network: string, registryDefault: string): string {
  const c = ctx.config.commission;
  return c[`${currency}:${network}`.toUpperCase()] ?? c[currency.toUpperCase()] ?? registryDefault;
}
