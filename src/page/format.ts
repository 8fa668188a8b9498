// Amounts are decimal strings and stay strings: a JS number would round 18-decimal amounts.
// Only the separators come from Intl; the digits are never converted.
export interface DecimalStyle {
  group: string;
  decimal: string;
  /** Intl's minimum grouping digits: 2 means 1234 stays ungrouped (es, pt-PT, ...). */
  minGrouping: 1 | 2;
}

/**
 * The separators of the page's own locales, as Intl gives them (test/page/i18n.test.tsx checks):
 * creating the first Intl.NumberFormat in a fresh tab loads ICU's number data, which costs tens of
 * milliseconds before the first paint. Other locales (a browser's pt-PT, de-CH) ask Intl.
 */
export const KNOWN_STYLES: Record<string, DecimalStyle> = {
  'en-US': { group: ',', decimal: '.', minGrouping: 1 },
  'es-ES': { group: '.', decimal: ',', minGrouping: 2 },
  'pt-BR': { group: '.', decimal: ',', minGrouping: 1 },
  'ru-RU': { group: '\u00a0', decimal: ',', minGrouping: 1 },
  'tr-TR': { group: '.', decimal: ',', minGrouping: 1 },
  'zh-CN': { group: ',', decimal: '.', minGrouping: 1 },
};

const styles = new Map<string, DecimalStyle>(Object.entries(KNOWN_STYLES));

export function decimalStyle(locale: string): DecimalStyle {
  const cached = styles.get(locale);
  if (cached) return cached;
  const format = new Intl.NumberFormat(locale);
  const parts = format.formatToParts(12345.5);
  const style: DecimalStyle = {
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
    minGrouping: format.formatToParts(1234).some((p) => p.type === 'group') ? 1 : 2,
  };
  styles.set(locale, style);
  return style;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** "1234567.50" -> "1,234,567.50" (en) or "1 234 567,50" (ru). Anything not a decimal is returned as is. */
export function formatDecimal(value: string, style: DecimalStyle): string {
  const match = DECIMAL.exec(value.trim());
  if (!match) return value;
  const [, sign = '', integer = '', fraction] = match;
  const groupFrom = style.minGrouping === 2 ? 5 : 4;
  const grouped = integer.length >= groupFrom ? integer.replace(/\B(?=(\d{3})+(?!\d))/g, style.group) : integer;
  return sign + grouped + (fraction === undefined ? '' : style.decimal + fraction);
}

/** "0.371200000000000000" -> "0.3712": same value, readable. "15.00" -> "15". */
export function trimZeros(value: string): string {
  return DECIMAL.test(value.trim()) && value.includes('.') ? value.trim().replace(/\.?0+$/, '') : value;
}

/** A localised amount with its currency code. `exact` keeps trailing zeros (order totals: "15.00 USD"). */
export function formatAmount(value: string, currency: string, locale: string, exact = true): string {
  return `${formatDecimal(exact ? value : trimZeros(value), decimalStyle(locale))} ${currency}`;
}

export function formatTime(unixMs: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' }).format(unixMs);
}
