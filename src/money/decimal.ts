// Exact decimal arithmetic on bigint. No JavaScript number ever holds an amount.
// Parsing is plain notation only and bounded by the text's length: exponent notation is refused
// before anything is expanded, so no input can make parsing cost more than its own size.

export type Rounding = 'up' | 'down' | 'half-up';

/** Longest decimal text parsed at all; balances of bounded amounts stay far below it. */
export const MAX_DECIMAL_TEXT = 80;

/**
 * What one amount entering the gateway (API, simulator, chain) may be: below 10^30 in absolute
 * value with at most 18 places. A ledger of such amounts keeps every balance parseable (a
 * billion billion of them still sums to under 60 digits), so no single value can wedge it.
 */
export const AMOUNT_BOUND = { integerDigits: 30, places: 18 } as const;

const DECIMAL_RE = /^([+-])?(\d+)(?:\.(\d+))?$/;
const LOOSE_RE = /^([+-])?(\d*)(?:\.(\d*))?$/;

/** A text that is not a plain decimal reached code that required one. */
export class DecimalFormatError extends Error {
  constructor(text: string) {
    super(`Not a decimal: ${JSON.stringify(text.length > 100 ? text.slice(0, 100) + '...' : text)}`);
    this.name = 'DecimalFormatError';
  }
}

export class Decimal {
  /** value = units / 10^scale */
  private constructor(
    readonly units: bigint,
    readonly scale: number,
  ) {}

  static readonly ZERO = new Decimal(0n, 0);

  static of(units: bigint, scale = 0): Decimal {
    return new Decimal(units, scale);
  }

  /** Strict parse of a decimal string ("10", "10.28", "-0.5"). Throws on anything else. */
  static parse(text: string): Decimal {
    const d = Decimal.tryParse(text);
    if (!d) throw new DecimalFormatError(String(text));
    return d;
  }

  /** Accepts "10", "10.5", ".5", "5." (what a lenient client may send); null otherwise. */
  static tryParse(text: string): Decimal | null {
    if (typeof text !== 'string' || text.length === 0 || text.length > MAX_DECIMAL_TEXT) return null;
    const m = DECIMAL_RE.exec(text) ?? LOOSE_RE.exec(text);
    if (!m) return null;
    const int = m[2] ?? '';
    const frac = m[3] ?? '';
    if (int === '' && frac === '') return null;
    const units = BigInt((int || '0') + frac);
    return new Decimal(m[1] === '-' ? -units : units, frac.length);
  }

  static isDecimal(text: unknown): text is string {
    return typeof text === 'string' && Decimal.tryParse(text) !== null;
  }

  /** Within AMOUNT_BOUND (trailing zeros of the fraction do not count as places). */
  isBoundedAmount(): boolean {
    const t = trimZeros(this);
    if (t.scale > AMOUNT_BOUND.places) return false;
    const whole = (t.units < 0n ? -t.units : t.units) / 10n ** BigInt(t.scale);
    return whole < 10n ** BigInt(AMOUNT_BOUND.integerDigits);
  }

  private align(other: Decimal): [bigint, bigint, number] {
    if (this.scale === other.scale) return [this.units, other.units, this.scale];
    if (this.scale > other.scale) {
      return [this.units, other.units * 10n ** BigInt(this.scale - other.scale), this.scale];
    }
    return [this.units * 10n ** BigInt(other.scale - this.scale), other.units, other.scale];
  }

  add(other: Decimal | string): Decimal {
    const [a, b, s] = this.align(dec(other));
    return new Decimal(a + b, s);
  }

  sub(other: Decimal | string): Decimal {
    const [a, b, s] = this.align(dec(other));
    return new Decimal(a - b, s);
  }

  mul(other: Decimal | string): Decimal {
    const o = dec(other);
    return new Decimal(this.units * o.units, this.scale + o.scale);
  }

  /** Division rounded to `scale` places. */
  div(other: Decimal | string, scale: number, rounding: Rounding): Decimal {
    const o = dec(other);
    if (o.units === 0n) throw new RangeError('Division by zero');
    // this/o = (tu / 10^ts) / (ou / 10^os) = tu * 10^(os) / (ou * 10^ts)
    let num = this.units * 10n ** BigInt(o.scale + scale);
    let den = o.units * 10n ** BigInt(this.scale);
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    return new Decimal(divRound(num, den, rounding), scale);
  }

  /** Rounds to `scale` places (never adds precision loss when scale >= this.scale). */
  round(scale: number, rounding: Rounding): Decimal {
    if (scale >= this.scale) return new Decimal(this.units * 10n ** BigInt(scale - this.scale), scale);
    const den = 10n ** BigInt(this.scale - scale);
    return new Decimal(divRound(this.units, den, rounding), scale);
  }

  /** Multiplies by pct/100. */
  percent(pct: Decimal | string): Decimal {
    return this.mul(dec(pct)).mul(new Decimal(1n, 2));
  }

  cmp(other: Decimal | string): -1 | 0 | 1 {
    const [a, b] = this.align(dec(other));
    return a < b ? -1 : a > b ? 1 : 0;
  }

  eq(other: Decimal | string): boolean {
    return this.cmp(other) === 0;
  }
  lt(other: Decimal | string): boolean {
    return this.cmp(other) < 0;
  }
  lte(other: Decimal | string): boolean {
    return this.cmp(other) <= 0;
  }
  gt(other: Decimal | string): boolean {
    return this.cmp(other) > 0;
  }
  gte(other: Decimal | string): boolean {
    return this.cmp(other) >= 0;
  }
  isZero(): boolean {
    return this.units === 0n;
  }
  isNegative(): boolean {
    return this.units < 0n;
  }
  neg(): Decimal {
    return new Decimal(-this.units, this.scale);
  }
  abs(): Decimal {
    return this.units < 0n ? this.neg() : this;
  }
  max(other: Decimal | string): Decimal {
    const o = dec(other);
    return this.gte(o) ? this : o;
  }
  min(other: Decimal | string): Decimal {
    const o = dec(other);
    return this.lte(o) ? this : o;
  }

  /** Count of places actually used (ignoring trailing zeros). */
  places(): number {
    return trimZeros(this).scale;
  }

  /** Exact text with all stored places ("15.000000"). */
  toFixedString(): string {
    const neg = this.units < 0n;
    const digits = (neg ? -this.units : this.units).toString().padStart(this.scale + 1, '0');
    const int = digits.slice(0, digits.length - this.scale);
    const frac = digits.slice(digits.length - this.scale);
    return (neg ? '-' : '') + int + (this.scale > 0 ? '.' + frac : '');
  }

  /** Shortest exact text ("15", "0.5"). */
  toString(): string {
    return trimZeros(this).toFixedString();
  }

  /** Exact text with trailing zeros trimmed but at least `minPlaces` places ("15.00", "0.00012"). */
  toAmount(minPlaces = 2): string {
    const t = trimZeros(this);
    return t.scale >= minPlaces ? t.toFixedString() : t.round(minPlaces, 'down').toFixedString();
  }

  /** Integer count of base units at `decimals` places (for chains); throws if precision would be lost. */
  toBaseUnits(decimals: number): bigint {
    const r = this.round(decimals, 'down');
    if (!r.eq(this)) throw new RangeError(`More than ${decimals} decimal places: ${this.toString()}`);
    return r.units;
  }

  static fromBaseUnits(units: bigint, decimals: number): Decimal {
    return new Decimal(units, decimals);
  }
}

function trimZeros(d: Decimal): Decimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  return Decimal.of(units, scale);
}

function divRound(num: bigint, den: bigint, rounding: Rounding): bigint {
  // den > 0 here
  const q = num / den; // truncates toward zero
  const r = num % den;
  if (r === 0n) return q;
  const positive = num > 0n;
  switch (rounding) {
    case 'down': // toward zero: credited amounts never exceed what is owed
      return q;
    case 'up': // away from zero: what a payer must pay is never short
      return positive ? q + 1n : q - 1n;
    case 'half-up': {
      const twice = (r < 0n ? -r : r) * 2n;
      if (twice >= den) return positive ? q + 1n : q - 1n;
      return q;
    }
  }
}

export function dec(v: Decimal | string): Decimal {
  return typeof v === 'string' ? Decimal.parse(v) : v;
}

/** Sum of decimal strings. */
export function sum(values: Iterable<Decimal | string>): Decimal {
  let total = Decimal.ZERO;
  for (const v of values) total = total.add(v);
  return total;
}
