// Display of decimal amounts for both apps. Amounts are decimal strings and stay strings: a JS
// number would round 18-decimal amounts. Only the separators vary; the digits are never converted.
export interface DecimalStyle {
  group: string;
  decimal: string;
  /** Intl's minimum grouping digits: 2 means 1234 stays ungrouped (es, pt-PT, ...). */
  minGrouping: 1 | 2;
}

export const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

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
