// Which (currency, network) pairs a payer may choose for an invoice: the pairs the merchant can
// receive on (src/custody/offer.ts) that the invoice's restriction allows.
import type { ReceivingOffer } from '../custody/offer.ts';
import type { CurrencyDef, NetworkDef } from '../registry/index.ts';

export interface CurrencyFilter {
  currency: string;
  network?: string | null;
}

export interface Restriction {
  /** Allowed list (null: every supported cryptocurrency). */
  currencies: CurrencyFilter[] | null;
  except: CurrencyFilter[] | null;
  /** Fixed by the merchant at creation. */
  currency: string | null;
  network: string | null;
}

function matches(f: CurrencyFilter, network: NetworkDef, currency: CurrencyDef): boolean {
  return (
    f.currency.toUpperCase() === currency.code.toUpperCase() &&
    (!f.network || f.network.toUpperCase() === network.code.toUpperCase())
  );
}

export function allowedPairs(chains: Pick<ReceivingOffer, 'offeredPairs'>, r: Restriction): Array<{ network: NetworkDef; currency: CurrencyDef }> {
  return chains.offeredPairs().filter(({ network, currency }) => {
    if (r.currency && r.currency.toUpperCase() !== currency.code.toUpperCase()) return false;
    if (r.network && r.network.toUpperCase() !== network.code.toUpperCase()) return false;
    if (r.currencies && !r.currencies.some((f) => matches(f, network, currency))) return false;
    if (r.except && r.except.some((f) => matches(f, network, currency))) return false;
    return true;
  });
}
