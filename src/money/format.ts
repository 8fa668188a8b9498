// How an amount is written where the API and webhooks show it.
import { Decimal, MAX_DECIMAL_TEXT } from './decimal.ts';

/** Amounts go out as strings with at least two places ("15.00", "0.00012345"). */
export function money(v: string): string;
export function money(v: string | null): string | null;
export function money(v: string | null): string | null {
  if (v === null) return null;
  // Stored amounts are mostly written this way already: no leading zeros, at least two places,
  // no trailing zero past the second. Such a text is its own result.
  return v.length <= MAX_DECIMAL_TEXT && CANONICAL.test(v) ? v : Decimal.parse(v).toAmount(2);
}

const CANONICAL = /^(?:0|[1-9]\d*)\.\d\d(?:\d*[1-9])?$/;
