// How an amount, and a time, is written where the API and webhooks show it.
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

/** ISO 8601 at UTC+3, as the spec shows timestamps ("2023-06-07T16:02:39+03:00"). */
export function isoMsk(ms: number): string {
  const iso = new Date(ms + 3 * 3600_000).toISOString();
  // "YYYY-MM-DDTHH:mm:ss.sssZ" for every year from 0 to 9999; other years have a longer form.
  return iso.length === 24 ? `${iso.slice(0, 19)}+03:00` : iso.replace(/\.\d{3}Z$/, '+03:00');
}
