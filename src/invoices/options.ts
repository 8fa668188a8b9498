// Which (currency, network) pairs a payer may choose for an invoice: the offered pairs
// (Chains.offeredPairs) that the invoice's restriction allows.
import type { Chains } from '../chain/networks.ts';
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

export function allowedPairs(chains: Chains, r: Restriction): Array<{ network: NetworkDef; currency: CurrencyDef }> {
  return chains.offeredPairs().filter(({ network, currency }) => {
    if (r.currency && r.currency.toUpperCase() !== currency.code.toUpperCase()) return false;
    if (r.network && r.network.toUpperCase() !== network.code.toUpperCase()) return false;
    if (r.currencies && !r.currencies.some((f) => matches(f, network, currency))) return false;
    if (r.except && r.except.some((f) => matches(f, network, currency))) return false;
    return true;
  });
}
