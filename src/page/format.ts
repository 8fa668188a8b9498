// The page's amounts, countdown and times in the payer's language. Amounts are decimal strings and
// stay strings (../ui-kit/decimal.ts); only the separators come from Intl.
import { formatDecimal, trimZeros } from '../ui-kit/decimal.ts';
import { KNOWN_STYLES, decimalStyle } from '../ui-kit/locale.ts';

export { KNOWN_STYLES, decimalStyle };

/** A localised amount with its currency code. `exact` keeps trailing zeros (order totals: "15.00 USD"). */
export function formatAmount(value: string, currency: string, locale: string, exact = true): string {
  return `${formatDecimal(exact ? value : trimZeros(value), decimalStyle(locale))} ${currency}`;
}

const integers = new Map<string, Intl.NumberFormat>();

/**
 * The page's locales whose numbers are written with ASCII digits (test/page/countdown.test.tsx checks
 * them against Intl): their countdown needs no Intl.NumberFormat, whose first use in a fresh tab
 * loads ICU's number data (tens of milliseconds before the first invoice is shown). Arabic and
 * Persian, whose digits depend on the browser's ICU, and any other locale ask Intl.
 */
export const ASCII_DIGIT_LOCALES: ReadonlySet<string> = new Set(
  Object.keys(KNOWN_STYLES).filter((locale) => locale !== 'ar' && locale !== 'fa-IR'),
);

function integer(value: number, locale: string, minDigits: 1 | 2): string {
  if (ASCII_DIGIT_LOCALES.has(locale)) return String(value).padStart(minDigits, '0');
  const key = `${locale}|${minDigits}`;
  let format = integers.get(key);
  if (!format) integers.set(key, (format = new Intl.NumberFormat(locale, { minimumIntegerDigits: minDigits, useGrouping: false })));
  return format.format(value);
}

/** The countdown, 14:05 or 1:02:03, with the language's digits (Persian shows ۱۴:۰۵). */
export function formatDuration(totalSeconds: number, locale: string): string {
  const h = Math.floor(totalSeconds / 3600);
  const m = integer(Math.floor((totalSeconds % 3600) / 60), locale, 2);
  const s = integer(totalSeconds % 60, locale, 2);
  return h > 0 ? `${integer(h, locale, 1)}:${m}:${s}` : `${m}:${s}`;
}

/**
 * How the page's locales write a time of day (hour numeric, minutes 2-digit), as Intl does
 * (test/page/i18n.test.tsx checks every hour against Intl): 24-hour with their separator, or
 * English's 12-hour with AM/PM. The "pay before" time of the first screen then needs no
 * Intl.DateTimeFormat, whose first use in a fresh tab loads ICU's data (see KNOWN_STYLES). Locales
 * that name the day period in words (ko, hi, ar) or write other digits (fa), and any other
 * locale, ask Intl.
 */
export const KNOWN_TIMES: Record<string, { h12: boolean; separator: string }> = {
  'en-US': { h12: true, separator: ':' },
  ...Object.fromEntries(
    ['es-ES', 'pt-BR', 'ru-RU', 'tr-TR', 'zh-CN', 'de-DE', 'fr-FR', 'it-IT', 'nl-NL', 'pl-PL', 'uk-UA', 'ja-JP', 'vi-VN', 'th-TH'].map((locale) => [
      locale,
      { h12: false, separator: ':' },
    ]),
  ),
  'id-ID': { h12: false, separator: '.' },
};

/** The time of day in the browser's time zone: 2:05 PM, 14:05, 14.05. */
export function formatTime(unixMs: number, locale: string): string {
  const known = KNOWN_TIMES[locale];
  if (!known) return new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' }).format(unixMs);
  const date = new Date(unixMs);
  const hours = date.getHours();
  const minutes = String(date.getMinutes()).padStart(2, '0');
  if (!known.h12) return `${hours}${known.separator}${minutes}`;
  return `${hours % 12 || 12}${known.separator}${minutes} ${hours < 12 ? 'AM' : 'PM'}`;
}
