// How an amount is written where the API and webhooks show it.
import { Decimal } from './decimal.ts';

/** Amounts go out as strings with at least two places ("15.00", "0.00012345"). */
export function money(v: string): string;
export function money(v: string | null): string | null;
export function money(v: string | null): string | null {
  return v === null ? null : Decimal.parse(v).toAmount(2);
}
