import { Decimal } from '../../money/decimal.ts';
import { depositParts } from '../watch-paths.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { AddressFormatRules, PaymentUriOptions } from './types.ts';

/** Builds a wallet payment URI by the format's rules, or null when it has no URI for this kind of payment. */
export function paymentUri(rules: AddressFormatRules, opts: PaymentUriOptions): string | null {
  const { scheme, address, amount, decimals, native } = opts;
  const contract = native ? undefined : opts.contract;
  if (!native && !contract) return null;
  const units = amount === undefined ? undefined : toBaseUnits(amount, decimals);
  // Canonical decimal text: "1.50" and "1.5" give the same URI.
  const coins = units === undefined ? undefined : Decimal.fromBaseUnits(units, decimals).toString();
  return rules.paymentUri({ scheme, address, encodedAddress: encodeURIComponent(address), coins, units, contract, native, chainId: opts.chainId, reference: opts.reference, label: opts.label });
}

/**
 * What the payment page's QR encodes. Wallets handle plain addresses most reliably, except a URI the
 * format says they read (BIP-21 with an amount). A payment that needs a reference always carries the
 * URI: the plain address alone would make a payment nobody can match.
 */
export function qrContent(rules: AddressFormatRules, opts: PaymentUriOptions): string {
  if (opts.reference !== undefined) return paymentUri(rules, opts) ?? opts.address;
  if (rules.qrCarriesUri && opts.native && opts.amount !== undefined) return paymentUri(rules, opts) ?? opts.address;
  return opts.address;
}

/**
 * What the QR of an allocated deposit (the API's `address_qr_code`) encodes: the address itself, or
 * for a deposit key (../watch-paths.ts) the format's payment URI to the account with the reference
 * and no amount (never the key itself, which no wallet reads).
 */
export function depositQrContent(rules: AddressFormatRules, network: DepositNetwork, deposit: string): string {
  const { address, reference } = depositParts(deposit);
  if (reference === null) return address;
  return paymentUri(rules, { format: network.address_format, scheme: network.uri_scheme, address, decimals: 0, native: true, reference }) ?? address;
}

/** What depositQrContent reads of a network. */
export type DepositNetwork = Pick<NetworkDef, 'address_format' | 'uri_scheme'>;

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
