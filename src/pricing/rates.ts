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

/** How long a lookup made inside a database transaction may wait for the exchanges. */
const IN_TRANSACTION_WAIT_MS = 250;

/**
 * A rate for a figure that may be left empty (a payment's USD value, a fee that can wait for the
 * next top-up), asked while a transaction that records a chain transfer is open: it waits at most
 * a quarter of a second, so a slow exchange never holds the database's write lock (on SQLite, every
 * other write waits behind it). A lookup that takes longer goes on in the background and fills the
 * engine's cache for the next one. Null when there is no price now.
 */
export async function rateIfQuick(ctx: Ctx, from: string, to: string): Promise<string | null> {
  if (from.toUpperCase() === to.toUpperCase()) return '1';
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), IN_TRANSACTION_WAIT_MS);
  });
  const asked = ctx.rates.quote(from, to, null).then(
    (q) => q.rate,
    () => null,
  );
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Commission percent for a currency on a network: operator override, else the registry's. */
export function commissionPercent(ctx: Ctx, currency: string, network: string, registryDefault: string): string {
  const c = ctx.config.commission;
  return c[`${currency}:${network}`.toUpperCase()] ?? c[currency.toUpperCase()] ?? registryDefault;
}
