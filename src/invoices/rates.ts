import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';

const SOURCES: Record<string, string> = {
  binance: 'Binance',
  binancep2p: 'BinanceP2P',
  exmo: 'Exmo',
  kucoin: 'Kucoin',
};

/** `course_source` as the API accepts it (case-insensitive), or null when unknown. */
export function normalizeCourseSource(s: string): string | null {
  const key = s.toLowerCase();
  return Object.hasOwn(SOURCES, key) ? SOURCES[key]! : null;
}

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
