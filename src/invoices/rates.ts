import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';

export async function quoteRate(
  ctx: Ctx,
  from: string,
  to: string,
  source: string | null,
): Promise<{ rate: string; source: string }> {
  if (from.toUpperCase() === to.toUpperCase()) return { rate: '1', source: source ?? 'static' };
  try {
    return await ctx.rates.quote(from, to, source);
  } catch {
    throw new BusinessError(Msg.convertFailed);
  }
}

/** Commission percent for a currency on a network: operator override, else the registry's. */
export function commissionPercent(ctx: Ctx, currency: string, network: string, registryDefault: string): string {
  const c = ctx.config.commission;
  return c[`${currency}:${network}`.toUpperCase()] ?? c[currency.toUpperCase()] ?? registryDefault;
}
