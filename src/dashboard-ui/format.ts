// Display of amounts and times in the user's language (./i18n/). Amounts arrive as decimal strings
// and stay strings (../ui-kit/decimal.ts): only their separators follow the language. Every time the
// dashboard shows goes through `time`, so one instant reads the same in a list and on its own page:
// the user's time zone, named ("14:05 GMT+3"). Outside links go through ../ui-kit/links.ts.
import { formatDecimal } from '../ui-kit/decimal.ts';
import { decimalStyle } from '../ui-kit/locale.ts';
import { locale } from './i18n/index.ts';

const dates = new Map<string, Intl.DateTimeFormat>();

function dateFormat(loc: string, withSeconds: boolean, zone: string | undefined): Intl.DateTimeFormat {
  const key = `${loc}|${withSeconds}|${zone ?? ''}`;
  let f = dates.get(key);
  if (!f) {
    const options: Intl.DateTimeFormatOptions = {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      ...(withSeconds ? { second: '2-digit' } : {}),
      timeZoneName: 'short',
      ...(zone ? { timeZone: zone } : {}),
    };
    dates.set(key, (f = new Intl.DateTimeFormat(loc, options)));
  }
  return f;
}

/**
 * A moment in the user's language and time zone with the zone named: "Nov 27, 2026, 02:05 PM
 * GMT+3". `withSeconds` where seconds matter (a rate quote's freshness); `zone` only for tests.
 */
export function time(ms: number | null | undefined, withSeconds = false, zone?: string): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  return dateFormat(locale.value, withSeconds, zone).format(ms);
}

/** Groups a decimal string with the language's separators; the digits never go through a number. */
export function amount(value: string | null | undefined, currency?: string | null): string {
  if (value === null || value === undefined || value === '') return '—';
  const neg = value.startsWith('-');
  return `${neg ? '−' : ''}${formatDecimal(neg ? value.slice(1) : value, decimalStyle(locale.value))}${currency ? ' ' + currency : ''}`;
}

const counts = new Map<string, Intl.NumberFormat>();

/** A whole count (attempts, addresses) in the language's digits and grouping. */
export function count(n: number): string {
  let f = counts.get(locale.value);
  if (!f) counts.set(locale.value, (f = new Intl.NumberFormat(locale.value, { maximumFractionDigits: 0 })));
  return f.format(n);
}

export function short(id: string, keep = 8): string {
  return id.length > keep * 2 + 1 ? `${id.slice(0, keep)}…${id.slice(-keep)}` : id;
}
