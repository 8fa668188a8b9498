// Numeric parameters as a Laravel client may send them ("5", "-0.5", ".5", "4e-3", 5): read in one
// pass over the text and compared as (sign, digits, power of ten) without ever writing the number
// out. An exponent is a count, never a length: "4e-400000000" costs its 12 characters, not 400
// million zeros.

/** Characters read by the numeric scanner since the process started: the bad-input tests budget
 * the work of a request by it instead of by wall-clock time. */
export const numericWork = { steps: 0 };

/** A finite number as sign x 0.digits x 10^power, digits without leading or trailing zeros ("" for zero). */
export interface NumericParts {
  negative: boolean;
  digits: string;
  power: number;
}

/** Beyond this an exponent only says "astronomically large or small": clamping keeps arithmetic
 * in safe integers and every comparison with a bound a person could write the same. */
const EXPONENT_CLAMP = 1e15;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Parses `[+-]digits[.digits][(e|E)[+-]digits]` (at least one mantissa digit), or a finite
 * JavaScript number; null for anything else. Surrounding ASCII whitespace is ignored (as
 * Laravel's `numeric` does). Work is linear in the text's length.
 */
export function scanNumeric(value: unknown): NumericParts | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    value = String(value);
  }
  if (typeof value !== 'string') return null;
  const s = value;
  let i = 0;
  let end = s.length;
  while (i < end && s.charCodeAt(i) <= 32) i++;
  while (end > i && s.charCodeAt(end - 1) <= 32) end--;
  numericWork.steps += s.length;
  let negative = false;
  if (s[i] === '+' || s[i] === '-') negative = s[i++] === '-';
  const intStart = i;
  while (i < end && isDigit(s.charCodeAt(i))) i++;
  const intEnd = i;
  let fracStart = i;
  let fracEnd = i;
  if (s[i] === '.') {
    fracStart = ++i;
    while (i < end && isDigit(s.charCodeAt(i))) i++;
    fracEnd = i;
  }
  if (intEnd === intStart && fracEnd === fracStart) return null;
  let exponent = 0;
  if (s[i] === 'e' || s[i] === 'E') {
    i++;
    let expNegative = false;
    if (s[i] === '+' || s[i] === '-') expNegative = s[i++] === '-';
    const expStart = i;
    while (i < end && isDigit(s.charCodeAt(i))) {
      // Accumulating past the clamp would only lose precision nobody can use.
      if (exponent < EXPONENT_CLAMP) exponent = exponent * 10 + (s.charCodeAt(i) - 48);
      i++;
    }
    if (i === expStart) return null;
    exponent = Math.min(exponent, EXPONENT_CLAMP);
    if (expNegative) exponent = -exponent;
  }
  if (i !== end) return null;

  // value = 0.<int digits><fraction digits> x 10^(int length + exponent); leading zeros shift
  // the power down, trailing zeros say nothing.
  const all = s.slice(intStart, intEnd) + s.slice(fracStart, fracEnd);
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === 48) first++;
  if (first === all.length) return { negative: false, digits: '', power: 0 };
  let last = all.length;
  while (all.charCodeAt(last - 1) === 48) last--;
  const digits = all.slice(first, last);
  const power = intEnd - intStart + exponent - first;
  return { negative, digits, power };
}

function compareMagnitude(a: NumericParts, b: NumericParts): number {
  if (a.digits === '' || b.digits === '') return (a.digits === '' ? 0 : 1) - (b.digits === '' ? 0 : 1);
  if (a.power !== b.power) return a.power < b.power ? -1 : 1;
  return a.digits === b.digits ? 0 : a.digits < b.digits ? -1 : 1;
}

/** -1, 0 or 1 as a < b, a = b, a > b. Zero has no sign ("-0" equals "0"). */
export function compareNumeric(a: NumericParts, b: NumericParts): number {
  const an = a.negative && a.digits !== '';
  const bn = b.negative && b.digits !== '';
  if (an !== bn) return an ? -1 : 1;
  const c = compareMagnitude(a, b);
  return an ? -c : c;
}
