import { Decimal } from '../../money/decimal.ts';
import type { AddressFormatRules, PaymentUriOptions } from './types.ts';

/** Builds a wallet payment URI by the format's rules, or null when it has no URI for this kind of payment. */
export function paymentUri(rules: AddressFormatRules, opts: PaymentUriOptions): string | null {
  const { scheme, address, amount, decimals, native } = opts;
  const contract = native ? undefined : opts.contract;
  if (!native && !contract) return null;
  const units = amount === undefined ? undefined : toBaseUnits(amount, decimals);
  // Canonical decimal text: "1.50" and "1.5" give the same URI.
  const coins = units === undefined ? undefined : Decimal.fromBaseUnits(units, decimals).toString();
  return rules.paymentUri({ scheme, address, encodedAddress: encodeURIComponent(address), coins, units, contract, native, chainId: opts.chainId });
}

/** What the payment page's QR encodes. Wallets handle plain addresses most reliably, except a URI the format says they read (BIP-21 with an amount). */
export function qrContent(rules: AddressFormatRules, opts: PaymentUriOptions): string {
  if (rules.qrCarriesUri && opts.native && opts.amount !== undefined) return paymentUri(rules, opts) ?? opts.address;
  return opts.address;
}

function toBaseUnits(amount: string, decimals: number): bigint {
  const d = Decimal.parse(amount);
  if (d.isNegative()) throw new RangeError(`Negative amount: ${amount}`);
  return d.toBaseUnits(decimals); // throws rather than silently drop precision
}

/** A URI's query string from the parameters that are set (each value URI-encoded), or ''. */
export function uriQuery(params: Record<string, string | bigint | undefined>): string {
  const parts = Object.entries(params)
    .filter((e): e is [string, string | bigint] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v.toString())}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
