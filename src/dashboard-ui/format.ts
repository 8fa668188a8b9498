// Display of amounts and times. Amounts arrive as decimal strings and stay strings
// (../ui-kit/decimal.ts); outside links go through ../ui-kit/links.ts.
import { formatDecimal, type DecimalStyle } from '../ui-kit/decimal.ts';

/** The dashboard writes amounts one way whatever the browser's language: 1 234 567.5. */
const THIN_SPACES: DecimalStyle = { group: '\u202f', decimal: '.', minGrouping: 1 };

/** `withSeconds` where seconds matter (a rate quote's freshness). */
export function time(ms: number | null | undefined, withSeconds = false): string {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  const hm = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return withSeconds ? `${hm}:${pad(d.getSeconds())}` : hm;
}

/** Groups the integer part of a decimal string with thin spaces; never goes through a number. */
export function amount(value: string | null | undefined, currency?: string | null): string {
  if (value === null || value === undefined || value === '') return '—';
  const neg = value.startsWith('-');
  return `${neg ? '−' : ''}${formatDecimal(neg ? value.slice(1) : value, THIN_SPACES)}${currency ? ' ' + currency : ''}`;
}

export function short(id: string, keep = 8): string {
  return id.length > keep * 2 + 1 ? `${id.slice(0, keep)}…${id.slice(-keep)}` : id;
}
